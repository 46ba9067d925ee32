"""Many systems on many topics: the large-sample limits of randomised Tukey HSD and of MaxT.

The permutation procedures (:mod:`.tukey`, :mod:`.maxt`) permute the system
labels within each topic, R times: R x topics x systems values, and a
million topics would need tens of billions. Their permutation distributions
have closed limits, and past :data:`LARGE_TOPICS` topics (or where one
permuted matrix would not fit in memory) ``compare_systems(method='auto')``
uses those limits.

**The limit.** Centre each topic's row, c_i = x_i - mean(x_i). A random
permutation P_i of the row has mean 0 and covariance
|c_i|**2 / (k - 1) (I - J / k) (J the matrix of ones), so by the central
limit theorem (Lindeberg: no topic carries a noticeable share of
sum_i |c_i|**2) the permuted system sums are sigma (Z - mean(Z)) with Z k
independent standard normals and sigma**2 = sum_i |c_i|**2 / (k - 1).

- Tukey HSD: the range of the permuted means is (sigma / n) range(Z), so a
  pair's p-value is P(range(Z) >= q), q = |mean_a - mean_b| n / sigma: the
  studentized range distribution with infinite degrees of freedom,
  P(range <= q) = k int phi(x) (Phi(x + q) - Phi(x))**(k - 1) dx, integrated
  here on a fixed grid for every pair at once (scipy's
  ``studentized_range(k, inf)`` gives the same to 1e-9; the tests check).
- MaxT: a pair's permuted paired t tends to (Z_b - Z_a) / sqrt(2) (each
  topic's permuted difference has variance 2 |c_i|**2 / (k - 1)), so the
  step-down runs on draws of Z: :data:`NORMAL_DRAWS` draws of k normals
  (k values each, not topics x k), with the same successive maxima.

The check printed with the result is the largest topic's share of
sum_i |c_i|**2 (Lindeberg's condition; at most 1/200 here). With
``method='auto'`` a matrix that fails it is permuted as before, unless one
permuted matrix would not fit in memory (then the limit runs and the printed
check says the condition is not met).
"""

from __future__ import annotations

import numpy as np

from .pairwise import PairwiseTests, pairwise_tests
from .step_down import StepDown, gram_paired_t

__all__ = ["LARGE_TOPICS", "NORMAL_DRAWS", "LINDEBERG_SHARE", "range_sf", "large_tukey",
           "large_max_t",
           "use_limit"]

LARGE_TOPICS = 5_000
# Draws of k normals for MaxT's limit: Monte Carlo sd of a p-value at most 0.5 / sqrt(200,000) =
# 0.0011.
NORMAL_DRAWS = 200_000
# Past this share of the total within-topic variance in one topic, the normal limit is not trusted.
LINDEBERG_SHARE = 5e-3
_GRID = np.linspace(-9.0, 9.0, 3601)


def range_sf(q: np.ndarray, k: int) -> np.ndarray:
    """P(range of k independent standard normals >= q), for every q at once.

    >>> round(float(range_sf(np.array([3.0]), 10)[0]), 4)   # scipy: studentized_range.sf(3, 10, inf)
    0.5122
    """
    from scipy.special import ndtr

    q = np.atleast_1d(np.asarray(q, dtype=np.float64))
    x = _GRID[None, :]
    inside = np.clip(ndtr(x + q[:, None]) - ndtr(x), 0.0, 1.0)
    density = np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    cdf = k * np.trapezoid(density * inside ** (k - 1), _GRID, axis=1)
    return np.clip(1.0 - cdf, 0.0, 1.0)


def _spread(matrix: np.ndarray) -> tuple[float, float]:
    """(sigma, the largest topic's share of sum |c_i|**2)."""
    centred = matrix - matrix.mean(axis=1, keepdims=True)
    per_topic = np.einsum("ij,ij->i", centred, centred)
    total = float(per_topic.sum())
    share = float(per_topic.max() / total) if total > 0 else 1.0
    return float(np.sqrt(total / (matrix.shape[1] - 1))), share


def use_limit(matrix: np.ndarray, method: str, cells_held: int) -> bool:
    """Whether the large-sample limit replaces the permutations: method='normal'; or 'auto' with a
    permuted matrix beyond ``cells_held`` values (no permutation would fit), or with
    :data:`LARGE_TOPICS` topics or more where no topic carries more than :data:`LINDEBERG_SHARE` of
    the within-topic variance (the limit's condition; else the permutations run)."""
    topics, systems = matrix.shape
    if method == "normal":
        return True
    if method != "auto":
        return False
    if topics * systems > cells_held:
        return True
    return topics >= LARGE_TOPICS and _spread(matrix)[1] <= LINDEBERG_SHARE


def _method_text(share: float, what: str) -> str:
    verdict = "within" if share <= LINDEBERG_SHARE else "ABOVE"
    return (f"{what}; check: the largest topic carries {share:.2g} of the within-topic variance, {verdict} the "
            f"{LINDEBERG_SHARE:g} the normal limit needs (rankproof.stats.large_systems)")


def large_tukey(matrix: np.ndarray, names: tuple[str, ...], pairs: list[tuple[int, int]], *,
                alpha: float,
                seed: int | None, reference: str) -> PairwiseTests:
    """Tukey HSD from the limit of the randomised test's range distribution (see the module)."""
    topics, k = matrix.shape
    means = matrix.mean(axis=0)
    sigma, share = _spread(matrix)
    observed = np.array([abs(means[b] - means[a]) for a, b in pairs])
    q = observed * topics / sigma if sigma > 0 else np.where(observed > 0, np.inf, 0.0)
    return pairwise_tests("Tukey HSD (large-sample limit of the randomised test: studentized "
                          "range, infinite df)", reference, names, pairs, means, observed,
                          range_sf(q, k), alpha=alpha, topics=topics, n_resamples=0, seed=seed,
                          exact=False,
                          method=_method_text(share, "p = P(range of k normals >= |difference| n "
                                                     "/ sigma)"))


def large_max_t(matrix: np.ndarray, names: tuple[str, ...], pairs: list[tuple[int, int]], *,
                alpha: float,
                seed: int | None, reference: str, baselines: tuple[str, ...]) -> PairwiseTests:
    """Step-down MaxT on draws of the permuted t's normal limit (Z_b - Z_a) / sqrt(2) (see the module)."""
    topics, k = matrix.shape
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    # The Gram sums of the centred rows: k x k values, not topics x pairs.
    observed = gram_paired_t(matrix - matrix.mean(axis=1, keepdims=True), first, second)
    _, share = _spread(matrix)
    rng = np.random.default_rng(seed)
    counter = StepDown(observed)
    block = 20_000
    for start in range(0, NORMAL_DRAWS, block):
        z = rng.standard_normal((min(block, NORMAL_DRAWS - start), k))
        counter.add(np.abs(z[:, second] - z[:, first]) / np.sqrt(2))
    return pairwise_tests("MaxT (step-down, large-sample normal limit of the permuted t's)",
                          reference, names, pairs, matrix.mean(axis=0), observed,
                          counter.p_values(), alpha=alpha, topics=topics,
                          n_resamples=NORMAL_DRAWS, seed=seed, exact=False, baselines=baselines,
                          method=_method_text(share, f"{NORMAL_DRAWS:,} draws of k normals"))
