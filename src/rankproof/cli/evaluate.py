"""``rankproof evaluate``: every run against the qrels, one row per run (``--engine spark``: on Spark)."""

from __future__ import annotations

import argparse
import os
import time

from .inputs import (QRELS_ROLES, RUN_ROLES, add_chunk_options, add_input_options, add_protocol_options, columns,
                     protocol_of, read_inputs, read_qrels, read_run, run_names)
from .dataset import add_dataset_option, apply_quirks, dataset_qrels, default_measures, positionals
from .large import prepare_for
from .progress import steps
from .outofcore import add_memory_options, evaluate_runs as evaluate_out_of_core, wanted as out_of_core
from .render import add_output_options, check_format_output, measure_names, merged_notes, notes, print_notes
from .render import render_results
from .render import digits as precision
from .side import add_side_options, rank_owned_run, side_data_later, split, unread_side_data
from .usage import add_coverage_options, usage

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
SPARK = "spark"  # not a local engine: rankproof.spark evaluates Parquet on a Spark session


def engine_choices() -> tuple[str, ...]:
    """What --engine chooses: the engines the registry offers, then its executors (spark)."""
    from ..engines import engine_names

    return tuple(engine_names())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..engines import DEFAULT_ENGINE

    parser.add_argument("qrels", help="judgments: TREC (query 0 doc grade), CSV/TSV, JSONL or Parquet; - for stdin "
                                      "(with --dataset: the first run)")
    parser.add_argument("runs", nargs="*", metavar="run",
                        help="rankings: TREC (query Q0 doc rank score tag), CSV/TSV, JSONL or Parquet; - for stdin")
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                        help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)})")
    add_protocol_options(parser)
    add_chunk_options(parser)
    add_input_options(parser)
    add_coverage_options(parser)
    choices = engine_choices()
    parser.add_argument("--engine", choices=choices, default=DEFAULT_ENGINE,
                        help=f"what computes the measures: {' or '.join(choices[:-1])} on this machine "
                             f"(default {DEFAULT_ENGINE}), or spark (Parquet files or directories, evaluated on "
                             "a Spark session; same numbers)")
    parser.add_argument("--spark-master", metavar="URL",
                        help="with --engine spark: the master (default: the active session, else local[2])")
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
    from ..measures.parse import parse_measures
    from ..report.output import check_output_path, write_output

    # Everything that can be checked without reading data is checked first.
    check_format_output(args, NAME)
    if args.dataset:
        return _on_dataset(args)
    positionals(args, NAME)
    typed, wanted = split(args.measure or DEFAULT_MEASURES)
    measures = parse_measures(typed) if typed else []   # side-data measures may be asked for alone
    protocol = protocol_of(args)
    places = precision(args)
    names = measure_names(args, NAME, measures)
    check_output_path(args.output, [args.qrels, *args.runs, args.grade_map, args.items, args.train, args.features,
                                    args.groups])
    labels = run_names(args.runs, args.label)
    if args.tie_range and (args.engine == SPARK or args.memory_budget is not None or args.log_sorted is not None):
        raise usage(NAME, "--tie-range evaluates on this machine, in memory",
                    "leave out --engine spark and --memory-budget")
    if wanted and (args.memory_budget is not None or args.log_sorted is not None):
        raise usage(NAME, f"{wanted[0]} evaluates on this machine, in memory",
                    "leave out --engine spark and --memory-budget")
    if wanted and not typed and args.engine == SPARK:   # Spark aligns the runs for the accuracy measures
        raise usage(NAME, f"-m {wanted[0]} alone evaluates on this machine; with --engine spark the side-data "
                    "measures go beside an accuracy measure", "add -m ndcg@10, for instance, or leave out --engine spark")
    if args.engine == SPARK:   # what Spark cannot evaluate (a catalogue measure without k or parts): now
        from ..spark.side import check_side_measures

        check_side_measures(wanted, protocol)
    unread = unread_side_data(args, wanted)
    costs: dict[str, float] = {}
    # Refuses a missing flag first; the files are read beside the runs (on Spark, before them).
    pending_side = side_data_later(args, NAME, wanted, skip=unread)
    print_notes([f"warning: {flag} is read by no measure of -m, so evaluate leaves it unread"
                 + ("; rankproof report shows the per-list measures per user group" if flag == "--groups" else "")
                 for flag in unread], args.quiet)
    if args.engine == SPARK:
        results = _on_spark(args, measures, protocol, labels, wanted, pending_side())
    elif args.spark_master is not None:
        raise usage(NAME, "--spark-master is for --engine spark")
    elif not args.tie_range and out_of_core(args, NAME):  # the range reorders whole rankings: in memory
        results = evaluate_out_of_core(args, measures, labels, NAME)
    else:
        prepare_for([args.qrels, *args.runs])
        results = []
        with steps(args, 1 + 2 * len(args.runs), "evaluating") as stages:
            started = time.perf_counter()
            qrels, runs = read_inputs(args, args.qrels, args.runs, labels, stages)
            for name, ranking in runs:   # a lazy sequence: the time to read each run counts as reading
                costs[f"{name}: read"] = time.perf_counter() - started
                started = time.perf_counter()
                given = [ranking]
                if not wanted:  # nothing reads the run after its evaluation: it is the evaluation's alone
                    del ranking
                else:   # kept for the side-data measures: ranked once, for the evaluation and their cut
                    rank_owned_run(ranking, protocol)
                evaluated = _accuracy(args, qrels, given, measures, protocol, side_only=not typed)
                costs[f"{name}: accuracy measures"] = time.perf_counter() - started
                if wanted:
                    started = time.perf_counter()
                    side = pending_side()
                    costs.setdefault("side data read (the wait for it, read beside the runs)",
                                     time.perf_counter() - started)
                    side_costs: dict[str, float] = {}
                    evaluated = _with_side(evaluated, ranking, wanted, side, qrels, side_costs)
                    del ranking  # do not keep a run alive while the next one is read
                    costs.update((f"{name}: {measure}", seconds) for measure, seconds in side_costs.items())
                results.append(evaluated)
                stages.step(f"evaluated {name}")
                started = time.perf_counter()
    pending_side()   # a side file that cannot be read is refused on every path, as when it was read first
    write_output(render_results(results, args.format, args.per_query, places, names, args.spreadsheet_safe,
                                args.dispersion), args.output)
    print_notes(merged_notes(typed if args.measure else None), args.quiet)
    notes(results, args.quiet)
    if args.profile:
        print_notes([f"profile: {stage} {seconds:.3f} s" for stage, seconds in costs.items()], quiet=False)
    return 0


