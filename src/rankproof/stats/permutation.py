"""Permutations of system labels within each topic, drawn in bounded chunks.

Under the null hypothesis that no system differs from another, the scores a
topic gives the systems are exchangeable: any reassignment of the system
labels within a topic is as likely as the observed one. The many-system
permutation tests (randomised Tukey HSD, MaxT) evaluate their statistic on
such reassignments, permuting every topic independently (Carterette 2012).

:func:`permuted_blocks` yields the permuted matrices in chunks so that the
working set stays near ``budget`` values however many resamples are asked
for; when all ``(k!)**n`` reassignments are no more than the resamples
asked for, every one is used once (an exact test).
"""

from __future__ import annotations

import itertools
import math
from typing import Iterator

import numpy as np

from ..errors import InputError
from .matrix import MAX_CELLS

__all__ = ["permuted_blocks", "check_size", "exact_count", "BLOCK_VALUES"]

# Values per chunk of permuted matrices: about 32 MB of float64.
BLOCK_VALUES = 4_000_000


def exact_count(topics: int, systems: int) -> int | None:
    """(systems!)**topics, the number of within-topic reassignments, or None when astronomically many."""
    log_count = topics * math.lgamma(systems + 1)
    return None if log_count > 60 * math.log(2) else math.factorial(systems) ** topics


def check_size(topics: int, systems: int, width: int, procedure: str) -> None:
    """Refuse, before any work, a problem whose single permutation exceeds the memory budget.

    ``width`` is the number of values per topic the procedure holds for one
    permutation (the systems for Tukey HSD, the pairs for MaxT).
    """
    cells = topics * max(systems, width)
    if cells > MAX_CELLS:
        raise InputError(what=f"{procedure} over {topics} topics x {systems} systems needs {cells:,} values per "
                              f"permutation, more than the {MAX_CELLS:,} it holds in memory",
                         value=cells,
                         fix="compare fewer systems, or sample the topics")


def permuted_blocks(scores: np.ndarray, n_resamples: int, seed: int | None, *,
                    width: int | None = None
                    ) -> Iterator[tuple[np.ndarray, bool]]:
    """Chunks of permuted copies of ``scores`` (chunk x topics x systems); the flag says exact enumeration.

    Each topic's row is permuted independently. Random draws come from one
    generator seeded with ``seed``, chunk after chunk, so a seed gives the
    same permutations whatever the chunk size. ``width`` (values per topic
    the caller derives from each permutation) sets the chunk size.

    Examples
    --------
    Two topics, two systems: 2!**2 = 4 reassignments, all enumerated.

    >>> blocks = list(permuted_blocks(np.array([[1.0, 2.0], [3.0, 4.0]]), 100, 0))
    >>> blocks[0][1], blocks[0][0].shape
    (True, (4, 2, 2))
    """
    topics, systems = scores.shape
    per_permutation = topics * max(systems, width or systems)
    chunk = max(1, BLOCK_VALUES // per_permutation)
    count = exact_count(topics, systems)
    if count is not None and count <= n_resamples:
        orders = np.array(list(itertools.permutations(range(systems))), dtype=np.intp)
        codes = itertools.product(range(len(orders)), repeat=topics)
        while True:
            picked = np.array(list(itertools.islice(codes, chunk)), dtype=np.intp)
            if not len(picked):
                return
            yield np.take_along_axis(scores[None], orders[picked], axis=2), True
    rng = np.random.default_rng(seed)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        # Sorting uniform keys gives a uniform random permutation of each row.
        orders = rng.random((size, topics, systems)).argsort(axis=2)
        yield np.take_along_axis(scores[None], orders, axis=2), False
