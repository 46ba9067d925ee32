"""``rankproof report``: one self-contained HTML page: summary, plots and a drill-down."""

from __future__ import annotations

import argparse

from .compare import add_test_options, run_aliases
from .evaluate import DEFAULT_MEASURES
from ..flags import add_evaluation_options, add_measures_option, add_output_option
from ..inputs import protocol_of, read_inputs, read_qrels, run_names
from ..large import prepare_for, release_freed_memory
from ..render import print_notes
from ..side import SIDE_ARGUMENTS, add_side_options, side_data_later, split

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "report"
HELP = "one self-contained HTML page: summary, plots and a drill-down"
EXAMPLES = """example:
  rankproof report qrels.txt bm25.run tfidf.run lmdirichlet.run --baseline bm25.run -o report.html
  rankproof report --intents diversity.qrels a.run b.run -m alpha_ndcg@20 -m err_ia@20 -o report.html
  rankproof report truth.csv pop.csv taste.csv --columns query=user,doc=item -m ndcg@10 -m coverage@10 \
      -m novelty@10 --train train.csv --features genres.csv --groups groups.csv -o report.html
  rankproof report human.qrels a.run b.run c.run --judge llm.qrels -o report.html   (adds the judge's bias)
  rankproof report --nuggets run_a.jsonl run_b.jsonl -o nuggets.html   (nuggetizer assignment files)"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", nargs="?",
                        help="judgments: TREC (query 0 doc grade), CSV/TSV, JSONL or Parquet")
    parser.add_argument("runs", nargs="*", metavar="run",
                        help="rankings: TREC (query Q0 doc rank score tag), ...")
    parser.add_argument("--nuggets", nargs="+", metavar="FILE",
                        help="instead of qrels and runs: nuggetizer assignment files, one run each (their four "
                             "nugget scores per query, compared as rankproof nuggets --compare)")
    parser.add_argument("--allow-mismatch", action="store_true",
                        help="with --nuggets: compare files that answer other queries or were judged with other "
                             "nuggets anyway, on the queries they share")
    add_measures_option(parser, DEFAULT_MEASURES)
    sections = parser.add_argument_group("further sections of the page")
    sections.add_argument("--fused", metavar="RUN",
                          help="the run that fuses the others (rankproof fuse): adds a section testing it against each")
    sections.add_argument("--judge", metavar="QRELS",
                          help="a judge's labels (an LLM's), read as the qrels are: adds the judge-bias section, "
                               "QRELS being the humans'")
    sections.add_argument("--segments", metavar="FILE",
                          help="query -> segment: lines 'query segment', or a JSON object {\"query\": \"segment\"}")
    add_test_options(parser, "compare every run with this one (default: the first)")
    add_evaluation_options(parser)
    add_output_option(parser, "the HTML file to write (atomically); every query's values go beside "
                              "it, in FILE's name with .per-query.csv.gz", required=True)
    parser.add_argument("--quiet", action="store_true",
                        help="no progress display and no warnings on stderr")
    add_side_options(parser)


def run(args) -> int:
    import dataclasses
    import shlex

    from ...pages.build import prepare
    from ...pages.inputs import check_segments_match, read_segments
    from ..progress import steps

    if args.nuggets:
        return _nugget_report(args)
    # Everything that can be checked without reading data is checked first.
    wanted, measures, protocol, added = _checked_arguments(args)
    # A missing side-data flag is refused now; the files are read beside the runs.
    pending_side = side_data_later(args, NAME, wanted)
    sided = bool(wanted) or any(getattr(args, kind, None) is not None for kind in SIDE_ARGUMENTS)
    names = run_names(args.runs, args.label)
    segments = read_segments(args.segments) if args.segments else None
    large = prepare_for([args.qrels, *args.runs])
    runs_count = len(args.runs)
    total = 5 + 2 * runs_count + (runs_count > 1) + (runs_count > 2) + bool(args.fused) + sided
    with steps(args, total, "reading the inputs") as stages:
        step = _releasing(stages.step) if large else stages.step
        # --intents: judgments per intent
        qrels, read = read_inputs(args, args.qrels, args.runs, names)
        judge = read_qrels(args, args.judge) if args.judge else None
        step("read the inputs")
        runs = dict(read)
        if segments is not None:
            check_segments_match(segments, qrels.queries, args.segments)
        # --baseline may name the run (label or file name) or give its path.
        known = run_aliases(args.runs, names)
        baseline = known.get(args.baseline, args.baseline) if args.baseline else None
        fused = known.get(args.fused, args.fused) if args.fused else None
        files = _input_files(args, names)
        step("input digests")
        data = prepare(qrels, runs, measures, protocol, baseline=baseline, segments=segments,
                       test=args.test,
                       correction=args.correction, alpha=args.alpha, n_resamples=args.resamples,
                       seed=args.seed,
                       inputs=files,
                       command=shlex.join(["rankproof", *getattr(args, "argv", [])]), fused=fused,
                       progress=step, judge=judge,
                       coverage={"allow_partial": args.allow_partial,
                                 "min_coverage": args.min_coverage})
        data = dataclasses.replace(data, added=added)
        # AUC, GAUC and PopREO read which items are relevant: the judgments of the report's qrels
        side = pending_side()
        _write_page(data, _beyond(runs, wanted, side and side.with_judgments(qrels), protocol, args,
                                  data.results), args.output, step)
    # The partial-match guard's doubts: at the top of the page, and on stderr as evaluate prints
    # them.
    print_notes([f"note: added {line}" for line in added]
                + [f"{r.run_name}: warning: {line}" for r in data.results for line in r.warnings],
                args.quiet)
    return 0


def _write_page(data, beyond, output, step) -> None:
    """The page with its beyond-accuracy section (None: none) and the per-query table beside it."""
    import dataclasses

    from ...report.html import render
    from ...report.output import write_output
    from ...report.per_query import write_per_query

    if beyond is not None:
        data = dataclasses.replace(data, beyond=beyond)
        step("side-data measures")
    data = dataclasses.replace(data, per_query_file=write_per_query(data.results, output).name)
    step("per-query table")
    write_output(render(data), output)
    step("page")


def _checked_arguments(args):
    """(side-data measures, accuracy measures, protocol, what was added) of the command line, every
    check that needs no data made: the inputs given, the measures' names, the output paths free."""
    from ...measures.parse import parse_measures
    from ...report.output import check_output_path
    from ...report.per_query import per_query_path
    from ..usage import usage

    if args.qrels is None or not args.runs:
        raise usage(NAME, "give QRELS and at least one RUN (or --nuggets FILE ...)")
    if args.allow_mismatch:
        raise usage(NAME, "--allow-mismatch is for --nuggets",
                    "runs of one report are evaluated on the same qrels")
    typed, wanted = split(args.measure or DEFAULT_MEASURES)
    measures = parse_measures(typed or DEFAULT_MEASURES)
    protocol = protocol_of(args)
    inputs = [args.qrels, *args.runs, args.grade_map, args.segments, args.items, args.train,
              args.features, args.groups, args.judge]
    if args.judge and (args.intents or getattr(args, "layer", None)):
        raise usage(NAME, "--judge takes plain qrels, not --intents or --layer",
                    "the judge's bias compares one human and one judge label per (query, doc)")
    if args.judge and len(args.runs) < 2:
        raise usage(NAME, "--judge compares two or more runs", "give the runs the judge may favour")
    check_output_path(args.output, inputs)
    check_output_path(per_query_path(args.output), inputs + [args.output])
    return wanted, measures, protocol, _added(typed, wanted)