def _accuracy(args, qrels, given: list, measures, protocol, *, side_only: bool = False):
    """One run's accuracy measures; `given` holds the run and is emptied by the evaluation, so that
    a run nobody else holds is ranked in place and freed once aligned (evaluation.evaluate_read)."""
    from ..evaluation import evaluate_read

    return evaluate_read(lambda: (qrels, given.pop()), measures, protocol, side_only=side_only,
                         min_coverage=args.min_coverage,
                         allow_partial=args.allow_partial, bounds=args.bounds, engine=args.engine,
                         ties_range=args.tie_range, **world_options(args))


def world_options(args) -> dict:
    """What the data's world changes in the evaluation (rankproof.errors.messages): a recommender log's truth
    (a table whose query and doc columns are a user's and an item's, --columns query=user,doc=item)
    is complete, as evaluate_frame reads it, so its results state so and give no TREC advice about
    unjudged docs; TREC qrels judge a pool."""
    from ..io.formats import format_of
    from ..errors.messages import LOG, TRUTH_NOTE, world_of_columns

    if args.intents or args.qrels == "-" or format_of(args.qrels, args.qrels_format) == "trec":
        return {}
    named = columns(args, QRELS_ROLES)
    if world_of_columns([named.get("query", "query"), named.get("doc", "doc")]) != LOG:
        return {}
    return {"notes": (TRUTH_NOTE,), "complete_judgments": True}


def _with_side(results, ranking, wanted: list, side, qrels=None, costs: "dict | None" = None):
    """The side-data measures of -m on the run, held by its Results (those that read which items
    are relevant, AUC, GAUC and PopREO, read the qrels); `costs` receives each one's seconds."""
    if not wanted:
        return results
    from ..recsys.side_eval import side_values, with_side

    return with_side(results, side_values(ranking, wanted, side.with_judgments(qrels), results.protocol, costs))


