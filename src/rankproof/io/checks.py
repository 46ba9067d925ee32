"""Checking the id, grade and score columns of a table, and naming the first bad row.

Ids may be strings or integers; grades must be integers (integral floats
such as ``2.0`` are accepted, because pandas turns an integer column with a
missing value into floats), or finite numbers under ``grades=real``; scores
must be finite numbers. Nulls and empty ids are refused. Numbers held as text
(as in a CSV file) are read with the TREC reader's rules
(:mod:`rankproof.io.values`), so a value means the same thing in every
format.

Every check is vectorised; only once a check fails does Python look at single
values, to name the first bad row. Errors carry fields (what, where, the
value, the fix), which each front door words in its own vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import ParseError, literal
from .arrow import first, first_null, owned
from .named_columns import describe, is_text, plain
from .limits import MAX_ID_LENGTH
from .values import (
    FLOAT,
    INTEGER,
    Problem,
    grade_number_problem,
    grade_text_problem,
    real_grade_text_problem,
    score_problem,
    shorten,
)

__all__ = ["Rows", "id_columns", "plain_id_column", "checked_grades", "checked_scores"]

# The TREC reader's number syntax, anchored for pyarrow's RE2 matcher, so that
# "0x10", "1_000" or "2,5" are refused here exactly as in a TREC file.
_INTEGER_TEXT = f"^(?:{INTEGER.pattern})$"
_FLOAT_TEXT = f"^(?:{FLOAT.pattern})$"
_INT64_LIMIT = 2.0**63


class Rows:
    """Names a row in errors: by its file line when known, else by its 1-based row."""

    def __init__(self, source: str, lines: np.ndarray | None, missing: str = "null"):
        self.source = source
        self.lines = lines
        # How a missing value looks to the user: pandas spells it NaN, and
        # pyarrow turns that NaN into a null.
        self.missing = missing
        # The ids as text, once known, so that value errors can name them.
        self.query = None
        self.doc = None

    def fields(self, row: int) -> dict:
        """The location fields of an error about `row` (0-based): source, line or 1-based row, query, doc."""
        query = _shown_id(self.query, row)
        doc = _shown_id(self.doc, row)
        if self.lines is not None and self.lines[row] >= 0:
            return {"source": self.source, "line": int(self.lines[row]), "query": query, "doc": doc}
        return {"source": self.source, "row": row + 1, "query": query, "doc": doc}


def _shown_id(column, row: int) -> str | None:
    if column is None:
        return None
    value = column[row].as_py()
    return None if value is None else shorten(str(value))


def _null_error(rows: Rows, row: int, what: str, fix: str) -> ParseError:
    """`what` and `fix` are templates."""
    return ParseError(what=f"no {what} (the value is {rows.missing})", fix=fix, **rows.fields(row))


def _refused(rows: Rows, row: int, problem: Problem | None) -> ParseError:
    """The error for a row that a check found bad (so its problem is never None)."""
    if problem is None:  # pragma: no cover - the check and the message disagree
        raise RuntimeError(f"row {row} failed a vectorised check but its value is not bad")
    return ParseError(what=problem.what, fix=problem.fix, value=problem.value, **rows.fields(row))


def _first_problem(values: list, problem, rows: Rows) -> ParseError:
    """Error path: walk the values in Python and build the error for the first bad one."""
    for row, value in enumerate(values):
        found = problem(value)
        if found is not None:
            return ParseError(what=found.what, fix=found.fix, value=found.value, **rows.fields(row))
    raise RuntimeError("a column failed a vectorised check but no value is bad")  # pragma: no cover


# -- ids ------------------------------------------------------------------------


def _first_bad(text: dict, test) -> tuple[int, str] | None:
    """(row, argument) of the first row whose query or doc id fails `test`, or None."""
    bad = []
    for arg in ("query", "doc"):
        if not is_text(text[arg].type):
            continue
        row = first(test(text[arg]))
        if row >= 0:
            bad.append((row, arg))
    return min(bad) if bad else None


def id_columns(columns: dict, named: Mapping[str, object], rows: Rows):
    """Check the query and doc columns; return them as large strings or integers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = {arg: plain(columns[arg]) for arg in ("query", "doc")}
    # Missing ids first, whatever the column type: a pandas integer column
    # with a gap arrives as floats, and the gap is what the user must fix.
    nulls = [(first_null(ids[arg]), arg) for arg in ("query", "doc")]
    nulls = [pair for pair in nulls if pair[0] >= 0]
    if nulls:
        row, arg = min(nulls)
        # The other id of the row, when present, helps find it.
        rows.query, rows.doc = ids["query"], ids["doc"]
        raise _null_error(rows, row, "{" + arg + "} id", "give every row {a_" + arg + "} id")

    text = {}
    for arg in ("query", "doc"):
        kind = ids[arg].type
        if is_text(kind):
            text[arg] = pc.cast(ids[arg], pa.large_string())
        elif pa.types.is_integer(kind):
            # Kept as integers: interning hashes them and turns only the
            # distinct ids into text, far cheaper than text for every row.
            text[arg] = ids[arg]
        else:
            raise ParseError(source=rows.source,
                             what=f"{describe(arg, named[arg])} holds {kind} values",
                             fix="ids must be strings or integers, so convert the column to one of those")

    # An empty id cannot be written in a TREC file and is almost always a
    # missing value that a CSV writer turned into "".
    rows.query, rows.doc = text["query"], text["doc"]
    empty = _first_bad(text, lambda column: pc.equal(pc.binary_length(column), 0))
    if empty is not None:
        row, arg = empty
        raise ParseError(what="the {" + arg + "} id is empty",
                         fix="give every row {a_" + arg + "} id",
                         **rows.fields(row))
    # An id of a megabyte would make every id as wide once interned.
    longest = MAX_ID_LENGTH.value()
    long = _first_bad(text, lambda column: pc.greater(pc.binary_length(column), longest))
    if long is not None:
        row, arg = long
        size = len(text[arg][row].as_py().encode("utf-8"))
        raise ParseError(what=MAX_ID_LENGTH.beyond(f"the {arg} id of {size} bytes"),
                         fix=MAX_ID_LENGTH.fix,
                         **rows.fields(row))
    return text["query"], text["doc"]


