"""Turning tables (pyarrow, pandas, polars) into interned qrels and run columns.

A table in memory, or one read from a CSV, TSV, JSON Lines or Parquet file by
:mod:`rankproof.io.formats`, becomes the same :class:`~rankproof.io.trec.QrelsColumns`
or :class:`~rankproof.io.trec.RunColumns` the TREC reader returns, under the
same contract: ids interned through the TREC reader's compiled hash table
into vocabularies sorted by code point, int64 codes, int64 grades, finite float64
scores, rows in table order.

The caller names the columns. Ids may be strings or integers; integers are
turned into their decimal text, so ``7`` and ``"7"`` are one id. Grades must
be integers: integral floats (``2.0``) are accepted because pandas turns an
integer column with a missing value into floats, but ``1.5`` is refused.
Scores must be finite numbers. Nulls and empty ids are refused. Numbers held
as text (as in a CSV file) are read with the TREC reader's rules, so a value
means the same thing in every format.

Every check is vectorised; only once a check fails does Python look at single
values, to name the first bad row.

pandas and polars are never imported here: a DataFrame is recognised by the
module its class comes from.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .lines import no_lines
from ..errors import REAL_GRADES_HINT, InputError, ParseError, where
from .limits import MAX_ID_LENGTH
from .trec import (
    _FLOAT,
    _INTEGER,
    QrelsColumns,
    RunColumns,
    _score_problem,
    _shorten,
)

__all__ = [
    "qrels_columns_from_table",
    "run_columns_from_table",
]

# The TREC reader's number syntax, anchored for pyarrow's RE2 matcher, so that
# "0x10", "1_000" or "2,5" are refused here exactly as in a TREC file.
_INTEGER_TEXT = f"^(?:{_INTEGER.pattern})$"
_FLOAT_TEXT = f"^(?:{_FLOAT.pattern})$"
_INT64_LIMIT = 2.0**63


class _Rows:
    """Names a row in messages: by its file line when known, else by its 1-based row."""

    def __init__(self, source: str, lines: np.ndarray | None, missing: str = "null"):
        self.source = source
        self.lines = lines
        # How a missing value looks to the user: pandas spells it NaN, and
        # pyarrow turns that NaN into a null.
        self.missing = missing
        # The ids as text, once known, so that value errors can name them.
        self.query = None
        self.doc = None

    def at(self, row: int) -> str:
        query = _shown_id(self.query, row)
        doc = _shown_id(self.doc, row)
        if self.lines is not None and self.lines[row] >= 0:
            return where(source=self.source, line=int(self.lines[row]), query=query, doc=doc)
        return where(source=f"{self.source} row {row + 1}", query=query, doc=doc)

    def column(self) -> str:
        return where(source=self.source)


def _shown_id(column, row: int) -> str | None:
    if column is None:
        return None
    value = column[row].as_py()
    return None if value is None else _shorten(str(value))


def _first(mask) -> int:
    """Index of the first true value of a boolean Arrow array, or -1."""
    import pyarrow.compute as pc

    return pc.index(mask, True).as_py()


def _first_null(column) -> int:
    """Index of the first null of an Arrow array, or -1 (Arrow keeps the count:
    a column without nulls is not scanned)."""
    import pyarrow.compute as pc

    return -1 if column.null_count == 0 else _first(pc.is_null(column))


def _describe(arg: str, name) -> str:
    return f"column {name!r} (named by {arg}=)"


# -- interning id columns --------------------------------------------------------


def _owned(values, dtype) -> np.ndarray:
    """Return a writable, contiguous numpy array of the given dtype."""
    array = np.asarray(values, dtype=dtype)
    if not (array.flags.writeable and array.flags.c_contiguous):
        array = np.array(array, dtype=dtype, order="C")
    return array


def _intern_column(column) -> tuple[np.ndarray, np.ndarray]:
    """Intern a pyarrow large-string (or integer) column into ``(codes, sorted vocabulary)``.

    The ids go through the compiled hash table of the TREC reader (strings
    straight from Arrow's buffers, integers by their bytes), and only the
    distinct ids are sorted. Integer ids become their decimal text once per
    distinct id, so that 7 and "7" are one id and the order is strcmp's.
    """
    import os

    import pyarrow as pa

    from .._libs import trec_scan as _trec_scan

    if not isinstance(column, pa.ChunkedArray):
        column = pa.chunked_array([column])
    codes = np.empty(len(column), dtype=np.int64)
    ids = _trec_scan.Interner(int.from_bytes(os.urandom(8), "little"))
    integer = pa.types.is_integer(column.type)
    at = 0
    for chunk in column.chunks:
        rows = len(chunk)
        if integer:
            _trec_scan.intern_values(chunk.to_numpy(), ids, codes[at : at + rows])
        else:
            _, offsets, data = chunk.buffers()
            starts = np.frombuffer(offsets, dtype=np.int64)[chunk.offset : chunk.offset + rows + 1]
            data = None if data is None else np.frombuffer(data, dtype=np.uint8)
            _trec_scan.intern_spans(data, starts, ids, codes[at : at + rows])
        at += rows
    if integer:
        # The distinct integers as decimal text (NUL-padded to one width),
        # sorted by the same compiled sort as strings.
        arena, _, _ = ids.vocabulary()
        text = np.frombuffer(arena, dtype=column.type.to_pandas_dtype()).astype("S")
        width = text.dtype.itemsize
        starts = np.arange(text.size, dtype=np.int64) * width
        spans = (text.tobytes(), starts, np.char.str_len(text).astype(np.int64))
    else:
        spans = ids.vocabulary()
    order, vocabulary = _trec_scan.sorted_vocabulary(*spans)
    _trec_scan.remap(codes, order)
    if vocabulary.size == 0:
        vocabulary = np.zeros(0, dtype="<U1")
    return codes, vocabulary


def _intern_columns_together(first, second):
    """Intern two columns at once, the first in a second thread.

    The compiled hashing releases the GIL, so on two cores the query column
    costs almost nothing beside the doc column.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(_intern_column, first)
        interned_second = _intern_column(second)
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
            raise InputError(
                f"{source}: cannot read a pandas {type(data).__name__} as a table; "
                "pass a DataFrame (e.g. series.to_frame() or series.reset_index())"
            )
        return list(data.columns)
    if kind == "polars":
        if not hasattr(data, "to_arrow"):
            raise InputError(
                f"{source}: cannot read a polars {type(data).__name__} as a table; "
                "pass a polars DataFrame (call .collect() on a LazyFrame first)"
            )
        return list(data.columns)
    raise RuntimeError(f"no column names for a {kind} table")  # pragma: no cover


def _missing_error(
    present: list, named: Mapping[str, object], missing: list[str], prefix: str, noun: str
) -> ParseError:
    """Say which named columns are absent, which ones exist, and which argument to fix."""
    absent = " and ".join(f"no {noun} {named[arg]!r} (named by {arg}=)" for arg in missing)
    listing = ", ".join(repr(name) for name in present) if present else "none"
    arguments = ", ".join(f"{arg}=" for arg in missing)
    return ParseError(
        f"{prefix}{absent}; the {noun}s are {listing}; "
        f"pass the right {noun} names with {arguments}"
    )


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
                raise ParseError(
                    f"{source}: column {name!r} cannot be converted to Arrow "
                    f"({reason}); give it one type: ids all strings or all "
                    f"integers (e.g. df[{name!r}] = df[{name!r}].astype(str)), grades "
                    "integers, scores numbers"
                ) from None
        raise ParseError(
            f"{source}: cannot convert the DataFrame to Arrow ({exc}); give the "
            "named columns plain string, integer or float types"
        ) from None


def _select(data, named: Mapping[str, object], source: str) -> tuple[dict, str]:
    """Return ``{argument: pyarrow.ChunkedArray}`` for the named columns of `data`.

    Also returns how the source spells a missing value, for messages.
    """
    import pyarrow as pa

    kind = _kind(data)
    if kind == "unknown":
        raise InputError(
            f"{source}: cannot read a {type(data).__module__}.{type(data).__qualname__} "
            "as a table; pass a pyarrow Table, a pandas DataFrame or a polars DataFrame"
        )
    if kind == "stream":
        data, kind = pa.table(data), "arrow"
    if kind == "batch":
        data, kind = pa.Table.from_batches([data]), "arrow"

    present = _column_names(data, kind, source)
    missing = [arg for arg, name in named.items() if name not in present]
    if missing:
        raise _missing_error(present, named, missing, where(source=source), "column")

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
            raise ParseError(
                f"{source}: {len(found)} columns are named {name!r} ({arg}=); "
                "rename all but one"
            )
        columns[arg] = table.column(found[0])
    return columns, ("null or NaN" if kind == "pandas" else "null")


# -- column checks ------------------------------------------------------------


def _plain(column):
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


def _is_text(kind) -> bool:
    import pyarrow as pa

    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_string_view(kind)
    )


