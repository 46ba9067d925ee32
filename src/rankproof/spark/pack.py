"""The first Spark stage: rows of either table packed into Arrow IPC blobs, one per bucket.

Spark's cost is per row: converting a row between the JVM and Arrow,
hashing it, serialising it for the shuffle. So rankproof's Python does the
per-row work itself (reading, hashing the query id, splitting by bucket) and
Spark moves only a few large binary rows, each holding every row of one
table for one bucket of queries as an Arrow IPC stream. A query's rows of
both tables land in one bucket, and bucket ``b`` is sent to partition ``b``
(:func:`bucket_values`), where :mod:`rankproof.spark.partition` evaluates
them.

Every row carries its place in its table's input order (:data:`ROW`): for
Parquet files read here, its 0-based row in the files taken in name order;
for a Spark DataFrame, Spark's ``monotonically_increasing_id`` of that row.
Nothing here imports pyspark at module level: the functions run in Spark's
Python workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["ROW", "BUCKET", "SIDE", "BLOB", "PACKED_SCHEMA", "QRELS_SIDE", "RUN_SIDE",
           "bucket_values",
           "buckets_of", "Packer", "RowGroup", "read_row_groups", "pack_frame", "to_blob",
           "from_blob"]

ROW, BUCKET, SIDE, BLOB = ("_rankproof_row", "_rankproof_bucket", "_rankproof_side",
                           "_rankproof_blob")
QRELS_SIDE, RUN_SIDE = 0, 1
PACKED_SCHEMA = f"{BUCKET} int, {SIDE} byte, {BLOB} binary"
# Rows gathered from Spark's Arrow batches (10,000 rows each) before they are split by bucket.
GATHER_ROWS = 1 << 20
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_PRIME = np.uint64(0x100000001B3)


def _murmur3_int(value: int, seed: int = 42) -> int:
    """Spark's ``Murmur3_x86_32.hashInt`` (the hash of ``repartition(n, column)``), as a signed int."""
    mask = 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & mask

    k1 = rotl((value & mask) * 0xCC9E2D51 & mask, 15) * 0x1B873593 & mask
    h1 = (rotl(seed ^ k1, 13) * 5 + 0xE6546B64) & mask
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & mask
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & mask
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def bucket_values(partitions: int) -> list[int]:
    """For each partition p, an int that ``repartition(partitions, column)`` sends to p.

    Spark places a row by ``pmod(murmur3(value), partitions)``; the smallest
    value landing on each partition is found once, so that bucket ``b`` has a
    partition of its own (were Spark's hash to change, buckets would only
    share partitions: the numbers stay the same).

    >>> bucket_values(1)
    [0]
    >>> len(set(bucket_values(64)))
    64
    """
    found: dict[int, int] = {}
    value = 0
    while len(found) < partitions:
        found.setdefault(_murmur3_int(value) % partitions, value)
        value += 1
    return [found[p] for p in range(partitions)]


def _text_hashes(column: "pa.Array") -> np.ndarray:
    """A hash of each string (polynomial over its UTF-8 bytes), the same in every process."""
    import pyarrow as pa

    text = column.cast(pa.large_string())
    offsets = np.frombuffer(text.buffers()[1],
                            dtype=np.int64)[text.offset:text.offset + len(text) + 1]
    data = text.buffers()[2]
    hashes = np.zeros(len(text), dtype=np.uint64)
    if data is None or offsets[-1] == offsets[0]:
        return hashes
    raw = np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]].astype(np.uint64)
    lengths = np.diff(offsets)
    starts = offsets[:-1] - offsets[0]
    place = np.arange(len(raw), dtype=np.int64) - np.repeat(starts, lengths)
    powers = np.cumprod(np.full(int(lengths.max()), _PRIME, dtype=np.uint64))
    nonempty = lengths > 0
    hashes[nonempty] = np.add.reduceat(raw * powers[place], starts[nonempty])
    return hashes


