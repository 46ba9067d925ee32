"""``rankproof evaluate``: every run against the qrels, one row per run (``--engine``: by whom)."""

from __future__ import annotations

import argparse

from ..inputs import (QRELS_ROLES, add_chunk_options, add_input_options, add_protocol_options,
                     columns, protocol_of, read_run, run_names)
from ..engine import add_engine_options, engine_choices, executor_settings
from ..flags import add_measures_option
from ..dataset import add_dataset_option, apply_quirks, dataset_qrels, default_measures, positionals
from ..outofcore import add_memory_options
from ..render import (add_output_options, check_format_output, measure_names, merged_notes, notes,
                     print_notes)
from ..render import render_results
from ..render import digits as precision
from ..side import add_side_options, side_data_later, split, unread_side_data
from ..step import CommandInputs, evaluation_options, step_of
from ..usage import add_coverage_options, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "DEFAULT_MEASURES", "engine_choices", "add_arguments", "run"]

NAME = "evaluate"
HELP = "evaluate runs against qrels"
EXAMPLES = """examples:
  rankproof evaluate qrels.txt bm25.run -m ndcg@10 -m map -m P@10 -m recall@100 -m mrr
  rankproof evaluate qrels.txt a.run b.run --preset trec_eval --format json -o results.json
  rankproof evaluate qrels.csv run.csv --columns query=qid,doc=docno,grade=rel,score=sim
  zcat bm25.run.gz | rankproof evaluate qrels.txt - --label bm25=- --quiet --format csv
  rankproof evaluate --intents diversity.qrels run.txt -m alpha_ndcg@20 -m err_ia@20 -m s_recall@20
  rankproof evaluate truth.csv recs.csv --columns query=user,doc=item -m ndcg@10 -m coverage@10 -m novelty@10 \
      --train train.csv --features genres.csv
Measure names of trec_eval (P_10, ndcg_cut.10), ir_measures (nDCG@10) and ranx (mrr) are read too.
Counts and warnings go to stderr (--quiet drops them); exit 2 on bad input, one line on stderr."""

DEFAULT_MEASURES = ["ndcg@10", "ap", "rr", "p@10"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels",
                        help="judgments: TREC (query 0 doc grade), CSV/TSV, JSONL or Parquet; - for stdin "
                                      "(with --dataset: the first run)")
    parser.add_argument("runs", nargs="*", metavar="run",
                        help="rankings: TREC (query Q0 doc rank score tag), CSV/TSV, JSONL or Parquet; - for stdin")
    add_measures_option(parser, DEFAULT_MEASURES)
    add_protocol_options(parser)
    add_chunk_options(parser)
    add_input_options(parser)
    add_coverage_options(parser)
    add_engine_options(parser)   # --engine, and each executor's own options (--spark-master)
    parser.add_argument("--per-query", action="store_true", help="also show each query's values")
    parser.add_argument("--bounds", action="store_true",
                        help="show each value with its bounds under the unjudged docs: 0.341 [0.341, 0.612] "
                             "(unjudged docs at gain 0, and at the highest grade)")
    parser.add_argument("--tie-range", action="store_true",
                        help="show each value with its min and max over the orders of tied docs: "
                             "0.500 ties [0.000, 1.000] (json: tie_range; csv: min and max columns)")
    parser.add_argument("--dispersion", choices=("std", "sample_std", "iqr"),
                        help="table and Markdown: each mean followed by the spread of its per-query values, "
                             "0.5000 sd 0.2500 (std: population, ranx's return_std; sample_std: n - 1; iqr)")
    add_output_options(parser)
    parser.add_argument("--spreadsheet-safe", action="store_true",
                        help="--format csv: write ids starting with = + - @ behind a ' so that a spreadsheet does not "
                             "run them as formulas (by default ids are written as they are and read back exactly)")
    add_memory_options(parser)
    add_dataset_option(parser)
    add_side_options(parser)
    parser.add_argument("--profile", action="store_true",
                        help="print on stderr the seconds each stage took: reading, the evaluation of each run, "
                             "each side-data measure (even with --quiet)")


