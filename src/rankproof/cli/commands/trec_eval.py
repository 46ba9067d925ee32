"""``rankproof trec-eval``: the trec_eval drop-in (10; ``--v9`` for 9.0.x).

It reads its arguments as trec_eval does (GNU getopt: ``-M100``, ``-qc``,
options after the files), so :func:`rankproof.cli.app.main` hands them to
:func:`run` before the command line's own parser sees them; the parser lists
the command for ``--help`` only. Its inputs are TREC files as trec_eval reads
them (``-`` for the run reads stdin): the column and format options of the
other commands do not apply.
"""

from __future__ import annotations

import argparse
from typing import Sequence

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "trec-eval"
HELP = "trec_eval drop-in (10; --v9 for 9.0.x): rankproof trec-eval [options] QRELS RUN"
EXAMPLES = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Listed for --help only: the arguments are trec_eval's own."""


def run(arguments: Sequence[str]) -> int:
    from ...trec.command import trec_eval_command

    return trec_eval_command(list(arguments))
