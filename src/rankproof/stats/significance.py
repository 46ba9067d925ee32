"""Paired significance tests, vectorised over many comparisons at once.

Every function takes a matrix of per-query differences ``d`` (one row per
comparison: a pair of runs on one measure; one column per query; NaN where a
query takes no part in that row) and returns one two-sided p-value per row.

The t-test and Wilcoxon come from scipy (``ttest_rel``, ``wilcoxon``). The
randomization test is ours because it is one matrix product: scipy's
``permutation_test`` computes the same test, one pair at a time, and the tests
check the two agree.

Degenerate rows, where every paired difference is 0, get p = 1: there is no
evidence of a difference (scipy returns NaN and warns).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["paired_t", "wilcoxon", "randomization", "TESTS", "DEFAULT_SEED", "DEFAULT_RESAMPLES"]

DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 10_000


def _all_zero(d: np.ndarray) -> np.ndarray:
    return np.all((d == 0) | np.isnan(d), axis=-1)


def paired_t(d: np.ndarray, **_) -> np.ndarray:
    """Two-sided paired t-test, ``scipy.stats.ttest_rel`` on each row.

    t = mean(d) / (sd(d) / sqrt(n)) with n - 1 degrees of freedom. A row
    whose differences are all equal and nonzero has no variance: p = 0
    (the limit as the spread goes to 0); all zero: p = 1.

    Examples
    --------
    >>> d = np.array([[0.1, 0.2, 0.0, 0.3], [0.0, 0.0, 0.0, 0.0]])
    >>> paired_t(d).round(4).tolist()
    [0.1027, 1.0]
    """
    from scipy import stats

    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    spread = np.nanmax(d, axis=-1, initial=-np.inf, where=~np.isnan(d)) - np.nanmin(
        d, axis=-1, initial=np.inf, where=~np.isnan(d))
    constant = ~(spread > 0)
    p = np.ones(len(d))
    rows = ~constant
    if rows.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p[rows] = stats.ttest_rel(d[rows], np.zeros_like(d[rows]), axis=-1,
                                      nan_policy="omit").pvalue
    p[constant & ~_all_zero(d)] = 0.0
    return p


def wilcoxon(d: np.ndarray, **_) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank test, ``scipy.stats.wilcoxon`` on each row.

    scipy's defaults: zero differences are dropped (``zero_method='wilcox'``),
    the exact distribution for small samples without ties or zeros, the
    normal approximation otherwise. All differences zero: p = 1.

    Examples
    --------
    Eight positive differences out of eight: exact p = 2 / 2**8.

    >>> float(wilcoxon(np.array([[1, 2, 3, 4, 5, 6, 7, 8.5]]))[0])
    0.0078125
    """
    from scipy import stats

    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    p = np.ones(len(d))
    rows = ~_all_zero(d)
    if rows.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p[rows] = stats.wilcoxon(d[rows], axis=-1, nan_policy="omit").pvalue
    return p


# Sign draws per block: keeps the sign matrix near 32 MB however many queries there are.
_BLOCK_VALUES = 4_000_000


def _sign_blocks(n_queries: int, n_resamples: int, seed: int | None):
    """Blocks of the sign matrix (resamples x queries); the flag says whether it is the exact enumeration.

    When 2**n_queries <= n_resamples every assignment of signs is used once
    (an exact test); otherwise n_resamples random ones, drawn block by block
    from one seeded generator.
    """
    if n_queries < 63 and 2 ** n_queries <= n_resamples:
        codes = np.arange(2 ** n_queries, dtype=np.int64)[:, None]
        bits = (codes >> np.arange(n_queries, dtype=np.int64)) & 1
        yield (1 - 2 * bits).astype(np.float64), True
        return
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_VALUES // max(1, n_queries))
    for start in range(0, n_resamples, block):
        # One byte per draw; float64 only for the matrix product.
        bits = rng.integers(0, 2, size=(min(block, n_resamples - start), n_queries), dtype=np.int8)
        yield (1 - 2 * bits).astype(np.float64), False


def randomization(d: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                  seed: int | None = DEFAULT_SEED,
                  **_) -> np.ndarray:
    """Paired randomization (sign-flip permutation) test of the mean difference.

    Under the null hypothesis the two systems are exchangeable on every
    query, so each difference keeps or flips its sign with probability 1/2.
    One random sign matrix S (resamples x queries) serves every row: the
    resampled sums of all rows are one product ``d @ S.T`` (S is drawn in
    blocks of about 4 million signs, so memory stays flat with many queries). A query that is
    NaN in a row enters as 0, which adds nothing to any sum, so the row is
    tested on its own queries.

    The p-value follows ``scipy.stats.permutation_test(permutation_type=
    'samples')``: p_greater = (#{T* >= T} + 1) / (R + 1) and p_less likewise
    (the + 1 counts the observed assignment: never p = 0 from a sample),
    two-sided p = min(1, 2 min(p_greater, p_less)). With 2**n <= R
    assignments all are enumerated and the counts are exact (no + 1).
    Comparisons allow a relative tolerance of 1e-12 for rounding, as scipy's.

    Examples
    --------
    Four positive differences: the observed sum is the largest of the 16
    sign assignments (exact test), p = 2 x 1/16.

    >>> float(randomization(np.array([[0.1, 0.2, 0.3, 0.4]]))[0])
    0.125
    """
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    filled = np.where(np.isnan(d), 0.0, d)
    observed = filled.sum(axis=1)
    tolerance = 1e-12 * np.maximum(np.abs(filled).sum(axis=1), np.finfo(float).tiny)
    greater = np.zeros(len(d), dtype=np.int64)
    less = np.zeros(len(d), dtype=np.int64)
    drawn = 0
    for signs, exact in _sign_blocks(d.shape[1], n_resamples, seed):
        resampled = filled @ signs.T                    # rows x resamples in this block
        greater += (resampled >= (observed - tolerance)[:, None]).sum(axis=1)
        less += (resampled <= (observed + tolerance)[:, None]).sum(axis=1)
        drawn += len(signs)
    adjust = 0 if exact else 1
    total = drawn + adjust
    p = np.minimum(1.0, 2 * np.minimum(greater + adjust, less + adjust) / total)
    p[_all_zero(d)] = 1.0
    return p


# Registry: test name -> function of the difference matrix.
TESTS = {"t": paired_t, "wilcoxon": wilcoxon, "randomization": randomization}