def _on_dataset(args) -> int:
    """--dataset NAME RUN...: the dataset's judgments, its official measures by default, its quirks applied."""
    from ..evaluation import evaluate
    from ..measures.parse import parse_measures
    from ..report.output import check_output_path, write_output

    if args.engine == SPARK or args.memory_budget or args.intents:
        raise usage(NAME, "--dataset evaluates on this machine, in memory",
                    "leave out --engine spark, --memory-budget and --intents")
    _, paths = positionals(args, NAME)
    if split(args.measure or [])[1]:
        raise usage(NAME, "--dataset evaluates accuracy measures", "leave out the side-data measures of -m")
    protocol = protocol_of(args)
    check_output_path(args.output, [*paths, args.grade_map])
    qrels, info = dataset_qrels(args.dataset)
    official, said = default_measures(info, args.measure)
    measures = official or parse_measures(args.measure or DEFAULT_MEASURES)
    places = precision(args)
    names = measure_names(args, NAME, measures)
    results = []
    for path, label in zip(paths, run_names(paths, args.label)):
        ranking, applied = apply_quirks(info, read_run(args, path, label))
        said += applied
        results.append(evaluate(qrels, ranking, measures, protocol, min_coverage=args.min_coverage,
                                allow_partial=args.allow_partial, bounds=args.bounds, engine=args.engine,
                                        ties_range=args.tie_range))
    write_output(render_results(results, args.format, args.per_query, places, names, args.spreadsheet_safe,
                                args.dispersion), args.output)
    print_notes(merged_notes(args.measure) + said, args.quiet)
    notes(results, args.quiet)
    return 0


def _on_spark(args, measures, protocol, names: list[str], wanted=(), side=None) -> list:
    """``--engine spark``: each run evaluated by rankproof.spark, its per-query values
    collected into the Results every renderer takes (the same output as the local engine);
    the side-data measures of -m by rankproof.spark.side (per list user by user, per catalogue from
    the items' top-k slot counts)."""
    _check_spark_inputs(args)
    from ..spark import evaluate as spark_evaluate, get_session
    from ..spark.inputs import describe

    # Read with pyarrow before Spark starts: a missing column or a file that is not Parquet is
    # one line at once, not after the JVM's start-up.
    names_of = {**columns(args, QRELS_ROLES), **columns(args, RUN_ROLES)}
    qrels_columns = {"query": "query", "doc": "doc", "grade": "grade", **columns(args, QRELS_ROLES)}
    run_columns = {"query": "query", "doc": "doc", "score": "score", **columns(args, RUN_ROLES)}
    describe(args.qrels, {role: qrels_columns[role] for role in QRELS_ROLES}, "qrels")
    for path in args.runs:
        describe(path, {role: run_columns[role] for role in RUN_ROLES}, "run")

    try:
        session = get_session(args.spark_master)
    except Exception as error:  # no java, a bad master URL: pyspark's own exception types
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
        raise usage(NAME, f"could not start Spark ({reason})", "--engine spark needs a Java 17 runtime (java on "
                    "PATH or JAVA_HOME) and a reachable --spark-master") from None
    if any(m.spec.judgments for m in wanted):   # AUC, PopREO, IPS, ...: the judgments, read on the driver once
        side = side.with_judgments(read_qrels(args, args.qrels))
    results = []
    for path, name in zip(args.runs, names):
        on_spark = spark_evaluate(args.qrels, path, measures, protocol, name=name, spark=session,
                                  min_coverage=args.min_coverage, allow_partial=args.allow_partial,
                                  **names_of)
        evaluated = on_spark.to_results()
        on_spark.unpersist()
        if wanted:
            from ..recsys.side_eval import with_side
            from ..spark.side import side_values

            values = side_values(session.read.parquet(path), wanted, side, evaluated.protocol,
                                 user=run_columns["query"], item=run_columns["doc"], score=run_columns["score"])
            evaluated = with_side(evaluated, values)
        results.append(evaluated)
    return results


def _check_spark_inputs(args) -> None:
    """What --engine spark cannot take, refused before Spark starts."""
    from ..io.formats import formats_for, named_format

    for given, fmt in [(args.qrels, args.qrels_format), *[(path, args.run_format) for path in args.runs]]:
        if given == "-" or (fmt is not None and fmt not in formats_for("spark")) or not (
                os.path.isdir(given) or named_format(given, "spark") or "://" in given):
            raise usage(NAME, f"--engine spark reads Parquet files or directories; {given} is not one",
                        "convert it to Parquet, or drop --engine spark")
    for option, given, fix in (("--grade-map", args.grade_map, "map the grades in the Parquet data"),
                               ("--intents", args.intents, "evaluate judgments per intent on this machine")):
        if given:
            raise usage(NAME, f"{option} is not available with --engine spark", fix)
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise usage(NAME, "--engine spark needs pyspark and a Java runtime", "pip install 'rankproof[spark]'")
