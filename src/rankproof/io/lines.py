"""Source lines of rows: found in a text file without a loop, and held without
memory when there are none.

:func:`newlines` and :func:`data_lines` number the lines of a delimited or
JSON Lines file, so a row read by pyarrow is named by its file line.

Rows read from a table or a Parquet file have no line: their ``lines`` column
is all -1. Held as a read-only broadcast of -1 (stride 0) it costs no memory,
and :func:`take_lines` keeps it that way when rows are selected or reordered,
instead of allocating (and page-faulting) a column of -1 for every step.
"""

from __future__ import annotations

import numpy as np

__all__ = ["no_lines", "take_lines", "newlines", "data_lines"]


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


def newlines(data: bytes) -> np.ndarray:
    """Return the byte offsets of every newline in `data`, as int64.

    The scan goes one megabyte at a time (a loop over chunks, not lines):
    comparing the whole buffer at once would allocate, and fault in, one
    bool per byte, which costs several times more than the comparison.
    """
    buffer = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    parts = [
        np.flatnonzero(buffer[offset : offset + step] == 0x0A) + offset
        for offset in range(0, buffer.size, step)
    ]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(parts).astype(np.int64, copy=False)


def _line_bounds(size: int, breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the start and end (exclusive, newline excluded) of every line."""
    starts = np.empty(breaks.size + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = breaks + 1
    ends = np.empty_like(starts)
    ends[:-1] = breaks
    ends[-1] = size
    return starts, ends


def data_lines(
    text: bytes, breaks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the 1-based line numbers, starts and ends of the non-empty lines."""
    starts, ends = _line_bounds(len(text), breaks)
    keep = ends > starts
    if keep[:-1].all():
        # No blank line but perhaps the empty one after the final newline:
        # slices, not copies, on the common path.
        count = len(keep) - (0 if keep[-1] else 1)
        return np.arange(1, count + 1, dtype=np.int64), starts[:count], ends[:count]
    return np.flatnonzero(keep).astype(np.int64) + 1, starts[keep], ends[keep]