def _added(typed: list, wanted: list) -> tuple[str, ...]:
    """Side-data measures alone: the default accuracy measures join them, and the page and stderr
    say so (the summary, the statistics and the drill-down are per-query accuracy values; the
    side-data measures have their own section)."""
    if typed or not wanted:
        return ()
    asked = " ".join(str(w) for w in wanted)
    return (f"the accuracy measures {' '.join(DEFAULT_MEASURES)}, as -m named side-data measures "
            f"only ({asked}: in the beyond-accuracy section) and the summary, the statistics and "
            "the drill-down are built on accuracy measures; name the ones you want with -m",)


def _input_files(args, names: list[str]) -> list:
    """The input files the page lists (role, path, digest), in command-line order."""
    from ...pages.inputs import input_file

    files = [input_file("qrels", args.qrels)]
    files += [input_file(f"run {n}", p) for n, p in zip(names, args.runs)]
    if args.segments:
        files.append(input_file("segments", args.segments))
    if args.judge:
        files.append(input_file("judge", args.judge))
    return [f for f in files if f is not None]


def _releasing(step):
    """The progress display's step, giving the memory a stage freed back to the kernel as it ends
    (large inputs: their process keeps freed memory for the next arrays, cli.large)."""
    def released(label: str) -> None:
        release_freed_memory()
        step(label)
    return released


