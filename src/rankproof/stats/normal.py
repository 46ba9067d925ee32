"""Paired comparisons for many queries: the t-test and the normal interval, and the check that licenses them.

With thousands of queries the sign-flip (randomization) distribution of the
mean difference and its bootstrap distribution are normal to within a bound
that the data state themselves, so resampling a million queries ten thousand
times adds nothing but time. The bound is Berry-Esseen's:

- sign flips: the statistic sum(e_i |d_i|) is a sum of independent terms,
  so sup |F - Phi| <= C1 sum |d_i|^3 / (sum d_i^2)^(3/2), C1 = 0.5600
  (Shevtsova 2010, non-identical terms);
- the bootstrap draws n values from the empirical distribution, so
  sup |F - Phi| <= C0 rho / (sigma^3 sqrt(n)), C0 = 0.4748 (Shevtsova 2011),
  with rho = mean |d - mean|^3 and sigma^2 = mean (d - mean)^2.

:func:`normal_comparison` gives the rows :func:`rankproof.compare` gives,
with the two-sided paired t-test (Student's t, n - 1 degrees of freedom) and
the interval mean +- t_{(1 + c) / 2, n - 1} s / sqrt(n), and the larger of
the two bounds per row; the report prints it beside the method.

Examples
--------
>>> import numpy as np
>>> d = np.tile([1.0, -1.0], 5000)      # 10,000 differences of +-1: the bound is 0.56 / sqrt(10,000)
>>> round(normal_bound(d), 4)
0.0056
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .comparison import TIE_TOLERANCE, Comparison, ComparisonRow
from .corrections import correct
from .keywords import CorrectionName
from .power import queries_needed

__all__ = ["normal_bound", "normal_interval", "normal_comparison", "tukey_normal", "t_quantile", "t_two_sided", "SIGN_FLIP_C",
           "IID_C"]

SIGN_FLIP_C = 0.5600   # Berry-Esseen constant, independent non-identical terms (Shevtsova 2010)
IID_C = 0.4748         # Berry-Esseen constant, identically distributed terms (Shevtsova 2011)
# From this many degrees of freedom Student's t comes from the normal (expansions below: quantiles to 1e-12,
# p-values to a relative 1e-4 where p > 1e-8): no scipy.stats import for a million queries (it costs more
# than the test).
LARGE_DF = 4000


def t_quantile(level: float, df: int) -> float:
    """Student's t quantile: scipy's below :data:`LARGE_DF` degrees of freedom, else the Cornish-Fisher
    expansion in 1 / df to the third order (Abramowitz and Stegun 26.7.5).

    >>> round(t_quantile(0.975, 10), 6), round(t_quantile(0.975, 5000), 6)
    (2.228139, 1.960439)
    """
    if df < LARGE_DF:
        from scipy.stats import t as student

        return float(student.ppf(level, df))
    from statistics import NormalDist

    z = NormalDist().inv_cdf(level)
    return (z + (z ** 3 + z) / 4 / df + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96 / df ** 2
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384 / df ** 3)


def t_two_sided(statistic: float, df: int) -> float:
    """Two-sided p of a t statistic: scipy's below :data:`LARGE_DF` degrees of freedom, else the normal
    tail of z = t (1 - 1 / (4 df)) / sqrt(1 + t^2 / (2 df)) (Abramowitz and Stegun 26.7.8).

    >>> round(t_two_sided(2.0, 10), 6), round(t_two_sided(2.0, 5000), 6)
    (0.073388, 0.045554)
    """
    if df < LARGE_DF:
        from scipy.stats import t as student

        return float(2 * student.sf(abs(statistic), df))
    z = abs(statistic) * (1 - 1 / (4 * df)) / math.sqrt(1 + statistic ** 2 / (2 * df))
    return math.erfc(z / math.sqrt(2))


def normal_bound(d: np.ndarray) -> float:
    """The larger Berry-Esseen bound on the distance of the sign-flip and bootstrap distributions of the
    mean of `d` (no NaN) from the normal; 0 when every difference is 0 (nothing to test), 1 when fewer
    than 2."""
    d = np.asarray(d, dtype=np.float64)
    if d.size < 2:
        return 1.0
    square = float(np.dot(d, d))
    if square == 0.0:
        return 0.0
    flips = SIGN_FLIP_C * float(np.sum(np.abs(d) ** 3)) / square ** 1.5
    centred = d - d.mean()
    sigma2 = float(np.dot(centred, centred)) / d.size
    if sigma2 == 0.0:
        return flips
    iid = IID_C * float(np.mean(np.abs(centred) ** 3)) / (sigma2 ** 1.5 * math.sqrt(d.size))
    return max(flips, iid)


def normal_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """mean +- t_{(1 + c) / 2, n - 1} s / sqrt(n) over the finite values.

    >>> [round(v, 4) for v in normal_interval(np.array([0.0, 1.0] * 50), 0.95)]   # 0.5 +- 1.9842 x 0.5025 / 10
    [0.4003, 0.5997]
    """
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return (math.nan, math.nan)
    mean = float(values.mean())
    half = t_quantile((1 + confidence) / 2, values.size - 1) * float(values.std(ddof=1)) / math.sqrt(values.size)
    return (mean - half, mean + half)


def _row(d: np.ndarray, confidence: float) -> dict:
    """The statistics of one pair's differences (NaN where a run has no value are left out)."""
    n = d.size
    difference = float(d.mean())
    deviation = float(d.std(ddof=1)) if n > 1 else 0.0
    scale = max(1.0, float(np.abs(d).max(initial=0.0)))
    if deviation <= TIE_TOLERANCE * scale:   # equal differences: rounding, not spread
        deviation = 0.0
    if deviation > 0:
        half = t_quantile((1 + confidence) / 2, n - 1) * deviation / math.sqrt(n)
        p = t_two_sided(difference / (deviation / math.sqrt(n)), n - 1)
        effect = difference / deviation
    else:
        half, p = 0.0, (math.nan if difference != 0 else 1.0)
        effect = 0.0 if difference == 0 else math.nan
    wins, losses = int(np.sum(d > TIE_TOLERANCE)), int(np.sum(d < -TIE_TOLERANCE))
    return {"difference": difference, "low": difference - half, "high": difference + half, "p": p,
            "effect": effect, "wins": wins, "losses": losses, "ties": n - wins - losses, "n": n,
            "bound": normal_bound(d)}


