"""``rankproof pool``: the docs to judge next, by depth-k, RBP-weighted or fused-rank (RRF) pooling.

Prints each run's contribution (pooled docs it ranks, and those only it
ranks) and writes the pool for the assessors (``-o``, atomically): a TREC
qrels template (``query 0 doc -1``, the -1 to be replaced by the grade) or
JSON Lines. ``--judged QRELS`` leaves the docs already judged out of the
pool. ``--reusability QRELS`` runs Zobel's leave-one-run-out test on
complete judgments: each run's mean and rank without its unique docs.
See :mod:`rankproof.stats.pools`.
"""

from __future__ import annotations

import argparse

from ..flags import add_evaluation_options, add_measure_option
from ..inputs import protocol_of, read_qrels, read_run, run_names
from ..usage import count_option, fraction_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "pool"
HELP = "the docs to judge next: depth-k, RBP-weighted or RRF pooling with a budget; leave-one-run-out reusability"
EXAMPLES = """examples:
  rankproof pool bm25.run tfidf.run lmdirichlet.run --size 10 -o pool.qrels
  rankproof pool bm25.run tfidf.run --method rbp --p 0.8 --size 20 --budget 500 --judged human.qrels -o next.jsonl
  rankproof pool bm25.run tfidf.run lmdirichlet.run --reusability qrels.txt -m ap"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="*", metavar="RUN", help="the runs to pool")
    parser.add_argument("--method", choices=("depth", "rbp", "rrf"), default="depth",
                        help="depth: every doc some run ranks in its top SIZE; rbp: the SIZE docs with the most "
                             "rank-biased precision mass over the runs (Moffat et al. 2007); rrf: the SIZE best "
                             "by reciprocal rank fusion (default depth)")
    parser.add_argument("--size", type=count_option("--size"), default=10,
                        help="per query: the depth (depth) or the new docs (rbp, rrf) (default 10)")
    parser.add_argument("--budget", type=count_option("--budget", 0), default=None,
                        help="at most this many docs in the whole pool, highest priority first")
    parser.add_argument("--p", type=fraction_option("--p"), default=0.8,
                        help="RBP's persistence (default 0.8)")
    parser.add_argument("--k", type=count_option("--k", 0), default=60,
                        help="RRF's constant (default 60)")
    parser.add_argument("--judged", metavar="QRELS",
                        help="judgments already made: their docs leave the pool")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the pool here (atomically)")
    parser.add_argument("--format", choices=("trec", "jsonl"), default=None,
                        help="of -o: a TREC qrels template or JSON Lines (default: from the extension, else trec)")
    parser.add_argument("--reusability", metavar="QRELS",
                        help="complete judgments: each run's mean and rank without its unique docs (Zobel 1998)")
    add_measure_option(parser, "the measure of --reusability", "ap")
    add_evaluation_options(parser, coverage=False)


def _reusability_lines(args, runs: dict) -> list[str]:
    from ...stats.pools import leave_one_run_out, mean_absolute_change

    qrels = read_qrels(args, args.reusability)
    rows = leave_one_run_out(qrels, runs, args.measure, depth=args.size, protocol=protocol_of(args))
    lines = [f"leave-one-run-out ({args.measure}, unique docs in each run's top {args.size}):",
             f"  {'run':<20}{'unique':>8}{'mean':>10}{'without':>10}{'rank':>6}{'without':>9}"]
    lines += [f"  {r.run:<20}{r.unique_judged:>8}{r.mean:>10.4f}{r.mean_without:>10.4f}{r.rank:>6}"
              f"{r.rank_without:>9}" for r in rows]
    lines.append(f"mean absolute change {mean_absolute_change(rows):.4f}")
    return lines


def run(args) -> int:
    from ...report.output import check_output_path, write_output
    from ...stats.pools import build_pool

    if not args.runs:
        raise usage(NAME, "give one or more runs")
    if args.layer or args.intents:
        raise usage(NAME, "--layer and --intents are not available for pools",
                    "give plain qrels to --judged")
    names = run_names(args.runs, args.label)
    check_output_path(args.output, [*args.runs, *(p for p in (args.judged, args.reusability) if p)])
    runs = {name: read_run(args, path, name) for path, name in zip(args.runs, names)}
    judged = read_qrels(args, args.judged).to_dict() if args.judged else None
    pool = build_pool(runs, args.method, size=args.size, budget=args.budget, p=args.p, k=args.k,
                      judged=judged)
    queries = len({entry.query for entry in pool.entries})
    lines = [f"{args.method} pool of {len(runs)} runs, size {args.size}"
             + (f", budget {args.budget}" if args.budget is not None else "")
             + f": {len(pool.entries)} docs to judge over {queries} queries",
             f"  {'run':<20}{'pooled':>8}{'unique':>8}"]
    lines += [f"  {name:<20}{pooled:>8}{unique:>8}"
              for name, (pooled, unique) in pool.contribution.items()]
    if args.reusability:
        lines += _reusability_lines(args, runs)
    print("\n".join(lines))
    if args.output:
        jsonl = (args.format == "jsonl"
                 or (args.format is None and str(args.output).endswith((".jsonl", ".json"))))
        write_output(pool.to_jsonl() if jsonl else pool.to_trec(), args.output)
    return 0