def _null_error(rows: _Rows, row: int, what: str, fix: str) -> ParseError:
    return ParseError(f"{rows.at(row)}no {what} (the value is {rows.missing}); {fix}")


def _id_columns(columns: dict, named: Mapping[str, object], rows: _Rows):
    """Check the query and doc columns; return them as large strings or integers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    plain = {arg: _plain(columns[arg]) for arg in ("query", "doc")}
    # Missing ids first, whatever the column type: a pandas integer column
    # with a gap arrives as floats, and the gap is what the user must fix.
    bad = []
    for arg in ("query", "doc"):
        row = _first_null(plain[arg])
        if row >= 0:
            bad.append((row, arg))
    if bad:
        row, arg = min(bad)
        # The other id of the row, when present, helps find it.
        rows.query, rows.doc = plain["query"], plain["doc"]
        raise _null_error(rows, row, f"{arg} id", f"give every row a {arg} id")

    text = {}
    for arg in ("query", "doc"):
        column = plain[arg]
        kind = column.type
        if _is_text(kind):
            text[arg] = pc.cast(column, pa.large_string())
        elif pa.types.is_integer(kind):
            # Kept as integers: interning hashes them and turns only the
            # distinct ids into text, far cheaper than text for every row.
            text[arg] = column
        else:
            raise ParseError(
                f"{rows.column()}{_describe(arg, named[arg])} holds {kind} values; "
                f"ids must be strings or integers, so convert the column to one of those"
            )

    # An empty id cannot be written in a TREC file and is almost always a
    # missing value that a CSV writer turned into "".
    bad = []
    for arg in ("query", "doc"):
        if not _is_text(text[arg].type):
            continue
        row = _first(pc.equal(pc.binary_length(text[arg]), 0))
        if row >= 0:
            bad.append((row, arg))
    if bad:
        row, arg = min(bad)
        rows.query, rows.doc = text["query"], text["doc"]
        raise ParseError(f"{rows.at(row)}the {arg} id is empty; give every row a {arg} id")

    # An id of a megabyte would make every id as wide once interned.
    longest = MAX_ID_LENGTH.value()
    bad = []
    for arg in ("query", "doc"):
        if not _is_text(text[arg].type):
            continue
        row = _first(pc.greater(pc.binary_length(text[arg]), longest))
        if row >= 0:
            bad.append((row, arg))
    if bad:
        row, arg = min(bad)
        rows.query, rows.doc = text["query"], text["doc"]
        size = len(text[arg][row].as_py().encode("utf-8"))
        raise ParseError(rows.at(row) + MAX_ID_LENGTH.refusal(f"the {arg} id of {size} bytes"))

    rows.query, rows.doc = text["query"], text["doc"]
    return text["query"], text["doc"]


def _grade_number_problem(shown: str, number: float) -> str | None:
    """Say what is wrong with a grade given as a float, or None if it is integral."""
    if np.isnan(number):
        return f"grade {shown} is NaN; give every judgment an integer grade such as 0, 1, 2"
    if np.isinf(number):
        return f"grade {shown} is infinite; give every judgment an integer grade such as 0, 1, 2"
    if number != np.round(number):
        return (
            f"grade {shown} is not an integer; grades must be integers "
            f"(map fractional labels to integer grades first, {REAL_GRADES_HINT})"
        )
    if not -_INT64_LIMIT <= number < _INT64_LIMIT:
        return f"grade {shown} does not fit in a 64-bit integer; use small integer grades such as 0, 1, 2"
    return None


def _grade_text_problem(text: str) -> str | None:
    """Say what is wrong with a grade written as text, or None if it is an integer."""
    stripped = text.strip()
    if not stripped:
        return "no grade (the value is empty); give every judgment an integer grade such as 0, 1, 2"
    if _INTEGER.fullmatch(stripped):
        if -(2**63) <= int(stripped) < 2**63:
            return None
        return (
            f"grade {_shorten(text)!r} does not fit in a 64-bit integer; "
            "use small integer grades such as 0, 1, 2"
        )
    if _FLOAT.fullmatch(stripped):
        return _grade_number_problem(repr(_shorten(text)), float(stripped))
    return (
        f"grade {_shorten(text)!r} is not an integer; "
        "give every judgment an integer grade such as 0, 1, 2"
    )


def _first_problem(values: list, problem, rows: _Rows) -> ParseError:
    """Error path: walk the values in Python and build the error for the first bad one."""
    for row, value in enumerate(values):
        message = problem(value)
        if message is not None:
            return ParseError(rows.at(row) + message)
    raise RuntimeError("a column failed a vectorised check but no value is bad")  # pragma: no cover


def _refused(rows: _Rows, row: int, message: str | None) -> ParseError:
    """The error for a row that a vectorised check found bad (so its message is never None)."""
    if message is None:  # pragma: no cover - the check and the message disagree
        raise RuntimeError(f"row {row} failed a vectorised check but its value is not bad")
    return ParseError(rows.at(row) + message)


def _float_grades(values: np.ndarray, rows: _Rows, shown) -> np.ndarray:
    """int64 grades from float64 values, refusing NaN, inf, fractions and overflow."""
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) >= _INT64_LIMIT)
    if bad.any():
        row = int(np.argmax(bad))
        raise _refused(rows, row, _grade_number_problem(shown(row), float(values[row])))
    return values.astype(np.int64)


def _text_grades(column, rows: _Rows) -> np.ndarray:
    """int64 grades from text, with the TREC reader's integer syntax (plus integral floats)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    trimmed = pc.utf8_trim_whitespace(column)
    numeric = pc.match_substring_regex(trimmed, pattern=_FLOAT_TEXT, ignore_case=True)
    if _first(pc.invert(numeric)) >= 0:
        raise _first_problem(column.to_pylist(), _grade_text_problem, rows)
    integer = pc.match_substring_regex(trimmed, pattern=_INTEGER_TEXT)
    # int64 does not take a leading '+'; the TREC reader drops it the same way.
    digits = pc.if_else(integer, pc.utf8_ltrim(trimmed, characters="+"), "0")
    try:
        exact = _owned(pc.cast(digits, pa.int64()).to_numpy(), np.int64)
    except pa.ArrowInvalid:  # an integer beyond int64
        raise _first_problem(column.to_pylist(), _grade_text_problem, rows) from None
    if pc.all(integer).as_py():
        return exact
    # Integral floats such as "2.0" (what pandas writes for an integer column
    # with a gap) are grades too; exact integers keep their exact value.
    floats = _owned(pc.cast(trimmed, pa.float64()).to_numpy(), np.float64)
    is_integer = _owned(integer.to_numpy(zero_copy_only=False), bool)
    floats[is_integer] = 0.0
    converted = _float_grades(floats, rows, lambda row: repr(_shorten(column[row].as_py())))
    return np.where(is_integer, exact, converted)


