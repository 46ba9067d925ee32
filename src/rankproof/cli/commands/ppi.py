"""``rankproof ppi``: a run's mean measure from an LLM judge's labels plus a human sample, with a valid interval.

Prediction-powered inference (Angelopoulos et al. 2023; PPI++ 2024, see
:mod:`rankproof.stats.ppi`): the judge labels every topic, humans a uniform
random sample of them; the judge's mean is corrected by its error on the
sample. Printed beside the human-only and the naive judge-only intervals,
with the effective number of human topics. With a second run, the paired
difference. The qrels and runs are read as every command reads them
(:mod:`rankproof.cli.inputs`).
"""

from __future__ import annotations

import argparse

from ..flags import add_evaluation_options, add_level_option, add_measure_option
from ..inputs import protocol_of
from ..two_qrels import read_two_qrels

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "ppi"
HELP = "a run's mean from judge labels on every topic and human labels on a random sample (PPI++)"
EXAMPLES = """examples:
  rankproof ppi human_sample.qrels llm.qrels bm25.run -m ndcg@10
  rankproof ppi human_sample.qrels llm.qrels bm25.run tfidf.run     (the paired difference bm25 - tfidf)
  rankproof ppi human_sample.qrels llm.qrels bm25.run --confidence 0.9 --no-tuning"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="HUMAN JUDGE RUN [BASELINE]",
                        help="the humans' qrels (a random sample of the topics), the judge's qrels (every topic), "
                             "a run, and optionally a baseline run for the paired difference")
    add_measure_option(parser)
    add_level_option(parser, "confidence", "confidence level of every interval")
    parser.add_argument("--no-tuning", action="store_true",
                        help="plain PPI (lambda 1) instead of PPI++'s tuned lambda")
    add_evaluation_options(parser)


def _row(label: str, interval, confidence: float, note: str) -> str:
    return (f"  {label:<20}{interval.mean:>9.4f}  {confidence:.0%} [{interval.low:.4f}, {interval.high:.4f}]"
            f"  {note}")


def run(args) -> int:
    from ...stats.ppi import prediction_powered

    human, judge, names, runs = read_two_qrels(
        args, NAME, runs=(1, 2),
        give="give the humans' qrels, the judge's qrels and one run (then optionally a baseline run)")
    run_list = list(runs)
    baseline = run_list[1][1] if len(run_list) > 1 else None
    result = prediction_powered(human, judge, run_list[0][1], args.measure, baseline=baseline,
                                protocol=protocol_of(args), confidence=args.confidence,
                                tuned=not args.no_tuning,
                                allow_partial=args.allow_partial, min_coverage=args.min_coverage)
    what = (f"{args.measure} of {names[0]}"
            + (f" minus {names[1]} (paired)" if baseline is not None else ""))
    tuning = "plain PPI, lambda 1" if args.no_tuning else f"PPI++, lambda {result.lam:.3f}"
    lines = [f"prediction-powered {what}: {result.labelled} topics labelled by humans, "
             f"{result.unlabelled} by the judge only ({tuning})",
             _row("prediction-powered", result.ppi, args.confidence,
                  f"as narrow as {result.effective_topics:.1f} human topics"),
             _row("human only", result.human_only, args.confidence,
                  f"{result.human_only.topics} topics"),
             _row("judge only (naive)", result.judge_only, args.confidence,
                  f"{result.judge_only.topics} topics; biased as the judge is"),
             "(valid when the humans' topics are a uniform random sample of the judge's)"]
    print("\n".join(lines))
    return 0
