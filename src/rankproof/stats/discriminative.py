"""Discriminative power and achieved-significance-level curves of measures (Sakai 2006).

Reference: T. Sakai, "Evaluating evaluation metrics based on the bootstrap",
SIGIR 2006 (the paired bootstrap test, the ASL curves, discriminative power).

Formula: for each pair of runs (all k(k-1)/2 of them) and each measure, the
per-topic differences z_1..z_n give t(z) = mean(z) / (sd(z) / sqrt(n)).
The bootstrap shifts them to the null, w_i = z_i - mean(z), draws B samples
w*^b of n topics with replacement, and counts

    ASL = #{b : |t(w*^b)| >= |t(z)|} / B.

A measure's ASL curve is its pairs' ASLs sorted increasingly; its
discriminative power at level alpha is the share of pairs with ASL < alpha.
A measure with a lower curve tells more pairs of systems apart on these
topics. The same bootstrap samples of topics serve every pair and measure, so
measures are compared on the same draws.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping, Sequence

import numpy as np

from ..errors import InputError
from .matrix import checked_matrix, checked_names
from .maxt import paired_t_statistics
from .pairwise import pair_index
from .permutation import BLOCK_VALUES
from .significance import DEFAULT_SEED

__all__ = ["Discrimination", "bootstrap_asl", "discriminative_power", "DEFAULT_BOOTSTRAP"]

DEFAULT_BOOTSTRAP = 1000


@dataclasses.dataclass(frozen=True)
class Discrimination:
    """A measure's ASL per pair of systems (in ``pairs`` order), its ASL curve and discriminative power."""

    measure: str
    pairs: tuple[tuple[str, str], ...]
    asl: tuple[float, ...]
    alpha: float

    @property
    def curve(self) -> tuple[float, ...]:
        """The ASLs sorted increasingly (Sakai's ASL curve, x = pair rank)."""
        return tuple(sorted(self.asl))

    @property
    def power(self) -> float:
        """The share of pairs with ASL < alpha."""
        return sum(value < self.alpha for value in self.asl) / len(self.asl)


def bootstrap_asl(differences, *, n_resamples: int = DEFAULT_BOOTSTRAP,
                  seed: int | None = DEFAULT_SEED
                  ) -> np.ndarray:
    """Sakai's paired bootstrap ASL of each row of ``differences`` (rows x topics).

    Topic indices are drawn once per chunk for every row, so rows share
    their bootstrap samples; memory stays near 4 million values per chunk.

    >>> bootstrap_asl([[0.1, 0.1, 0.1, 0.1]]).tolist()   # no spread: nothing to shift
    [0.0]
    """
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    if d.shape[1] < 2 or not np.all(np.isfinite(d)):
        raise InputError(what="the bootstrap test needs at least 2 topics and no missing difference",
                         value=d.shape[1])
    rows, topics = d.shape
    observed = np.abs(paired_t_statistics(d.T))
    shifted = d - d.mean(axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    chunk = max(1, BLOCK_VALUES // (rows * topics))
    exceed = np.zeros(rows, dtype=np.int64)
    for start in range(0, n_resamples, chunk):
        picks = rng.integers(0, topics, size=(min(chunk, n_resamples - start), topics))
        samples = shifted[:, picks]                                      # rows x chunk x topics
        resampled = np.abs(paired_t_statistics(np.moveaxis(samples, 0, -1)))   # chunk x rows
        exceed += (resampled >= observed[None, :] * (1 - 1e-12)).sum(axis=0)
    return exceed / n_resamples


def discriminative_power(scores: Mapping[str, object], systems: Sequence[str] | None = None, *,
                         alpha: float = 0.05, n_resamples: int = DEFAULT_BOOTSTRAP,
                         seed: int | None = DEFAULT_SEED) -> tuple[Discrimination, ...]:
    """ASLs of every pair of systems under each measure: ``scores`` maps a measure to its topics x systems matrix.

    Every matrix must have the same shape (the same topics and systems in
    the same order).
    """
    matrices = {str(measure): checked_matrix(matrix, min_topics=2)
                for measure, matrix in scores.items()}
    if not matrices:
        raise InputError(what="give at least one measure's score matrix")
    shapes = {matrix.shape for matrix in matrices.values()}
    if len(shapes) > 1:
        raise InputError(what=f"the measures' matrices differ in shape ({', '.join(map(str, sorted(shapes)))})",
                         fix="evaluate every measure on the same topics and systems")
    first = next(iter(matrices.values()))
    names = checked_names(systems, first.shape[1])
    pairs = pair_index(names)
    a = np.array([i for i, _ in pairs])
    b = np.array([j for _, j in pairs])
    stacked = np.concatenate([(matrix[:, b] - matrix[:, a]).T for matrix in matrices.values()])
    asl = bootstrap_asl(stacked, n_resamples=n_resamples, seed=seed).reshape(len(matrices),
                                                                             len(pairs))
    labels = tuple((names[i], names[j]) for i, j in pairs)
    return tuple(Discrimination(measure=measure, pairs=labels, asl=tuple(float(v) for v in row),
                                alpha=alpha)
                 for measure, row in zip(matrices, asl))
