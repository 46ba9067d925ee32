"""Measures as functions of one positive's rank (sampled evaluation).

When each case has one positive, ranked ``r`` (1 + the negatives scored at
least as high), a ranking measure is a function of ``r``: ``ndcg@k`` =
1/log2(r + 1) if r <= k, ``hit@k`` (``r@k``) = [r <= k], ``p@k`` =
[r <= k] / k, ``rr`` (``ap``) = 1/r. A spec that has one declares it as
``MeasureSpec.of_rank``; :func:`rankproof.recsys.sampled.evaluate_sampled`
reads it.

>>> import numpy as np
>>> NDCG.function(np.array([1.0, 3.0, 11.0]), 10).round(4).tolist()
[1.0, 0.5, 0.0]
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

__all__ = ["OfRank", "NDCG", "HIT", "PRECISION", "RECIPROCAL"]


@dataclasses.dataclass(frozen=True)
class OfRank:
    """``function(ranks, k)``: the value of each rank (k None: no cutoff); ``needs_cutoff``: only
    defined with one (hit, p)."""

    function: Callable[[np.ndarray, "int | None"], np.ndarray]
    needs_cutoff: bool = False


def _ndcg(rank: np.ndarray, k: int | None) -> np.ndarray:
    value = 1.0 / np.log2(rank + 1.0)
    return value if k is None else np.where(rank <= k, value, 0.0)


def _hit(rank: np.ndarray, k: int | None) -> np.ndarray:
    return (rank <= k).astype(np.float64)


def _precision(rank: np.ndarray, k: int | None) -> np.ndarray:
    return (rank <= k) / float(k or 1)


def _reciprocal(rank: np.ndarray, k: int | None) -> np.ndarray:
    value = 1.0 / rank
    return value if k is None else np.where(rank <= k, value, 0.0)


NDCG = OfRank(_ndcg)
HIT = OfRank(_hit, needs_cutoff=True)
PRECISION = OfRank(_precision, needs_cutoff=True)
RECIPROCAL = OfRank(_reciprocal)
