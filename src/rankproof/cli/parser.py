"""The parser of the ``rankproof`` command, assembled from one module per command.

Each command module has ``NAME``, ``HELP``, ``EXAMPLES`` (the end of its
``--help``), ``add_arguments(parser)`` and ``run(args)``. Options shared
between commands come from one definition each (:mod:`.inputs` for the
inputs and the protocol). Building the parser imports no command's
dependencies: a command imports what it runs when it runs.
"""

from __future__ import annotations

import argparse

from . import (agree, balance, compare, demo, evaluate, explain, fit_pbm, fuse, measures, monitor, nuggets, protocol,
               rag, report, similarity, systems, trec_eval, why)
from .usage import UsageError, literal

__all__ = ["COMMANDS", "build_parser"]

# In the order of `rankproof --help`.
COMMANDS = (evaluate, rag, nuggets, explain, why, measures, protocol, trec_eval, compare, systems, agree, similarity,
            report, fuse, fit_pbm, demo, balance, monitor)


class Parser(argparse.ArgumentParser):
    """A parser whose errors are one line and exit 2 (a UsageError), with no usage dump."""

    def error(self, message: str):
        raise UsageError(source=self.prog, what=literal(f"{message} (see {self.prog} --help)"))


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata
    costs ~20-80 ms at start-up, paid by every command if the text were built with the parser)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show the program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import version

        print(f"rankproof {version('rankproof')}")  # on stdout, as argparse's own version action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; the command module's ``run`` is in ``args.handler``."""
    parser = Parser(prog="rankproof", description="Ranking evaluation that states its conventions.",
                    epilog="rankproof COMMAND --help shows each command's options and examples.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        sub = commands.add_parser(command.NAME, help=command.HELP, description=command.HELP,
                                  epilog=command.EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_arguments(sub)
        sub.set_defaults(handler=command.run)
    return parser
