"""``rankproof nuggets FILE...``: nuggetizer's strict/vital/all scores of each assignment file, per query and mean.

A command of its own rather than ``rag --nuggets``: an assignment file scores
answers, not rankings; it holds neither retrieved ids nor relevance
judgments, so none of rag's options (measures, protocol, chunk map) applies.
"""

from __future__ import annotations

import argparse
import json
import os

from .render import print_notes, print_text
from .render import digits as precision

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "scores_of"]

NAME = "nuggets"
HELP = "score answers by nuggets: nuggetizer assignment files (TREC RAG), strict/vital/all"
EXAMPLES = """examples:
  rankproof nuggets assignments.jsonl
  rankproof nuggets run_a.jsonl run_b.jsonl --per-query --format json
One JSON object per line, as `nuggetizer assign` writes it: qid and nuggets, each with importance
(vital, okay) and assignment (support, partial_support, not_support). Scores as nuggetizer's
calculate_nugget_scores: strict counts support only; vital_score and all_score give partial_support 0.5;
a query with no (vital) nugget scores 0; the mean is over the answers of the file."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="file", help="nuggetizer assignment files (JSON Lines)")
    parser.add_argument("--per-query", action="store_true", help="also show each query's scores")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table",
                        help="output format (default table)")
    parser.add_argument("--precision", type=int, metavar="DIGITS", help="decimals printed by table (default 4)")
    parser.add_argument("--quiet", action="store_true", help="no counts on stderr (errors still are)")
    parser.add_argument("--compare", action="store_true",
                        help="each file after the first against the first, on the queries both answer: the "
                             "difference of each score, the paired randomization test's p (10,000 sign flips, "
                             "seed 0) and wins/ties/losses")


def scores_of(path: str) -> tuple[list[str], dict[str, list[float]], dict[str, float]]:
    """Query ids in file order, each score per query, and each score's mean over the file's answers."""
    from ..io.nuggets import read_nuggets
    from ..measures.nuggets import nugget_values

    records = read_nuggets(path)
    values = nugget_values([record.nuggets for record in records])
    per_query = {name: column.tolist() for name, column in values.items()}
    means = {name: float(column.mean()) for name, column in values.items()}
    return [record.qid for record in records], per_query, means


def _table(runs: dict, places: int, per_query: bool) -> str:
    from ..measures.nuggets import NUGGET_SCORES

    width = max(len("run"), *(len(name) for name in runs))
    head = f"{'run':<{width}}  " + "  ".join(NUGGET_SCORES) + "  queries"
    lines = [head]
    for name, (queries, _, means) in runs.items():
        cells = "  ".join(f"{means[s]:>{len(s)}.{places}f}" for s in NUGGET_SCORES)
        lines.append(f"{name:<{width}}  {cells}  {len(queries):>7}")
    for name, (queries, values, _) in runs.items() if per_query else ():
        qwidth = max(len("query"), *(len(q) for q in queries))
        lines += ["", f"per query: {name}", f"{'query':<{qwidth}}  " + "  ".join(NUGGET_SCORES)]
        for i, query in enumerate(queries):
            lines.append(f"{query:<{qwidth}}  " + "  ".join(f"{values[s][i]:>{len(s)}.{places}f}"
                                                           for s in NUGGET_SCORES))
    return "\n".join(lines) + "\n"


def _csv(runs: dict) -> str:
    from ..measures.nuggets import NUGGET_SCORES

    lines = ["run,query," + ",".join(NUGGET_SCORES)]
    for name, (queries, values, means) in runs.items():
        lines += [f"{name},{q}," + ",".join(repr(values[s][i]) for s in NUGGET_SCORES) for i, q in enumerate(queries)]
        lines.append(f"{name},all," + ",".join(repr(means[s]) for s in NUGGET_SCORES))
    return "\n".join(lines) + "\n"


def comparison(runs: dict) -> list[dict]:
    """Each run after the first against the first, per score, on the queries both answer."""
    import numpy as np

    from ..measures.nuggets import NUGGET_SCORES
    from ..stats.significance import randomization

    names = list(runs)
    base_queries, base_values, _ = runs[names[0]]
    rows = []
    for name in names[1:]:
        queries, values, _ = runs[name]
        at = {q: i for i, q in enumerate(queries)}
        shared = [(i, at[q]) for i, q in enumerate(base_queries) if q in at]
        a_rows, b_rows = [i for i, _ in shared], [j for _, j in shared]
        for score in NUGGET_SCORES:
            a = np.asarray(base_values[score])[a_rows]
            b = np.asarray(values[score])[b_rows]
            d = b - a
            p = float(randomization(d[None, :])[0]) if len(d) else float("nan")
            rows.append({"score": score, "a": names[0], "b": name, "queries": len(d), "mean_a": float(a.mean()),
                         "mean_b": float(b.mean()), "difference": float(d.mean()), "p_value": p,
                         "wins": int((d > 1e-12).sum()), "ties": int((abs(d) <= 1e-12).sum()),
                         "losses": int((d < -1e-12).sum())})
    return rows


def _comparison_table(rows: list[dict], places: int) -> str:
    wa = max(1, *(len(r["a"]) for r in rows))
    wb = max(1, *(len(r["b"]) for r in rows))
    lines = [f"{'score':<18}  {'A':<{wa}}  {'B':<{wb}}  {'mean A':>8}  {'mean B':>8}  {'B - A':>8}  {'p':>7}  "
             "wins/ties/losses  queries"]
    for r in rows:
        lines.append(f"{r['score']:<18}  {r['a']:<{wa}}  {r['b']:<{wb}}  {r['mean_a']:>8.{places}f}  "
                     f"{r['mean_b']:>8.{places}f}  "
                     f"{r['difference']:>+8.{places}f}  {r['p_value']:>7.4f}  "
                     f"{str(r['wins']) + '/' + str(r['ties']) + '/' + str(r['losses']):>16}  {r['queries']:>7}")
    lines.append("two-sided paired randomization test (10,000 sign flips, seed 0; exact when 2**n is fewer), "
                 "no correction over the four scores")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    places = precision(args)
    runs = {}
    for path in args.files:
        name = os.path.basename(path)
        if name in runs:
            name = path
        runs[name] = scores_of(path)
    if args.compare:
        if len(runs) < 2:
            from .usage import usage

            raise usage(NAME, "--compare needs two files or more", "give the baseline first, then the others")
        rows = comparison(runs)
        if args.format == "json":
            print_text(json.dumps({"scores": "nuggetizer", "comparison": rows}, indent=2) + "\n")
        elif args.format == "csv":
            print_text("".join(",".join(str(v) for v in (row.keys() if i < 0 else row.values())) + "\n"
                               for i, row in [(-1, rows[0]), *enumerate(rows)]))
        else:
            print_text(_comparison_table(rows, places))
    elif args.format == "json":
        document = {name: {"mean": means, "per_query": {q: {s: v[i] for s, v in values.items()}
                                                          for i, q in enumerate(queries)} if args.per_query else None}
                    for name, (queries, values, means) in runs.items()}
        print_text(json.dumps({"scores": "nuggetizer", "partial_credit": 0.5, "runs": document}, indent=2) + "\n")
    else:
        print_text(_csv(runs) if args.format == "csv" else _table(runs, places, args.per_query))
    print_notes([f"{name}: {len(queries)} answers scored" for name, (queries, _, _) in runs.items()], args.quiet)
    return 0
