"""The step-down maxT count, shared by the permutation test and its normal limit.

Both :func:`rankproof.stats.maxt.max_t` (within-topic permutations) and
:func:`rankproof.stats.large_systems.large_max_t` (draws of the permuted t's
normal limit) run Westfall and Young's step-down (Algorithm 2.8): order the
m pairs by observed |t| decreasing, r_1 ... r_m; for each resampled
statistic vector t*, the successive maxima are u*_m = |t*_{r_m}| and
u*_j = max(u*_{j+1}, |t*_{r_j}|); then

    p~_{r_j} = (#{u*_j >= |t_{r_j}|} + a) / (R + a),
    p_{r_j}  = max(p~_{r_1}, ..., p~_{r_j}),

with a = 1 for R random resamples (the observed assignment counts once) and
a = 0 when every assignment was enumerated. The paired t of every pair comes
from the column sums and the Gram matrix of the topic-centred scores, k x k
values per matrix instead of one difference per topic and pair.
"""

from __future__ import annotations

import numpy as np

__all__ = ["StepDown", "gram_paired_t"]

# Statistics within this relative distance count as equal (the same t reached through sums in
# another order).
TOLERANCE = 1e-9
# Differences whose spread is below this share of their size count as constant (rounding in the Gram
# sums).
FLAT = 1e-9


def gram_paired_t(centred: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Paired t of every pair (``first[i]``, ``second[i]``) of columns of the topic-centred
    ``centred`` (... x topics x systems) -> ... x pairs.

    With S the column sums and G = X'X: sum d = S_b - S_a and sum d**2 = G_bb + G_aa - 2 G_ab,
    t = mean(d) / (sd(d) / sqrt(n)) (sd with n - 1 degrees of freedom). A pair whose differences
    have no spread (below 1e-9 of their size) gets +-inf, or 0 when their mean is 0 too.

    >>> scores = np.array([[0.1, 0.2], [0.2, 0.4], [0.3, 0.6]])
    >>> centred = scores - scores.mean(axis=1, keepdims=True)
    >>> gram_paired_t(centred, np.array([0]), np.array([1])).round(6).tolist()   # d = .1, .2, .3
    [3.464102]
    """
    topics = centred.shape[-2]
    sums = centred.sum(axis=-2)
    gram = np.matmul(np.swapaxes(centred, -1, -2), centred)
    sum_d = sums[..., second] - sums[..., first]
    sum_squares = (gram[..., second, second] + gram[..., first, first]
                   - 2 * gram[..., first, second])
    mean = sum_d / topics
    spread = np.sqrt(np.maximum(sum_squares - sum_d * mean, 0.0) / (topics - 1))
    size = np.maximum(np.sqrt(np.maximum(sum_squares, 0.0) / topics), np.finfo(float).tiny)
    flat = spread <= FLAT * size
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (spread / np.sqrt(topics))
    degenerate = np.where(np.abs(mean) <= FLAT * size, 0.0, np.copysign(np.inf, mean))
    return np.where(flat, degenerate, t)


class StepDown:
    """The step-down count of one family of pairs, fed resampled |t| a block at a time.

    >>> counter = StepDown(np.array([3.0, -1.0]))
    >>> counter.add(np.array([[0.5, 2.0], [4.0, 0.1]]))   # successive maxima (2, 2) and (4, 0.1)
    >>> counter.p_values(exact=True).tolist()              # each reached in one of the two
    [0.5, 0.5]
    """

    def __init__(self, observed: np.ndarray) -> None:
        self.order = np.argsort(-np.abs(observed), kind="stable")
        self.threshold = np.abs(observed[self.order]) * (1 - TOLERANCE)
        self.exceed = np.zeros(len(observed), dtype=np.int64)
        self.drawn = 0

    def add(self, resampled: np.ndarray) -> None:
        """Count a block of resampled |t| (resamples x pairs, the pairs in their given order)."""
        ordered = resampled[:, self.order]
        successive = np.maximum.accumulate(ordered[:, ::-1], axis=1)[:, ::-1]
        self.exceed += (successive >= self.threshold[None, :]).sum(axis=0)
        self.drawn += len(resampled)

    def p_values(self, *, exact: bool = False) -> np.ndarray:
        """The monotone step-down p-values, in the pairs' order (+ 1 unless ``exact``)."""
        adjust = 0 if exact else 1
        stepped = np.maximum.accumulate((self.exceed + adjust) / (self.drawn + adjust))
        p_values = np.empty(len(self.order))
        p_values[self.order] = np.minimum(1.0, stepped)
        return p_values