def plain_id_column(column):
    """One id column as :func:`id_columns` returns it (large strings or integers) when it
    passes every check there, else None: for a reader that reads its columns one at a time
    and, should one be bad, reads them together to name the first bad row as ever."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = plain(column)
    if column.null_count:
        return None
    if pa.types.is_integer(column.type):
        return column
    if not is_text(column.type):
        return None
    text = pc.cast(column, pa.large_string())
    if len(text):
        bounds = pc.min_max(pc.binary_length(text))
        if bounds["min"].as_py() == 0 or bounds["max"].as_py() > MAX_ID_LENGTH.value():
            return None
    return text


# -- grades ---------------------------------------------------------------------


def _float_grades(values: np.ndarray, rows: Rows, shown) -> np.ndarray:
    """int64 grades from float64 values, refusing NaN, inf, fractions and overflow."""
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) >= _INT64_LIMIT)
    if bad.any():
        row = int(np.argmax(bad))
        raise _refused(rows, row, grade_number_problem(shown(row), float(values[row])))
    return values.astype(np.int64)


def _text_grades(column, rows: Rows) -> np.ndarray:
    """int64 grades from text, with the TREC reader's integer syntax (plus integral floats)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    trimmed = pc.utf8_trim_whitespace(column)
    numeric = pc.match_substring_regex(trimmed, pattern=_FLOAT_TEXT, ignore_case=True)
    if first(pc.invert(numeric)) >= 0:
        raise _first_problem(column.to_pylist(), grade_text_problem, rows)
    integer = pc.match_substring_regex(trimmed, pattern=_INTEGER_TEXT)
    # int64 does not take a leading '+'; the TREC reader drops it the same way.
    digits = pc.if_else(integer, pc.utf8_ltrim(trimmed, characters="+"), "0")
    try:
        exact = owned(pc.cast(digits, pa.int64()).to_numpy(), np.int64)
    except pa.ArrowInvalid:  # an integer beyond int64
        raise _first_problem(column.to_pylist(), grade_text_problem, rows) from None
    if pc.all(integer).as_py():
        return exact
    # Integral floats such as "2.0" (what pandas writes for an integer column
    # with a gap) are grades too; exact integers keep their exact value.
    floats = owned(pc.cast(trimmed, pa.float64()).to_numpy(), np.float64)
    is_integer = owned(integer.to_numpy(zero_copy_only=False), bool)
    floats[is_integer] = 0.0
    converted = _float_grades(floats, rows, lambda row: repr(shorten(column[row].as_py())))
    return np.where(is_integer, exact, converted)


