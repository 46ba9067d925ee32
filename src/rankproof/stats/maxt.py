"""MaxT: Westfall and Young's step-down permutation adjustment over pairs of systems.

Reference: P. H. Westfall and S. S. Young, *Resampling-Based Multiple
Testing*, Wiley 1993, Algorithm 2.8 (step-down maxT); applied to IR by
Carterette (2012, ACM TOIS 30(1)), permuting system labels within topics.

Formula: for a pair (a, b) with per-topic differences d_i = x_ib - x_ia over
n topics, the statistic is the paired t, t_ab = mean(d) / (sd(d) / sqrt(n))
(sd with n - 1 degrees of freedom). Order the m pairs by |t| decreasing,
r_1 ... r_m. For each within-topic permutation X* of the scores (R random
ones), the successive maxima are u*_m = |t*_{r_m}| and
u*_j = max(u*_{j+1}, |t*_{r_j}|). Then

    p~_{r_j} = (#{u*_j >= |t_{r_j}|} + 1) / (R + 1),
    p_{r_j}  = max(p~_{r_1}, ..., p~_{r_j})       (monotone step-down),

which controls the family-wise error rate under subset pivotality. The
family is every pair, or each baseline against every other system (fewer
pairs: more power for the comparisons one cares about). When all (k!)**n
reassignments are enumerated, the counts are exact (no + 1).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import matrix as matrix_module
from .large_systems import large_max_t, use_limit
from .matrix import checked_matrix, checked_names
from .pairwise import PairwiseTests, pair_index, pairwise_tests, baseline_names
from .permutation import check_size, permuted_blocks
from .significance import DEFAULT_RESAMPLES, DEFAULT_SEED
from .step_down import StepDown, gram_paired_t

__all__ = ["max_t", "paired_t_statistics", "REFERENCE"]

REFERENCE = "Westfall and Young (1993), Resampling-Based Multiple Testing, Algorithm 2.8 (step-down maxT)"


def paired_t_statistics(differences: np.ndarray) -> np.ndarray:
    """Paired t over the topic axis (-2) of ``differences`` (... x topics x pairs).

    A pair whose differences are all equal has no spread: +-inf when their
    mean is not 0, 0 when it is.

    >>> paired_t_statistics(np.array([[0.1], [0.2], [0.3]])).round(6).tolist()
    [3.464102]
    """
    topics = differences.shape[-2]
    mean = differences.mean(axis=-2)
    spread = differences.std(axis=-2, ddof=1)
    scale = np.maximum(np.abs(mean), np.abs(differences).max(axis=-2, initial=0.0))
    flat = spread <= 1e-12 * np.maximum(scale, np.finfo(float).tiny)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (spread / np.sqrt(topics))
    degenerate = np.where(np.abs(mean) <= 1e-12 * np.maximum(scale, np.finfo(float).tiny), 0.0,
                          np.copysign(np.inf, mean))
    return np.where(flat, degenerate, t)


def max_t(scores, systems: Sequence[str] | None = None, *, baselines=None, alpha: float = 0.05,
          n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED,
          method: str = "resampling") -> PairwiseTests:
    """Step-down MaxT permutation test over all pairs of systems, or against baselines.

    Parameters
    ----------
    scores, systems
        As in :func:`~rankproof.stats.tukey.tukey_hsd` (one measure's topics x
        systems matrix and its column names), with at least 3 topics.
    baselines : name or names, optional
        Test each baseline against every other system (the family is these
        pairs only); default every pair.
    alpha, n_resamples, seed : level, random permutations and their seed
    method : {'resampling', 'auto', 'normal'}, default 'resampling'
        ``'auto'``: from :data:`~rankproof.stats.large_systems.LARGE_TOPICS`
        topics on (or where one permuted matrix would not fit), the step-down
        on the permuted t's normal limit (:mod:`rankproof.stats.large_systems`);
        ``'normal'``: that limit always.

    Examples
    --------
    >>> scores = [[0.1, 0.2, 0.4], [0.2, 0.3, 0.6], [0.1, 0.3, 0.5], [0.3, 0.2, 0.7]]
    >>> result = max_t(scores, ["a", "b", "c"], baselines="a", n_resamples=2000)
    >>> [pair.system_b for pair in result.significant]
    ['c']
    """
    matrix = checked_matrix(scores, min_topics=3)
    names = checked_names(systems, matrix.shape[1])
    pairs = pair_index(names, baselines)
    topics = matrix.shape[0]
    if use_limit(matrix, method, matrix_module.MAX_CELLS):
        return large_max_t(matrix, names, pairs, alpha=alpha, seed=seed, reference=REFERENCE,
                           baselines=baseline_names(names, pairs, baselines))
    check_size(topics, matrix.shape[1], matrix.shape[1], "MaxT")
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    # Differences within a topic ignore its mean: centring the rows keeps the sums of squares small.
    centred = matrix - matrix.mean(axis=1, keepdims=True)
    observed = gram_paired_t(centred[None], first, second)[0]
    counter, exact = StepDown(observed), False
    for block, exact in permuted_blocks(centred, n_resamples, seed):
        counter.add(np.abs(gram_paired_t(block, first, second)))
    return pairwise_tests("MaxT (step-down)", REFERENCE, names, pairs, matrix.mean(axis=0),
                          observed, counter.p_values(exact=exact), alpha=alpha, topics=topics,
                          n_resamples=counter.drawn, seed=seed, exact=exact,
                          baselines=baseline_names(names, pairs, baselines))
