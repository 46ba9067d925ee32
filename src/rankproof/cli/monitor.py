"""``rankproof monitor CURRENT REFERENCE``: a window of traffic against a reference window, with an alert exit code.

CURRENT and REFERENCE are evaluations of two windows written by ``rankproof
evaluate --format json -o FILE`` or ``--format parquet -o FILE`` (the
columnar layout, read in milliseconds: for large windows) under one protocol
(the fingerprints must match). The table goes to stdout; exit codes: 0 no alert, 3
(:data:`rankproof.recsys.monitor.ALERT_EXIT`) a measure dropped beyond
--max-drop and significantly (one ``rankproof monitor: ALERT ...`` line on
stderr, for a scheduler to act on), 2 bad input (a protocol mismatch among
them), as every command.
"""

from __future__ import annotations

import argparse
import sys

from .usage import count_option, drop_option, fraction_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "monitor"
HELP = "near-line monitoring: a current window's evaluation against a reference window's; exit 3 on a real drop"
EXAMPLES = """examples:
  rankproof evaluate truth.parquet predictions.parquet -m ndcg@10 -m r@20 --format parquet -o current.parquet
  rankproof monitor current.parquet reference.parquet --max-drop 5%
  rankproof monitor current.json reference.json -m ndcg@10 --max-drop 0.01 --alpha 0.01
exit codes: 0 no alert; 3 a measure dropped beyond --max-drop with Welch's p < --alpha (one ALERT line on
stderr); 2 bad input, such as windows evaluated under different protocols."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("current",
                        help="the current window: rankproof evaluate --format parquet (or json) -o FILE (one run)")
    parser.add_argument("reference", help="the reference window, evaluated under the same protocol")
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                        help="a measure to watch (repeatable; default: every measure both windows hold)")
    parser.add_argument("--max-drop", type=drop_option, default="5%", metavar="DROP",
                        help="alert on a drop beyond this: relative with %% (5%%, the default) or absolute (0.01)")
    parser.add_argument("--alpha", type=fraction_option("--alpha"), default=0.05,
                        help="significance level of Welch's t-test (0.05)")
    parser.add_argument("--confidence", type=fraction_option("--confidence"), default=0.95,
                        help="bootstrap interval level (default 0.95)")
    parser.add_argument("--resamples", type=count_option("--resamples"), default=2000,
                        help="bootstrap resamples (default 2000)")
    parser.add_argument("--seed", type=count_option("--seed", minimum=0), default=0,
                        help="random seed of the bootstrap (default 0)")


def run(args) -> int:
    from ..recsys.monitor import ALERT_EXIT, monitor

    if args.resamples < 1:
        raise usage(NAME, f"--resamples {args.resamples} is less than 1", "give 1 or more")
    for option, value in (("--alpha", args.alpha), ("--confidence", args.confidence)):
        if not 0 < value < 1:
            raise usage(NAME, f"{option} {value} is not between 0 and 1",
                        "give e.g. 0.05 for --alpha, 0.95 for "
                                                                          "--confidence")
    result = monitor(args.current, args.reference, args.measure, max_drop=args.max_drop,
                     alpha=args.alpha,
                     confidence=args.confidence, resamples=args.resamples, seed=args.seed)
    print(result)
    if result.alert:
        sys.stdout.flush()
        print(f"rankproof monitor: {result.alert_line}", file=sys.stderr)
        return ALERT_EXIT
    return 0
