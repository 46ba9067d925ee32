"""Getting the named columns of a table as Arrow arrays, and interning id columns.

A pyarrow Table or RecordBatch, a pandas or polars DataFrame, or any object
with an Arrow stream: only the named columns are converted (the others may
hold anything). pandas and polars are never imported here: a DataFrame is
recognised by the module its class comes from. Id columns are interned
through the TREC reader's compiled hash table into vocabularies sorted by
code point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from ..errors import InputError, ParseError, literal
from ..errors.messages import swap_hint
from .shared_ids import shared_vocabulary

__all__ = [
    "select_columns",
    "missing_error",
    "MissingColumnsError",
    "describe",
    "plain",
    "is_text",
    "first",
    "first_null",
    "owned",
    "numpy_of",
    "arrow_of",
    "intern_column",
    "intern_columns_together",
    "release_arrow_memory",
]

# The arguments that name a column whose role a front door words its own way
# (errors.Vocabulary): a log's truth names its grade column with rating=.
_WORDED = ("query", "doc", "grade")


def _role(arg: str) -> str:
    """The argument naming a column, as a template: ``{grade}`` for grade (rating= in a log)."""
    return "{" + arg + "}" if arg in _WORDED else arg


def describe(arg: str, name) -> str:
    """``column 'rel' (named by grade=)``, as a template."""
    return f"column {literal(repr(name))} (named by {_role(arg)}=)"


# Qrels and runs can be read without a header line (header=False; --no-header): their roles
# have positions (io.formats.POSITIONS).
_POSITIONAL = {"query", "doc", "grade", "score"}
_AS_IT_IS = (", or read it as it is: header=False (--no-header on the command line) takes the columns by "
             "position, query 1, doc 2, grade or score 3")


class MissingColumnsError(ParseError):
    """Named columns a table does not have. Besides the message (worded for Python's keyword
    arguments), it keeps ``present`` (the table's columns), ``missing`` (role -> the name
    looked for) and ``noun``, so that a front door with other options (the command line's
    ``--columns``) can say the same in its own words."""

    present: list
    missing: dict
    noun: str
    no_header: bool = False

    def headerless(self) -> "MissingColumnsError":
        """The same error for a first line that looks like data: the file has no header line."""
        shown = ",".join(str(name) for name in self.present)
        names = ",".join(str(name) for name in self.missing.values())
        error = MissingColumnsError(source=self.source, line=self.line,
                                    what=f"the first line ({literal(repr(shown)[:60])}) looks like data, not column "
                                         "names: the file has no header line",
                                    fix=literal(f"add a header line naming the columns, such as {names}"
                                                + (_AS_IT_IS if set(self.missing) <= _POSITIONAL
                                                   else "")))
        error.present, error.missing, error.noun, error.no_header = (self.present, self.missing,
                                                                     self.noun, True)
        return error


def missing_error(present: list, named: Mapping[str, object], missing: list[str], noun: str,
                  source: str,
                  line: int | None = None) -> "MissingColumnsError":
    """Say which named columns are absent, which ones exist, and which argument to fix."""
    absent = " and ".join(f"no {noun} {literal(repr(named[arg]))} (named by {_role(arg)}=)"
                          for arg in missing)
    listing = ", ".join(repr(name) for name in present) if present else "none"
    arguments = ", ".join(f"{_role(arg)}=" for arg in missing)
    # Judgments and rankings swapped: naming the column would read scores as grades
    # (errors.messages).
    swapped = swap_hint(present, missing)
    error = MissingColumnsError(source=source, line=line, what=absent,
                                fix=swapped
                                or f"the {noun}s are {literal(listing)}; pass the right {noun} names "
                                               f"with {arguments}")
    error.present, error.missing, error.noun = (list(present), {arg: named[arg] for arg in missing},
                                                noun)
    return error


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


# -- getting an Arrow table ---------------------------------------------------


def _kind(data) -> str:
    """Tell what library a table comes from, without importing that library."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return "arrow"
    if isinstance(data, pa.RecordBatch):
        return "batch"
    library = type(data).__module__.split(".")[0]
    if library in ("pandas", "polars"):
        return library
    if hasattr(data, "__arrow_c_stream__"):
        return "stream"
    return "unknown"


