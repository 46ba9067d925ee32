"""The parser of the ``rankproof`` command, assembled from one module per command.

Each command module has ``NAME``, ``HELP``, ``EXAMPLES`` (the end of its
``--help``), ``add_arguments(parser)`` and ``run(args)``. Options shared
between commands come from one definition each (:mod:`.inputs` for the
inputs and the protocol). Building the parser imports no command's
dependencies: a command imports what it runs when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import re
from types import ModuleType

from .commands.measures import MeasuresFrom
from .usage import UsageError, literal

__all__ = ["COMMAND_MODULES", "build_parser", "command_module"]

# Command name -> its module under rankproof.cli.commands, in the order of `rankproof --help`.
# Modules are imported when their command is built: `rankproof evaluate` builds its own subparser
# only (the commands' modules and subparsers cost ~0.1 s, a third of a 1k x 100 evaluation's
# process).
COMMAND_MODULES = {
    "evaluate": "evaluate", "rag": "rag", "nuggets": "nuggets", "explain": "explain", "why": "why",
    "measures": "measures", "protocol": "protocol", "trec-eval": "trec_eval", "compare": "compare",
    "systems": "systems", "segments": "segments", "agree": "agree", "similarity": "similarity",
    "report": "report", "fuse": "fuse",
    "fit-pbm": "fit_pbm", "demo": "demo", "balance": "balance", "monitor": "monitor",
    "ppi": "ppi", "pool": "pool", "leaderboard": "leaderboard", "judge-bias": "judge_bias",
}


def command_module(name: str) -> ModuleType:
    """The module of command `name` (``NAME``, ``HELP``, ``EXAMPLES``, ``add_arguments``, ``run``)."""
    return importlib.import_module(f"{__package__}.commands.{COMMAND_MODULES[name]}")


class Parser(argparse.ArgumentParser):
    """A parser whose errors are one line and exit 2 (a UsageError), with no usage dump.

    A value that starts with a minus and a digit (``--weights -1,1``, ``--param``'s
    ``-0.5``, ``1e-3``'s kin ``-1e3``) is a value, not an option: no option of
    rankproof is spelled that way, and argparse alone only knows ``-1`` and ``-.5``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d[\w.,+%-]*$")

    def error(self, message: str):
        raise UsageError(source=self.prog, what=literal(f"{message} (see {self.prog} --help)"))


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata
    costs ~20-80 ms at start-up, paid by every command if the text were built with the parser)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show the program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import version

        print(f"rankproof {version('rankproof')}")  # on stdout, as argparse's own version action
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of command `only`; the command module's ``run`` is in ``args.handler``."""
    parser = Parser(prog="rankproof", description="Ranking evaluation that states its conventions.",
                    epilog="rankproof COMMAND --help shows each command's options and examples.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in map(command_module, [only] if only in COMMAND_MODULES else COMMAND_MODULES):
        sub = commands.add_parser(command.NAME, help=command.HELP, description=command.HELP,
                                  epilog=command.EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_arguments(sub)
        sub.add_argument("--measures-from", action=MeasuresFrom, metavar="FILE.py",
                         help="a Python file that "
                         "defines measures (rankproof.measures.define), usable by name (repeatable)")
        try:   # every command takes --quiet: at least, no progress display (cli/progress.py)
            sub.add_argument("--quiet", action="store_true", help="no progress display on stderr")
        except argparse.ArgumentError:
            pass   # the command's own --quiet (which also drops its notes)
        sub.set_defaults(handler=command.run)
    return parser
