"""``rankproof judge-bias``: does the judge favour some systems? Each run under human and judge labels.

Both qrels are cut to the pairs both judged; per run the mean under each
and the judge's paired difference with a t interval, the ANOVA test that
the difference is the same for every run, and Kendall's tau-b and tau_AP of
the two system rankings with bootstrap intervals
(:mod:`rankproof.stats.judge_bias`).
"""

from __future__ import annotations

import argparse

from ..flags import (add_evaluation_options, add_level_option, add_measure_option,
                    add_resampling_options)
from ..inputs import protocol_of
from ..render import add_print_options, digits
from ..two_qrels import read_two_qrels

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "judge-bias"
HELP = "does a judge favour some systems: each run under human and judge labels on the same pool"
EXAMPLES = """examples:
  rankproof judge-bias human.qrels llm.qrels bm25.run tfidf.run lmdirichlet.run -m ndcg@10"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="HUMAN JUDGE RUN",
                        help="the humans' qrels, the judge's qrels, then two or more runs")
    add_measure_option(parser)
    add_level_option(parser, "confidence", "level of every interval")
    add_resampling_options(parser, 1000, "bootstrap samples of the rank correlations")
    parser.add_argument("--svg", metavar="FILE",
                        help="also write the forest plot of the differences (atomically)")
    add_evaluation_options(parser)
    add_print_options(parser, what="means and differences")


def run(args) -> int:
    from ...stats.judge_bias import judge_bias

    places = digits(args)
    if args.svg:
        from ...report.output import check_output_path

        check_output_path(args.svg, args.inputs)
    human, judge, _, runs = read_two_qrels(
        args, NAME, runs=(2, None),
        give="give the humans' qrels, the judge's qrels and two or more runs",
        layer=("--layer: compare the sources themselves here", "give each source's qrels"))
    result = judge_bias(human, judge, dict(runs), args.measure,
                        protocol=protocol_of(args), confidence=args.confidence,
                        resamples=args.resamples,
                        seed=args.seed, allow_partial=args.allow_partial,
                        min_coverage=args.min_coverage)
    level = f"{result.confidence:.0%}"
    lines = [f"{args.measure} under human and judge labels on the {result.pairs} (query, doc) pairs both judged, "
             f"{result.topics} topics:",
             f"  {'run':<22}{'human':>9}{'judge':>9}{'judge - human':>15}  {level} t interval"]
    lines += [f"  {r.run:<22}{r.human:>9.{places}f}{r.judge:>9.{places}f}{r.difference:>+15.{places}f}  "
              f"[{r.low:+.{places}f}, {r.high:+.{places}f}]" for r in result.runs]
    anova = result.anova
    lines.append(f"same bias for every run? two-way ANOVA of the differences: F({anova.df_system}, "
                 f"{anova.df_residual}) = {anova.f_system:.3f}, p = {anova.p_system:.4f}")
    ranking = result.ranking
    lines.append(f"rankings: Kendall tau-b {ranking.tau_b:.4f} [{ranking.tau_b_interval[0]:.4f}, "
                 f"{ranking.tau_b_interval[1]:.4f}]  tau_AP {ranking.tau_ap:.4f} [{ranking.tau_ap_interval[0]:.4f}, "
                 f"{ranking.tau_ap_interval[1]:.4f}] ({level} bootstrap over topics, {ranking.resamples} "
                 f"resamples, seed {ranking.seed})")
    print("\n".join(lines))
    if args.svg:
        from ...report.judgments_figures import judge_bias_figure, standalone
        from ...report.output import write_output
        from ...stats.judge_bias import judge_bias_data

        write_output(standalone(judge_bias_figure(judge_bias_data(result))), args.svg)
    return 0
