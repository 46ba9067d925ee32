"""Randomised Tukey HSD: every pair of systems, the family-wise error rate held by the range of means.

Reference: B. A. Carterette, "Multiple testing in statistical analysis of
systems-based information retrieval experiments", ACM TOIS 30(1), 2012,
section 4 (the randomised version of Tukey's Honest Significant
Difference).

Formula: with X the (topics x systems) score matrix and mean_j the mean of
column j, the observed difference of a pair is |mean_a - mean_b|. Under the
null hypothesis that all systems are equal, the labels are exchangeable
within each topic; for each of R random within-topic permutations X*, the
statistic is the range of the permuted means, max_j mean*_j - min_j mean*_j.
The family-wise adjusted p-value of a pair is

    p_ab = (#{r : range*_r >= |mean_a - mean_b|} + 1) / (R + 1),

the + 1 counting the observed assignment (when all (k!)**n reassignments are
enumerated, the count is exact and takes no + 1). Because every pair is
compared with the same maximum, the chance of any false rejection among all
pairs is at most alpha.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import matrix as matrix_module
from .large_systems import large_tukey, use_limit
from .matrix import checked_matrix, checked_names
from .pairwise import PairwiseTests, pair_index, pairwise_tests, baseline_names
from .permutation import check_size, permuted_blocks
from .significance import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["tukey_hsd", "REFERENCE"]

REFERENCE = "Carterette (2012), Multiple testing in statistical analysis of systems-based IR experiments, ACM TOIS 30(1)"

# Relative tolerance when comparing resampled and observed statistics (sums in another order).
_TOLERANCE = 1e-12


def tukey_hsd(scores, systems: Sequence[str] | None = None, *, baselines=None, alpha: float = 0.05,
              n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED,
              method: str = "resampling") -> PairwiseTests:
    """Randomised Tukey HSD over the systems (columns) of a topics x systems matrix.

    Parameters
    ----------
    scores : array (topics x systems)
        One measure's per-topic values, no missing cell.
    systems : names of the columns (default s1, s2, ...)
    baselines : name or names, optional
        Report only the pairs involving these systems. The p-values are those
        of the all-pairs procedure (the range covers every pair).
    alpha : level at which a pair is called significant
    n_resamples, seed : random permutations and their seed
    method : {'resampling', 'auto', 'normal'}, default 'resampling'
        ``'auto'``: from :data:`~rankproof.stats.large_systems.LARGE_TOPICS`
        topics on (or where one permuted matrix would not fit), the
        large-sample limit of the randomised test (the studentized range with
        infinite df, :mod:`rankproof.stats.large_systems`); ``'normal'``: that
        limit always.

    Examples
    --------
    Three systems on two topics: 3!**2 = 36 reassignments, all enumerated.
    The range of means reaches the observed 0.3 only when the system given
    0.4 on the first topic is given 0.5 on the second and the one given 0.1
    is given 0.2: 6 of the 36, p = 1/6.

    >>> result = tukey_hsd([[0.1, 0.2, 0.4], [0.2, 0.3, 0.5]], ["a", "b", "c"])
    >>> round(result.pair("a", "c").p_value, 4), result.exact
    (0.1667, True)
    """
    matrix = checked_matrix(scores)
    names = checked_names(systems, matrix.shape[1])
    pairs = pair_index(names, baselines)
    topics = matrix.shape[0]
    if use_limit(matrix, method, matrix_module.MAX_CELLS):
        return large_tukey(matrix, names, pairs, alpha=alpha, seed=seed, reference=REFERENCE)
    check_size(topics, matrix.shape[1], matrix.shape[1], "randomised Tukey HSD")
    means = matrix.mean(axis=0)
    observed = np.array([abs(means[b] - means[a]) for a, b in pairs])
    tolerance = _TOLERANCE * max(float(np.abs(means).max()), np.finfo(float).tiny)
    exceed = np.zeros(len(pairs), dtype=np.int64)
    drawn, exact = 0, False
    for block, exact in permuted_blocks(matrix, n_resamples, seed):
        permuted_means = block.mean(axis=1)                              # chunk x systems
        spread = permuted_means.max(axis=1) - permuted_means.min(axis=1)
        exceed += (spread[:, None] >= observed[None, :] - tolerance).sum(axis=0)
        drawn += len(block)
    adjust = 0 if exact else 1
    p_values = (exceed + adjust) / (drawn + adjust)
    return pairwise_tests("randomised Tukey HSD", REFERENCE, names, pairs, means, observed,
                          p_values, alpha=alpha, topics=topics, n_resamples=drawn, seed=seed,
                          exact=exact, baselines=baseline_names(names, pairs, baselines))