def buckets_of(keys: "pa.Array | pa.ChunkedArray", count: int, as_text: bool) -> np.ndarray:
    """The bucket (0 .. count - 1) of each query id: integers by their value, anything
    else (or every id when `as_text`: the two tables' id types differ) by its text."""
    import pyarrow as pa

    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks() if keys.num_chunks != 1 else keys.chunk(0)
    if count == 1 or not len(keys):
        return np.zeros(len(keys), dtype=np.int64)
    if pa.types.is_integer(keys.type) and not as_text:
        hashes = keys.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False).view(np.uint64)
    else:
        try:
            hashes = _text_hashes(keys.cast(pa.string()))
        # not an id: the reader refuses it later
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return np.zeros(len(keys), dtype=np.int64)
    return ((hashes * _GOLDEN) >> np.uint64(33)).astype(np.int64) % count


def to_blob(table: "pa.Table") -> "pa.Buffer":
    """A table as one Arrow IPC stream."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def from_blob(blob: "pa.Buffer | bytes") -> "pa.Table":
    import pyarrow as pa

    return pa.ipc.open_stream(blob).read_all()


def _binary(blobs: Sequence["pa.Buffer"]) -> "pa.Array":
    """A binary array of `blobs` (one copy into a contiguous buffer)."""
    import pyarrow as pa

    return pa.array([blob.to_pybytes() for blob in blobs], type=pa.binary())


@dataclass(frozen=True)
class Packer:
    """Splits one table's rows by bucket into blobs (see the module's docstring).

    side : QRELS_SIDE or RUN_SIDE; key : the query column; columns : the
    columns kept (the caller's names); buckets : the bucket values
    (:func:`bucket_values`); as_text : hash ids by their text; ones : a
    column of grade 1 to add (the truth of a recommender, ``grade=None``).
    """

    side: int
    key: str
    columns: tuple[str, ...]
    buckets: tuple[int, ...]
    as_text: bool
    ones: str | None = None

    def pack(self, table: "pa.Table") -> Iterator["pa.RecordBatch"]:
        """One record batch of (bucket, side, blob) per bucket that has rows."""
        import pyarrow as pa

        if not table.num_rows:
            return
        if self.ones is not None:
            table = table.append_column(self.ones,
                                        pa.array(np.ones(table.num_rows, dtype=np.int64)))
        bucket = buckets_of(table.column(self.key), len(self.buckets), self.as_text)
        order = np.argsort(bucket, kind="stable")
        counts = np.bincount(bucket, minlength=len(self.buckets))
        ordered = table.take(pa.array(order)) if len(counts[counts > 0]) > 1 else table
        start = 0
        for b in np.flatnonzero(counts):
            part = ordered.slice(start, int(counts[b]))
            start += int(counts[b])
            yield pa.record_batch([pa.array([self.buckets[b]], type=pa.int32()),
                                   pa.array([self.side], type=pa.int8()),
                                   _binary([to_blob(part)])], names=[BUCKET, SIDE, BLOB])


@dataclass(frozen=True)
class RowGroup:
    """One row group of a Parquet file, and the place of its first row in its table."""

    path: str
    index: int
    first_row: int
    packer: Packer


def read_row_groups(groups: Sequence[RowGroup]):
    """The ``mapInArrow`` function of Parquet files read here: `groups` indexed by the
    ids of a ``spark.range``; each row group read with pyarrow and packed."""
    def read(batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        for batch in batches:
            for i in batch.column(0).to_numpy():
                group = groups[int(i)]
                packer = group.packer
                wanted = [c for c in packer.columns if c != packer.ones]
                table = pq.ParquetFile(group.path).read_row_group(group.index, columns=wanted)
                rows = np.arange(group.first_row, group.first_row + table.num_rows, dtype=np.int64)
                yield from packer.pack(table.append_column(ROW, pa.array(rows)))
    return read


def pack_frame(packer: Packer):
    """The ``mapInArrow`` function of a Spark DataFrame's rows (with their place, Spark's
    ``monotonically_increasing_id``, in :data:`ROW`): gathered into tables of about
    :data:`GATHER_ROWS` rows, then packed."""
    def pack(batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        import pyarrow as pa

        gathered: list["pa.RecordBatch"] = []
        size = 0
        for batch in batches:
            if batch.num_rows:
                gathered.append(batch)
                size += batch.num_rows
            if size >= GATHER_ROWS:
                yield from packer.pack(pa.Table.from_batches(gathered))
                gathered.clear()
                size = 0
        if gathered:
            yield from packer.pack(pa.Table.from_batches(gathered))
    return pack
