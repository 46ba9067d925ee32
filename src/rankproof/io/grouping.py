"""Grouping a table's rows by query as they are read, without reordering whole columns.

A run is held grouped by query code (:class:`~rankproof.data.run.Run`), but a
log lists each user's rows in one block, in the order of its user ids (7
before 10), not of their codes (``"10"`` sorts before ``"7"``). Reordering the
read columns afterwards costs a row-long order and a fresh copy of every
column. Here the query column is read as its blocks (runs of one id: a
million blocks for 20 million rows), only the blocks' ids are interned, and
the blocks are ordered by code. A :class:`Placement` then says where each
row of the table goes, so that the other columns (scores, doc codes) are
written straight into their grouped places, one Arrow chunk at a time.
Rows keep their table order within each query, as a stable sort of the
rows by query code would give, blocks of one query included.
"""

from __future__ import annotations

import numpy as np

from dataclasses import dataclass

from .arrow import arrow_of, numpy_of
from .trec import RunColumns

__all__ = ["GroupedRunColumns", "Placement", "query_blocks", "grouped_placement", "STEP"]

STEP = 1 << 20  # rows placed at a time: the index of their places is this long


@dataclass(frozen=True)
class GroupedRunColumns(RunColumns):
    """:class:`~rankproof.io.trec.RunColumns` whose rows are grouped by query code: query
    ``i``'s rows at ``offsets[i]`` to ``offsets[i + 1]``, in file order within the query;
    `query_codes` is empty (the offsets say it all; :func:`rankproof.io.tables.grouped_run_columns`)."""

    offsets: "np.ndarray | None" = None


class Placement:
    """Where each row of a table goes once the rows are grouped: block ``b`` (rows
    ``starts[b]`` to ``starts[b + 1]``) moves to ``dest[b]``, keeping its order.

    >>> placement = Placement(np.array([0, 2, 3]), np.array([1, 0, 3]), 5)
    >>> placement.place([np.array([10, 11, 12]), np.array([13, 14])], np.int64).tolist()
    [12, 10, 11, 13, 14]
    >>> placement.table_rows(range(5)).tolist()
    [2, 0, 1, 3, 4]
    """

    def __init__(self, starts: np.ndarray, dest: np.ndarray, rows: int) -> None:
        self.rows = rows
        self.starts = np.asarray(starts, dtype=np.int64)
        self.dest = np.asarray(dest, dtype=np.int64)
        self.identity = bool(np.array_equal(self.starts, self.dest))
        self._ends = np.append(self.starts[1:], rows)

    def index(self, lo: int, hi: int) -> "slice | np.ndarray":
        """The grouped places of table rows ``lo`` to ``hi`` (a slice when they stay put)."""
        if self.identity:
            return slice(lo, hi)
        first = int(np.searchsorted(self.starts, lo, side="right")) - 1
        last = int(np.searchsorted(self.starts, hi, side="left"))
        starts, ends = self.starts[first:last], self._ends[first:last]
        lengths = np.minimum(ends, hi) - np.maximum(starts, lo)
        # Row r of block b goes to dest[b] + (r - starts[b]): one repeat and one add.
        index = np.repeat(self.dest[first:last] - starts, lengths)
        index += np.arange(lo, hi, dtype=np.int64)
        return index

    def place(self, chunks, dtype) -> np.ndarray:
        """A new array of `dtype` holding the values of `chunks` (numpy arrays, in table
        order, together as long as the table) in their grouped places."""
        out = np.empty(self.rows, dtype=dtype)
        at = 0
        for values in chunks:
            for lo in range(0, len(values), STEP):
                part = values[lo:lo + STEP]
                out[self.index(at, at + len(part))] = part
                at += len(part)
        return out

    def pieces(self, column):
        """`column` (an Arrow chunked array) in chunks of at most :data:`STEP` rows, the
        same buffers: each chunk's places are then indexed :data:`STEP` rows at a time."""
        import pyarrow as pa

        if self.identity:
            return column
        return pa.chunked_array([chunk.slice(lo, STEP) for chunk in column.chunks
                                 for lo in range(0, len(chunk), STEP)], type=column.type)

    def table_rows(self, positions) -> np.ndarray:
        """The table rows (0-based) placed at `positions`: for messages that name a row."""
        positions = np.asarray(positions, dtype=np.int64)
        if self.identity:
            return positions
        order = np.argsort(self.dest, kind="stable")
        block = order[np.searchsorted(self.dest[order], positions, side="right") - 1]
        return self.starts[block] + positions - self.dest[block]


def query_blocks(column):
    """``(starts, ids)``: where each run of one id starts in `column` (an Arrow chunked
    array of integers or strings without nulls), and the run's id, as an Arrow array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    starts = []
    at = 0
    previous = None
    for chunk in column.chunks:
        size = len(chunk)
        if size == 0:
            continue
        if pa.types.is_integer(chunk.type):
            values = numpy_of(chunk)
            change = values[1:] != values[:-1]
        else:
            change = pc.not_equal(chunk.slice(1),
                                  chunk.slice(0, size - 1)).to_numpy(zero_copy_only=False)
        if previous is None or chunk[0].as_py() != previous:
            starts.append(np.array([at], dtype=np.int64))
        starts.append(np.flatnonzero(change) + (at + 1))
        previous = chunk[size - 1].as_py()
        at += size
    found = np.concatenate(starts).astype(np.int64) if starts else np.zeros(0, dtype=np.int64)
    return found, column.take(arrow_of(found))


def grouped_placement(block_codes: np.ndarray, starts: np.ndarray, rows: int,
                      num_queries: int) -> tuple[np.ndarray, Placement]:
    """``(offsets, placement)``: each query's rows once grouped, and where each row goes,
    from the code of each block of the table (:func:`query_blocks`)."""
    lengths = np.diff(np.append(starts, rows))
    counts = np.bincount(block_codes, weights=lengths, minlength=num_queries).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    # Blocks in code order (a stable sort keeps two blocks of one query in table order),
    # each starting where the blocks before it end.
    order = np.argsort(block_codes, kind="stable")
    ordered = lengths[order]
    dest = np.empty(len(starts), dtype=np.int64)
    dest[order] = np.cumsum(ordered) - ordered
    return offsets, Placement(starts, dest, rows)
