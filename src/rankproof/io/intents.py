"""Reading judgments per intent (subtopic): ``query intent doc grade``.

The TREC diversity format (NIST's ndeval, the TREC Web track 2009-2014) has
four columns like TREC qrels, but the second is the intent, not an ignored
iteration number: the two formats cannot be told apart by looking at a file,
so the caller says which it is (:meth:`rankproof.IntentQrels.read`,
``rankproof evaluate --intents``).

What a line is follows the TREC reader (:mod:`rankproof.io.trec`): columns
separated by runs of spaces, tabs or carriage returns; blank lines and lines
starting with ``#`` skipped; grades are 64-bit integers. Diversity qrels are
small (tens of thousands of lines), so the lines are split in Python.

Intent weights (optional) are read from ``query intent weight`` lines.
"""

from __future__ import annotations

import dataclasses

import math
import os
import re
from dataclasses import dataclass

import numpy as np

from ..errors import ParseError, literal
from .trec import QRELS_FORMAT, load_trec_text
from .values import FLOAT, grade_problem, shorten

__all__ = ["IntentQrelsColumns", "read_trec_intent_qrels", "intent_columns_from_table",
           "read_intent_weights"]

_LAYOUT = "query intent doc grade"
_SEPARATOR = re.compile(r"[ \t\r]+")


@dataclass(frozen=True)
class IntentQrelsColumns:
    """Judgments per intent, one entry per row, in source order (ids as text).

    Attributes
    ----------
    query, intent, doc : numpy.ndarray of str
    grade : numpy.ndarray of int64
    line : numpy.ndarray of int64, the 1-based file line (-1 when unknown)
    source : str
    """

    query: np.ndarray
    intent: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    line: np.ndarray
    source: str


def _lines(path, source: str, fmt=QRELS_FORMAT) -> list[tuple[int, list[str], str]]:
    """The data lines of a TREC-style file: (line number, fields, the line shown)."""
    text = load_trec_text(path, source, fmt).decode("utf-8")
    rows = []
    for number, raw in enumerate(text.split("\n"), 1):
        shown = raw.strip(" \t\r")
        if not shown or shown.startswith("#"):
            continue
        for bad, name in (("\v", "a vertical tab (\\v)"), ("\f", "a form feed (\\f)")):
            if bad in shown:
                raise ParseError(source=source, line=number, what=f"holds {name}",
                                 fix="columns must be separated by spaces or tabs, so replace it with a space")
        rows.append((number, _SEPARATOR.split(shown), shown))
    return rows


def read_trec_intent_qrels(path: "str | os.PathLike[str]") -> IntentQrelsColumns:
    """Read a TREC diversity qrels file (``query intent doc grade``; ``.gz`` accepted).

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, not UTF-8 text, holds no judgments, or a line
        has the wrong number of columns or a grade that is not an integer;
        the message names the file, the line, the query and the doc.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "div.qrels"
    >>> _ = path.write_text("1 1 d1 1\\n1 2 d1 0\\n1 2 d2 2\\n")
    >>> columns = read_trec_intent_qrels(path)
    >>> columns.intent.tolist(), columns.grade.tolist()
    (['1', '2', '2'], [1, 0, 2])
    >>> _ = path.write_text("1 0 d1 1.5\\n")
    >>> read_trec_intent_qrels(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankproof.errors.ParseError: ...div.qrels line 1: query 1, doc d1: grade '1.5' is not an integer; ...
    """
    source = str(path)
    rows = _lines(path, source)
    if not rows:
        raise ParseError(source=source,
                         what="holds no judgments (the file is empty or has only blank and "
                         "comment lines)", fix=f"give one '{_LAYOUT}' line per judgment")
    for number, fields, shown in rows:
        if len(fields) != 4:
            hint = ("this looks like a run line (query Q0 doc rank score tag); check that the qrels and run "
                    "files are not swapped") if len(fields) == 6 else (
                f"write one judgment per line as '{_LAYOUT}', separated by spaces or tabs")
            raise ParseError(source=source, line=number, value=shown, fix=hint,
                             what=f"expected 4 columns ({_LAYOUT}), found {len(fields)}: "
                                  f"{literal(repr(shorten(shown)))}")
        problem = grade_problem(fields[3])
        if problem is not None:
            raise ParseError(source=source, line=number, query=shorten(fields[0]),
                             doc=shorten(fields[2]),
                             what=problem.what, fix=problem.fix, value=problem.value)
    return IntentQrelsColumns(
        query=np.array([f[0] for _, f, _ in rows], dtype=str),
        intent=np.array([f[1] for _, f, _ in rows], dtype=str),
        doc=np.array([f[2] for _, f, _ in rows], dtype=str),
        grade=np.array([int(f[3]) for _, f, _ in rows], dtype=np.int64),
        line=np.array([n for n, _, _ in rows], dtype=np.int64),
        source=source,
    )


