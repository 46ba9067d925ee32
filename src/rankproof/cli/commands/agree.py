"""``rankproof agree``: how alike two (or more) sets of judgments are, and whether they rank the runs alike.

Cohen's kappa (weighted for graded judgments), Fleiss' kappa with more
qrels (``--qrels``), the confusion matrix of grades, per-topic agreement;
over every qrels at once Krippendorff's alpha (nominal, ordinal, interval)
and Gwet's AC1/AC2, and for every qrels against the first the exact
agreement, kappa, weighted kappa and per-grade sensitivity and specificity,
each with a seeded percentile bootstrap interval over topics;
and with runs: the system ranking under each qrels, its Kendall tau-b /
tau_AP with a seeded bootstrap interval over topics, and the RBO of the two
rankings. System means can tie: ``--tau-ap-ties`` and ``--rbo-ties`` say how.
The qrels and runs are read as every command reads them (:mod:`rankproof.cli.inputs`:
formats, columns, ``-`` for stdin, the same errors and limits).
"""

from __future__ import annotations

import argparse
import math

from ..flags import add_evaluation_options, add_measure_option, add_resampling_options
from ..inputs import protocol_of, read_qrels
from ..render import print_notes
from ..two_qrels import read_two_qrels, same_judgments
from ..usage import fraction_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "agree"
HELP = "agreement of two qrels: kappa, confusion, per topic, and the system rankings under each"
EXAMPLES = """examples:
  rankproof agree human.qrels llm.qrels
  rankproof agree human.qrels llm.qrels bm25.run tfidf.run lmdirichlet.run -m ndcg@10
  rankproof agree a.qrels b.qrels --qrels c.qrels --weights quadratic
  rankproof agree human.qrels llm.qrels --resamples 2000 --seed 7"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS_A QRELS_B [RUN]",
                        help="two qrels, then any runs")
    parser.add_argument("--qrels", action="append", metavar="FILE",
                        help="a further assessor's qrels (Fleiss' kappa)")
    parser.add_argument("--weights", choices=("none", "linear", "quadratic"), default="linear",
                        help="weights of the weighted kappa (disagreement, by grade position) and of Gwet's AC2 "
                             "(agreement, by grade value) (default linear)")
    add_measure_option(parser, "measure ranking the runs")
    add_resampling_options(parser, 1000, "bootstrap samples over topics, for every interval")
    parser.add_argument("--per-topic", action="store_true",
                        help="print the agreement of every topic")
    parser.add_argument("--tau-ap-ties", choices=("a", "b"), default="a",
                        help="tau_AP with tied system means (Urbano and Marrero 2017): a, A's ranking is the truth "
                             "and B's ties are averaged over (default); b, both are observers (symmetric)")
    parser.add_argument("--rbo-p", type=fraction_option("--rbo-p"), default=0.9,
                        help="persistence p of the RBO of the two system rankings (default 0.9)")
    parser.add_argument("--rbo-ties", choices=("w", "a", "b"), default="a",
                        help="RBO with tied system means (Corsi and Urbano 2024): a, the expected RBO over random "
                             "tie-breaking (default); w, a tie is equality; b, a corrected for the ties")
    add_evaluation_options(parser)


def _confusion_lines(result) -> list[str]:
    labels = [f"{label:g}" for label in result.labels]
    width = max(6, *(len(label) for label in labels))
    lines = ["confusion (rows: A, columns: B):",
             " " * width + "".join(f"{label:>{width}}" for label in labels)]
    for label, row in zip(labels, result.matrix.tolist()):
        lines.append(f"{label:>{width}}" + "".join(f"{count:>{width}}" for count in row))
    lines.append(f"judged by A only: {result.only_a}, by B only: {result.only_b}")
    return lines


def _shown(estimate) -> str:
    return f"{estimate.value:.4f} [{estimate.low:.4f}, {estimate.high:.4f}]"


def _label_lines(args, every: list[dict], names: list[str]) -> list[str]:
    """Alpha and AC1/AC2 over every source; each source against the first, with bootstrap intervals."""
    from ...stats.label_agreement import label_agreement

    letters = [chr(ord("A") + i) if i < 26 else f"Q{i + 1}" for i in range(len(every))]
    result = label_agreement(every, letters, weights=args.weights, resamples=args.resamples,
                             seed=args.seed)
    lines = ["qrels: " + ", ".join(f"{letter} {name}" for letter, name in zip(letters, names)),
             f"agreement of {len(names)} qrels on {result.units} (query, doc) pairs judged by two or more, "
             f"{result.topics} topics ({result.confidence:.0%} percentile bootstrap over topics, "
             f"{result.resamples} resamples, seed {result.seed}):",
             "  Krippendorff's alpha  " + "  ".join(f"{level} {_shown(value)}"
                                                   for level, value in result.alpha.items()),
             f"  Gwet's AC1 {_shown(result.ac1)}"
             + (f"  AC2 ({result.weights}) {_shown(result.ac2)}" if result.weights != "none"
                else "")]
    for judge in result.judges:
        lines.append(f"{judge.source} against A ({judge.units} pairs): exact {_shown(judge.exact)}  "
                     f"kappa {_shown(judge.kappa)}"
                     + (f"  weighted ({result.weights}) {_shown(judge.weighted_kappa)}"
                        if result.weights != "none" else ""))
        lines.append(f"  {'grade':>6}  {'sensitivity':<26}specificity")
        lines += [f"  {grade:>6g}  {_shown(judge.sensitivity[grade]):<26}{_shown(judge.specificity[grade])}"
                  for grade in result.values]
    return lines


def _rankings(args, qrels_a, qrels_b, runs) -> list[str]:
    from ...evaluation import evaluate
    from ...stats.agreement import ranking_agreement

    protocol = protocol_of(args)
    scores_a: dict[str, dict] = {}
    scores_b: dict[str, dict] = {}
    doubts: list[str] = []
    for name, ranking in runs:
        for which, qrels, scores in (("A", qrels_a, scores_a), ("B", qrels_b, scores_b)):
            results = evaluate(qrels, ranking, [args.measure], protocol,
                               allow_partial=args.allow_partial,
                               min_coverage=args.min_coverage)
            scores[name] = results.per_query(args.measure)
            doubts += [f"{name} (qrels {which}): warning: {line}" for line in results.warnings]
    # the partial-match guard's doubts, as evaluate prints them
    print_notes(dict.fromkeys(doubts), False)
    result = ranking_agreement(scores_a, scores_b, resamples=args.resamples, seed=args.seed,
                               ties=args.tau_ap_ties, rbo_p=args.rbo_p, rbo_ties=args.rbo_ties)
    lines = [f"system ranking by {args.measure} on {result.topics} topics:",
             f"  {'run':<20}{'under A':>10}{'under B':>10}"]
    for name, mean_a, mean_b in sorted(zip(result.systems, result.means_a, result.means_b),
                                       key=lambda r: -r[1]):
        lines.append(f"  {name:<20}{mean_a:>10.4f}{mean_b:>10.4f}")
    low, high = result.tau_b_interval
    lines.append(f"Kendall tau-b {result.tau_b:.4f}  95% bootstrap [{low:.4f}, {high:.4f}]")
    low, high = result.tau_ap_interval
    variant = ("tau_AP (A as reference; B's ties averaged, tau_AP_a)" if result.ties == "a"
               else "tau_AP_b (symmetric; ties in either)")
    lines.append(f"{variant} {result.tau_ap:.4f}  95% bootstrap [{low:.4f}, {high:.4f}]")
    if math.isnan(result.tau_ap) and result.ties == "a":
        lines.append("  (means tie under A, which tau_AP_a takes as the truth: --tau-ap-ties b treats A and B "
                     "as observers)")
    lines.append(f"(percentile bootstrap over topics, {result.resamples} resamples, seed {result.seed})")
    if result.rbo is not None:
        lines.append(f"RBO (p={result.rbo.p:g}, ties {args.rbo_ties}) ext {result.rbo.ext:.4f}  "
                     f"min {result.rbo.min:.4f}  max {result.rbo.max:.4f}")
    return lines


def _qrels_dict(args, path: str) -> dict:
    return read_qrels(args, path).to_dict()


def run(args) -> int:
    from ...stats.agreement import cohen_kappa, confusion, fleiss_kappa, per_topic_agreement

    if args.intents:
        raise usage(NAME, "--intents: agreement of judgments per intent is not available yet",
                    "give qrels with one grade per query and doc")
    qrels_a, qrels_b, names, runs = read_two_qrels(args, NAME, runs=(0, None),
                                                   give="give two qrels (then any runs)",
                                                   further=tuple(args.qrels or ()))
    a, b = qrels_a.to_dict(), qrels_b.to_dict()
    result = confusion(a, b)
    lines = [f"{int(result.matrix.sum())} (query, doc) pairs judged by both",
             f"Cohen's kappa {cohen_kappa(a, b):.4f}"]
    if len(result.labels) > 2 and args.weights != "none":
        lines.append(f"weighted kappa ({args.weights}) {cohen_kappa(a, b, args.weights):.4f}")
    every = [a, b, *(_qrels_dict(args, path) for path in args.qrels or [])]
    print_notes(same_judgments(every, [*args.inputs[:2], *(args.qrels or [])]), args.quiet)
    if args.qrels:
        lines.append(f"Fleiss' kappa ({len(every)} qrels) {fleiss_kappa(every):.4f}")
    lines += _confusion_lines(result)
    lines += _label_lines(args, every, [*args.inputs[:2], *(args.qrels or [])])
    if args.per_topic:
        lines.append("per topic: query, pairs, same grade, kappa")
        lines += [f"  {query}  {n}  {same:.3f}  {kappa:.4f}"
                  for query, (n, same, kappa) in per_topic_agreement(a, b).items()]
    if names:
        lines += _rankings(args, qrels_a, qrels_b, runs)
    print("\n".join(lines))
    return 0
