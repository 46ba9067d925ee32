"""The options several commands declare, one definition each.

A command takes a shared option from here and says only what differs from one
command to the next: what the value is for (the start of its help) and, for a
count, its default. The defaults of the levels are one table (:data:`LEVELS`),
so ``--alpha`` is 0.05 wherever it is taken. The options that describe inputs
and the protocol are in :mod:`.inputs`, the typed numbers in :mod:`.usage`,
the output of Results in :mod:`.render`; :func:`add_evaluation_options` takes
them together for a command that evaluates runs on qrels. Each adder takes a
parser or one of its argument groups (a section of the command's help).

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_level_option(parser, "alpha", "significance level")
>>> add_resampling_options(parser, 1000, "bootstrap samples over topics")
>>> vars(parser.parse_args(["--seed", "7"]))
{'alpha': 0.05, 'resamples': 1000, 'seed': 7}
>>> for action in parser._actions[1:]:
...     print(action.help)
significance level (default 0.05)
bootstrap samples over topics (default 1000)
random seed (default 0)
"""

from __future__ import annotations

from typing import Sequence

from .usage import count_option, fraction_option

__all__ = ["LEVELS", "CORRECTIONS", "STDOUT_HELP", "add_level_option", "add_resampling_options",
           "add_correction_option", "add_measure_option", "add_measures_option",
           "add_format_option", "add_output_option", "add_evaluation_options"]

#: The levels a command may take, each with its one default: the significance level of the
#: tests, the level of the intervals and the power wanted.
LEVELS = {"alpha": 0.05, "confidence": 0.95, "power": 0.8}

#: The multiple-testing corrections of --correction (rankproof.stats), holm the default.
CORRECTIONS = ("holm", "bonferroni", "bh", "none")

#: The help of -o where the output goes to stdout without it.
STDOUT_HELP = "write to FILE (atomically) instead of stdout"


def add_level_option(parser, name: str, what: str) -> None:
    """``--NAME`` (alpha, confidence or power): a level strictly between 0 and 1, default
    :data:`LEVELS`; `what` is the start of its help."""
    default = LEVELS[name]
    parser.add_argument(f"--{name}", type=fraction_option(f"--{name}"), default=default,
                        help=f"{what} (default {default:g})")


def add_resampling_options(parser, default: int, what: str,
                           seed: str = "random seed") -> None:
    """--resamples (`default` draws; `what` they are) and the --seed that makes them repeatable."""
    parser.add_argument("--resamples", type=count_option("--resamples"), default=default,
                        help=f"{what} (default {default})")
    parser.add_argument("--seed", type=count_option("--seed", minimum=0), default=0,
                        help=f"{seed} (default 0)")


def add_correction_option(parser, over: str) -> None:
    """--correction: the multiple-testing correction over `over` (the tests of one family)."""
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help=f"multiple-testing correction over {over} (default holm)")


def add_measures_option(parser, default: Sequence[str] | str, what: str = "e.g. ndcg@10") -> None:
    """-m/--measure, repeatable; `default` is what is evaluated without it: the measures
    (cli.commands.evaluate.DEFAULT_MEASURES, as most commands) or a sentence saying what."""
    said = default if isinstance(default, str) else f"default {' '.join(default)}"
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                        help=f"{what} (repeatable; {said})")


def add_measure_option(parser, what: str = "the measure",
                       default: str = "ndcg@10") -> None:
    """-m/--measure: the one measure of a command that reads one (judge-bias, ppi, ...)."""
    parser.add_argument("-m", "--measure", default=default, metavar="MEASURE",
                        help=f"{what} (default {default})")


def add_format_option(parser, choices, note: str = "", more: str = "") -> None:
    """--format, table by default; in its help `note` follows the default, `more` the
    parenthesis."""
    parser.add_argument("--format", choices=choices, default="table",
                        help=f"output format (default table{'; ' + note if note else ''}){more}")


def add_output_option(parser, what: str = STDOUT_HELP,
                      required: bool = False) -> None:
    """-o/--output FILE, written atomically (the output guard of cli.app refuses an input)."""
    parser.add_argument("-o", "--output", metavar="FILE", required=required, help=what)


def add_evaluation_options(parser, coverage: bool = True) -> None:
    """The options of a command that evaluates runs on qrels: the protocol (--preset,
    --policy), the inputs (formats, columns, labels, layers, intents) and, unless the
    command words its own, the coverage guard (--min-coverage, --allow-partial)."""
    from .inputs import add_input_options, add_protocol_options
    from .usage import add_coverage_options

    add_protocol_options(parser)
    add_input_options(parser)
    if coverage:
        add_coverage_options(parser)
