"""``rankproof leaderboard``: how sure is the order of a leaderboard? Ranks with intervals, and over collections.

One collection (``QRELS RUN RUN...``): each system's rank with a
percentile bootstrap interval over topics, the share of resamples in which
it ranks first, and the systems not separable from the best
(:mod:`rankproof.stats.leaderboard`). Several collections (``--collection
QRELS RUN RUN...``, repeated; runs named by file name, the same names on
every collection): the mean of collection means, Borda points, and a
random-effects meta-analysis of a pair's paired effect with its
heterogeneity (:mod:`rankproof.stats.across_collections`). ``rankproof
systems --leaderboard`` adds the first part to its analysis.
"""

from __future__ import annotations

import argparse
import json
import os

from ..flags import (add_evaluation_options, add_level_option, add_measure_option,
                    add_resampling_options)
from ..inputs import protocol_of, read_inputs, run_names
from ..render import add_print_options, digits
from ..usage import short, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "systems_section"]

NAME = "leaderboard"
HELP = "ranks with bootstrap intervals, the systems not separable from the best, and aggregation over collections"
EXAMPLES = """examples:
  rankproof leaderboard qrels.txt bm25.run tfidf.run lmdirichlet.run -m ndcg@10
  rankproof leaderboard --collection a/qrels.txt a/bm25.run a/tfidf.run --collection b/qrels.txt b/bm25.run b/tfidf.run
  rankproof leaderboard --collection ... --collection ... --pair bm25.run tfidf.run"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="one collection: the qrels, then two or more runs")
    parser.add_argument("--collection", action="append", nargs="+", metavar="QRELS RUN",
                        help="a collection's qrels then its runs (repeatable: aggregation over collections)")
    add_measure_option(parser)
    parser.add_argument("--pair", nargs=2, metavar=("A", "B"),
                        help="the meta-analysis's pair, A - B (default: the two best by mean)")
    add_resampling_options(parser, 1000, "bootstrap samples over topics")
    add_level_option(parser, "alpha", "level of the tests against the best")
    add_level_option(parser, "confidence", "level of the intervals")
    parser.add_argument("--svg", metavar="FILE",
                        help="one collection: also write the rank intervals as an SVG figure (atomically)")
    add_evaluation_options(parser)
    add_print_options(parser, what="means and effects")


def _board(args, qrels, runs: dict, measure: str):
    """The leaderboard of `runs` (Runs evaluated on `qrels`, or saved results when `qrels` is None)."""
    from ...stats.leaderboard import leaderboard, leaderboard_of
    from ...stats.matrix import score_matrix

    options = {"resamples": getattr(args, "resamples", 1000), "seed": args.seed,
               "alpha": args.alpha,
               "confidence": getattr(args, "confidence", 0.95)}
    if qrels is None:
        return leaderboard(score_matrix(list(runs.values()), measure)[1], [str(n) for n in runs],
                           measure, **options)
    return leaderboard_of(qrels, runs, measure, protocol_of(args), **options)


def systems_section(text: str, args, qrels, runs: dict, measures, places: int) -> str:
    """``rankproof systems --leaderboard``: the leaderboard of every measure after the analysis (table),
    or under the key ``leaderboard`` (json); `runs` are saved results when `qrels` is None (--results)."""
    from ...report.leaderboard import leaderboard_lines
    from ...stats.leaderboard import leaderboard_data

    boards = [_board(args, qrels, runs, str(measure)) for measure in measures]
    if args.format == "json":
        data = json.loads(text)
        data["leaderboard"] = [leaderboard_data(board) for board in boards]
        return json.dumps(data, indent=2, allow_nan=False) + "\n"
    lines = [line for board in boards for line in (*leaderboard_lines(board, places), "")]
    return text + "\n".join(lines)


def _collections(args) -> dict:
    """{collection: {run: {topic: value}}}, each collection named by its qrels' folder (or file)."""
    from ...evaluation import evaluate

    scores: dict = {}
    for qrels_path, *paths in args.collection:
        if len(paths) < 2:
            raise usage(NAME, "--collection needs its qrels and two or more runs")
        folder = os.path.basename(os.path.dirname(os.path.abspath(qrels_path))) or qrels_path
        name = folder if folder not in scores else qrels_path
        names = [os.path.basename(path) for path in paths]
        qrels, runs = read_inputs(args, qrels_path, paths,
                                  run_names(paths) if len(set(names)) < len(names)
                                  else names, intents=False)
        coverage = {"allow_partial": args.allow_partial, "min_coverage": args.min_coverage}
        scores[name] = {run_name: evaluate(qrels, run, [args.measure], protocol_of(args), **coverage
                                           ).per_query(args.measure) for run_name, run in runs}
    return scores


def run(args) -> int:
    from ...report.leaderboard import aggregate_lines, leaderboard_lines, meta_analysis_lines
    from ...stats.across_collections import aggregate_collections, meta_analysis

    places = digits(args)
    if args.collection and args.svg:
        raise usage(NAME, "--svg draws one collection's rank intervals",
                    "give QRELS RUN... without --collection")
    if args.collection and args.inputs:
        raise usage(NAME,
                    "give one collection as QRELS RUN..., or several with --collection, not both")
    if args.pair and not args.collection:
        raise usage(NAME, "--pair names the pair of the meta-analysis over several collections",
                    "give two or more --collection, or leave --pair out")
    if args.collection:
        scores = _collections(args)
        ranking = aggregate_collections(scores)
        lines = aggregate_lines(ranking, places)
        _check_pair(args.pair, len(scores), ranking.by_mean)
        if len(scores) >= 2:
            a, b = args.pair or ranking.by_mean[:2]
            lines += meta_analysis_lines(meta_analysis(scores, a, b, confidence=args.confidence),
                                         places)
        print("\n".join(lines))
        return 0
    if len(args.inputs) < 3:
        raise usage(NAME,
                    "give QRELS and two or more runs (or --collection ... for several collections)")
    names = run_names(args.inputs[1:], args.label)
    if args.svg:
        from ...report.output import check_output_path

        check_output_path(args.svg, args.inputs)
    qrels, runs = read_inputs(args, args.inputs[0], args.inputs[1:], names, intents=False)
    board = _board(args, qrels, dict(runs), args.measure)
    print("\n".join(leaderboard_lines(board, places)))
    if args.svg:
        from ...report.judgments_figures import leaderboard_figure, standalone
        from ...report.output import write_output
        from ...stats.leaderboard import leaderboard_data

        write_output(standalone(leaderboard_figure(leaderboard_data(board))), args.svg)
    return 0


def _check_pair(pair, collections: int, systems) -> None:
    """--pair is read by the meta-analysis only (two or more collections), and names two of its systems:
    else it would be ignored without a word."""
    if not pair:
        return
    if collections < 2:
        raise usage(NAME,
                    f"--pair: a meta-analysis needs two or more collections; got {collections}",
                    "give another --collection, or leave --pair out")
    unknown = [name for name in pair if name not in systems]
    if unknown:
        raise usage(NAME, f"--pair: no system is named {short(unknown[0])!r}",
                    f"choose among {', '.join(short(str(name), 30) for name in list(systems)[:8])}")
