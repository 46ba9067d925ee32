"""``rankproof segments``: each run's mean per user group (segment), with a confidence interval.

The command line's :meth:`rankproof.Results.by`: every run is evaluated on the
qrels (read once), and its per-query values are split by the group of
``--groups FILE`` (columns user, group: the side-data file of ``rankproof
evaluate --groups``, read beside the qrels), and the run is let go once aligned
while the next one is read (:mod:`rankproof.cli.multirun`): at most two runs in
memory. The users are matched to their groups once, for every run on them.
Intervals follow ``--interval``: ``auto`` (the default) takes the normal
interval for a group of 1,000 users or more where the skewness check of
:func:`rankproof.stats.asymptotic.interval_check` says the bootstrap could not
tell them apart, and bootstraps the others; the method used is printed under
each table.
"""

from __future__ import annotations

import argparse

from .evaluate import DEFAULT_MEASURES
from ..flags import (add_evaluation_options, add_level_option, add_measures_option,
                    add_resampling_options)
from ..inputs import protocol_of, read_inputs
from ..large import prepare_for
from ..render import quieted
from ..usage import usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "segments"
HELP = "each run's means per user group, with confidence intervals"
EXAMPLES = """examples:
  rankproof segments truth.parquet a.parquet b.parquet --columns query=user,doc=item,grade=rating \\
      -m ndcg@10 -m r@10 --groups groups.parquet
  rankproof segments qrels.txt bm25.run --groups topics.csv --side-columns user=query,group=kind --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="the qrels, then one or more runs")
    parser.add_argument("--groups", metavar="FILE", required=True,
                        help="each user's (query's) group: columns user, group (CSV, TSV, JSONL or Parquet)")
    parser.add_argument("--side-columns", metavar="SPEC",
                        help="--groups' column names, when not user and group: e.g. user=uid,group=segment")
    add_measures_option(parser, DEFAULT_MEASURES)
    add_level_option(parser, "confidence", "the intervals' confidence")
    parser.add_argument("--interval", choices=("auto", "bootstrap", "normal"), default="auto",
                        help="auto (default): the normal interval for groups of 1,000 users or more where the "
                             "skewness check passes, else the bootstrap; bootstrap or normal: always that")
    add_resampling_options(parser, 2000, "bootstrap resamples")
    parser.add_argument("--unlabelled", choices=("error", "group", "drop"), default="error",
                        help="an evaluated user with no group: refused (default), grouped apart, or left out")
    add_evaluation_options(parser, coverage=False)
    parser.add_argument("--allow-partial", action="store_true",
                        help="evaluate runs that rank fewer than half of the judged queries anyway")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="output format (default table)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically) instead of stdout")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress display and no warnings on stderr")


def run(args) -> int:
    import numpy as np

    from ...measures.parse import parse_measures
    from ...report.output import check_output_path, write_output
    from ...stats.segments import by_segment, segment_groups
    from .compare import table_names
    from ...io.shared_ids import sharing
    from ...engines.options import EvaluationOptions
    from ..multirun import evaluated_runs
    from ..progress import steps
    from ..side import side_data_later

    if len(args.inputs) < 2:
        raise usage(NAME, "give QRELS and at least one RUN")
    check_output_path(args.output, [*args.inputs, args.groups, args.grade_map])
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = protocol_of(args)
    qrels_path, paths = args.inputs[0], args.inputs[1:]
    names = table_names(paths, args.label)
    prepare_for(args.inputs)
    tables = {}
    with quieted(args), sharing(), steps(args, 2 + 3 * len(paths), "segments") as stages:
        pending = side_data_later(args, NAME, [])   # --groups, read beside the qrels and a run
        qrels, read = read_inputs(args, qrels_path, paths, names, stages, intents=False)
        labels = grouped = None
        # Each run evaluated as it is read, the next one read meanwhile (cli/multirun.py).
        options = EvaluationOptions(allow_partial=args.allow_partial)
        for name, results in evaluated_runs(qrels, read, measures, protocol, stages,
                                            options=options):
            if labels is None:
                labels = _segment(pending())
                stages.step("read the groups")
            queries = results.table.queries
            # The users are matched to their groups once for all the runs on the same users (one
            # qrels: every run, unless missing_query=exclude leaves different users out).
            if grouped is None or not np.array_equal(grouped.queries, queries):
                grouped = segment_groups(labels, queries, args.unlabelled)
            tables[name] = by_segment(results, grouped, confidence=args.confidence,
                                      n_resamples=args.resamples, seed=args.seed,
                                      unlabelled=args.unlabelled, interval=args.interval)
            del results
            stages.step(f"segments of {name}")
    write_output(_json(tables) if args.format == "json" else _text(tables), args.output)
    return 0


def _segment(side):
    """--groups, read as the side-data reader reads it (--side-columns names its columns), as the
    two arrays Results.by reads (no dict of a million users)."""
    from ...pages.groups import ArrayLabels

    groups = side.groups if side is not None else None   # --groups: the only side data here
    if groups is None:
        raise usage(NAME, "give --groups FILE")
    return ArrayLabels(groups.users, groups.labels)



def _text(tables: dict) -> str:
    blocks = [f"{name}\n{table}" for name, table in tables.items()]
    return "\n\n".join(blocks) + "\n"


def _json(tables: dict) -> str:
    import json

    def number(value: float) -> "float | None":
        return value if value == value else None   # NaN (fewer than 2 users): null

    return json.dumps({"runs": {name: {
        "confidence": table.confidence, "interval": table.interval,
        "method_check": table.method_check,
        "rows": [{"segment": str(row.segment), "measure": row.measure, "mean": number(row.mean),
                  "count": row.count, "low": number(row.low), "high": number(row.high)}
                 for row in table.rows]}
        for name, table in tables.items()}}, indent=2) + "\n"
