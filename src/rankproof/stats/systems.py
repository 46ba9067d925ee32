"""``compare_systems``: inference over many systems at once, per measure, in one value.

For each measure: the two-way ANOVA (topic and system effects), a
family-wise pairwise procedure (randomised Tukey HSD over all pairs, or MaxT
over all pairs or against baselines), optionally risk against the baselines
(URisk, TRisk, GeoRisk), and optionally the design figures (topic set sizes,
discriminative power). The recommended test for the numbers of topics and
systems comes with it. Each statistic lives in its own module and documents
its reference and formula there.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError, literal
from ..results.coverage import MIN_COVERAGE
from .anova import Anova, MixedModel, mixed_model, two_way_anova
from .design import topics_for_anova, topics_for_ci_width, topics_for_t_test
from .discriminative import DEFAULT_BOOTSTRAP, Discrimination, discriminative_power
from .matrix import checked_matrix, checked_names, score_matrix
from .maxt import max_t
from .pairwise import PairwiseTests
from .recommend import Recommendation, recommend_test
from .risk import Risk, risk_table
from .significance import DEFAULT_RESAMPLES, DEFAULT_SEED
from .tukey import tukey_hsd

__all__ = ["compare_systems", "analyse_matrices", "SystemsAnalysis", "MeasureAnalysis",
           "TopicSetSize",
           "PROCEDURES"]

PROCEDURES = {"tukey": tukey_hsd, "maxt": max_t}


@dataclasses.dataclass(frozen=True)
class TopicSetSize:
    """Topics needed (Sakai 2016) given this measure's residual variance V_E."""

    variance: float
    min_difference: float
    ci_width: float
    power: float
    t_test: int
    anova: int
    ci: int


@dataclasses.dataclass(frozen=True)
class MeasureAnalysis:
    measure: str
    anova: Anova
    tests: PairwiseTests
    risk: tuple[Risk, ...] = ()
    design: TopicSetSize | None = None
    mixed: MixedModel | None = None
    # per topic, each system's score: for the risk-reward plot
    topics: tuple[str, ...] = ()
    scores: tuple[tuple[float, ...], ...] = ()


@dataclasses.dataclass(frozen=True)
class SystemsAnalysis:
    systems: tuple[str, ...]
    topics: int
    recommendation: Recommendation
    measures: tuple[MeasureAnalysis, ...]
    discrimination: tuple[Discrimination, ...] = ()
    settings: tuple[tuple[str, Any], ...] = ()

    def measure(self, name: str) -> MeasureAnalysis:
        for analysis in self.measures:
            if analysis.measure == str(name):
                return analysis
        raise KeyError(name)


def analyse_matrices(matrices: Mapping[str, Any], systems: Sequence[str] | None = None, *,
                     procedure: str = "tukey", baselines=None, alpha: float = 0.05,
                     n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED,
                     risk_alpha: float | None = None, design: bool = False,
                     min_difference: float = 0.05,
                     ci_width: float = 0.1, power: float = 0.8,
                     asl_resamples: int = DEFAULT_BOOTSTRAP,
                     topic_ids: Sequence[str] | None = None, mixed: bool = False,
                     method: str = "auto"
                     ) -> SystemsAnalysis:
    """The analysis of one topics x systems matrix per measure (same topics and systems in each).

    ``mixed=True`` adds the linear mixed model (needs statsmodels: the ``stats`` extra).
    ``method='auto'`` (the default) runs the permutation procedures up to
    :data:`~rankproof.stats.large_systems.LARGE_TOPICS` topics and their
    large-sample limits beyond (:mod:`rankproof.stats.large_systems`; the
    procedure's name and ``PairwiseTests.method`` say which, with the check);
    ``'resampling'`` always permutes, ``'normal'`` always takes the limit.
    """
    _check_settings(procedure, alpha, method, seed, n_resamples)
    checked = _checked_matrices(matrices)
    topics, count = next(iter(checked.values())).shape
    names = checked_names(systems, count)
    if risk_alpha is not None and not baselines:
        raise InputError(what="risk is measured against baselines; none given",
                         fix="name one or more baselines")
    analyses = []
    for measure, matrix in checked.items():
        anova = two_way_anova(matrix)
        # Tukey's range covers every pair whatever the baselines; MaxT's family is the baselines'
        # pairs.
        tests = PROCEDURES[procedure](matrix, names,
                                      baselines=baselines if procedure == "maxt" else None,
                                      alpha=alpha, n_resamples=n_resamples, seed=seed,
                                      method=method)
        risk = (risk_table(matrix, names, baselines=baselines, alpha=risk_alpha)
                if risk_alpha is not None else ())
        size = _design(anova, count, min_difference, ci_width, alpha, power) if design else None
        analyses.append(MeasureAnalysis(measure=measure, anova=anova, tests=tests, risk=risk,
                                        design=size,
                                        mixed=mixed_model(matrix, names) if mixed else None,
                                        topics=tuple(topic_ids or ()) if risk else (),
                                        scores=tuple(map(tuple, matrix.tolist())) if risk else ()))
    discrimination = (discriminative_power(checked, names, alpha=alpha, n_resamples=asl_resamples,
                                           seed=seed)
                      if design else ())
    settings = (("procedure", procedure), ("method", method), ("alpha", alpha),
                ("n_resamples", n_resamples),
                ("seed", seed),
                ("baselines", tuple(baselines or ())), ("risk_alpha", risk_alpha))
    return SystemsAnalysis(systems=names, topics=topics,
                           recommendation=recommend_test(topics, count),
                           measures=tuple(analyses), discrimination=discrimination,
                           settings=settings)