def _beyond(runs: dict, wanted: list, side, protocol, args, results):
    """The beyond-accuracy section's data: with side-data measures or any side data given
    (with --groups, the accuracy measures' means per user group too)."""
    if side is None or (not wanted and not side.given()):   # None: no side-data flag given
        return None
    from ...pages.groups import coded_means, group_codes
    from ...pages.ids import ids_of
    from ...recsys.beyond_report import NO_GROUP, beyond_data, disparity_entry

    data = beyond_data(runs, wanted, side, protocol_of(args) if protocol is None else protocol)
    if side.groups is None or data.get("by_group") is None:
        return data
    # Each accuracy measure's mean per user group (recsys.beyond_report.accuracy_by_group's numbers,
    # vectorised: pages.groups), before the side measures'.
    by_group, disparity = dict(data["by_group"]), dict(data.get("disparity") or {})
    for r in results:
        # once per run
        names, codes = group_codes(ids_of(r), side.groups.users, side.groups.labels, NO_GROUP)
        found = {str(m): coded_means(names, codes, r.values(m)) for m in r.measures}
        by_group[r.run_name] = {**found, **by_group.get(r.run_name, {})}
        spread = {str(m): disparity_entry(ids_of(r), r.values(m), side.groups) for m in r.measures}
        disparity[r.run_name] = {**{m: e for m, e in spread.items() if e is not None},
                                 **disparity.get(r.run_name, {})}
    return {**data, "by_group": by_group, "disparity": disparity}


# Options of rankings that nugget scores have no use for.
_RANKING_ONLY = ("measure", "fused", "judge", "segments", "intents", "grade_map", "policy",
                 "chunk_map", "label", "items",
                 "train", "features", "groups")


def _nugget_report(args) -> int:
    """--nuggets: each assignment file as Results (rankproof.evaluate_nuggets), compared and drawn."""
    import shlex

    from ...pages.evaluated import results_page
    from ...pages.inputs import input_file
    from ...report.html import render
    from ...report.output import check_output_path, write_output
    from .compare import bare_names
    from .nuggets import nugget_file_names, read_nugget_files
    from ..usage import usage

    given = [f"--{name.replace('_', '-')}" for name in _RANKING_ONLY if getattr(args, name, None)]
    if args.qrels is not None or given or args.preset != "rankproof":
        raise usage(NAME,
                    f"--nuggets takes assignment files only, not {', '.join(given) or 'QRELS RUN or --preset'}",
                    "the nugget scores are the measures and the nuggets the judgments")
    check_output_path(args.output, args.nuggets)
    files = nugget_file_names(args.nuggets)
    names = bare_names(files)
    baseline = (run_aliases(args.nuggets, names).get(args.baseline, args.baseline) if args.baseline
                else None)
    results = read_nugget_files(args.nuggets, names)   # each named at once (Results are read-only)
    missing = ("measures over cutoffs, judged@k, precision-recall curves and the drill-down: nugget scores score "
               "answers, not rankings",)
    data = results_page(results, baseline=baseline, test=args.test, correction=args.correction,
                        alpha=args.alpha,
                        n_resamples=args.resamples, seed=args.seed,
                        allow_mismatch=args.allow_mismatch, command=shlex.join(["rankproof",
                                                                                       *getattr(args, "argv", [])]),
                        inputs=[f for f in (input_file(f"nuggets {n}", p)
                                            for n, p in zip(names, args.nuggets))
                                if f is not None],
                        title=f"rankproof nugget scores: {', '.join(names)}", missing=missing)
    write_output(render(data), args.output)
    return 0
