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
values, to name the first bad row (:mod:`rankproof.io.checks`). Getting the
named columns out of a table is :mod:`rankproof.io.named_columns`'s, interning ids
:mod:`rankproof.io.arrow`'s.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, ParseError
from ..kernels.segments import ranks_within
from .arrow import intern_column, intern_columns_together, release_arrow_memory
from .named_columns import select_columns
from .checks import Rows, checked_grades, checked_scores, id_columns, plain_id_column
from .grouping import GroupedRunColumns, grouped_placement, query_blocks
from .lines import no_lines
from .trec import QrelsColumns, RunColumns

__all__ = [
    "qrels_columns_from_table",
    "consume_run_table",
    "run_columns_from_table",
    "grouped_run_columns",
    "read_grouped_run",
]


def _checked_lines(lines, size: int, source: str) -> np.ndarray | None:
    if lines is None:
        return None
    lines = np.asarray(lines, dtype=np.int64)
    if lines.shape != (size,):
        raise InputError(source=source, what=f"lines= has {lines.size} entries for {size} rows",
                         fix="give one line per row")
    return lines


def _positions(query_codes: np.ndarray, num_queries: int) -> np.ndarray:
    """0-based position of each row among the rows of its query, in table order."""
    order = np.argsort(query_codes, kind="stable")
    counts = np.bincount(query_codes, minlength=num_queries)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    position = np.empty(query_codes.size, dtype=np.int64)
    position[order] = np.arange(query_codes.size, dtype=np.int64) - starts
    return position


def _selected(table, named: dict, source: str, lines):
    """The named columns of `table`, the row locator, and the query and doc ids checked."""
    columns, missing = select_columns(table, named, source)
    rows = Rows(source, _checked_lines(lines, len(columns["query"]), source), missing)
    return (columns, rows, *id_columns(columns, named, rows))


def _interned(source: str, intern, *columns):
    """``intern(*columns)``; the error for an id it refuses (one holding a NUL) names `source`."""
    try:
        return intern(*columns)
    except ParseError as error:
        raise error.replace(source=source) from None


def _id_fields(rows: Rows, query_text, doc_text) -> dict:
    """The fields qrels and run columns share: the query and doc ids interned together (as
    the TREC reader does), each row's line (``-1`` without lines) and the source."""
    (query_codes, query_vocab), (doc_codes, doc_vocab) = _interned(
        rows.source, intern_columns_together, query_text, doc_text)
    line = rows.lines if rows.lines is not None else no_lines(len(query_codes))
    return {"query_codes": query_codes, "query_vocab": query_vocab, "doc_codes": doc_codes,
            "doc_vocab": doc_vocab, "line": line, "source": rows.source}


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
    columns, rows, query_text, doc_text = _selected(table, named, source, lines)
    ids = _id_fields(rows, query_text, doc_text)
    del query_text, doc_text   # the ids' text goes once they are interned
    return QrelsColumns(**ids, grade=checked_grades(columns["grade"], grade, rows, real))


