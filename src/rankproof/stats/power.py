"""How many queries a paired t-test needs to detect a difference.

For a standardised paired effect d (mean difference / sd of the
differences), a two-sided paired t-test at level alpha over n queries
rejects with probability (its power)

    P(|T| > t_{1 - alpha/2, n-1}),  T ~ noncentral t(df = n - 1, nc = d sqrt(n)),

from ``scipy.stats.nct``. The number of queries needed is the smallest n
with power >= the target. It assumes the observed effect is the true one,
so it is a planning figure, not a property of the data at hand.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["t_test_power", "queries_needed"]

# Effects too small to plan for: beyond this many queries the answer is "not detectable".
MAX_QUERIES = 10**9


def t_test_power(effect: float, n, alpha: float = 0.05) -> np.ndarray:
    """Power of the two-sided paired t-test with n queries at standardised effect ``effect``.

    >>> round(float(t_test_power(0.5, 34)), 4)
    0.8078
    """
    # scipy.special's functions, which scipy.stats' t.isf and nct.cdf call (the same bits):
    # importing scipy.stats costs a compare or a report ~2 s of CPU, scipy.special a fifth of it.
    from scipy import special

    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    critical = -special.stdtrit(df, alpha / 2)   # stats.t.isf(alpha / 2, df)
    noncentrality = abs(effect) * np.sqrt(n)
    # Written with cdf (scipy's nct.sf returns NaN far in the tail); the lower
    # tail is negligible where its cdf underflows to NaN.
    # stats.nct.cdf(critical, df, noncentrality)
    upper = 1.0 - special.nctdtr(df, noncentrality, critical)
    lower = np.nan_to_num(special.nctdtr(df, noncentrality, -critical), nan=0.0)
    return upper + lower


def queries_needed(effect: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Smallest number of queries with power >= ``power``; None when not detectable.

    None when the effect is 0 (or NaN), or would need more than a billion
    queries. An infinite effect (all differences equal and nonzero) needs 2.

    Examples
    --------
    A difference half as large as its spread: 34 queries.

    >>> queries_needed(0.5)
    34
    >>> queries_needed(0.0) is None
    True
    """
    from scipy import special

    if not math.isfinite(effect):
        return None if math.isnan(effect) else 2
    if effect == 0:
        return None
    # The normal approximation is a lower bound; search upward from it by bisection.
    z = -special.ndtri(alpha / 2) - special.ndtri(1 - power)   # stats.norm.isf of each
    approximate = (z / abs(effect)) ** 2
    if approximate > MAX_QUERIES:
        return None
    low = max(2, int(math.floor(approximate)) - 1)
    if t_test_power(effect, low, alpha) >= power:
        # Tiny samples: the approximation overshoots; scan down.
        while low > 2 and t_test_power(effect, low - 1, alpha) >= power:
            low -= 1
        return low
    high = low * 2 + 10
    while t_test_power(effect, high, alpha) < power:
        if high > MAX_QUERIES:
            return None
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if t_test_power(effect, middle, alpha) >= power:
            high = middle
        else:
            low = middle
    return high
