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

from ..flags import add_level_option, add_measures_option, add_resampling_options
from ..usage import drop_option

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
    add_measures_option(parser, "default: every measure both windows hold", "a measure to watch")
    parser.add_argument("--max-drop", type=drop_option, default="5%", metavar="DROP",
                        help="alert on a drop beyond this: relative with %% (5%%, the default) or absolute (0.01)")
    add_level_option(parser, "alpha", "significance level of Welch's t-test")
    add_level_option(parser, "confidence", "bootstrap interval level")
    add_resampling_options(parser, 2000, "bootstrap resamples", "random seed of the bootstrap")


def run(args) -> int:
    from ...recsys.monitor import ALERT_EXIT, monitor

    # --resamples, --alpha and --confidence are checked when parsed (cli.flags).
    result = monitor(args.current, args.reference, args.measure, max_drop=args.max_drop,
                     alpha=args.alpha,
                     confidence=args.confidence, resamples=args.resamples, seed=args.seed)
    print(result)
    if result.alert:
        sys.stdout.flush()
        print(f"rankproof monitor: {result.alert_line}", file=sys.stderr)
        return ALERT_EXIT
    return 0
