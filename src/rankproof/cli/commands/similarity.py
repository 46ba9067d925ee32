"""``rankproof similarity``: how alike two runs rank, query by query: RBO (tie-aware), overlap@k, Jaccard@k.

No judgments needed. Tied scores are tie groups, treated by ``--ties``
(Corsi and Urbano 2024: w, a, b). The runs are read as every command reads
them (:mod:`rankproof.cli.inputs`: formats, columns, ``-`` for stdin, the same errors).
"""

from __future__ import annotations

import argparse

from ..inputs import add_run_options, read_run, run_names
from ..render import add_print_options, digits, print_text
from ..usage import count_option, fraction_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "similarity"
HELP = "how alike two runs rank: RBO with ties (min, ext, max), overlap@k and Jaccard@k per query"
EXAMPLES = """examples:
  rankproof similarity bm25.run tfidf.run
  rankproof similarity bm25.run reproduced.run --p 0.95 --ties w --per-query"""

_TIES = {"w": "a tie is equality: the group is seen whole at its first depth",
         "a": "a tie is uncertainty: the expected RBO over random tie-breaking",
         "b": "a tie is uncertainty, corrected for the information it loses"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="*", metavar="RUN", help="two runs")
    parser.add_argument("--p", type=fraction_option("--p"), default=0.9,
                        help="RBO's persistence (default 0.9)")
    parser.add_argument("--ties", choices=tuple(_TIES), default="a",
                        help="RBO's treatment of tied scores (Corsi and Urbano 2024): a (default), w or b")
    parser.add_argument("-k", type=count_option("-k"), default=10,
                        help="cutoff of overlap@k and Jaccard@k (default 10)")
    parser.add_argument("--per-query", action="store_true", help="print every query's values")
    add_run_options(parser)
    add_print_options(parser)


def run(args) -> int:
    from ...stats.run_similarity import run_similarity

    if len(args.runs) != 2:
        raise usage(NAME, "give two runs")
    places = digits(args)
    names = run_names(args.runs, args.label)
    first, second = (read_run(args, path, name) for path, name in zip(args.runs, names))
    result = run_similarity(first, second, p=args.p, ties=args.ties, k=args.k)
    lines = [f"{names[0]} vs {names[1]}: {len(result.queries)} queries ranked by both"
             f" ({result.only_a} only by the first, {result.only_b} only by the second)"]
    if args.per_query:
        lines.append(f"{'query':<12}{'RBO min':>10}{'RBO ext':>10}{'RBO max':>10}"
                     f"{'overlap@' + str(args.k):>12}{'Jaccard@' + str(args.k):>12}")
        lines += [f"{q.query:<12}{q.rbo.min:>10.{places}f}{q.rbo.ext:>10.{places}f}{q.rbo.max:>10.{places}f}"
                  f"{q.overlap:>12.{places}f}{q.jaccard:>12.{places}f}" for q in result.queries]
    lines.append(f"mean RBO (p={args.p:g}, ties {args.ties}) ext {result.mean('ext'):.{places}f}  "
                 f"min {result.mean('min'):.{places}f}  max {result.mean('max'):.{places}f}")
    lines.append(f"mean overlap@{args.k} {result.mean('overlap'):.{places}f}  "
                 f"Jaccard@{args.k} {result.mean('jaccard'):.{places}f}")
    lines.append(f"(ties {args.ties}: {_TIES[args.ties]}; Corsi and Urbano 2024. overlap@k and Jaccard@k: the "
                 "top k by score, then doc id descending, as trec_eval)")
    print_text("\n".join(lines) + "\n")
    return 0
