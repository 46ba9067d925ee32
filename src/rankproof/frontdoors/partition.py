"""The partition of a log in any order by user, on disk, with a bounded number of files open.

A log whose rows are in no useful order is cut into *buckets* of whole users:
each row's user is hashed to one of at most :data:`FANOUT` buckets, and the
row appended (file order kept within a user) to the bucket's file (Arrow IPC,
uncompressed: a writer holds no buffers, unlike Parquet's column writers) in
a temporary folder. A bucket that is still larger than a part is split again
the same way, with another hash (a *level* deeper), until every bucket holds
at most a part's rows or a single user (a user is never split). So at most
``2 * FANOUT`` bucket files are open at once (the truth's and the
predictions'), whatever the log's size and the budget; a log of R rows with
parts of P rows is written ``ceil(log_FANOUT(R / P))`` times.

Bucket files are removed as soon as they are read; the folder itself is the
caller's (:func:`rankproof.frontdoors.budget.temporary_folder`).
"""

from __future__ import annotations

import math
import os
from typing import Callable, Iterator

import numpy as np

__all__ = ["FANOUT", "MAX_LEVELS", "bucket_of", "partitioned_parts"]

# Bucket files written at once per log (truth, predictions): the bound on open files.
FANOUT = 16
# Levels of splitting at most (16**6 buckets: far more than any budget asks for).
MAX_LEVELS = 6


def bucket_of(users, count: int, level: int = 0) -> np.ndarray:
    """Each row's bucket (0 .. count-1) at a level: one user, whatever its file, in one bucket.

    Integers, and text by Python's ``hash`` (the same within one process,
    which is all the partition needs), are mixed by Fibonacci hashing; each
    level takes the product's bits from higher up, so that a level spreads a
    bucket of the last anew.

    >>> import pyarrow as pa
    >>> a = bucket_of(pa.array([5, 7, 5]), 4)
    >>> bool(a[0] == a[2]) and bool(((0 <= a) & (a < 4)).all())
    True
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_integer(users.type):
        values = users.to_numpy(zero_copy_only=False).astype(np.uint64)
    else:
        encoded = pc.dictionary_encode(users)
        hashes = np.fromiter((hash(text) for text in encoded.dictionary.to_pylist()),
                             dtype=np.int64,
                             count=len(encoded.dictionary)).view(np.uint64)
        values = hashes[encoded.indices.to_numpy(zero_copy_only=False)]
    mixed = (values * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(29 + 5 * level)
    return (mixed % np.uint64(count)).astype(np.int64)


def _split(batches: Iterator, user: Callable, count: int, level: int, stem: str,
           step: Callable) -> tuple[list[str], list[int]]:
    """Write batches to `count` bucket files named ``stem-<bucket>.arrow``; their paths and rows."""
    import pyarrow as pa

    paths = [f"{stem}-{bucket}.arrow" for bucket in range(count)]
    writers: dict[int, pa.ipc.RecordBatchFileWriter] = {}
    rows = [0] * count
    try:
        for table in batches:
            if table.num_rows == 0:
                continue
            buckets = bucket_of(user(table), count, level)
            order = np.argsort(buckets, kind="stable")
            edges = np.searchsorted(buckets[order], np.arange(count + 1))
            table = table.take(order)
            for bucket in np.flatnonzero(np.diff(edges)).tolist():
                piece = table.slice(int(edges[bucket]), int(edges[bucket + 1] - edges[bucket]))
                if bucket not in writers:
                    writers[bucket] = pa.ipc.new_file(paths[bucket], piece.schema)
                writers[bucket].write_table(piece)
                rows[bucket] += piece.num_rows
            del table
            step()
    finally:
        for writer in writers.values():
            writer.close()
    return paths, rows


def _file_batches(path: str, rows: int) -> Iterator:
    """A bucket file's rows in Tables of about `rows` (its pieces joined), none when never written."""
    import pyarrow as pa

    if not os.path.exists(path):
        return
    with pa.memory_map(path) as source:
        reader = pa.ipc.open_file(source)
        pieces, held = [], 0
        for index in range(reader.num_record_batches):
            batch = reader.get_batch(index)
            pieces.append(batch)
            held += batch.num_rows
            if held >= rows:
                yield pa.Table.from_batches(pieces).combine_chunks()
                pieces, held = [], 0
        if pieces:
            yield pa.Table.from_batches(pieces).combine_chunks()


def _whole(path: str) -> list:
    """A bucket file read whole and removed ([] when it was never written)."""
    import pyarrow as pa

    if not os.path.exists(path):
        return []
    with pa.OSFile(path) as source:
        table = pa.ipc.open_file(source).read_all()
    os.remove(path)
    return [table]


def partitioned_parts(truth: Iterator, predictions: Iterator, users: tuple[Callable, Callable],
                      rows: int,
                      part_rows: int, batch_rows: int, folder: str,
                      step: Callable[[str], None]) -> Iterator[tuple[list, list]]:
    """Parts of whole users, (truth tables, prediction tables), from two logs in any order.

    Parameters
    ----------
    truth, predictions : iterator of pyarrow.Table
        The two logs' batches.
    users : (callable, callable)
        Each log's user column of a batch (a pyarrow Array).
    rows : int
        The predictions' rows (about): how many buckets the first level needs.
    part_rows, batch_rows : int
        Prediction rows of a part at most (but for a single longer user), and rows read at once.
    folder : str
        Where the bucket files go (an empty folder of the caller's).
    step : callable
        Told what is done after each batch written (the progress display).
    """
    yield from _level(truth, predictions, users, rows, part_rows, batch_rows,
                      os.path.join(folder, "b"), 0, step)


def _level(truth, predictions, users, rows: int, part_rows: int, batch_rows: int, stem: str,
           level: int,
           step) -> Iterator[tuple[list, list]]:
    count = int(min(FANOUT, max(2, math.ceil(rows / max(1, part_rows)))))
    truth_paths, _ = _split(truth, users[0], count, level, stem + "t",
                            lambda: step("partitioning truth by user"))
    prediction_paths, counts = _split(predictions, users[1], count, level, stem + "p",
                              lambda: step("partitioning predictions by user"))
    rows = sum(counts)
    for bucket, (truth_path, prediction_path,
                 found) in enumerate(zip(truth_paths, prediction_paths, counts)):
        # Split again while larger than a part, unless the split gained nothing (one user;
        # `rows` is now the rows written, not the caller's estimate).
        if found > part_rows and level + 1 < MAX_LEVELS and found < rows:
            yield from _level(_file_batches(truth_path, batch_rows),
                              _file_batches(prediction_path, batch_rows),
                              users, found, part_rows, batch_rows, f"{stem}{bucket}-", level + 1,
                              step)
            for path in (truth_path, prediction_path):
                if os.path.exists(path):
                    os.remove(path)
            continue
        yield _whole(truth_path), _whole(prediction_path)