def normal_comparison(results: Sequence, measures: Sequence, baseline: str, *,
                      correction: CorrectionName = "holm", alpha: float = 0.05, confidence: float = 0.95,
                      power: float = 0.8) -> tuple[Comparison, dict[tuple[str, str], float]]:
    """Every run against `baseline` on every measure: the t-test and the normal interval, corrected as
    :func:`rankproof.compare` corrects, and each row's Berry-Esseen bound keyed by (measure, run).

    ``results``: evaluated :class:`~rankproof.Results` of the same queries (named by ``run_name``).
    """
    base = next(r for r in results if r.run_name == baseline)
    base_ids = np.asarray(base.queries)
    # Where each run's queries are among the baseline's (None: the same ids in the same order).
    places = {}
    for r in results:
        ids = np.asarray(r.queries) if r is not base else base_ids
        if not (ids.shape == base_ids.shape and bool(np.all(ids == base_ids))):
            index = {q: i for i, q in enumerate(base_ids.tolist())}
            places[r.run_name] = np.array([index.get(q, -1) for q in ids.tolist()], dtype=np.int64)
    stats, keys = [], []
    for m in measures:
        base_values = base.values(m)
        for r in results:
            if r.run_name == baseline:
                continue
            values = r.values(m)
            where = places.get(r.run_name)
            if where is not None:
                values = np.where(where >= 0, values, np.nan)
                paired_base = np.where(where >= 0, base_values[np.maximum(where, 0)], np.nan)
            else:
                paired_base = base_values
            both = ~(np.isnan(values) | np.isnan(paired_base))
            row = _row(values[both] - paired_base[both], confidence)
            row.update(mean_a=float(paired_base[both].mean()), mean_b=float(values[both].mean()))
            stats.append(row)
            keys.append((str(m), r.run_name))
    p = np.array([s["p"] for s in stats])
    corrected = np.full(p.size, np.nan)
    defined = ~np.isnan(p)
    corrected[defined] = correct(p[defined], correction)
    rows = tuple(ComparisonRow(
        measure=m, run_a=baseline, run_b=run, mean_a=s["mean_a"], mean_b=s["mean_b"], difference=s["difference"],
        ci_low=s["low"], ci_high=s["high"], p_value=s["p"], p_corrected=float(corrected[i]),
        significant=bool(corrected[i] < alpha), effect_size=s["effect"], wins=s["wins"], ties=s["ties"],
        losses=s["losses"], queries=s["n"], queries_needed=queries_needed(s["effect"], alpha, power))
        for i, ((m, run), s) in enumerate(zip(keys, stats)))
    comparison = Comparison(
        rows=rows, runs=tuple(r.run_name for r in results), measures=tuple(str(m) for m in measures),
        baseline=baseline, test="t", correction=correction, alpha=float(alpha), confidence=float(confidence),
        power=float(power), n_resamples=0, seed=None, bootstrap_method="normal", protocol=base.protocol,
        qrels_digest=base.qrels_digest,
        means=tuple((r.run_name, tuple((str(m), r.mean(m)) for m in measures)) for r in results),
        warnings=tuple(f"{r.run_name}: {line}" for r in results for line in r.warnings))
    return comparison, {key: s["bound"] for key, s in zip(keys, stats)}


def tukey_normal(matrix: np.ndarray) -> tuple[np.ndarray, float, int]:
    """Tukey HSD for a topics x systems matrix (a randomized block design) from the studentized range.

    q = |mean_i - mean_j| / sqrt(MSE / n), with MSE the residual mean square of the two-way analysis of
    variance without interaction, on (n - 1)(k - 1) degrees of freedom; p = P(Q_{k, df} > q). Returns the
    k x k matrix of p-values (1 on the diagonal), the largest Berry-Esseen bound of the pairwise per-topic
    differences (:func:`normal_bound`: how far their sign-flip distributions are from the normal), and the
    degrees of freedom.

    >>> m = np.array([[0.1, 0.5], [0.3, 0.6], [0.2, 0.9], [0.4, 0.7]])
    >>> p, bound, df = tukey_normal(m)
    >>> df, round(float(p[0, 1]), 4)   # two systems: the paired t-test's p (scipy ttest_rel: t = 4.4903)
    (3, 0.0206)
    """
    from scipy.stats import studentized_range

    n, k = matrix.shape
    means = matrix.mean(axis=0)
    residual = matrix - matrix.mean(axis=1, keepdims=True) - means + matrix.mean()
    df = (n - 1) * (k - 1)
    error = math.sqrt(float(np.sum(residual * residual)) / df / n)
    p = np.ones((k, k))
    bound = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            q = abs(means[i] - means[j]) / error if error > 0 else (math.inf if means[i] != means[j] else 0.0)
            p[i, j] = p[j, i] = float(studentized_range.sf(q, k, df if df < 100_000 else np.inf))
            bound = max(bound, normal_bound(matrix[:, j] - matrix[:, i]))
    return p, bound, df
