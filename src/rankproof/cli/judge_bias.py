"""``rankproof judge-bias``: does the judge favour some systems? Each run under human and judge labels.

Both qrels are cut to the pairs both judged; per run the mean under each
and the judge's paired difference with a t interval, the ANOVA test that
the difference is the same for every run, and Kendall's tau-b and tau_AP of
the two system rankings with bootstrap intervals
(:mod:`rankproof.stats.judge_bias`).
"""

from __future__ import annotations

import argparse

from .inputs import (add_input_options, add_protocol_options, protocol_of, read_inputs, read_qrels,
                     run_names)
from .render import add_print_options, digits
from .usage import add_coverage_options, count_option, fraction_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "judge-bias"
HELP = "does a judge favour some systems: each run under human and judge labels on the same pool"
EXAMPLES = """examples:
  rankproof judge-bias human.qrels llm.qrels bm25.run tfidf.run lmdirichlet.run -m ndcg@10"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="HUMAN JUDGE RUN",
                        help="the humans' qrels, the judge's qrels, then two or more runs")
    parser.add_argument("-m", "--measure", default="ndcg@10", help="the measure (default ndcg@10)")
    parser.add_argument("--confidence", type=fraction_option("--confidence"), default=0.95,
                        help="level of every interval (default 0.95)")
    parser.add_argument("--resamples", type=count_option("--resamples"), default=1000,
                        help="bootstrap samples of the rank correlations (default 1000)")
    parser.add_argument("--seed", type=count_option("--seed", minimum=0), default=0,
                        help="random seed (default 0)")
    parser.add_argument("--svg", metavar="FILE",
                        help="also write the forest plot of the differences (atomically)")
    add_protocol_options(parser)
    add_input_options(parser)
    add_coverage_options(parser)
    add_print_options(parser, what="means and differences")


def run(args) -> int:
    from ..stats.judge_bias import judge_bias

    if len(args.inputs) < 4:
        raise usage(NAME, "give the humans' qrels, the judge's qrels and two or more runs")
    if args.layer:
        raise usage(NAME, "--layer: compare the sources themselves here",
                    "give each source's qrels")
    places = digits(args)
    if args.svg:
        from ..report.output import check_output_path

        check_output_path(args.svg, args.inputs)
    human_path, judge_path, *paths = args.inputs
    names = run_names(paths, args.label)
    judge, runs = read_inputs(args, judge_path, paths, names, intents=False)
    result = judge_bias(read_qrels(args, human_path), judge, dict(runs), args.measure,
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
        from ..report.judgments_figures import judge_bias_figure, standalone
        from ..report.output import write_output
        from ..stats.judge_bias import judge_bias_data

        write_output(standalone(judge_bias_figure(judge_bias_data(result))), args.svg)
    return 0
