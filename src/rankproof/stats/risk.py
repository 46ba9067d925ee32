"""Risk-sensitive evaluation: URisk, TRisk (with its p-value) and GeoRisk.

References
----------
- URisk: L. Wang, P. N. Bennett and K. Collins-Thompson, "Robust ranking
  models via risk-sensitive optimization", SIGIR 2012.
- TRisk: B. T. Dincer, C. Macdonald and I. Ounis, "Hypothesis testing for
  risk-sensitive evaluation of retrieval systems", SIGIR 2014.
- GeoRisk: B. T. Dincer, C. Macdonald and I. Ounis, "Risk-sensitive
  evaluation and learning to rank using multiple baselines", SIGIR 2016.

Formulas, over c topics with per-topic scores r_i (the run) and b_i (the
baseline), delta_i = r_i - b_i and a risk-aversion alpha >= 0:

    delta'_i = delta_i              if delta_i >= 0   (a win counts once)
             = (1 + alpha) delta_i  if delta_i < 0    (a loss counts 1 + alpha times)
    URisk    = (1 / c) sum_i delta'_i
    TRisk    = URisk / (s / sqrt(c)),  s the sample standard deviation of delta'

TRisk is the one-sample t statistic of the delta'; its p-value is two-sided
from Student's t with c - 1 degrees of freedom. TRisk > 2 says the run is
significantly less risky than the baseline, < -2 significantly riskier.

GeoRisk reads the whole topics x systems matrix X (the run and every
baseline): with S_j = sum_i x_ij (system total), T_i = sum_j x_ij (topic
total) and N = sum_ij x_ij, the expected score is e_ij = S_j T_i / N and

    z_ij     = (x_ij - e_ij) / sqrt(e_ij)
    ZRisk_j  = sum_i z_ij + alpha sum_{i: z_ij < 0} z_ij
    GeoRisk_j = sqrt( (S_j / c) * Phi(ZRisk_j / c) )

with Phi the standard normal distribution function: the geometric mean of
the mean effectiveness and the risk-adjusted normalised score. Cells with
e_ij = 0 (a topic every system scores 0) contribute z_ij = 0.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np

from ..errors import InputError
from .matrix import checked_matrix, checked_names

__all__ = ["risk_deltas", "urisk", "trisk", "georisk", "Risk", "risk_table"]


def _alpha(alpha: float) -> float:
    if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha >= 0):
        raise InputError(what=f"the risk aversion alpha must be a number >= 0; got {alpha!r}",
                         value=alpha)
    return float(alpha)


def _paired(run, baseline) -> tuple[np.ndarray, np.ndarray]:
    matrix = checked_matrix(np.column_stack([np.asarray(run, dtype=np.float64).ravel(),
                                             np.asarray(baseline, dtype=np.float64).ravel()]),
                            min_topics=1, what="run and baseline")
    return matrix[:, 0], matrix[:, 1]


def risk_deltas(run, baseline, alpha: float = 1.0) -> np.ndarray:
    """Per-topic delta'_i: the difference run - baseline, losses weighted by 1 + alpha.

    >>> risk_deltas([0.5, 0.2], [0.3, 0.4], alpha=1).round(6).tolist()
    [0.2, -0.4]
    """
    alpha = _alpha(alpha)
    run, baseline = _paired(run, baseline)
    delta = run - baseline
    return np.where(delta < 0, (1 + alpha) * delta, delta)


def urisk(run, baseline, alpha: float = 1.0) -> float:
    """URisk: the mean of delta' (Wang et al. 2012). Examples: one win of 0.2, one loss of 0.2 at alpha = 1.

    >>> round(urisk([0.5, 0.2], [0.3, 0.4], alpha=1), 6)
    -0.1
    """
    return float(risk_deltas(run, baseline, alpha).mean())


def trisk(run, baseline, alpha: float = 1.0) -> tuple[float, float]:
    """(TRisk, two-sided p-value): URisk over its standard error (Dincer et al. 2014).

    All delta' equal: +-inf and p = 0 when nonzero, 0 and p = 1 when zero.

    >>> t, p = trisk([0.5, 0.4, 0.6], [0.3, 0.3, 0.3], alpha=1)
    >>> round(t, 4), round(p, 4)
    (3.4641, 0.0742)
    """
    from scipy import stats

    deltas = risk_deltas(run, baseline, alpha)
    count = len(deltas)
    if count < 2:
        raise InputError(what="TRisk needs at least 2 topics", value=count)
    mean = float(deltas.mean())
    spread = float(deltas.std(ddof=1))
    if spread <= 1e-12 * max(abs(mean), float(np.abs(deltas).max()), np.finfo(float).tiny):
        return (0.0, 1.0) if abs(mean) <= 1e-15 else (math.copysign(math.inf, mean), 0.0)
    t = mean / (spread / math.sqrt(count))
    return t, float(2 * stats.t.sf(abs(t), count - 1))


def georisk(scores, alpha: float = 1.0) -> np.ndarray:
    """GeoRisk of every system (column) of a topics x systems matrix (Dincer et al. 2016).

    Scores must be >= 0 (an effectiveness measure). With equal columns every
    z is 0 and GeoRisk = sqrt(mean / 2).

    >>> georisk([[0.5, 0.5], [0.5, 0.5]]).round(6).tolist()
    [0.5, 0.5]
    """
    from scipy import stats

    alpha = _alpha(alpha)
    matrix = checked_matrix(scores, min_topics=1)
    if (matrix < 0).any():
        raise InputError(what="GeoRisk needs scores >= 0 (an effectiveness measure)",
                         value=float(matrix.min()))
    topics = matrix.shape[0]
    system_totals = matrix.sum(axis=0)
    topic_totals = matrix.sum(axis=1)
    total = matrix.sum()
    expected = np.outer(topic_totals, system_totals) / total if total > 0 else np.zeros_like(matrix)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(expected > 0, (matrix - expected) / np.sqrt(expected), 0.0)
    zrisk = z.sum(axis=0) + alpha * np.where(z < 0, z, 0.0).sum(axis=0)
    return np.sqrt(system_totals / topics * stats.norm.cdf(zrisk / topics))


@dataclasses.dataclass(frozen=True)
class Risk:
    """One run against one baseline: URisk, TRisk and its p-value, wins and losses; GeoRisk of the run
    within the matrix of the run and every baseline."""

    run: str
    baseline: str
    alpha: float
    urisk: float
    trisk: float
    p_value: float
    wins: int
    losses: int
    georisk: float


def risk_table(scores, systems: Sequence[str] | None = None, *, baselines,
               alpha: float = 1.0) -> tuple[Risk, ...]:
    """Every non-baseline system against each baseline (rows in column order, baselines in the order given)."""
    matrix = checked_matrix(scores)
    names = checked_names(systems, matrix.shape[1])
    baselines = ([baselines] if isinstance(baselines, str)
                 else list(dict.fromkeys(map(str, baselines))))
    unknown = [name for name in baselines if name not in names]
    if unknown or not baselines:
        raise InputError(what=f"risk needs baselines among the systems ({', '.join(names)}); got "
                              f"{', '.join(unknown) or 'none'}", value=unknown or None)
    base_columns = [names.index(name) for name in baselines]
    rows = []
    for column, name in enumerate(names):
        if column in base_columns:
            continue
        geo = float(georisk(matrix[:, [column, *base_columns]], alpha)[0])
        for base in base_columns:
            t, p = trisk(matrix[:, column], matrix[:, base], alpha)
            delta = matrix[:, column] - matrix[:, base]
            rows.append(Risk(run=name, baseline=names[base], alpha=alpha,
                             urisk=urisk(matrix[:, column], matrix[:, base], alpha), trisk=t,
                             p_value=p,
                             wins=int((delta > 0).sum()), losses=int((delta < 0).sum()),
                             georisk=geo))
    return tuple(rows)
