"""The Spark pass without a shuffle, for Parquet grouped by query: ranges of query ids.

A log is most often written query by query (a recommender's predictions
user by user), so each row group of its Parquet files holds a narrow range
of query ids, which the file's statistics record (min, max, nulls). Then
:func:`plan_ranges` cuts the ids into ranges at row-group boundaries of the
larger table, and each Spark task reads, with pyarrow, the row groups of
both tables whose ids meet its range, keeps the rows of its range and
evaluates them (:class:`~rankproof.spark.partition.PartitionTask`): every
row of a query is in one task, so the numbers are those of the hashed
buckets (:mod:`rankproof.spark.pack`), without packing blobs, shuffling
them through the JVM and unpacking them again.

The plan is used only when it is safe and pays: both tables are Parquet read
here, their query ids are signed integers in both, every row group states
its id range and has no null id, the larger table's row groups, taken by
their least id, do not overlap (a group may end with the id the next one
starts with: a query cut by a boundary), and the row groups the tasks read
add up to at most :data:`MAX_READ` times the rows (a log in random order
would have every task read every row group). Otherwise
:func:`plan_ranges` returns None and the rows are hashed into buckets.
Nothing here imports pyspark: :func:`read_ranges` runs in the workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

import numpy as np

from .pack import QRELS_SIDE, ROW, RUN_SIDE

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from .inputs import Columns, Table
    from .partition import PartitionTask

__all__ = ["Piece", "Range", "MAX_READ", "plan_ranges", "read_range", "read_ranges"]

# Rows the tasks read, at most, per row of the inputs: a row group meeting several ranges is read by
# each (the smaller table's groups span several of the larger's; a query cut by a group boundary
# puts two groups in one range). Reading and filtering a row again costs about a twentieth of what
# packing it and moving it through the shuffle does (about 0.03 us against 0.8 us on the benchmark's
# log).
MAX_READ = 4.0


@dataclass(frozen=True)
class Piece:
    """One row group a task reads: its file, its index, the place of its first
    row in its table (:data:`~rankproof.spark.pack.ROW`), and whether all its
    ids are inside the task's range (then no row is filtered out)."""

    side: int
    path: str
    index: int
    first_row: int
    whole: bool


@dataclass(frozen=True)
class Range:
    """The query ids ``low <= id < high`` (None: unbounded) and the row groups holding them, in input order."""

    low: int | None
    high: int | None
    pieces: tuple[Piece, ...]


def _groups(table: "Table") -> list[tuple[int, int, int, str, int, int]] | None:
    """(min, max, rows, path, index, first row) of each non-empty row group; None when one has no bounds."""
    groups = []
    first = 0
    for (path, sizes), bounds in zip(table.files, table.bounds):
        for index, (size, bound) in enumerate(zip(sizes, bounds)):
            if bound is None:
                return None
            if size:
                groups.append((bound[0], bound[1], size, path, index, first))
            first += size
    return groups


def plan_ranges(tables: Sequence["Table"], count: int) -> list[Range] | None:
    """At most `count` ranges of query ids, balanced by the larger table's rows, and the
    row groups each reads; None when the plan does not apply (see the module's docstring)."""
    if any(t.frame is not None or t.remote is not None or not t.files or t.query_kind != "integer"
           or len(t.bounds) != len(t.files) for t in tables):
        return None
    sides = [_groups(t) for t in tables]
    if any(groups is None for groups in sides):
        return None
    known = [groups for groups in sides if groups is not None]
    total = sum(g[2] for groups in known for g in groups)
    larger = sorted(max(known, key=lambda groups: sum(g[2] for g in groups)), key=lambda g: g[0])
    if not total or not larger or any(a[1] > b[0] for a, b in zip(larger, larger[1:])):
        return None  # the larger table's groups overlap: its rows are not grouped by query
    rows = np.cumsum([0] + [g[2] for g in larger[:-1]])
    share = rows[-1] + larger[-1][2]
    # Range i starts at the first group whose rows before it reach i / count of the table's.
    starts = sorted({int(np.searchsorted(rows, share * i / count)) for i in range(1, max(1, count))}
                    - {0})
    cuts = sorted({larger[j][0] for j in starts if j < len(larger)})
    lows: list[int | None] = [None, *cuts]
    highs: list[int | None] = [*cuts, None]
    plan = []
    read = 0
    for low, high in zip(lows, highs):
        pieces = []
        for side, groups in zip((t.side for t in tables), known):
            for least, most, size, path, index, first in groups:
                if (high is None or least < high) and (low is None or most >= low):
                    whole = (low is None or least >= low) and (high is None or most < high)
                    pieces.append(Piece(side=side, path=path, index=index, first_row=first,
                                        whole=whole))
                    read += size
        plan.append(Range(low=low, high=high,
                          pieces=tuple(sorted(pieces, key=lambda p: (p.side, p.first_row)))))
    return plan if read <= MAX_READ * total else None


def _read_side(pieces: Sequence[Piece], key: str, columns: Sequence[str], ones: str | None,
               low: int | None, high: int | None) -> "pa.Table | None":
    """One side's rows of the range, in input order, with their place (and a grade of 1 in `ones`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = []
    for piece in pieces:
        table = pq.ParquetFile(piece.path).read_row_group(piece.index,
                                                          columns=[c for c in columns if c != ones])
        places = np.arange(piece.first_row, piece.first_row + table.num_rows, dtype=np.int64)
        if not piece.whole:
            ids = table.column(key).to_numpy()
            keep = np.ones(len(ids), dtype=bool)
            if low is not None:
                keep &= ids >= low
            if high is not None:
                keep &= ids < high
            table, places = table.filter(pa.array(keep)), places[keep]
        table = table.append_column(ROW, pa.array(places))
        if ones is not None:
            table = table.append_column(ones, pa.array(np.ones(table.num_rows, dtype=np.int64)))
        parts.append(table)
    return pa.concat_tables(parts, promote_options="permissive") if parts else None


def read_range(part: Range, columns: "Columns") -> tuple["pa.Table | None", "pa.Table | None"]:
    """The qrels' and the run's rows of one range (None: none), each in input order with its place."""
    tables = []
    for side in (QRELS_SIDE, RUN_SIDE):
        ones = "grade" if side == QRELS_SIDE and columns.grade is None else None
        tables.append(_read_side([p for p in part.pieces if p.side == side], columns.query,
                                 columns.of(side), ones,
                                 part.low, part.high))
    return tables[0], tables[1]


def read_ranges(plan: Sequence[Range], task: "PartitionTask"):
    """The ``mapInArrow`` function over ``spark.range(len(plan))``: each id's range read and evaluated by `task`."""
    def run(batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        for batch in batches:
            for i in batch.column(0).to_numpy():
                yield from task.outputs(*read_range(plan[int(i)], task.columns))
    return run
