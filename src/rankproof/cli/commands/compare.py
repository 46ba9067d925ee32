"""``rankproof compare``: paired significance tests between runs (or saved results)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .evaluate import DEFAULT_MEASURES
from ..flags import (add_correction_option, add_evaluation_options, add_format_option,
                    add_level_option, add_measures_option, add_output_option,
                    add_resampling_options)
from ..inputs import protocol_of, read_inputs, run_names
from ..large import prepare_for, stages as progress
from ..render import (COMPARE_FORMATS, add_names_option, digits, measure_names, merged_notes,
                     print_notes, render_comparison)
from ..usage import precision_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "add_test_options", "add_interval_options",
           "add_paper_options", "bare_names", "table_names", "run_aliases", "saved_names",
           "latex_columns", "test_options", "run"]

NAME = "compare"
HELP = "paired significance tests between runs (or saved results)"
EXAMPLES = """examples:
  rankproof compare qrels.txt bm25.run tfidf.run lmdirichlet.run -m ndcg@10 -m ap
  rankproof compare qrels.txt a.run b.run --baseline a.run --test t --format latex -o table.tex
  rankproof compare --results a.json b.json"""

_RUN_EXTENSIONS = (".run", ".runs", ".trec", ".txt", ".res", ".csv", ".tsv", ".jsonl", ".json",
                   ".parquet")


def add_test_options(parser, baseline: str | None = None,
                     metavar: str = "RUN") -> None:
    """The paired tests' options compare, report, nuggets and fuse share; `baseline` is the help
    of --baseline, the run every other is tested against (None: the command has none)."""
    if baseline is not None:
        parser.add_argument("--baseline", metavar=metavar, help=baseline)
    parser.add_argument("--test", choices=("randomization", "t", "wilcoxon"),
                        default="randomization",
                        help="paired test (default randomization: sign flips)")
    add_correction_option(parser, "pairs x measures")
    add_level_option(parser, "alpha", "significance level")
    add_resampling_options(parser, 10_000, "randomization and bootstrap draws")


def add_interval_options(parser: argparse.ArgumentParser) -> None:
    """The interval, power and mismatch options of compare (and of nuggets --compare)."""
    add_level_option(parser, "confidence", "bootstrap interval level")
    parser.add_argument("--bootstrap", choices=("percentile", "BCa", "basic"), default="percentile",
                        help="bootstrap interval method (default percentile)")
    add_level_option(parser, "power", "power for 'queries needed'")
    parser.add_argument("--allow-mismatch", action="store_true",
                        help="compare runs evaluated under different protocols, qrels or query sets (on shared queries)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="the qrels, then two or more runs")
    parser.add_argument("--results", nargs="+", metavar="FILE",
                        help="compare saved results (rankproof evaluate --format json -o FILE) instead of runs")
    add_measures_option(parser, f"default {' '.join(DEFAULT_MEASURES)}, or every measure saved")
    add_test_options(parser, "compare every run with this one (default: all pairs)")
    parser.add_argument("--method", choices=("auto", "resampling", "normal"), default="auto",
                        help="auto (default): rows with 1,000 queries or more take the paired t-test and the normal "
                             "interval where a printed check shows resampling could not tell them apart; "
                             "resampling or normal: always that")
    add_interval_options(parser)
    add_evaluation_options(parser)
    parser.add_argument("--bounds", action="store_true",
                        help="say which differences the unjudged docs could reverse (the runs' bounds overlap)")
    add_format_option(parser, COMPARE_FORMATS)
    add_paper_options(parser)
    add_output_option(parser)
    parser.add_argument("--quiet", action="store_true",
                        help="the table alone: no notes under it (test, correction, protocol, fingerprint) and "
                             "nothing on stderr but errors (LaTeX keeps the fingerprint in its caption)")


def add_paper_options(parser: argparse.ArgumentParser) -> None:
    """What a paper's table needs: decimals, measure names, the LaTeX label and extra columns."""
    parser.add_argument("--precision", type=precision_option, metavar="DIGITS",
                        help="decimals of means, differences and intervals in table, markdown and latex "
                             "(default 4; p-values keep 4, json and csv every digit)")
    add_names_option(parser)
    parser.add_argument("--table-label", default="tab:results", metavar="LABEL",
                        help="the LaTeX table's \\label (default tab:results)")
    parser.add_argument("--latex-columns", default="", metavar="ci,effect",
                        help="extra LaTeX columns after each measure: ci (the interval of each run against the "
                             "baseline, or the first run) and effect (Cohen's d against it); markdown always "
                             "has both. Not --columns, which names input columns")


def bare_names(names: list[str]) -> list[str]:
    """Run names for comparison tables: without the file extension (``bm25.run.gz`` -> ``bm25``),
    unless that would make two labels equal or empty."""
    def bare(name: str) -> str:
        stem = name[:-3] if name.endswith(".gz") else name
        root, extension = os.path.splitext(stem)
        return (root if extension.lower() in _RUN_EXTENSIONS and root and not root.endswith(os.sep)
                else stem)

    labels = [bare(name) for name in names]
    return labels if len(set(labels)) == len(labels) else names


def table_names(paths: list[str], labels: "list[str] | None") -> list[str]:
    """The runs' names in compare, systems and segments tables: each --label as given, else the
    file name without its extension (:func:`bare_names`)."""
    file_names = run_names(paths)
    labelled = run_names(paths, labels)
    return [given if given != file else bare for given, file, bare in zip(labelled, file_names,
                                                                       bare_names(file_names))]


