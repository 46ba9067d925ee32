"""Segments of flat arrays: which segment each row is in, and each segment's offsets.

>>> offsets_of(np.array([0, 0, 2]), 3).tolist()
[0, 2, 2, 3]
>>> segment_of(np.array([2, 0, 1])).tolist()
[0, 0, 2]
"""

from __future__ import annotations

import numpy as np

__all__ = ["segment_of", "offsets_of"]


def segment_of(lengths: np.ndarray) -> np.ndarray:
    """Segment index of every element, for segments of the given lengths."""
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def offsets_of(segment_of_row: np.ndarray, num_segments: int) -> np.ndarray:
    """Offsets (``num_segments + 1``) of rows grouped by segment, from each row's segment."""
    counts = np.bincount(segment_of_row, minlength=num_segments)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
