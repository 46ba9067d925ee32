"""``rankproof nuggets FILE...``: nuggetizer's strict/vital/all scores of each assignment file, per query and mean.

A command of its own rather than ``rag --nuggets``: an assignment file scores
answers, not rankings; it holds neither retrieved ids nor relevance
judgments, so none of rag's options (measures, protocol, chunk map) applies.
Each file becomes a :class:`~rankproof.Results` (:func:`rankproof.evaluate_nuggets`),
so ``--compare`` is ``rankproof compare``'s path (tests, corrections,
intervals, formats), ``--format json -o FILE`` saves results that
``rankproof compare --results`` reads, and ``rankproof report --nuggets``
draws them.
"""

from __future__ import annotations

import argparse
import os

from .compare import (add_interval_options, add_paper_options, add_test_options, bare_names,
                      latex_columns, run_aliases, test_options)
from ..flags import add_format_option, add_output_option
from ..render import COMPARE_FORMATS, digits, measure_names, print_notes, render_comparison

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "read_nugget_files",
           "nugget_file_names"]

NAME = "nuggets"
HELP = "score answers by nuggets: nuggetizer assignment files (TREC RAG), strict/vital/all"
EXAMPLES = """examples:
  rankproof nuggets assignments.jsonl
  rankproof nuggets run_a.jsonl run_b.jsonl --per-query --format json -o scores.json
  rankproof nuggets run_a.jsonl run_b.jsonl --compare --test t --format latex
One JSON object per line, as `nuggetizer assign` writes it: qid and nuggets, each with importance
(vital, okay) and assignment (support, partial_support, not_support). Scores as nuggetizer's
calculate_nugget_scores: strict counts support only; vital_score and all_score give partial_support 0.5
(the protocol says nuggets=partial_support:0.5); a query with no (vital) nugget scores 0; the mean is
over the answers of the file. --format json writes the results document of `rankproof evaluate`
(`rankproof compare --results` reads it); --compare tests them as `rankproof compare` does."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="file",
                        help="nuggetizer assignment files (JSON Lines)")
    parser.add_argument("--per-query", action="store_true",
                        help="also show each query's scores in the table (csv and json always hold them)")
    add_format_option(parser, COMPARE_FORMATS, "markdown and latex with --compare")
    add_output_option(parser)
    parser.add_argument("--quiet", action="store_true",
                        help="no counts on stderr (errors still are)")
    parser.add_argument("--compare", action="store_true",
                        help="paired tests between the files as rankproof compare runs them (every pair, or each "
                             "file against --baseline), on the four scores")
    add_test_options(parser, "with --compare: compare every file with this one", "FILE")
    add_interval_options(parser)
    add_paper_options(parser)


def read_nugget_files(paths: list[str], names: list[str] | None = None) -> list:
    """One Results per assignment file, named by file name (the path where two share it), or by ``names``."""
    from ...results.nuggets import evaluate_nuggets

    names = names or nugget_file_names(paths)
    return [evaluate_nuggets(path, name=name) for path, name in zip(paths, names)]


def nugget_file_names(paths: list[str]) -> list[str]:
    """The assignment files' names: the file name, or the path where two share it."""
    bases = [os.path.basename(path) for path in paths]
    return [base if bases.count(base) == 1 else path for base, path in zip(bases, paths)]


def _table(results: list, places: int, per_query: bool) -> str:
    from ...measures.nuggets import NUGGET_SCORES

    width = max(len("run"), *(len(r.run_name) for r in results))
    lines = [f"{'run':<{width}}  " + "  ".join(NUGGET_SCORES) + "  queries"]
    for r in results:
        cells = "  ".join(f"{r.mean(s):>{len(s)}.{places}f}" for s in NUGGET_SCORES)
        lines.append(f"{r.run_name:<{width}}  {cells}  {len(r.queries):>7}")
    for r in results if per_query else ():
        queries = [str(q) for q in r.queries]
        qwidth = max(len("query"), *(len(q) for q in queries))
        columns = [r.values(s).tolist() for s in NUGGET_SCORES]
        lines += ["", f"per query: {r.run_name}",
                  f"{'query':<{qwidth}}  " + "  ".join(NUGGET_SCORES)]
        for query, row in zip(queries, zip(*columns)):
            lines.append(f"{query:<{qwidth}}  " + "  ".join(f"{v:>{len(s)}.{places}f}"
                                                           for s, v in zip(NUGGET_SCORES, row)))
    return "\n".join(lines) + "\n"


def _csv(results: list) -> str:
    from ...measures.nuggets import NUGGET_SCORES

    lines = ["run,query," + ",".join(NUGGET_SCORES)]
    for r in results:
        columns = [r.values(s).tolist() for s in NUGGET_SCORES]
        lines += [f"{r.run_name},{q}," + ",".join(repr(v) for v in row)
                  for q, row in zip(r.queries, zip(*columns))]
        lines.append(f"{r.run_name},all," + ",".join(repr(r.mean(s)) for s in NUGGET_SCORES))
    return "\n".join(lines) + "\n"


def _compared(args, results: list):
    """The files through rankproof.compare, named as rankproof compare names runs (bm25.jsonl -> bm25)."""
    from ...stats import compare
    from ..usage import usage

    if len(results) < 2:
        raise usage(NAME, "--compare needs two files or more",
                    "give the baseline first, then the others")
    names = bare_names([r.run_name for r in results])
    if args.baseline is not None:   # the file's path, its name or its table name
        args.baseline = run_aliases(args.files, names).get(args.baseline, args.baseline)
    return compare(None, dict(zip(names, results)), None, None, **test_options(args))


def run(args) -> int:
    from ...report.data import to_json
    from ...report.output import check_output_path, write_output
    from ..usage import usage

    check_output_path(args.output, args.files)
    places = digits(args)
    if not args.compare:
        if args.format in ("markdown", "latex"):
            raise usage(NAME, f"--format {args.format} is for --compare", "use table, json or csv")
        if args.baseline is not None:
            raise usage(NAME, "--baseline is for --compare", "add --compare")
    extra = latex_columns(args, NAME)
    results = read_nugget_files(args.files)
    if args.compare:
        comparison = _compared(args, results)
        names = measure_names(args, NAME, comparison.measures)
        text = render_comparison(comparison, args.format, places=places, names=names,
                                 quiet=args.quiet,
                                 label=args.table_label, extra=extra)
        print_notes([f"warning: {line}" for line in comparison.warnings], args.quiet)
    elif args.format == "json":
        # per query always, as evaluate saves it: compare --results reads them
        text = to_json(results)
    else:
        text = _csv(results) if args.format == "csv" else _table(results, places, args.per_query)
    write_output(text, args.output)
    print_notes([f"{r.run_name}: {len(r.queries)} answers scored" for r in results], args.quiet)
    return 0