def _real_grade_text_problem(text: str) -> str | None:
    """Say what is wrong with a real-valued grade written as text, or None if it is a finite number."""
    stripped = text.strip()
    if not stripped:
        return "no grade (the value is empty); give every judgment a grade such as 0, 1.5, 3"
    if _FLOAT.fullmatch(stripped) and np.isfinite(float(stripped)):
        return None
    return f"grade {_shorten(text)!r} is not a finite number; give every judgment a grade such as 0, 1.5, 3"


def _real_grades(column, name, rows: _Rows) -> np.ndarray:
    """float64 grades from a column of numbers or numeric text (grades=real);
    NaN and infinities refused."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = _owned(pc.cast(column, pa.float64(), safe=False).to_numpy(), np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            raise ParseError(f"{rows.at(row)}grade {column[row].as_py()!r} is not a finite number; "
                             "give every judgment a grade such as 0, 1.5, 3")
        return values
    if _is_text(kind):
        text = pc.cast(column, pa.large_string())
        trimmed = pc.utf8_trim_whitespace(text)
        numeric = pc.match_substring_regex(trimmed, pattern=_FLOAT_TEXT, ignore_case=True)
        if _first(pc.invert(numeric)) >= 0:
            raise _first_problem(text.to_pylist(), _real_grade_text_problem, rows)
        values = _owned(pc.cast(trimmed, pa.float64()).to_numpy(), np.float64)
        if not np.isfinite(values).all():
            raise _first_problem(text.to_pylist(), _real_grade_text_problem, rows)
        return values
    what = "booleans" if pa.types.is_boolean(kind) else f"{kind} values"
    raise ParseError(f"{rows.column()}{_describe('grade', name)} holds {what}; grades must be numbers "
                     "such as 0, 1.5, 3, so convert the column")


def _grades(column, name, rows: _Rows, real: bool = False) -> np.ndarray:
    """Check a grade column of any type and return int64 grades (float64 when `real`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = _plain(column)
    row = _first_null(column)
    if row >= 0:
        raise _null_error(rows, row, "grade", "give every judgment an integer grade such as 0, 1, 2")
    if real:
        return _real_grades(column, name, rows)
    kind = column.type
    if pa.types.is_integer(kind):
        try:
            return _owned(pc.cast(column, pa.int64()).to_numpy(), np.int64)
        except pa.ArrowInvalid:  # uint64 beyond int64
            values = column.to_numpy()
            row = int(np.argmax(values > np.iinfo(np.int64).max))
            raise ParseError(
                f"{rows.at(row)}grade {int(values[row])} does not fit in a 64-bit integer; "
                "use small integer grades such as 0, 1, 2"
            ) from None
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = _owned(pc.cast(column, pa.float64(), safe=False).to_numpy(), np.float64)
        return _float_grades(values, rows, lambda row: repr(column[row].as_py()))
    if _is_text(kind):
        return _text_grades(pc.cast(column, pa.large_string()), rows)
    if pa.types.is_boolean(kind):
        raise ParseError(
            f"{rows.column()}{_describe('grade', name)} holds booleans; grades must be "
            "integers such as 0, 1, 2, so convert it (e.g. True -> 1, False -> 0)"
        )
    raise ParseError(
        f"{rows.column()}{_describe('grade', name)} holds {kind} values; grades must be "
        "integers such as 0, 1, 2, so convert the column to integers"
    )


def _finite(values: np.ndarray, rows: _Rows, shown) -> np.ndarray:
    finite = np.isfinite(values)
    if not finite.all():
        row = int(np.argmin(finite))
        raise _refused(rows, row, _score_problem(shown(row)))
    return values


def _scores(column, name, rows: _Rows) -> np.ndarray:
    """Check a score column of any type and return finite float64 scores."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = _plain(column)
    row = _first_null(column)
    if row >= 0:
        raise _null_error(
            rows, row, "score",
            "give every document a finite score, or pass score=None if the rows "
            "are already in rank order",
        )
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        # safe=False: a large integer score may round, which a score can afford.
        values = _owned(pc.cast(column, pa.float64(), safe=False).to_numpy(), np.float64)
        return _finite(values, rows, lambda row: repr(float(values[row])))
    if _is_text(kind):
        text = pc.cast(column, pa.large_string())
        trimmed = pc.utf8_trim_whitespace(text)
        numeric = pc.match_substring_regex(trimmed, pattern=_FLOAT_TEXT, ignore_case=True)
        row = _first(pc.invert(numeric))
        if row >= 0:
            value = text[row].as_py()
            message = (
                "no score (the value is empty); give every document a finite score"
                if not value.strip()
                else _score_problem(_shorten(value))
            )
            raise _refused(rows, row, message)
        values = _owned(pc.cast(trimmed, pa.float64()).to_numpy(), np.float64)
        return _finite(values, rows, lambda row: _shorten(text[row].as_py().strip()))
    if pa.types.is_boolean(kind):
        raise ParseError(
            f"{rows.column()}{_describe('score', name)} holds booleans; scores must be "
            "numbers such as 11.17, so convert it to floats"
        )
    raise ParseError(
        f"{rows.column()}{_describe('score', name)} holds {kind} values; scores must be "
        "numbers such as 11.17, so convert the column to floats"
    )


def _checked_lines(lines, size: int, source: str) -> np.ndarray | None:
    if lines is None:
        return None
    lines = np.asarray(lines, dtype=np.int64)
    if lines.shape != (size,):
        raise InputError(
            f"{source}: lines= has {lines.size} entries for {size} rows; give one line per row"
        )
    return lines


def _positions(query_codes: np.ndarray, num_queries: int) -> np.ndarray:
    """0-based position of each row among the rows of its query, in table order."""
    order = np.argsort(query_codes, kind="stable")
    counts = np.bincount(query_codes, minlength=num_queries)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    position = np.empty(query_codes.size, dtype=np.int64)
    position[order] = np.arange(query_codes.size, dtype=np.int64) - starts
    return position


def _interned_ids(table, named: dict, source: str, lines):
    """The named columns, the row locator, and the query and doc ids checked and interned.

    The two id columns are interned together, as the TREC reader does.
    """
    columns, missing = _select(table, named, source)
    rows = _Rows(source, _checked_lines(lines, len(columns["query"]), source), missing)
    query_text, doc_text = _id_columns(columns, named, rows)
    return (columns, rows, *_intern_columns_together(query_text, doc_text))


# -- public -------------------------------------------------------------------


def qrels_columns_from_table(
    table,
    *,
    query="query",
    doc="doc",
    grade="grade",
    source: str = "table",
    lines=None,
    real: bool = False,
) -> QrelsColumns:
    """Turn a table of judgments into interned qrels columns.

    Parameters
    ----------
    table : pyarrow.Table, pyarrow.RecordBatch, pandas.DataFrame or polars.DataFrame
        One row per judgment. Other columns are ignored (and not converted).
    query, doc, grade : str, optional
        Names of the query id, document id and grade columns.
    source : str, optional
        Names the table in messages.
    lines : array-like of int, optional
        The file line of each row, when the table was read from a text file;
        messages then say ``source line N``. Without it they say
        ``source row N`` (1-based, header not counted) and the returned
        ``line`` column is all ``-1``.
    real : bool, optional
        Keep real-valued grades as float64 (the protocol's ``grades=real``).

    Returns
    -------
    QrelsColumns
        One entry per row, in table order.

    Raises
    ------
    rankproof.errors.ParseError
        If a named column is missing (the message lists the columns there
        are), an id is null or empty or neither text nor an integer, or a
        grade is null or not an integer. The message names the row.
    rankproof.errors.InputError
        If `table` is not a table.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"qid": [1, 1], "docno": ["d2", "d1"], "rel": [2.0, 0.0]})
    >>> columns = qrels_columns_from_table(table, query="qid", doc="docno", grade="rel")
    >>> columns.query_vocab.tolist(), columns.doc_vocab[columns.doc_codes].tolist()
    (['1'], ['d2', 'd1'])
    >>> columns.grade.tolist()
    [2, 0]
    """
    named = {"query": query, "doc": doc, "grade": grade}
    columns, rows, (query_codes, query_vocab), (doc_codes, doc_vocab) = _interned_ids(
        table, named, source, lines)
    size = len(query_codes)
    grades = _grades(columns["grade"], grade, rows, real)
    return QrelsColumns(
        query_codes=query_codes,
        query_vocab=query_vocab,
        doc_codes=doc_codes,
        doc_vocab=doc_vocab,
        grade=grades,
        line=rows.lines if rows.lines is not None else no_lines(size),
        source=source,
    )


def run_columns_from_table(
    table,
    *,
    query="query",
    doc="doc",
    score="score",
    source: str = "table",
    lines=None,
) -> RunColumns:
    """Turn a table of ranked documents into interned run columns.

    Parameters
    ----------
    table : pyarrow.Table, pyarrow.RecordBatch, pandas.DataFrame or polars.DataFrame
        One row per ranked document. Other columns are ignored.
    query, doc : str, optional
        Names of the query id and document id columns.
    score : str or None, optional
        Name of the score column. None means the table has no scores and its
        rows are in rank order within each query (best first): the result
        then has ``has_scores=False`` and scores ``-position`` within the
        query (0, -1, -2, ...), which keep that order without ties.
    source : str, optional
        Names the table in messages.
    lines : array-like of int, optional
        The file line of each row; see :func:`qrels_columns_from_table`.

    Returns
    -------
    RunColumns
        One entry per row, in table order; ``tag`` is None.

    Raises
    ------
    rankproof.errors.ParseError
        If a named column is missing, an id is null or empty or neither text
        nor an integer, or a score is null, not a number, NaN or infinite.
        The message names the row.
    rankproof.errors.InputError
        If `table` is not a table.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"query": ["q1", "q2", "q1"], "doc": ["a", "b", "c"]})
    >>> columns = run_columns_from_table(table, score=None)
    >>> columns.has_scores, columns.score.tolist()
    (False, [0.0, 0.0, -1.0])
    """
    named = {"query": query, "doc": doc}
    if score is not None:
        named["score"] = score
    columns, rows, (query_codes, query_vocab), (doc_codes, doc_vocab) = _interned_ids(
        table, named, source, lines)
    size = len(query_codes)
    values = _scores(columns["score"], score, rows) if score is not None else None
    if values is None:
        # Negate the integers, not the floats, so the first score is 0.0, not -0.0.
        values = (-_positions(query_codes, query_vocab.size)).astype(np.float64)
    return RunColumns(
        query_codes=query_codes,
        query_vocab=query_vocab,
        doc_codes=doc_codes,
        doc_vocab=doc_vocab,
        score=values,
        line=rows.lines if rows.lines is not None else no_lines(size),
        source=source,
        tag=None,
        has_scores=score is not None,
    )