def intent_columns_from_table(table, *, query="query", intent="intent", doc="doc", grade="grade",
                              source: str = "table", lines=None) -> IntentQrelsColumns:
    """Judgments per intent from a table (pyarrow, pandas or polars) with an intent column.

    The query, doc and grade columns are checked as for plain qrels
    (:func:`rankproof.io.tables.qrels_columns_from_table`); intent ids may be
    text or integers (``2`` and ``"2"`` are one intent) and must not be null
    or empty.

    >>> import pyarrow as pa
    >>> t = pa.table({"q": ["1", "1"], "i": [1, 2], "d": ["a", "a"], "g": [1, 0]})
    >>> intent_columns_from_table(t, query="q", intent="i", doc="d", grade="g").intent.tolist()
    ['1', '2']
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from .named_columns import plain, select_columns
    from .tables import qrels_columns_from_table

    columns = qrels_columns_from_table(table, query=query, doc=doc, grade=grade, source=source,
                                       lines=lines)
    selected, missing = select_columns(table, {"intent": intent}, source)
    column = plain(selected["intent"])
    line = None if lines is None else np.asarray(lines, dtype=np.int64)
    query_ids = columns.query_vocab[columns.query_codes]
    doc_ids = columns.doc_vocab[columns.doc_codes]

    def locate(row: int) -> dict:
        if line is not None and line[row] >= 0:
            return {"source": source, "line": int(line[row]), "query": str(query_ids[row]),
                    "doc": str(doc_ids[row])}
        return {"source": source, "row": row + 1, "query": str(query_ids[row]),
                "doc": str(doc_ids[row])}

    if not (pa.types.is_integer(column.type) or pa.types.is_string(column.type)
            or pa.types.is_large_string(column.type)):
        raise ParseError(source=source,
                         what=f"column {literal(repr(intent))} (named by intent=) holds "
                         f"{column.type} values", fix="intent ids must be text or integers")
    nulls = np.asarray(pc.is_null(column).to_numpy(zero_copy_only=False), dtype=bool)
    if nulls.any():
        row = int(np.flatnonzero(nulls)[0])
        raise ParseError(what=f"no intent (the value is {missing})",
                         fix="give every judgment an intent id",
                         **locate(row))
    values = np.array([str(v) for v in column.to_pylist()], dtype=str)
    empty = values == ""
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise ParseError(what="the intent id is empty", fix="give every judgment an intent id",
                         **locate(row))
    return IntentQrelsColumns(query=query_ids, intent=values, doc=doc_ids, grade=columns.grade,
                              line=np.asarray(columns.line, dtype=np.int64), source=source)


# Messages about the file (binary, not UTF-8) name it as what it is.
_WEIGHTS_FORMAT = dataclasses.replace(QRELS_FORMAT, what="intent weights")


def read_intent_weights(path: "str | os.PathLike[str]") -> dict[str, dict[str, float]]:
    """Read intent weights: ``query intent weight`` per line (``#`` comments allowed).

    Weights are finite and non-negative; each (query, intent) is given once.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "weights.txt"
    >>> _ = path.write_text("1 1 0.75\\n1 2 0.25\\n")
    >>> read_intent_weights(path)
    {'1': {'1': 0.75, '2': 0.25}}
    """
    source = str(path)
    weights: dict[str, dict[str, float]] = {}
    rows = _lines(path, source, _WEIGHTS_FORMAT)
    if not rows:
        raise ParseError(source=source, what="holds no intent weights",
                         fix="give one 'query intent weight' line per intent")
    for number, fields, shown in rows:
        if len(fields) != 3:
            raise ParseError(source=source, line=number, value=shown,
                             what=f"expected 3 columns (query intent weight), found {len(fields)}: "
                                  f"{literal(repr(shorten(shown)))}",
                             fix="write one 'query intent weight' line per intent")
        query, intent, text = fields
        number_ok = FLOAT.fullmatch(text) is not None
        weight = float(text) if number_ok else math.nan
        if not number_ok or not math.isfinite(weight) or weight < 0:
            raise ParseError(source=source, line=number, query=shorten(query), value=text,
                             what=f"intent {literal(shorten(intent))}: weight {literal(repr(text))} is not a "
                                  "finite non-negative number", fix="give a weight such as 0.5")
        if intent in weights.setdefault(query, {}):
            raise ParseError(source=source, line=number, query=shorten(query),
                             what=f"intent {literal(shorten(intent))} is given a weight twice",
                             fix="give each intent one weight")
        weights[query][intent] = weight
    return weights