def _column_names(data, kind: str, source: str) -> list:
    if kind in ("arrow", "batch"):
        return list(data.schema.names)
    if kind == "pandas":
        if not hasattr(data, "columns"):
            raise InputError(source=source,
                             what=f"cannot read a pandas {type(data).__name__} as a table",
                             fix="pass a DataFrame (e.g. series.to_frame() or series.reset_index())")
        return list(data.columns)
    if kind == "polars":
        if not hasattr(data, "to_arrow"):
            raise InputError(source=source,
                             what=f"cannot read a polars {type(data).__name__} as a table",
                             fix="pass a polars DataFrame (call .collect() on a LazyFrame first)")
        return list(data.columns)
    raise RuntimeError(f"no column names for a {kind} table")  # pragma: no cover


def _pandas_to_arrow(frame, wanted: list, source: str):
    import pyarrow as pa

    subset = frame[wanted]
    try:
        return pa.Table.from_pandas(subset, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        # Find which column failed, so the message can name it; a loop over
        # columns, not rows.
        for name in wanted:
            try:
                pa.Array.from_pandas(frame[name])
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as inner:
                reason = str(inner.args[0]) if inner.args else type(inner).__name__
                shown = literal(repr(name))
                raise ParseError(source=source,
                                 what=f"column {shown} cannot be converted to Arrow ({literal(reason)})",
                                 fix=f"give it one type: ids all strings or all integers (e.g. df[{shown}] = "
                                     f"df[{shown}].astype(str)), grades integers, scores numbers") from None
        raise ParseError(source=source,
                         what=f"cannot convert the DataFrame to Arrow ({literal(exc)})",
                         fix="give the named columns plain string, integer or float types") from None


def select_columns(data, named: Mapping[str, object], source: str) -> tuple[dict, str]:
    """Return ``{argument: pyarrow.ChunkedArray}`` for the named columns of `data`.

    Also returns how the source spells a missing value, for messages.
    """
    import pyarrow as pa

    kind = _kind(data)
    if kind == "unknown":
        raise InputError(source=source,
                         what=f"cannot read a {type(data).__module__}.{type(data).__qualname__} as a table",
                         fix="pass a pyarrow Table, a pandas DataFrame or a polars DataFrame")
    if kind == "stream":
        data, kind = pa.table(data), "arrow"
    if kind == "batch":
        data, kind = pa.Table.from_batches([data]), "arrow"

    present = _column_names(data, kind, source)
    missing = [arg for arg, name in named.items() if name not in present]
    if missing:
        raise missing_error(present, named, missing, "column", source)

    # Convert only the named columns: the others may hold anything, and
    # converting them would cost time for nothing.
    wanted = list(dict.fromkeys(named.values()))
    if kind == "pandas":
        table = _pandas_to_arrow(data, wanted, source)
    elif kind == "polars":
        table = data.select(wanted).to_arrow()
    else:
        table = data

    columns = {}
    for arg, name in named.items():
        # pandas labels become strings in Arrow; look them up that way.
        found = table.schema.get_all_field_indices(str(name))
        if len(found) > 1:
            raise ParseError(source=source,
                             what=f"{len(found)} columns are named {literal(repr(name))} "
                                                 f"({_role(arg)}=)", fix="rename all but one")
        columns[arg] = table.column(found[0])
    return columns, ("null or NaN" if kind == "pandas" else "null")


def plain(column):
    """Decode dictionary columns (pandas and polars categoricals).

    A column of Arrow's null type becomes text: it is either empty (a table
    built from empty lists), which is then fine, or all null, which the null
    checks refuse.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        return pc.cast(column, column.type.value_type)
    if pa.types.is_null(column.type):
        return pc.cast(column, pa.large_string())
    return column


def is_text(kind) -> bool:
    import pyarrow as pa

    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_string_view(kind)
    )

