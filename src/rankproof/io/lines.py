"""Source lines of rows, without memory when there are none.

Rows read from a table or a Parquet file have no line: their ``lines`` column
is all -1. Held as a read-only broadcast of -1 (stride 0) it costs no memory,
and :func:`take_lines` keeps it that way when rows are selected or reordered,
instead of allocating (and page-faulting) a column of -1 for every step.
"""

from __future__ import annotations

import numpy as np

__all__ = ["no_lines", "take_lines"]


def no_lines(size: int) -> np.ndarray:
    """A read-only int64 column of `size` times -1 that takes no memory.

    >>> no_lines(3).tolist(), no_lines(3).strides
    ([-1, -1, -1], (0,))
    """
    return np.broadcast_to(np.int64(-1), (int(size),))


def take_lines(lines: np.ndarray, index) -> np.ndarray:
    """``lines[index]`` (an integer array, a boolean mask or a slice), still
    without memory when `lines` holds no line.

    >>> take_lines(no_lines(4), np.array([True, False, True, True])).shape
    (3,)
    >>> take_lines(np.array([5, 6, 7]), np.array([2, 0])).tolist()
    [7, 5]
    """
    if lines.ndim != 1 or lines.strides[0] != 0 or len(lines) == 0 or isinstance(index, slice):
        return lines[index]
    index = np.asarray(index)
    size = int(index.sum()) if index.dtype == bool else len(index)
    return no_lines(size)