def run(args) -> int:
    from ...engines.executor import choose
    from ...measures.parse import parse_measures
    from ...report.output import check_output_path, write_output

    # Everything that can be checked without reading data is checked first.
    check_format_output(args, NAME)
    if args.dataset:
        return _on_dataset(args)
    positionals(args, NAME)
    typed, wanted = split(args.measure or DEFAULT_MEASURES)
    measures = parse_measures(typed) if typed else []   # side-data measures may be asked for alone
    places = precision(args)
    names = measure_names(args, NAME, measures)
    check_output_path(args.output, [args.qrels, *args.runs, args.grade_map, args.items, args.train,
                                    args.features,
                                    args.groups])
    costs: dict[str, float] = {}
    inputs = CommandInputs(args, protocol_of(args), run_names(args.runs, args.label), wanted, costs)
    step = step_of(args, NAME, measures, inputs, world_options(args))
    executor = choose(step)   # in memory, out of core, on Spark: refused here what it cannot take
    unread = unread_side_data(args, wanted)
    # Refuses a missing flag first; the files are read beside the runs (on Spark, before them).
    inputs.pending_side = side_data_later(args, NAME, wanted, skip=unread)
    print_notes([f"warning: {flag} is read by no measure of -m, so evaluate leaves it unread"
                 + ("; rankproof report shows the per-list measures per user group" if flag
                    == "--groups" else "")
                 for flag in unread], args.quiet)
    results = list(executor.evaluate(step))
    # A side file that cannot be read is refused on every path, as when it was read first.
    inputs.pending_side()
    write_output(render_results(results, args.format, args.per_query, places, names,
                                args.spreadsheet_safe,
                                args.dispersion), args.output)
    print_notes(merged_notes(typed if args.measure else None), args.quiet)
    notes(results, args.quiet)
    if args.profile:
        print_notes([f"profile: {stage} {seconds:.3f} s" for stage, seconds in costs.items()],
                    quiet=False)
    return 0


def world_options(args) -> dict:
    """What the data's world changes in the evaluation (rankproof.errors.messages): a recommender log's truth
    (a table whose query and doc columns are a user's and an item's, --columns query=user,doc=item)
    is complete, as evaluate_frame reads it, so its results state so and give no TREC advice about
    unjudged docs; TREC qrels judge a pool."""
    from ...io.formats import format_of
    from ...errors.messages import LOG, TRUTH_NOTE, world_of_columns

    if args.intents or args.qrels == "-" or format_of(args.qrels, args.qrels_format) == "trec":
        return {}
    named = columns(args, QRELS_ROLES)
    if world_of_columns([named.get("query", "query"), named.get("doc", "doc")]) != LOG:
        return {}
    return {"notes": (TRUTH_NOTE,), "complete_judgments": True}


def _on_dataset(args) -> int:
    """--dataset NAME RUN...: the dataset's judgments, its official measures by default, its quirks applied."""
    from ...evaluation import evaluate_read
    from ...measures.parse import parse_measures
    from ...report.output import check_output_path, write_output

    from ...engines import EXECUTORS

    settings, flags = executor_settings(args)
    given = [flag for flag, asked in [(f"--engine {args.engine}", args.engine in EXECUTORS),
                                      ("--memory-budget", args.memory_budget is not None),
                                      ("--intents", bool(args.intents)),
                                      *((flags[key], settings[key] is not None)
                                        for key in settings)] if asked]
    if given:   # an executor of its own, or its settings
        raise usage(NAME, "--dataset evaluates on this machine, in memory",
                    f"leave out {' and '.join(given)}")
    _, paths = positionals(args, NAME)
    if split(args.measure or [])[1]:
        raise usage(NAME, "--dataset evaluates accuracy measures",
                    "leave out the side-data measures of -m")
    protocol = protocol_of(args)
    check_output_path(args.output, [*paths, args.grade_map])
    qrels, info = dataset_qrels(args.dataset)
    official, said = default_measures(info, args.measure)
    measures = official or parse_measures(args.measure or DEFAULT_MEASURES)
    places = precision(args)
    names = measure_names(args, NAME, measures)
    options = evaluation_options(args, args.engine)   # an executor is refused above
    results = []
    for path, label in zip(paths, run_names(paths, args.label)):
        ranking, applied = apply_quirks(info, read_run(args, path, label))
        said += applied
        results.append(evaluate_read(lambda: (qrels, ranking), measures, protocol,
                                     options=options))
    write_output(render_results(results, args.format, args.per_query, places, names,
                                args.spreadsheet_safe,
                                args.dispersion), args.output)
    print_notes(merged_notes(args.measure) + said, args.quiet)
    notes(results, args.quiet)
    return 0