def run_columns_from_table(
    table,
    *,
    query="query",
    doc="doc",
    score="score",
    source: str = "table",
    lines=None,
    grouped: bool = False,
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
    grouped : bool, optional
        The rows grouped by query code (table order within each query), as
        :class:`~rankproof.io.grouping.GroupedRunColumns` (:func:`grouped_run_columns`).

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
    return consume_run_table([table], query=query, doc=doc, score=score, source=source, lines=lines,
                             grouped=grouped)


def consume_run_table(holder: list, *, query="query", doc="doc", score="score",
                      source: str = "table",
                      lines=None, grouped: bool = False) -> RunColumns:
    """:func:`run_columns_from_table` of the one table in `holder`, taken out of it.

    A reader that passes its table this way and keeps no other reference has
    each Arrow column freed once it is no longer needed: the scores are
    copied first, while the ids can still name a bad row, and their Arrow
    column goes before the ids are interned (a 20M-row Parquet log: 0.16 GB
    less at the reading's peak). Errors are those of the tables' reading, a
    bad score named before an id that interning refuses (one holding a NUL).
    `grouped`: the rows come grouped by query code instead of in table order
    (table order within each query), as
    :class:`~rankproof.io.grouping.GroupedRunColumns` (see :func:`grouped_run_columns`).
    """
    named = {"query": query, "doc": doc}
    if score is not None:
        named["score"] = score
    columns, rows, query_text, doc_text = _selected(holder.pop(), named, source, lines)
    if grouped:
        return grouped_run_columns(columns, rows, query_text, doc_text, score)
    values = checked_scores(columns.pop("score"), score, rows) if score is not None else None
    release_arrow_memory()
    columns.clear()
    ids = _id_fields(rows, query_text, doc_text)
    if values is None:
        # Negate the integers, not the floats, so the first score is 0.0, not -0.0.
        values = (-_positions(ids["query_codes"], ids["query_vocab"].size)).astype(np.float64)
    return RunColumns(**ids, score=values, tag=None, has_scores=score is not None)


def grouped_run_columns(columns: dict, rows: Rows, query_text, doc_text,
                        score) -> GroupedRunColumns:
    """Run columns grouped by query code as they are made: the query column is read as its
    blocks (:func:`~rankproof.io.grouping.query_blocks`: the runs of one id), whose ids alone
    are interned, and the scores and doc codes are written straight into their grouped places
    (:class:`~rankproof.io.grouping.Placement`). No column is reordered after it is made, and
    no row-long query code exists: the result holds ``offsets`` and an empty ``query_codes``
    (:class:`~rankproof.io.grouping.GroupedRunColumns`).
    The same errors as :func:`consume_run_table`'s, each naming its table row.
    """
    checked = {"query": query_text, "doc": doc_text}
    if score is not None:
        checked["score"] = columns.pop("score")
    columns.clear()
    del query_text, doc_text   # each goes once used (messages still name ids through `rows`)
    return _grouped(checked.pop, rows, score)


def read_grouped_run(read, named: dict, source: str) -> "GroupedRunColumns | None":
    """:func:`grouped_run_columns` of a table read one column at a time, ``read(name)``
    giving each (an Arrow chunked array), so that one Arrow column is held at a time (a
    Parquet file). None when a column is bad: the caller then reads the whole table, whose
    checks name the first bad row and its ids as they always have.
    """
    rows = Rows(source, None)

    def column(arg: str):
        got = read(named[arg])
        if arg != "score":
            got = plain_id_column(got)
            if got is None:
                raise ParseError(source=source, what="a bad id",
                                 fix="read the table whole to name it")
        return got

    try:
        return _grouped(column, rows, named.get("score"))
    except ParseError:
        return None


def _grouped(column, rows: Rows, score) -> GroupedRunColumns:
    """The work of :func:`grouped_run_columns`: `column(arg)` gives the checked query
    column, the scores and the checked doc column, in that order, each once."""
    source = rows.source
    query_text = column("query")
    size = len(query_text)
    starts, block_ids = query_blocks(query_text)
    del query_text
    block_codes, query_vocab = _interned(source, intern_column, block_ids)
    del block_ids
    offsets, placement = grouped_placement(block_codes, starts, size, query_vocab.size)
    del block_codes, starts
    values = checked_scores(column("score"), score, rows, placement) if score is not None else None
    release_arrow_memory()
    doc_codes, doc_vocab = _interned(source, intern_column, column("doc"), placement)
    release_arrow_memory()
    if values is None:
        # Negate the integers, not the floats, so the first score is 0.0, not -0.0.
        values = (-ranks_within(np.diff(offsets))).astype(np.float64)
    line = no_lines(size) if rows.lines is None else placement.place([rows.lines], np.int64)
    return GroupedRunColumns(query_codes=np.zeros(0, dtype=np.int64), query_vocab=query_vocab,
                             doc_codes=doc_codes, doc_vocab=doc_vocab, score=values, line=line,
                             source=source,
                             tag=None, has_scores=score is not None, offsets=offsets)