def _check_settings(procedure: str, alpha: float, method: str, seed: int | None,
                    n_resamples: int) -> None:
    """Refuse a setting of :func:`analyse_matrices` before any matrix is read."""
    from .asymptotic import METHODS

    if procedure not in PROCEDURES:
        raise InputError(what=literal(f"unknown procedure {procedure!r}"), value=procedure,
                         fix=f"choose one of {', '.join(PROCEDURES)}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(what=f"alpha must be between 0 and 1; got {alpha!r}", value=alpha)
    if method not in METHODS:
        raise InputError(what=literal(f"unknown method {method!r}"), value=method,
                         fix=f"choose one of {', '.join(METHODS)}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InputError(what=literal(f"seed must be a non-negative integer; got {str(seed)[:40]}"),
                         value=seed)
    if not (isinstance(n_resamples, int) and n_resamples >= 1):
        raise InputError(what=f"n_resamples must be a whole number >= 1; got {n_resamples!r}",
                         value=n_resamples)


def _checked_matrices(matrices: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Each measure's matrix checked, all of one shape (the same topics and systems)."""
    checked = {str(measure): checked_matrix(matrix) for measure, matrix in matrices.items()}
    if not checked:
        raise InputError(what="give at least one measure")
    if len({matrix.shape for matrix in checked.values()}) > 1:
        raise InputError(what="the measures' matrices differ in shape",
                         fix="use the same topics and systems")
    return checked


def _design(anova: Anova, systems: int, min_difference: float, ci_width: float, alpha: float,
            power: float) -> TopicSetSize:
    variance = anova.residual_variance
    # Sums of squares below 1e-24 of the total are rounding (identical runs leave ~1e-32), as the F
    # test reads them: a design from such a variance would be an artefact, not an answer.
    total = anova.ss_system + anova.ss_topic + anova.ss_residual
    if not variance > 0 or anova.ss_residual <= 1e-24 * total:
        raise InputError(what="the runs' scores have no residual variance (no variance: the runs differ by the "
                              "same amount on every topic, or are identical): no topic set size to design",
                         value=variance, fix="design from runs that differ from topic to topic")
    return TopicSetSize(variance=variance, min_difference=min_difference, ci_width=ci_width,
                        power=power,
                        t_test=topics_for_t_test(min_difference, variance, alpha=alpha,
                                                 power=power),
                        anova=topics_for_anova(min_difference, variance, systems, alpha=alpha,
                                               power=power),
                        ci=topics_for_ci_width(ci_width, variance, alpha=alpha))


def compare_systems(qrels, runs, measures, protocol=None, *, allow_partial: bool = False,
                    min_coverage: float = MIN_COVERAGE, **options) -> SystemsAnalysis:
    """Evaluate ``runs`` (a mapping name -> Run, or Results) and analyse them on the topics all of them have.

    ``options`` are those of :func:`analyse_matrices` (procedure, baselines,
    alpha, n_resamples, seed, risk_alpha, design, ...); ``allow_partial`` and
    ``min_coverage`` are :func:`rankproof.evaluate`'s coverage guard.
    """
    from ..data.run import Run
    from ..evaluation import evaluate
    from ..measures.parse import parse_measures

    if not isinstance(runs, Mapping):
        raise InputError(what=f"runs must be a mapping {{{{name: Run}}}}; got {type(runs).__name__}")
    measure_list = list(dict.fromkeys(parse_measures(measures)))
    evaluated = [evaluate(qrels, run, measure_list, protocol, allow_partial=allow_partial,
                          min_coverage=min_coverage)
                 if isinstance(run, Run) else run for run in runs.values()]
    matrices, topic_ids = {}, None
    for measure in measure_list:
        topic_ids, matrices[str(measure)] = score_matrix(evaluated, measure)
    if topic_ids is None or len(topic_ids) < 3:
        raise InputError(what=f"the runs share {0 if topic_ids is None else len(topic_ids)} topics; "
                              "many-system tests need at least 3",
                         fix="check the runs rank the same queries")
    return analyse_matrices(matrices, [str(name) for name in runs],
                            topic_ids=np.asarray(topic_ids).tolist(),
                            **options)

