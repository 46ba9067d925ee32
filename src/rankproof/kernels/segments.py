"""Positions inside segments of flat arrays (queries, groups, rows)."""

from __future__ import annotations

import numpy as np

__all__ = ["ranks_within", "segment_of", "offsets_of"]


def ranks_within(lengths: np.ndarray) -> np.ndarray:
    """0-based index of every element inside its segment, for segments of the given lengths.

    >>> ranks_within(np.array([3, 0, 2])).tolist()
    [0, 1, 2, 0, 1]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    ranks = np.arange(int(lengths.sum()), dtype=np.int64)
    ranks -= np.repeat(np.cumsum(lengths) - lengths, lengths)
    return ranks


def segment_of(lengths: np.ndarray) -> np.ndarray:
    """Segment index of every element, for segments of the given lengths.

    >>> segment_of(np.array([2, 0, 1])).tolist()
    [0, 0, 2]
    """
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def offsets_of(segment_of_row: np.ndarray, num_segments: int) -> np.ndarray:
    """Offsets (``num_segments + 1``) of rows grouped by segment, from each row's segment.

    >>> offsets_of(np.array([0, 0, 2]), 3).tolist()
    [0, 2, 2, 3]
    """
    counts = np.bincount(segment_of_row, minlength=num_segments)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
