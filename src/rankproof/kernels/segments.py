"""Positions inside segments of flat arrays (queries, groups, rows)."""

from __future__ import annotations

import numpy as np

__all__ = ["ranks_within"]


def ranks_within(lengths: np.ndarray) -> np.ndarray:
    """0-based index of every element inside its segment, for segments of the given lengths.

    >>> ranks_within(np.array([3, 0, 2])).tolist()
    [0, 1, 2, 0, 1]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    ranks = np.arange(int(lengths.sum()), dtype=np.int64)
    ranks -= np.repeat(np.cumsum(lengths) - lengths, lengths)
    return ranks
