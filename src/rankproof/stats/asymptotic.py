"""Large samples: the paired t-test and normal intervals where resampling could not tell them apart.

A randomization test draws sign flips and a bootstrap draws queries; both
cost (resamples x queries). With thousands of queries their distributions
are normal to within less than their own Monte Carlo error, and the normal
answer costs one pass over the queries. ``compare(..., method="auto")``
switches per row, and only where a check says the two cannot be told apart;
the check's figures are printed with the result.

**The p-value.** The sign-flip statistic S* = sum_i s_i d_i (s_i = +-1 with
probability 1/2) is a sum of independent terms of variance d_i**2. Its
distribution is symmetric, so the first term of its Edgeworth expansion is
the kurtosis term: with g2 = -2 sum d_i**4 / (sum d_i**2)**2 (the excess
kurtosis of S*; a Rademacher sign has -2),

    P(S* / sigma <= x) = Phi(x) - phi(x) g2 / 24 (x**3 - 3 x) + O(1 / n**2),

and the two-sided p of the normal approximation moves by at most
2 x 0.5506 |g2| / 24 (0.5506 = max_x phi(x) |x**3 - 3 x|). The paired
t-test's p differs from the normal approximation's by an amount computed
exactly (both are closed forms), and that is added. A row switches to the
paired t-test when

    error = 0.04588 |g2| + |p_t - p_z| <= 0.5 / sqrt(R),

the largest Monte Carlo standard deviation of a p-value from R random sign
flips (0.005 at R = 10,000): the test it replaces could not be read closer.
(The Berry-Esseen bound, 2 x 0.56 sum |d|**3 / (sum d**2)**(3/2), is a
guarantee rather than an expansion; it is reported beside the estimate.)

**The interval.** The percentile bootstrap of a mean follows the one-term
Edgeworth expansion: its ends sit at mean + se (z + g (z**2 - 1) / (6 sqrt n))
with g the skewness of the differences, so they differ from the normal
interval's mean +- z se by |g| (z**2 - 1) / (6 sqrt n) standard errors. A row
switches to the normal interval when that shift is no larger than the Monte
Carlo standard deviation of a bootstrap quantile from R resamples,
sqrt(a (1 - a) / R) / phi(z) standard errors (a = (1 - confidence) / 2;
0.027 se at 95% and R = 10,000). Rows with fewer than :data:`MIN_QUERIES`
queries never switch (the checks are asymptotic).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_QUERIES", "BERRY_ESSEEN", "EDGEWORTH_PEAK", "METHODS", "LargeSample",
           "p_value_check",
           "berry_esseen", "interval_check",
           "t_p_values", "normal_intervals"]

MIN_QUERIES = 1000
# Shevtsova (2010): the Berry-Esseen constant for sums of independent, non-identical terms.
BERRY_ESSEEN = 0.56
# max over x of phi(x) |x**3 - 3 x|, the largest the Edgeworth kurtosis term can move a tail.
EDGEWORTH_PEAK = 0.5506
# compare's method= choices: switch where the checks pass, always resample, always the normal forms.
METHODS = ("auto", "resampling", "normal")


class LargeSample:
    """The per-row moments the checks and the normal forms need, from a differences matrix (NaN = absent)."""

    def __init__(self, d: np.ndarray):
        valid = ~np.isnan(d)
        complete = bool(valid.all())
        filled = d if complete else np.where(valid, d, 0.0)
        self.n = np.full(len(d), d.shape[1]) if complete else valid.sum(axis=1)
        count = np.maximum(self.n, 1)
        self.mean = filled.sum(axis=1) / count
        centred = d - self.mean[:, None]
        if not complete:
            centred[~valid] = 0.0
        squares = centred * centred
        self.m2 = squares.sum(axis=1) / count                    # population variance
        self.m3 = (squares * centred).sum(axis=1) / count
        del centred, squares
        squares = filled * filled
        self.sum_squares = squares.sum(axis=1)                   # about 0: the sign-flip variance
        self.sum_cubes = (squares * np.abs(filled)).sum(axis=1)
        self.sum_fourths = (squares * squares).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.sd = np.sqrt(self.m2 * count / np.maximum(self.n - 1, 1))
            self.skewness = np.where(self.m2 > 0, self.m3 / self.m2 ** 1.5, 0.0)


def t_p_values(moments: LargeSample) -> np.ndarray:
    """Two-sided paired t-test p per row (as ``scipy.stats.ttest_rel``): t = mean / (sd / sqrt n), n - 1 df."""
    from scipy.special import stdtr

    with np.errstate(divide="ignore", invalid="ignore"):
        t = moments.mean / (moments.sd / np.sqrt(moments.n))
    return np.minimum(1.0, 2 * stdtr(np.maximum(moments.n - 1, 1), -np.abs(t)))


def p_value_check(moments: LargeSample, n_resamples: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(estimated |p_t - p_randomization| per row, rows that may switch, the allowed error 0.5 / sqrt(R)).

    The estimate is the Edgeworth kurtosis term plus |p_t - p_z| (see the module).
    """
    from scipy.special import ndtr

    with np.errstate(divide="ignore", invalid="ignore"):
        kurtosis = 2 * moments.sum_fourths / moments.sum_squares ** 2
        z = moments.mean * moments.n / np.sqrt(moments.sum_squares)
    p_z = 2 * ndtr(-np.abs(z))
    error = 2 * EDGEWORTH_PEAK * kurtosis / 24 + np.abs(t_p_values(moments) - p_z)
    allowed = 0.5 / np.sqrt(n_resamples)
    switch = (moments.n >= MIN_QUERIES) & (moments.sd > 0) & np.isfinite(error) & (error <= allowed)
    return np.where(np.isfinite(error), error, np.inf), switch, allowed


def berry_esseen(moments: LargeSample) -> np.ndarray:
    """The Berry-Esseen bound on the two-sided p of the normal approximation to the sign flips, per row."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2 * BERRY_ESSEEN * moments.sum_cubes / moments.sum_squares ** 1.5


def interval_check(moments: LargeSample, confidence: float, n_resamples: int
                   ) -> tuple[np.ndarray, np.ndarray, float]:
    """(Edgeworth shift of the bootstrap ends in standard errors per row, rows that may switch, allowed shift)."""
    from scipy.special import ndtri

    z = float(ndtri((1 + confidence) / 2))
    tail = (1 - confidence) / 2
    density = float(np.exp(-z * z / 2) / np.sqrt(2 * np.pi))
    allowed = float(np.sqrt(tail * (1 - tail) / n_resamples) / density)
    shift = np.abs(moments.skewness) * (z * z - 1) / (6 * np.sqrt(np.maximum(moments.n, 1)))
    switch = (moments.n >= MIN_QUERIES) & (moments.sd > 0) & (shift <= allowed)
    return shift, switch, allowed


def normal_intervals(moments: LargeSample, confidence: float) -> np.ndarray:
    """mean -+ z sd / sqrt(n) per row (rows x 2)."""
    from scipy.special import ndtri

    z = float(ndtri((1 + confidence) / 2))
    half = z * moments.sd / np.sqrt(np.maximum(moments.n, 1))
    return np.stack([moments.mean - half, moments.mean + half], axis=1)
