"""Arrow arrays as numpy and back, and interning id columns.

Numbers are read from their Arrow buffers (``to_numpy`` would import pandas),
a chunked column is copied once into one writable array, and id columns are
interned through the TREC reader's compiled hash table into vocabularies
sorted by code point. Getting the named columns out of a table (pyarrow,
pandas, polars) is :mod:`rankproof.io.named_columns`'s; its names are
re-exported here, where they were first.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..errors import ParseError, literal
# The names that moved to io.named_columns, still importable from here (re-exports).
from .named_columns import MissingColumnsError as MissingColumnsError
from .named_columns import describe as describe
from .named_columns import is_text as is_text
from .named_columns import missing_error as missing_error
from .named_columns import plain as plain
from .named_columns import select_columns as select_columns
from .shared_ids import shared_vocabulary

__all__ = [
    "first",
    "first_null",
    "owned",
    "numpy_of",
    "arrow_of",
    "intern_column",
    "intern_columns_together",
    "release_arrow_memory",
]


def first(mask) -> int:
    """Index of the first true value of a boolean Arrow array, or -1."""
    import pyarrow.compute as pc

    return pc.index(mask, True).as_py()


def first_null(column) -> int:
    """Index of the first null of an Arrow array, or -1 (Arrow keeps the count:
    a column without nulls is not scanned)."""
    import pyarrow.compute as pc

    return -1 if column.null_count == 0 else first(pc.is_null(column))


# -- interning id columns --------------------------------------------------------


def release_arrow_memory() -> None:
    """Hand the memory Arrow's pool keeps after freed tables back to the system.

    The pool (mimalloc or jemalloc) keeps freed pages for the next tables; a
    file's table is freed once its columns are interned, and the evaluation
    after it allocates with numpy, not Arrow, so those pages would only add
    to the peak (0.7 GB of 2.7 GB for a 20M-row log).
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def numpy_of(chunk) -> np.ndarray:
    """An Arrow array as numpy: a view of its buffer for numbers without nulls.

    ``Array.to_numpy()`` and ``pa.array()`` make pyarrow import pandas when it
    is installed (about 0.3 s of CPU and 40 MB for a command that never uses
    it), so numbers are read from their buffer; any other array (nulls,
    booleans, text) goes through ``to_numpy``.
    """
    import pyarrow as pa

    kind = chunk.type
    if chunk.null_count == 0 and (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        buffer = chunk.buffers()[1]
        dtype = np.dtype(kind.to_pandas_dtype())
        if buffer is None:   # no rows
            return np.zeros(0, dtype=dtype)
        return np.frombuffer(buffer, dtype=dtype)[chunk.offset:chunk.offset + len(chunk)]
    return chunk.to_numpy(zero_copy_only=False)


def arrow_of(values: np.ndarray):
    """A numpy array of numbers as an Arrow array over the same memory, without
    ``pa.array`` (which imports pandas: see :func:`numpy_of`)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(values)])


def owned(values, dtype, placement=None) -> np.ndarray:
    """Return a writable, contiguous numpy array of the given dtype.

    An Arrow chunked array is copied once, chunk by chunk, into the array:
    its ``to_numpy()`` would first join the chunks into a read-only copy,
    which would then be copied again (a 20M-row column: 160 MB twice).
    With a :class:`~rankproof.io.grouping.Placement`, each value is written
    at its grouped place instead of its row.
    """
    import pyarrow as pa

    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    chunks: "Iterable[np.ndarray]"
    if isinstance(values, pa.ChunkedArray):
        chunks = (numpy_of(chunk) for chunk in values.chunks)
    else:
        array = np.asarray(values, dtype=dtype)
        if placement is None:
            if not (array.flags.writeable and array.flags.c_contiguous):
                array = np.array(array, dtype=dtype, order="C")
            return array
        chunks = [array]
    if placement is not None:
        return placement.place(chunks, dtype)
    array = np.empty(len(values), dtype=dtype)
    at = 0
    for chunk in chunks:
        array[at:at + len(chunk)] = chunk
        at += len(chunk)
    return array


def _intern_column(column, placement=None) -> tuple[np.ndarray, np.ndarray]:
    """Intern a pyarrow large-string (or integer) column into ``(codes, sorted vocabulary)``.

    The ids go through the compiled hash table of the TREC reader (strings
    straight from Arrow's buffers, integers by their bytes), and only the
    distinct ids are sorted. Integer ids become their decimal text once per
    distinct id, so that 7 and "7" are one id and the order is strcmp's.
    With a :class:`~rankproof.io.grouping.Placement`, each row's code is
    written at its grouped place, one chunk at a time.
    """
    import os

    import pyarrow as pa

    from .._libs import interner as _interner
    from .._libs import vocabulary as _vocabulary

    if not isinstance(column, pa.ChunkedArray):
        column = pa.chunked_array([column])
    if placement is not None:
        column = placement.pieces(column)
    dense = _dense_range(column)
    if dense is not None:
        return _intern_dense(column, *dense, placement)
    codes = np.empty(len(column), dtype=np.int64)
    ids = _interner.Interner(int.from_bytes(os.urandom(8), "little"))
    integer = pa.types.is_integer(column.type)
    at = 0
    for chunk in column.chunks:
        rows = len(chunk)
        out, place = _chunk_codes(codes, placement, at, rows)
        if integer:
            _interner.intern_values(numpy_of(chunk), ids, out)
        else:
            _, offsets, data = chunk.buffers()
            starts = np.frombuffer(offsets, dtype=np.int64)[chunk.offset : chunk.offset + rows + 1]
            data = None if data is None else np.frombuffer(data, dtype=np.uint8)
            _interner.intern_spans(data, starts, ids, out)
        if place is not None:
            codes[place] = out
        at += rows
    if integer:
        # The distinct integers as decimal text, sorted by the same compiled sort as strings.
        arena, _, _ = ids.vocabulary()
        spans = _decimal_spans(np.frombuffer(arena, dtype=column.type.to_pandas_dtype()))
    else:
        spans = ids.vocabulary()
        if b"\0" in spans[0]:   # the distinct ids only: one memchr over them
            _refuse_nul(spans, codes, placement)
    order, vocabulary = _vocabulary.sorted_vocabulary(*spans)
    _vocabulary.remap(codes, order)
    if vocabulary.size == 0:
        vocabulary = np.zeros(0, dtype="<U1")
    return codes, vocabulary


# Integer ids within a range at most this many times as wide as the rows (or DENSE_FLOOR
# wide) are interned by a table over the range, not a hash table: users and items numbered from 0.
DENSE_SPREAD = 1
DENSE_FLOOR = 1 << 20


def _dense_range(column) -> "tuple[int, int] | None":
    """(lowest value, width of the range) of an int32 or int64 column without nulls whose
    values lie close together (see DENSE_SPREAD); None for any other column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.type not in (pa.int32(), pa.int64()) or column.null_count or len(column) == 0:
        return None
    bounds = pc.min_max(column)
    lowest, highest = bounds["min"].as_py(), bounds["max"].as_py()
    width = highest - lowest + 1
    return (lowest, width) if width <= max(DENSE_SPREAD * len(column), DENSE_FLOOR) else None


def _decimal_spans(values: np.ndarray) -> tuple[bytes, np.ndarray, np.ndarray]:
    """Integers as decimal text, spans of one bytes object (what ``sorted_vocabulary``
    takes): Arrow's cast writes them about 6x faster than numpy's ``astype("S")``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.cast(arrow_of(values), pa.large_string())
    _, offsets, data = text.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int64)[text.offset:text.offset + len(text) + 1]
    return (b"" if data is None else data.to_pybytes()), bounds[:-1], np.diff(bounds)


def _chunk_codes(codes: np.ndarray, placement, at: int, rows: int):
    """(where a chunk's codes are written, where they then go): the chunk's own rows of
    `codes`, or a buffer whose values go to their grouped places."""
    place = None if placement is None else placement.index(at, at + rows)
    if place is None or isinstance(place, slice):
        return codes[at:at + rows] if place is None else codes[place], None
    return np.empty(rows, dtype=np.int64), place


def _intern_dense(column, lowest: int, width: int, placement=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_intern_column` of integers in ``[lowest, lowest + width)``: the same codes and
    vocabulary (the distinct values as decimal text, sorted by code point), from a table
    over the range: which values occur (one pass), their text sorted once, each row's code
    read from the ranks (a second pass)."""
    from .._libs import vocabulary as _vocabulary

    chunks = [np.ascontiguousarray(numpy_of(chunk)) for chunk in column.chunks]
    present = np.zeros(width, dtype=np.uint8)
    for values in chunks:
        _vocabulary.mark_present(values, lowest, present)
    slots = np.flatnonzero(present)
    del present
    # The same users in the truth and every run: made once within io.shared_ids.sharing().
    rank, vocabulary = shared_vocabulary(
        lowest, slots, lambda: _dense_vocabulary(slots, lowest, width))
    codes = np.empty(len(column), dtype=np.int64)
    at = 0
    for values in chunks:
        out, place = _chunk_codes(codes, placement, at, len(values))
        _vocabulary.dense_codes(values, lowest, rank, out)
        if place is not None:
            codes[place] = out
        at += len(values)
    return codes, vocabulary


def _dense_vocabulary(slots: np.ndarray, lowest: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each value of the range among the present ones in text order, the present values
    as decimal text, sorted by code point)."""
    from .._libs import vocabulary as _vocabulary

    order, vocabulary = _vocabulary.sorted_vocabulary(*_decimal_spans(slots + lowest))
    rank = np.zeros(width, dtype=np.int32)
    rank[slots[order]] = np.arange(len(slots), dtype=np.int32)
    return rank, vocabulary


def _refuse_nul(spans, codes: np.ndarray, placement=None) -> None:
    """An id holding a NUL character: numpy's str arrays, which hold the vocabularies, drop
    trailing NULs, so ``d1\\0`` would silently be counted as ``d1``. Refused, naming the row."""
    arena, starts, lengths = spans
    for code, (start,
               length) in enumerate(zip(np.asarray(starts).tolist(), np.asarray(lengths).tolist())):
        text = arena[start:start + length]
        if b"\0" in text:
            where = np.flatnonzero(codes == code)
            row = int((where if placement is None else placement.table_rows(where)).min()) + 1
            shown = text.decode("utf-8", "replace")
            raise ParseError(row=row,
                             what=f"id {literal(repr(shown)[:60])} holds a NUL character, which no id may "
                                           "hold (it would be read as the id without it)",
                             value=shown, fix="remove the NUL characters from the ids")


def intern_column(column, placement=None) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, sorted vocabulary)`` of an id column (large strings or integers), each
    row's code at its place under `placement` (:mod:`rankproof.io.grouping`), else at its row.

    >>> import pyarrow as pa
    >>> codes, vocabulary = intern_column(pa.chunked_array([[7, 10, 7]]))
    >>> codes.tolist(), vocabulary.tolist()
    ([1, 0, 1], ['10', '7'])
    """
    return _intern_column(column, placement)


def intern_columns_together(first_column, second_column):
    """Intern two columns at once, the first in a second thread.

    The compiled hashing releases the GIL, so on two cores the query column
    costs almost nothing beside the doc column.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(_intern_column, first_column)
        interned_second = _intern_column(second_column)
        return pending.result(), interned_second
