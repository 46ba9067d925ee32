"""``rankproof agree``: how alike two (or more) sets of judgments are, and whether they rank the runs alike.

Cohen's kappa (weighted for graded judgments), Fleiss' kappa with more
qrels (``--qrels``), the confusion matrix of grades, per-topic agreement,
and with runs: the system ranking under each qrels and its Kendall tau-b /
tau_AP with a seeded bootstrap interval over topics.
"""

from __future__ import annotations

import argparse

from .usage import usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "agree"
HELP = "agreement of two qrels: kappa, confusion, per topic, and the system rankings under each"
EXAMPLES = """examples:
  rankproof agree human.qrels llm.qrels
  rankproof agree human.qrels llm.qrels bm25.run tfidf.run lmdirichlet.run -m ndcg@10
  rankproof agree a.qrels b.qrels --qrels c.qrels --weights quadratic"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS_A QRELS_B [RUN]", help="two qrels, then any runs")
    parser.add_argument("--qrels", action="append", metavar="FILE", help="a further assessor's qrels (Fleiss' kappa)")
    parser.add_argument("--weights", choices=("none", "linear", "quadratic"), default="linear",
                        help="disagreement weights of the weighted kappa (default linear)")
    parser.add_argument("-m", "--measure", default="ndcg@10", help="measure ranking the runs (default ndcg@10)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap samples over topics (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--per-topic", action="store_true", help="print the agreement of every topic")


def _confusion_lines(result) -> list[str]:
    labels = [f"{label:g}" for label in result.labels]
    width = max(6, *(len(label) for label in labels))
    lines = ["confusion (rows: A, columns: B):", " " * width + "".join(f"{label:>{width}}" for label in labels)]
    for label, row in zip(labels, result.matrix.tolist()):
        lines.append(f"{label:>{width}}" + "".join(f"{count:>{width}}" for count in row))
    lines.append(f"judged by A only: {result.only_a}, by B only: {result.only_b}")
    return lines


def _rankings(args, qrels_a, qrels_b, paths) -> list[str]:
    from ..data.run import Run
    from ..evaluation import evaluate
    from ..stats.agreement import ranking_agreement
    from .inputs import run_names

    names = run_names(paths)
    runs = [Run.read(path, name=name) for path, name in zip(paths, names)]
    scores_a = {name: evaluate(qrels_a, run, [args.measure]).per_query(args.measure) for name, run in zip(names, runs)}
    scores_b = {name: evaluate(qrels_b, run, [args.measure]).per_query(args.measure) for name, run in zip(names, runs)}
    result = ranking_agreement(scores_a, scores_b, resamples=args.resamples, seed=args.seed)
    lines = [f"system ranking by {args.measure} on {result.topics} topics:",
             f"  {'run':<20}{'under A':>10}{'under B':>10}"]
    for name, mean_a, mean_b in sorted(zip(result.systems, result.means_a, result.means_b), key=lambda r: -r[1]):
        lines.append(f"  {name:<20}{mean_a:>10.4f}{mean_b:>10.4f}")
    low, high = result.tau_b_interval
    lines.append(f"Kendall tau-b {result.tau_b:.4f}  95% bootstrap [{low:.4f}, {high:.4f}]")
    low, high = result.tau_ap_interval
    lines.append(f"tau_AP (A as reference) {result.tau_ap:.4f}  95% bootstrap [{low:.4f}, {high:.4f}]")
    lines.append(f"(percentile bootstrap over topics, {result.resamples} resamples, seed {result.seed})")
    return lines


def run(args) -> int:
    from ..data.qrels import Qrels
    from ..stats.agreement import cohen_kappa, confusion, fleiss_kappa, per_topic_agreement

    if len(args.inputs) < 2:
        raise usage(NAME, "give two qrels (then any runs)")
    if args.resamples < 1:
        raise usage(NAME, "--resamples must be at least 1")
    qrels_a, qrels_b = (Qrels.read(path) for path in args.inputs[:2])
    a, b = qrels_a.to_dict(), qrels_b.to_dict()
    result = confusion(a, b)
    lines = [f"{int(result.matrix.sum())} (query, doc) pairs judged by both",
             f"Cohen's kappa {cohen_kappa(a, b):.4f}"]
    if len(result.labels) > 2 and args.weights != "none":
        lines.append(f"weighted kappa ({args.weights}) {cohen_kappa(a, b, args.weights):.4f}")
    if args.qrels:
        every = [a, b, *(Qrels.read(path).to_dict() for path in args.qrels)]
        lines.append(f"Fleiss' kappa ({len(every)} qrels) {fleiss_kappa(every):.4f}")
    lines += _confusion_lines(result)
    if args.per_topic:
        lines.append("per topic: query, pairs, same grade, kappa")
        lines += [f"  {query}  {n}  {same:.3f}  {kappa:.4f}"
                  for query, (n, same, kappa) in per_topic_agreement(a, b).items()]
    if len(args.inputs) > 2:
        lines += _rankings(args, qrels_a, qrels_b, args.inputs[2:])
    print("\n".join(lines))
    return 0
