"""The bootstrap in bounded memory: resamples drawn in chunks, the BCa jackknife in closed form.

:func:`scipy.stats.bootstrap` holds every resample at once (resamples x
queries) unless given a batch, and its BCa interval computes the jackknife
by materialising the n leave-one-out samples: n x (n - 1) values, 20 GB for
a 50,000-query segment. Every statistic rankproof bootstraps is a ratio of
sums (a mean, a weighted mean, a micro average), whose n leave-one-out
values have a closed form: (S - x_i) / (n - 1), (S_wv - w_i v_i) / (S_w - w_i),
(S_num - num_i) / (S_den - den_i). So the jackknife here is linear in time and
memory, and the resamples are drawn in chunks of about 4 million indices.

The random draws are scipy's (``rng.integers(0, n, (chunk, n))`` with 64-bit
integers, chunk after chunk from one generator, which gives the same stream
as one call) and the interval follows scipy's ``_bca_interval`` step by step
(Efron and Tibshirani 14.3 and 15.4), so the interval equals scipy's to
rounding; ``tests/stats/test_resampling.py`` checks it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["CHUNK_VALUES", "mean_intervals", "resampled_statistics", "leave_one_out", "bca_levels",
           "bca_interval"]

# Resampled values held at once (indices and gathered values): about 32 MB per array.
CHUNK_VALUES = 4_000_000


def resampled_statistics(data: tuple[np.ndarray, ...], statistic: Callable[..., np.ndarray],
                         n_resamples: int,
                         rng: np.random.Generator, index_type=np.int64) -> np.ndarray:
    """The statistic of `n_resamples` paired bootstrap resamples, drawn chunk by chunk.

    Each array of `data` has the queries on its last axis (leading axes, such
    as the rows of a comparison, share every resample's indices); the result
    has the leading shape plus one axis of resamples.
    """
    n = data[0].shape[-1]
    width = max(1, int(np.prod(data[0].shape[:-1], dtype=np.int64))) * n
    chunk = max(1, CHUNK_VALUES // width)
    statistics = np.empty(data[0].shape[:-1] + (n_resamples,))
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        index = rng.integers(0, n, size=(count, n), dtype=index_type)
        statistics[..., start:start + count] = statistic(*(d[..., index] for d in data), axis=-1)
    return statistics


def leave_one_out(numerators: np.ndarray, denominators: np.ndarray | None = None) -> np.ndarray:
    """The n jackknife values of sum(numerators) / sum(denominators), each without one query.

    Without `denominators`, the mean: every denominator is 1. Queries are on
    the last axis. A leave-one-out denominator of 0 gives NaN, as the
    statistic does.
    """
    numerators = np.asarray(numerators, dtype=np.float64)
    total = numerators.sum(axis=-1, keepdims=True)
    if denominators is None:
        return (total - numerators) / (numerators.shape[-1] - 1)
    denominators = np.asarray(denominators, dtype=np.float64)
    below = denominators.sum(axis=-1, keepdims=True) - denominators
    with np.errstate(divide="ignore", invalid="ignore"):
        return (total - numerators) / np.where(below == 0, np.nan, below)


def bca_levels(point: np.ndarray, resampled: np.ndarray, jackknife: np.ndarray,
               confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The BCa interval's two quantile levels (scipy's alpha_1, alpha_2).

    z0 from the share of resampled values below the point estimate (ties
    count half), the acceleration a from the jackknife values' skewness:
    a = sum(U^3) / (6 sum(U^2)^(3/2)), U = (n - 1)(mean(theta_i) - theta_i).
    """
    from scipy.special import ndtr, ndtri

    point = np.asarray(point, dtype=np.float64)[..., None]
    count = resampled.shape[-1]
    share = (np.count_nonzero(resampled < point, axis=-1)
             + np.count_nonzero(resampled <= point, axis=-1)) / (2 * count)
    z0 = ndtri(share)
    n = float(jackknife.shape[-1])
    spread = (n - 1) * (jackknife.mean(axis=-1, keepdims=True) - jackknife)
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = (np.sum(spread ** 3, axis=-1) / n ** 3) / (np.sum(spread ** 2, axis=-1) / n
                                                           ** 2) ** 1.5 / 6
    z_alpha = float(ndtri((1 - confidence) / 2))
    low_sum, high_sum = z0 + z_alpha, z0 - z_alpha
    return ndtr(z0 + low_sum / (1 - accel * low_sum)), ndtr(z0 + high_sum / (1 - accel * high_sum))


def bca_interval(point: np.ndarray, resampled: np.ndarray, jackknife: np.ndarray,
                 confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The BCa interval (low, high) per leading index: quantiles of `resampled` at :func:`bca_levels`."""
    low_level, high_level = bca_levels(point, resampled, jackknife, confidence)
    flat = resampled.reshape(-1, resampled.shape[-1])
    levels = np.stack([np.ravel(low_level), np.ravel(high_level)], axis=-1)
    bounds = np.full(levels.shape, np.nan)
    for row, (values, pair) in enumerate(zip(flat, levels)):
        if not np.isnan(pair).any():
            bounds[row] = np.quantile(values, pair)
    shape = resampled.shape[:-1]
    return bounds[:, 0].reshape(shape), bounds[:, 1].reshape(shape)


def mean_intervals(d: np.ndarray, confidence: float, n_resamples: int, seed,
                   bootstrap_method: str) -> np.ndarray:
    """Paired bootstrap interval of the mean difference per row (scipy.stats.bootstrap, bounded).

    Rows sharing a set of paired queries are resampled in one vectorised call, in batches;
    BCa's jackknife in closed form (:mod:`.resampling`), so memory stays linear in the queries.
    """
    from scipy import stats

    intervals = np.full((len(d), 2), np.nan)
    valid = ~np.isnan(d)
    spread = np.where(valid, d, -np.inf).max(axis=1) - np.where(valid, d, np.inf).min(axis=1)
    constant = ~(spread > 0)
    # Every resample of equal values gives that value (scipy would warn and return NaN for BCa).
    for r in np.flatnonzero(constant):
        intervals[r] = d[r][valid[r]][0] if valid[r].any() else np.nan
    groups: dict[bytes, list[int]] = {}
    for r in np.flatnonzero(~constant):
        groups.setdefault(np.packbits(valid[r]).tobytes(), []).append(int(r))
    for rows in groups.values():
        sample = d[np.ix_(np.asarray(rows), np.flatnonzero(valid[rows[0]]))]
        # scipy's jackknife is quadratic in the queries: ours is linear
        if bootstrap_method == "BCa":
            resampled = resampled_statistics((sample,), np.mean, n_resamples,
                                             np.random.default_rng(seed))
            intervals[rows, 0], intervals[rows, 1] = bca_interval(sample.mean(axis=-1), resampled,
                                                                  leave_one_out(sample), confidence)
            continue
        result = stats.bootstrap((sample,), np.mean, axis=-1, vectorized=True, paired=False,
                                 n_resamples=n_resamples, confidence_level=confidence,
                                 method=bootstrap_method,
                                 batch=max(1, 2_000_000 // max(1, sample.size)),
                                 rng=np.random.default_rng(seed))
        intervals[rows, 0] = result.confidence_interval.low
        intervals[rows, 1] = result.confidence_interval.high
    return intervals