def run_aliases(paths: list[str], names: list[str]) -> dict[str, str]:
    """Each run's name under every spelling an option naming a run (--baseline, --fused) may
    use: its path as given, its file name (:func:`rankproof.cli.inputs.run_names`) or its name.

    >>> run_aliases(["runs/bm25.run", "ql.run"], ["BM25", "ql"])
    {'runs/bm25.run': 'BM25', 'ql.run': 'ql', 'bm25.run': 'BM25', 'BM25': 'BM25', 'ql': 'ql'}
    """
    return {**dict(zip(paths, names)), **dict(zip(run_names(paths), names)),
            **{name: name for name in names}}


def run(args) -> int:
    from ...report.output import check_output_path, write_output
    from ...stats import compare

    check_output_path(args.output, [*(args.results or []), *(args.inputs or []), args.grade_map])
    places, extra = digits(args), latex_columns(args)
    # checked before the work; saved results name their measures later
    if not args.results and args.names:
        from ...measures.parse import parse_measures

        measure_names(args, NAME, parse_measures(args.measure or DEFAULT_MEASURES))
    if args.results:
        comparison = compare(None, _saved(args), args.measure, None, **test_options(args))
    else:
        comparison = _compare_runs(args, compare)
    names = measure_names(args, NAME, comparison.measures)
    write_output(render_comparison(comparison, args.format, places=places, names=names,
                                   quiet=args.quiet,
                                   label=args.table_label, extra=extra), args.output)
    print_notes(merged_notes(args.measure), args.quiet)
    # The partial-match guard's doubts about the inputs, on stderr as evaluate prints them.
    print_notes([f"warning: {line}" for line in comparison.warnings], args.quiet)
    return 0


def latex_columns(args, command: str = NAME) -> tuple[str, ...]:
    """--latex-columns ci,effect, checked before any work."""
    from ...report.compare import LATEX_EXTRAS

    extra = tuple(part.strip() for part in args.latex_columns.split(",") if part.strip())
    wrong = [e for e in extra if e not in LATEX_EXTRAS]
    if wrong or len(set(extra)) != len(extra):
        raise usage(command,
                    f"--latex-columns {args.latex_columns}: choose from {', '.join(LATEX_EXTRAS)}, each once",
                    "e.g. --latex-columns ci,effect")
    if extra and args.format != "latex":
        raise usage(command, "--latex-columns is for --format latex",
                    "markdown and table already show CI and d")
    return extra


def test_options(args) -> dict:
    return dict(test=args.test, correction=args.correction, alpha=args.alpha,
                baseline=args.baseline,
                confidence=args.confidence, bootstrap_method=args.bootstrap, power=args.power,
                n_resamples=args.resamples, seed=args.seed, allow_mismatch=args.allow_mismatch,
                method=getattr(args, "method", "auto"))


def _saved(args) -> dict:
    """--results: every run of every saved results file; names made unique with the file name where they clash."""
    from ...stats import load_results

    if args.inputs:
        raise usage(NAME, "give either QRELS RUN RUN ... or --results FILE ..., not both")
    if args.label:
        raise usage(NAME, "--label names run files; saved results keep their run names")
    if args.bounds:
        raise usage(NAME, "--bounds evaluates the runs; saved results hold no bounds",
                    "give QRELS RUN RUN ...")
    if args.preset != "rankproof" or args.policy or args.grade_map or args.intents:
        raise usage(NAME,
                    "--preset, --policy, --grade-map and --intents apply when evaluating runs",
                    "saved results keep the protocol they were evaluated under")
    return saved_names([(path, saved) for path in args.results for saved in load_results(path)])


def saved_names(loaded: list[tuple[str, Any]]) -> dict:
    """Saved results (path, results) by their names in a table: each run's name without its
    extension (:func:`bare_names`), after its file's name where two files hold one name."""
    names = bare_names([saved.run_name for _, saved in loaded])
    return {(f"{os.path.basename(path)}:{name}" if names.count(name) > 1 else name): saved
            for (path, saved), name in zip(loaded, names)}


def _compare_runs(args, compare):
    from ...measures.parse import parse_measures
    from ...io.shared_ids import sharing
    from ...engines.options import EvaluationOptions
    from ..multirun import evaluated_runs

    if len(args.inputs) < 3:
        raise usage(NAME, "give QRELS and at least two runs (or --results FILE ...)")
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = protocol_of(args)
    args.qrels, paths = args.inputs[0], args.inputs[1:]
    # Runs are named by file without its extension (bm25.run -> bm25), or by --label.
    names = table_names(paths, args.label)
    large = prepare_for(args.inputs)
    # The truth and the runs name the same users: their vocabulary is made once (io/shared_ids.py).
    with sharing(), progress(2 + 2 * len(paths), large, "comparing") as stages:
        qrels, read = read_inputs(args, args.qrels, paths, names, stages)
        # Each run evaluated as it is read (as compare would evaluate it), the next one read
        # meanwhile, and let go once aligned: its per-query values alone stay (cli/multirun.py).
        options = EvaluationOptions(allow_partial=args.allow_partial,
                                    min_coverage=args.min_coverage, bounds=args.bounds)
        evaluated = dict(evaluated_runs(qrels, read, measures, protocol, stages, options=options))
        # --baseline may name the run (with or without its extension) or give its path.
        args.baseline = run_aliases(paths, names).get(args.baseline, args.baseline)
        stages.step("testing")
        return compare(qrels, evaluated, measures, protocol, allow_partial=args.allow_partial,
                       min_coverage=args.min_coverage, bounds=args.bounds,
                       **test_options(args))