def _real_grades(column, name, rows: Rows) -> np.ndarray:
    """float64 grades from a column of numbers or numeric text (grades=real);
    NaN and infinities refused."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = owned(pc.cast(column, pa.float64(), safe=False), np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            value = column[row].as_py()
            raise ParseError(what=f"grade {literal(repr(value))} is not a finite number",
                             value=value,
                             fix="give every judgment a grade such as 0, 1.5, 3",
                             **rows.fields(row))
        return values
    if is_text(kind):
        text = pc.cast(column, pa.large_string())
        trimmed = pc.utf8_trim_whitespace(text)
        numeric = pc.match_substring_regex(trimmed, pattern=_FLOAT_TEXT, ignore_case=True)
        if first(pc.invert(numeric)) >= 0:
            raise _first_problem(text.to_pylist(), real_grade_text_problem, rows)
        values = owned(pc.cast(trimmed, pa.float64()).to_numpy(), np.float64)
        if not np.isfinite(values).all():
            raise _first_problem(text.to_pylist(), real_grade_text_problem, rows)
        return values
    what = "booleans" if pa.types.is_boolean(kind) else f"{kind} values"
    raise ParseError(source=rows.source, what=f"{describe('grade', name)} holds {what}",
                     fix="grades must be numbers such as 0, 1.5, 3, so convert the column")


def checked_grades(column, name, rows: Rows, real: bool = False) -> np.ndarray:
    """Check a grade column of any type and return int64 grades (float64 when `real`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = plain(column)
    row = first_null(column)
    if row >= 0:
        raise _null_error(rows, row, "grade",
                          "give every judgment an integer grade such as 0, 1, 2")
    if real:
        return _real_grades(column, name, rows)
    kind = column.type
    if pa.types.is_integer(kind):
        try:
            return owned(pc.cast(column, pa.int64()), np.int64)
        except pa.ArrowInvalid:  # uint64 beyond int64
            values = column.to_numpy()
            row = int(np.argmax(values > np.iinfo(np.int64).max))
            raise ParseError(what=f"grade {int(values[row])} does not fit in a 64-bit integer",
                             value=int(values[row]), fix="use small integer grades such as 0, 1, 2",
                             **rows.fields(row)) from None
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = owned(pc.cast(column, pa.float64(), safe=False), np.float64)
        return _float_grades(values, rows, lambda row: repr(column[row].as_py()))
    if is_text(kind):
        return _text_grades(pc.cast(column, pa.large_string()), rows)
    if pa.types.is_boolean(kind):
        raise ParseError(source=rows.source, what=f"{describe('grade', name)} holds booleans",
                         fix="grades must be integers such as 0, 1, 2, so convert it (e.g. True -> 1, False -> 0)")
    raise ParseError(source=rows.source, what=f"{describe('grade', name)} holds {kind} values",
                     fix="grades must be integers such as 0, 1, 2, so convert the column to integers")


# -- scores ---------------------------------------------------------------------


def _finite(values: np.ndarray, rows: Rows, shown, placement=None) -> np.ndarray:
    finite = np.isfinite(values)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        row = int(bad[0]) if placement is None else int(placement.table_rows(bad).min())
        raise _refused(rows, row, score_problem(shown(row)))
    return values


def checked_scores(column, name, rows: Rows, placement=None) -> np.ndarray:
    """Check a score column of any type and return finite float64 scores (in their grouped
    places, with a :class:`~rankproof.io.grouping.Placement`; messages name the table row)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = plain(column)
    row = first_null(column)
    if row >= 0:
        raise _null_error(rows, row, "score",
                          "give every document a finite score, or pass score=None if the "
                                              "rows are already in rank order")
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        # safe=False: a large integer score may round, which a score can afford.
        values = owned(pc.cast(column, pa.float64(), safe=False), np.float64, placement)
        return _finite(values, rows, lambda row: repr(float(column[row].as_py())), placement)
    if is_text(kind):
        text = pc.cast(column, pa.large_string())
        trimmed = pc.utf8_trim_whitespace(text)
        numeric = pc.match_substring_regex(trimmed, pattern=_FLOAT_TEXT, ignore_case=True)
        row = first(pc.invert(numeric))
        if row >= 0:
            value = text[row].as_py()
            problem = (Problem("no score (the value is empty)",
                               "give every document a finite score", value)
                       if not value.strip() else score_problem(shorten(value)))
            raise _refused(rows, row, problem)
        values = owned(pc.cast(trimmed, pa.float64()).to_numpy(), np.float64, placement)
        return _finite(values, rows, lambda row: shorten(text[row].as_py().strip()), placement)
    if pa.types.is_boolean(kind):
        raise ParseError(source=rows.source, what=f"{describe('score', name)} holds booleans",
                         fix="scores must be numbers such as 11.17, so convert it to floats")
    raise ParseError(source=rows.source, what=f"{describe('score', name)} holds {kind} values",
                     fix="scores must be numbers such as 11.17, so convert the column to floats")
