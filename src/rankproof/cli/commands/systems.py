"""``rankproof systems``: inference over three or more runs at once (Tukey HSD, MaxT, ANOVA, risk, design).

``rankproof compare`` tests pairs one by one and corrects afterwards; this
command runs procedures whose family-wise adjustment is built in and that
read all the runs together, and says which test suits the numbers of topics
and runs.
"""

from __future__ import annotations

import argparse

from .evaluate import DEFAULT_MEASURES
from ..flags import (add_evaluation_options, add_format_option, add_level_option,
                    add_measures_option, add_output_option, add_resampling_options)
from ..inputs import protocol_of, read_inputs
from ..render import add_print_options, digits, quieted
from ..usage import count_option, number_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "systems"
HELP = "many runs at once: randomised Tukey HSD or MaxT, ANOVA, risk, topic set size"
EXAMPLES = """examples:
  rankproof systems qrels.txt bm25.run tfidf.run lmdirichlet.run -m ndcg@10
  rankproof systems qrels.txt a.run b.run c.run --procedure maxt --baseline a --baseline b
  rankproof systems qrels.txt a.run b.run c.run --risk --baseline a --risk-alpha 5
  rankproof systems qrels.txt a.run b.run c.run -m ndcg@10 -m ap --design --min-difference 0.05
  rankproof systems --results a.parquet b.parquet c.parquet -m ndcg@10"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="the qrels, then three or more runs")
    parser.add_argument("--results", nargs="+", metavar="FILE",
                        help="analyse saved results (rankproof evaluate --format json or parquet -o FILE) instead "
                             "of runs")
    add_measures_option(parser, DEFAULT_MEASURES)
    parser.add_argument("--procedure", choices=("tukey", "maxt"), default="tukey",
                        help="randomised Tukey HSD (all pairs; default) or step-down MaxT (all pairs or baselines)")
    parser.add_argument("--baseline", action="append", metavar="RUN",
                        help="a baseline (repeatable): MaxT tests only the pairs with a baseline; risk is against it")
    add_level_option(parser, "alpha", "significance level")
    add_resampling_options(parser, 10_000, "permutations")
    parser.add_argument("--method", choices=("auto", "resampling", "normal"), default="auto",
                        help="auto (default): permutations up to 5,000 topics, their large-sample limit beyond "
                             "(the output names the method and its check); resampling or normal: always that")
    parser.add_argument("--mixed-model", action="store_true",
                        help="a linear mixed model with a random topic effect (needs statsmodels: rankproof[stats])")
    parser.add_argument("--risk", action="store_true",
                        help="URisk, TRisk and GeoRisk against the baselines")
    parser.add_argument("--risk-alpha", type=number_option("--risk-alpha", 0, example="1"),
                        default=1.0,
                        help="risk aversion: a loss counts 1 + alpha times (default 1)")
    parser.add_argument("--design", action="store_true",
                        help="topic set size (Sakai 2016) and discriminative power of the measures (Sakai 2006)")
    parser.add_argument("--min-difference", default=0.05,
                        type=number_option("--min-difference", 0, open_low=True, example="0.05"),
                        help="--design: the difference (and ANOVA range) to detect (default 0.05)")
    parser.add_argument("--ci-width", type=number_option("--ci-width", 0, open_low=True,
                                                         example="0.1"), default=0.1,
                        help="--design: the widest interval of a difference wanted (default 0.1)")
    add_level_option(parser, "power", "--design: the power wanted")
    parser.add_argument("--asl-resamples", type=count_option("--asl-resamples"), default=1000,
                        help="--design: bootstrap samples of the ASL (default 1000)")
    add_evaluation_options(parser)
    add_format_option(parser, ("table", "json"))
    add_output_option(parser)
    add_print_options(parser,
                      what="means, differences, effects and risks (p-values keep 4; json every digit)")
    parser.add_argument("--leaderboard", action="store_true",
                        help="each system's rank with a bootstrap interval over topics (--resamples, --seed) "
                             "and the systems not separable from the best (see rankproof leaderboard)")


def run(args) -> int:
    from ...measures.parse import parse_measures
    from ...report.output import check_output_path, write_output
    from ...report.systems import to_json, to_text
    from .compare import run_aliases, table_names
    from ...io.shared_ids import sharing
    from ...engines.options import EvaluationOptions
    from ..multirun import evaluated_runs
    from ..progress import steps

    if args.results:
        return _saved(args)
    if len(args.inputs) < 4:
        raise usage(NAME, "give QRELS and at least three runs (or --results FILE ...)",
                    "for two runs use rankproof compare")
    check_output_path(args.output, [*args.inputs, args.grade_map])
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    places = digits(args)
    qrels_path, paths = args.inputs[0], args.inputs[1:]
    names = table_names(paths, args.label)
    known = run_aliases(paths, names)
    baselines = [known.get(name, name) for name in args.baseline or []]
    if args.risk and not baselines:
        raise usage(NAME, "--risk needs a --baseline to measure the risk against")
    with quieted(args), sharing(), steps(args, 2 + 2 * len(paths), "systems") as stages:
        qrels, read = read_inputs(args, qrels_path, paths, names, stages, intents=False)
        # Each run evaluated as it is read, the next one read meanwhile; only the per-query values
        # of each stay (cli/multirun.py), not ten runs of rankings at once.
        options = EvaluationOptions(allow_partial=args.allow_partial,
                                    min_coverage=args.min_coverage)
        runs = dict(evaluated_runs(qrels, read, measures, protocol_of(args), stages,
                                   options=options))
        stages.step("testing")
        analysis = _analyse(args, None, runs, measures, baselines)
    text = to_json(analysis) if args.format == "json" else to_text(analysis, places)
    if args.leaderboard:  # issue 38's section, owned by cli/commands/leaderboard.py
        from .leaderboard import systems_section

        # The runs are evaluated: the section reads their values as it reads saved results.
        text = systems_section(text, args, None, runs, measures, places)
    write_output(text, args.output)
    return 0


def _saved(args) -> int:
    """--results: every run of every saved results file, analysed without evaluating anything."""
    from ...report.output import check_output_path, write_output
    from ...report.systems import to_json, to_text
    from ...stats import load_results
    from .compare import saved_names

    if args.inputs:
        raise usage(NAME, "give either QRELS RUN RUN ... or --results FILE ..., not both")
    check_output_path(args.output, args.results)
    loaded = [(path, saved) for path in args.results for saved in load_results(path)]
    if len(loaded) < 3:
        raise usage(NAME, f"the saved results hold {len(loaded)} runs; give at least three",
                    "for two runs use rankproof compare --results")
    first_path, first = loaded[0]
    for path, saved in loaded[1:]:
        if (saved.protocol.fingerprint != first.protocol.fingerprint or saved.qrels_digest
            != first.qrels_digest):
            raise usage(NAME,
                        f"{path} ({saved.run_name}) was evaluated under protocol {saved.protocol.fingerprint} "
                              f"on qrels {saved.qrels_digest}, {first_path} ({first.run_name}) under "
                              f"{first.protocol.fingerprint} on {first.qrels_digest}",
                        "evaluate every run under one protocol on the same qrels")
    runs = saved_names(loaded)
    baselines = list(args.baseline or [])
    if args.risk and not baselines:
        raise usage(NAME, "--risk needs a --baseline to measure the risk against")
    measures = args.measure or [str(m) for m in loaded[0][1].measures]
    with quieted(args):
        analysis = _analyse(args, None, runs, measures, baselines)
    text = to_json(analysis) if args.format == "json" else to_text(analysis, digits(args))
    if args.leaderboard:  # issue 38's section, owned by cli/commands/leaderboard.py
        from .leaderboard import systems_section

        text = systems_section(text, args, None, runs, measures, digits(args))
    write_output(text, args.output)
    return 0


def _analyse(args, qrels, runs, measures, baselines):
    from ...stats.systems import compare_systems

    return compare_systems(qrels, runs, measures, protocol_of(args),
                           allow_partial=args.allow_partial,
                           min_coverage=args.min_coverage,
                           procedure=args.procedure, baselines=baselines, alpha=args.alpha,
                           n_resamples=args.resamples, seed=args.seed,
                           risk_alpha=args.risk_alpha if args.risk else None, design=args.design,
                           min_difference=args.min_difference, ci_width=args.ci_width,
                           power=args.power,
                           asl_resamples=args.asl_resamples, mixed=args.mixed_model,
                           method=args.method)
