"""Prediction-powered inference: a measure's mean from judge labels everywhere and human labels on a sample.

A judge (an LLM, a cheaper assessor) labels every topic; humans label a
uniformly random subset of the topics. Per topic the measure is computed
under each: ``human`` (n labelled topics, the truth there), ``judge`` on the
same n topics, and ``judge_rest`` on the N topics humans did not label.
The judge-only mean is biased whenever the judge is; the human-only mean
is unbiased but wide. The prediction-powered estimate (Angelopoulos et al.
2023) corrects the judge's mean by its error measured where both labelled,
and PPI++ (Angelopoulos, Duchi and Zrnic 2024) weighs the judge by a
tuned lambda so that it never does worse than the humans alone::

    theta = lambda mean(judge_rest) + mean(human - lambda judge)
    se^2  = lambda^2 var(judge_rest) / N + var(human - lambda judge) / n
    lambda = cov(human, judge) / ((1 + n / N) var(judge, judge_rest)),  clipped to [0, 1]

(variances with divisor n except the pooled judge variance, divisor
n + N - 1: ppi-python's ``ppi_mean_ci``, whose values these are). The
interval theta +- z se is valid whatever the judge's error, as long as the
human topics are a uniform random sample of all topics; lambda = 1 is
plain PPI, lambda = 0 the human-only interval. The paired difference
between two runs is the same estimate on per-topic differences.

The *effective* number of human topics is n (se_human / se)^2: how many
human-labelled topics a human-only interval would need to be as narrow.

References
----------
- A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
  "Prediction-powered inference", Science 382(6671), 2023.
- A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
  prediction-powered inference", arXiv:2311.01453, 2024.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri

from rankproof.errors import InputError
from rankproof.engines.options import MIN_COVERAGE, EvaluationOptions

__all__ = ["Interval", "PPIEstimate", "ppi_arrays", "ppi_from_scores", "ppi_interval",
           "prediction_powered"]


def ppi_arrays(human: np.ndarray, judge: np.ndarray, judge_rest: np.ndarray, *,
               confidence: float = 0.95,
               lam: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high, lambda) of the PPI++ mean along the last axis; leading axes are a batch.

    `human` and `judge` are (..., n), `judge_rest` (..., N). ``lam=None``
    tunes lambda per batch row (PPI++); a number fixes it (1: PPI, 0: human
    only). The formulas are in the module's docstring.

    Examples
    --------
    >>> human = np.array([0.5, 0.25, 1.0, 0.0])
    >>> judge = np.array([0.75, 0.5, 1.0, 0.25])          # the judge is 0.1875 too high on average
    >>> rest = np.array([0.75, 0.5, 0.25, 1.0])
    >>> estimate, low, high, lam = ppi_arrays(human, judge, rest, lam=1.0)
    >>> float(estimate)                                   # mean(rest) - mean(judge - human) = 0.625 - 0.1875
    0.4375
    """
    if not 0 < confidence < 1:
        raise InputError(what="confidence must be in (0, 1)", value=confidence)
    n, big_n = human.shape[-1], judge_rest.shape[-1]
    if n < 2 or big_n < 1 or judge.shape[-1] != n:
        raise InputError(what="PPI needs two or more topics with both labels, and one or more with the "
                              "judge's only", value=f"{n} labelled, {big_n} judge-only")
    if lam is None:
        centred_h = human - human.mean(axis=-1, keepdims=True)
        centred_j = judge - judge.mean(axis=-1, keepdims=True)
        covariance = (centred_h * centred_j).mean(axis=-1)
        pooled = np.concatenate([judge, judge_rest], axis=-1).var(axis=-1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = covariance / ((1 + n / big_n) * pooled)
        # a judge that never varies carries no information: lambda 0, the human-only mean
        lam_array = np.clip(np.where(pooled > 0, tuned, 0.0), 0.0, 1.0)
    else:
        lam_array = np.broadcast_to(np.asarray(lam, dtype=float), human.shape[:-1])
    weight = lam_array[..., None]
    rectified = human - weight * judge
    estimate = lam_array * judge_rest.mean(axis=-1) + rectified.mean(axis=-1)
    se = np.sqrt(lam_array ** 2 * judge_rest.var(axis=-1) / big_n + rectified.var(axis=-1) / n)
    z = ndtri(1 - (1 - confidence) / 2)
    return estimate, estimate - z * se, estimate + z * se, lam_array


@dataclass(frozen=True)
class Interval:
    """A mean and its normal interval, from `topics` values."""

    mean: float
    low: float
    high: float
    topics: int


@dataclass(frozen=True)
class PPIEstimate:
    """The prediction-powered mean beside the human-only and the naive judge-only intervals.

    ``effective_topics`` = n (se_human / se_ppi)^2: the human-labelled
    topics a human-only interval would need to be as narrow as ``ppi``.
    """

    ppi: Interval
    lam: float
    human_only: Interval
    judge_only: Interval
    labelled: int
    unlabelled: int
    effective_topics: float
    confidence: float


def _normal(values: np.ndarray, confidence: float) -> Interval:
    z = ndtri(1 - (1 - confidence) / 2)
    se = values.std() / np.sqrt(len(values))
    mean = float(values.mean())
    return Interval(mean, mean - z * se, mean + z * se, len(values))


def ppi_interval(human, judge, judge_rest, *, confidence: float = 0.95,
                 tuned: bool = True) -> PPIEstimate:
    """The PPI++ mean of one set of topics (1-D arrays), with the human-only and judge-only intervals.

    ``tuned=False`` fixes lambda at 1 (plain PPI). See :func:`ppi_arrays`.
    """
    human, judge, judge_rest = (np.asarray(a, dtype=float) for a in (human, judge, judge_rest))
    if human.ndim != 1 or judge.ndim != 1 or judge_rest.ndim != 1:
        raise InputError(what="give one value per topic (1-D arrays)")
    for name, values in (("human", human), ("judge", judge), ("judge_rest", judge_rest)):
        if not np.isfinite(values).all():
            raise InputError(what=f"the {name} values hold NaN or infinite values",
                             fix="give finite per-topic values")
    estimate, low, high, lam = ppi_arrays(human, judge, judge_rest, confidence=confidence,
                                          lam=None if tuned else 1.0)
    human_only = _normal(human, confidence)
    z = ndtri(1 - (1 - confidence) / 2)
    se = (float(high) - float(low)) / (2 * z)
    human_se = (human_only.high - human_only.low) / (2 * z)
    effective = len(human) * (human_se / se) ** 2 if se > 0 else float("inf")
    return PPIEstimate(ppi=Interval(float(estimate), float(low), float(high),
                                    len(human) + len(judge_rest)),
                       lam=float(lam), human_only=human_only,
                       judge_only=_normal(np.concatenate([judge, judge_rest]), confidence),
                       labelled=len(human), unlabelled=len(judge_rest),
                       effective_topics=float(effective),
                       confidence=confidence)


def ppi_from_scores(human: Mapping[Any, float], judge: Mapping[Any, float], *,
                    confidence: float = 0.95,
                    tuned: bool = True) -> PPIEstimate:
    """The PPI++ mean from per-topic values: `judge` on every topic, `human` on a random subset.

    The labelled topics are those of `human`; each must have a judge value
    too (a human topic the judge missed is refused: the judge must cover
    every topic). Topics are matched by id; their order does not matter.

    Examples
    --------
    >>> judge = {"q1": 0.75, "q2": 0.5, "q3": 1.0, "q4": 0.25, "q5": 0.75, "q6": 0.5}
    >>> human = {"q1": 0.5, "q2": 0.25, "q3": 1.0}
    >>> result = ppi_from_scores(human, judge, tuned=False)
    >>> round(result.ppi.mean, 4), result.labelled, result.unlabelled   # 0.5 - 0.1667
    (0.3333, 3, 3)
    """
    missing = [topic for topic in human if topic not in judge]
    if missing:
        raise InputError(what=f"{len(missing)} topics labelled by humans have no judge value",
                         query=str(missing[0]),
                         fix="the judge must label every topic, the humans a subset")
    labelled = list(human)
    rest = [topic for topic in judge if topic not in human]
    return ppi_interval([human[t] for t in labelled], [judge[t] for t in labelled],
                        [judge[t] for t in rest],
                        confidence=confidence, tuned=tuned)


def _per_topic(qrels, run, measure, protocol, options: EvaluationOptions) -> dict[Any, float]:
    from rankproof.evaluation import evaluate_read

    results = evaluate_read(lambda: (qrels, run), [measure], protocol, options=options)
    return results.per_query(measure)


def prediction_powered(human_qrels, judge_qrels, run, measure: str, *, baseline=None, protocol=None,
                       confidence: float = 0.95, tuned: bool = True, allow_partial: bool = False,
                       min_coverage: float = MIN_COVERAGE) -> PPIEstimate:
    """A run's mean `measure` (or its paired difference from `baseline`) by PPI++.

    The run is evaluated under the judge's qrels on every topic and under
    the humans' qrels on theirs (their topics must be a uniform random
    sample of the judge's: PPI's guarantee rests on it). With `baseline`,
    each topic's value is run minus baseline under the same qrels, and the
    estimate is the mean paired difference. See :func:`ppi_from_scores`. `allow_partial`
    and `min_coverage` are :func:`rankproof.evaluate`'s coverage guard, for each evaluation.
    """
    coverage = EvaluationOptions(allow_partial=allow_partial, min_coverage=min_coverage)
    human = _per_topic(human_qrels, run, measure, protocol, coverage)
    judge = _per_topic(judge_qrels, run, measure, protocol, coverage)
    if baseline is not None:
        human_base = _per_topic(human_qrels, baseline, measure, protocol, coverage)
        judge_base = _per_topic(judge_qrels, baseline, measure, protocol, coverage)
        human = {t: v - human_base[t] for t, v in human.items() if t in human_base}
        judge = {t: v - judge_base[t] for t, v in judge.items() if t in judge_base}
    return ppi_from_scores(human, judge, confidence=confidence, tuned=tuned)
