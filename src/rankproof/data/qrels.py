"""Qrels: the judgments (query, doc, grade), held as flat columns.

Rows are grouped by query and sorted by doc within a query; ``offsets[i]`` to
``offsets[i + 1]`` are the rows of query ``queries[i]``. Ids are interned to
integer codes into sorted vocabularies (see :mod:`rankproof.data.interning`).
"""

from __future__ import annotations

import dataclasses

import os
from typing import Any, Mapping

import numpy as np

from ..errors import DuplicateError, InputError, ParseError, RankproofError, literal
from ..kernels.segments import offsets_of
from .arrays import read_only
from .grade_values import as_real, integer_grades, real_grades
from .interning import checked_id, checked_mapping, intern, sorted_vocabulary
from .layering import merge_sources
from .query_rows import QueryRows
from ..io.lines import no_lines, take_lines

__all__ = ["LayeredQrels", "Qrels", "as_real", "integer_grades", "real_grades"]


def _used(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(codes in use, codes renumbered 0.. in the same order): ``np.unique(codes,
    return_inverse=True)`` for codes below `size`, by counting instead of sorting."""
    present = np.bincount(codes, minlength=size) > 0
    if present.all():   # a reader's vocabulary: every id is used, nothing to renumber
        return np.arange(size), codes
    renumber = np.cumsum(present) - 1
    return np.flatnonzero(present), renumber[codes]


@dataclasses.dataclass(frozen=True, init=False, eq=False, repr=False)
class Qrels(QueryRows):
    """Relevance judgments, immutable and columnar.

    Build one with :meth:`read` (any format), :meth:`read_trec`, :meth:`from_dict`,
    :meth:`from_table`, :meth:`from_pandas` or :meth:`from_ir_datasets`; :meth:`layer`
    merges several sources, :meth:`with_queries` declares more queries.

    Attributes
    ----------
    queries : numpy.ndarray of str
        Judged queries, sorted.
    offsets : numpy.ndarray of int64
        Row range of each query, length ``len(queries) + 1``.
    docs : numpy.ndarray of str
        Vocabulary of judged docs, sorted.
    doc_codes, grades, lines : numpy.ndarray of int64
        Per row: the doc's code into ``docs``, its grade, and its line in the
        source file (``-1`` when the rows did not come from a file).
        ``grades`` is float64 when the qrels were read with ``grades='real'``.
    source : str
        Where the judgments came from, for messages.

    A query may be declared with no judgment (``{"q2": {}}`` in
    :meth:`from_dict`, or :meth:`with_queries`): it belongs to the
    evaluation set with nothing relevant, so the protocol's ``zero_ideal``
    policy decides its value, and it is counted (``empty_queries``).
    ``keep_empty=True`` in the constructor keeps every query of `queries`
    whether rows name it or not.

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2, "C": 1, "D": 0}})
    >>> qrels.num_queries, len(qrels)
    (1, 4)
    """

    grades: np.ndarray
    lines: np.ndarray
    source: str

    def __init__(self, *, query_codes, queries, doc_codes, docs, grades, lines=None, source="qrels",
                 keep_empty: bool = False):
        query_codes = np.asarray(query_codes, dtype=np.int64)
        doc_codes = np.asarray(doc_codes, dtype=np.int64)
        # Real-valued grades (read with grades='real') stay float64; the rest are int64.
        grades = np.asarray(grades)
        grades = grades.astype(np.float64 if grades.dtype.kind == "f" else np.int64, copy=False)
        lines = no_lines(len(grades)) if lines is None else np.asarray(lines, dtype=np.int64)
        queries, query_codes = sorted_vocabulary(np.asarray(queries, dtype=str), query_codes)
        docs, doc_codes = sorted_vocabulary(np.asarray(docs, dtype=str), doc_codes)
        if len(grades) == 0 and not (keep_empty and len(queries)):
            raise InputError(source=source, what="the qrels hold no judgments",
                             fix="give at least one ({query}, {doc}, {grade})")

        # One int64 key per row sorts by (query, doc) faster than a lexsort of
        # two keys; files already in that order skip the sort.
        key = query_codes * max(len(docs), 1) + doc_codes
        if len(key) > 1 and not (key[1:] >= key[:-1]).all():
            order = np.argsort(key, kind="stable")
            query_codes, doc_codes, grades = (a[order] for a in (query_codes, doc_codes, grades))
            lines = take_lines(lines, order)
        same = (query_codes[1:] == query_codes[:-1]) & (doc_codes[1:] == doc_codes[:-1])
        if same.any():
            i = int(np.flatnonzero(same)[0]) + 1
            first, second = lines[i - 1], lines[i]
            at = f" (lines {min(first, second)} and {max(first, second)})" if first >= 0 else ""
            loc = {"source": source, "line": int(max(first, second)) if first >= 0 else None,
                   "query": str(queries[query_codes[i]]), "doc": str(docs[doc_codes[i]])}
            # value: the two lines, for a reader that can say more about them (judgments per
            # intent).
            pair = (int(min(first, second)), int(max(first, second))) if first >= 0 else None
            if grades[i] != grades[i - 1]:
                raise DuplicateError(what=f"{{judged}} twice with different grades {grades[i - 1]} and {grades[i]}{at}",
                                     fix="keep one {judgment} per ({query}, {doc})", value=pair,
                                     **loc)
            raise DuplicateError(what=f"{{judged}} twice{at}", fix="remove the repeated {judgment}",
                                 value=pair, **loc)

        # Drop vocabulary entries no row uses, so every query has rows; keep_empty keeps every query
        # given (the query universe: a query declared with no judgment stays, with no rows).
        if keep_empty:
            used_queries = np.arange(len(queries))
        else:
            used_queries, query_codes = _used(query_codes, len(queries))
        used_docs, doc_codes = _used(doc_codes, len(docs))
        self._hold_fields(queries=queries[used_queries],
                          offsets=offsets_of(query_codes, len(used_queries)),
                          docs=docs[used_docs], doc_codes=doc_codes.astype(np.int64, copy=False),
                          grades=grades, lines=lines, source=str(source))


    # -- constructors ----------------------------------------------------
    @classmethod
    def from_dict(cls, judgments: Mapping[str, Mapping[str, float]], *, source: str = "qrels",
                  grades: str = "integer") -> "Qrels":
        """Build from ``{query: {doc: grade}}``.

        ``grades='real'`` keeps real-valued grades (the protocol's
        ``grades=real`` policy); by default a fractional grade is an error.
        A query mapped to ``{}`` is declared with no judgment (an empty
        ground truth): it stays in the evaluation set.

        Examples
        --------
        >>> Qrels.from_dict({"q1": {"d1": 1.5}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        rankproof.errors.ParseError: qrels: query q1, doc d1: grade 1.5 is not an integer; grades must be integers (map fractional labels to integer grades first, or set the policy grades=real ...)
        >>> Qrels.from_dict({"q1": {"d1": 1.5, "d2": 0}}, grades="real").to_dict()
        {'q1': {'d1': 1.5, 'd2': 0.0}}
        >>> Qrels.from_dict({"q1": {"d1": 1}, "q2": {}}).to_dict()   # q2: declared, nothing judged
        {'q1': {'d1': 1}, 'q2': {}}
        """
        real = as_real(grades)
        query_ids: list[str] = []
        doc_ids: list[str] = []
        grade_values: list[Any] = []
        for query, docs in checked_mapping(judgments, "{{query: {{doc: grade}}}}", source).items():
            for doc, grade in checked_mapping(docs, "{{doc: grade}}", source, query).items():
                query_ids.append(checked_id(query, "query", source))
                doc_ids.append(checked_id(doc, "doc", source, query))
                grade_values.append(grade)
        describe = lambda i: {"source": source, "query": query_ids[i], "doc": doc_ids[i]}  # noqa: E731
        read_grades = real_grades if real else integer_grades
        grade_array = read_grades(np.array(grade_values, dtype=object) if grade_values
                                  else np.zeros(0, np.int64),
                                  describe)
        declared = [checked_id(query, "query", source) for query, docs in judgments.items()
                    if not docs]
        if not declared:
            return cls._from_ids(query_ids, doc_ids, grade_array, None, source)
        queries = np.unique(np.array(query_ids + declared, dtype=str))
        query_codes = (np.searchsorted(queries, np.array(query_ids, dtype=str)) if query_ids
                       else np.zeros(0, np.int64))
        doc_codes, doc_vocab = intern(doc_ids)
        return cls(query_codes=query_codes, queries=queries, doc_codes=doc_codes, docs=doc_vocab,
                   grades=grade_array,
                   source=source, keep_empty=True)

    def with_queries(self, queries: Any) -> "Qrels":
        """These qrels with `queries` declared too: each query not judged here
        joins the evaluation set with no judgment (nothing relevant; the
        protocol's ``zero_ideal`` policy decides its value).

        >>> qrels = Qrels.from_dict({"q1": {"d1": 1}}).with_queries(["q1", "q2"])
        >>> qrels.queries.tolist(), qrels.empty_queries.tolist()
        (['q1', 'q2'], ['q2'])
        """
        # iterated, "q12" would declare the queries q, 1 and 2
        if isinstance(queries, (str, bytes)):
            raise ParseError(source=self.source,
                             what=f"with_queries takes a list of query ids; got the text "
                             f"{literal(repr(queries)[:40])}",
                             fix=f"write with_queries([{literal(repr(queries)[:40])}])")
        added = np.setdiff1d(np.asarray([checked_id(q, "query", self.source) for q in queries],
                                        dtype=str),
                             self.queries)
        if not len(added):
            return self
        merged = np.union1d(self.queries, added)
        rows = np.repeat(np.searchsorted(merged, self.queries), np.diff(self.offsets))
        return Qrels(query_codes=rows, queries=merged, doc_codes=self.doc_codes, docs=self.docs,
                     grades=self.grades,
                     lines=self.lines, source=self.source, keep_empty=True)

    @classmethod
    def from_pandas(cls, frame, *, query: str = "query", doc: str = "doc", grade: str = "grade",
                    source: str = "DataFrame", grades: str = "integer") -> "Qrels":
        """Build from a pandas DataFrame with the named columns (``grades='real'``:
        real-valued grades kept)."""
        missing = [c for c in (query, doc, grade) if c not in frame.columns]
        if missing:
            raise ParseError(source=source,
                             what=f"no column {literal(', '.join(map(repr, missing)))}",
                             fix=f"columns are {literal(', '.join(map(str, frame.columns)))}. "
                                 "Name them with query=, doc=, grade=")
        query_ids = frame[query].to_numpy()
        doc_ids = frame[doc].to_numpy()
        describe = lambda i: {"source": f"{source} row {i}", "query": str(query_ids[i]), "doc": str(doc_ids[i])}  # noqa: E731
        read_grades = real_grades if as_real(grades) else integer_grades
        return cls._from_ids(query_ids, doc_ids, read_grades(frame[grade].to_numpy(), describe),
                             None, source)

    @classmethod
    def from_ir_datasets(cls, name: str) -> "Qrels":
        """The qrels of ir_datasets dataset `name` (needs ``rankproof[datasets]``).

        What the dataset declares (official measures, relevance level, quirks)
        is :func:`rankproof.data.datasets.dataset_qrels`'s second value.
        """
        from .datasets import dataset_qrels

        judgments, _ = dataset_qrels(name)
        return cls.from_dict(judgments, source=name)

    @classmethod
    def read_trec(cls, path: "str | os.PathLike[str]", *, grades: str = "integer") -> "Qrels":
        """Read a TREC qrels file (``query 0 doc grade``; ``.gz`` accepted);
        ``grades='real'`` reads real-valued grades (``q1 0 d1 1.5``)."""
        from ..io.trec import read_trec_qrels_columns

        columns = read_trec_qrels_columns(path, real=as_real(grades))
        return cls._trec_checked(path, lambda: cls(
            query_codes=columns.query_codes, queries=columns.query_vocab,
            doc_codes=columns.doc_codes, docs=columns.doc_vocab,
            grades=columns.grade, lines=columns.line, source=columns.source,
        ))

    @classmethod
    def read(cls, path: "str | os.PathLike[str]", format: str | None = None, *,
             query: str = "query", doc: str = "doc", grade: str = "grade", grades: str = "integer",
             header: bool = True) -> "Qrels":
        """Read judgments from a TREC, CSV, TSV, JSON Lines or Parquet file.

        Parameters
        ----------
        path : str or os.PathLike
            The file; text formats may be gzip-compressed (``.gz``).
        format : {"trec", "csv", "tsv", "jsonl", "parquet"}, optional
            Without it the extension decides: ``.csv``, ``.tsv``,
            ``.jsonl``/``.ndjson``, ``.parquet`` (each optionally ``.gz``),
            and TREC for anything else.
        query, doc, grade : str, optional
            Names of the columns (or JSON fields) holding the query id, the
            document id and the integer grade. Unused for TREC files.
        grades : {"integer", "real"}, optional
            The protocol's ``grades`` policy: integer grades (a grade such as
            1.5 is an error), or real-valued grades kept as float64.
        header : bool, optional
            False: a CSV or TSV file has no header line; its columns are taken
            by 1-based position (query 1, doc 2, grade 3, or named by
            position: ``grade=4``).

        Returns
        -------
        Qrels
            Its ``lines`` hold each row's line in the file (a CSV file's header
            is line 1; ``-1`` for Parquet, which has rows, not lines) and its
            ``source`` the path, for messages.

        Raises
        ------
        rankproof.errors.ParseError
            If the file cannot be read as judgments; the message names the
            file and the line (the row, for Parquet).
        rankproof.errors.DuplicateError
            If a (query, doc) pair is judged twice.
        """
        from ..io.formats import format_of, read_qrels_columns

        columns = read_qrels_columns(path, format, query=query, doc=doc, grade=grade,
                                     real=as_real(grades),
                                     header=header)
        if format_of(path, format) != "trec":
            return cls._from_columns(columns)
        return cls._trec_checked(path, lambda: cls._from_columns(columns))

    @staticmethod
    def _trec_checked(path, build) -> "Qrels":
        """Build qrels read from a TREC file; a pair judged twice is checked for judgments per intent."""
        try:
            return build()
        except DuplicateError as error:
            raise _as_intents_hint(error, path) from None

    @classmethod
    def from_table(cls, table, *, query: str = "query", doc: str = "doc", grade: str = "grade",
                   source: str = "table", grades: str = "integer") -> "Qrels":
        """Build from a pyarrow Table, a pandas DataFrame or a polars DataFrame.

        Parameters
        ----------
        table : pyarrow.Table, pandas.DataFrame or polars.DataFrame
            One row per judgment; other columns are ignored.
        query, doc, grade : str, optional
            Column names. Ids may be strings or integers (``7`` and ``"7"``
            are one id); grades must be integers (integral floats such as
            ``2.0`` are accepted).
        source : str, optional
            Names the table in messages, which give the 1-based row.
        grades : {"integer", "real"}, optional
            ``real`` keeps real-valued grades (the protocol's ``grades=real``).

        Returns
        -------
        Qrels
            Its ``lines`` are all ``-1``: messages name a table's 1-based row.

        Raises
        ------
        rankproof.errors.ParseError
            If a column is missing, or an id or grade is missing or invalid.
        rankproof.errors.DuplicateError
            If a (query, doc) pair is judged twice.

        Examples
        --------
        >>> import pyarrow as pa
        >>> Qrels.from_table(pa.table({"qid": [1, 1], "docno": ["a", "b"], "rel": [1, 0]}),
        ...                  query="qid", doc="docno", grade="rel").to_dict()
        {'1': {'a': 1, 'b': 0}}
        """
        from ..io.tables import qrels_columns_from_table

        return cls._from_columns(
            qrels_columns_from_table(table, query=query, doc=doc, grade=grade, source=source,
                                     real=as_real(grades))
        )

    @classmethod
    def _from_columns(cls, columns) -> "Qrels":
        return cls(
            query_codes=columns.query_codes, queries=columns.query_vocab,
            doc_codes=columns.doc_codes, docs=columns.doc_vocab,
            grades=columns.grade, lines=columns.line, source=columns.source,
        )

    @classmethod
    def _from_ids(cls, query_ids, doc_ids, grades, lines, source) -> "Qrels":
        query_codes, queries = intern(query_ids)
        doc_codes, docs = intern(doc_ids)
        return cls(query_codes=query_codes, queries=queries, doc_codes=doc_codes, docs=docs,
                   grades=grades, lines=lines, source=source)

    @staticmethod
    def layer(*sources: "Qrels", names=None) -> "LayeredQrels":
        """Qrels from `sources` in order of precedence, each (query, doc) from the first that judged it.

        The result remembers each judgment's source (see
        :mod:`rankproof.data.layering`): evaluating it records the layering
        in the protocol and counts the judged docs inside each cutoff per source.

        >>> human = Qrels.from_dict({"q1": {"a": 2}})
        >>> Qrels.layer(human, Qrels.from_dict({"q1": {"a": 0, "b": 1}}), names=("human", "llm")).to_dict()
        {'q1': {'a': 2, 'b': 1}}
        """
        if any(not isinstance(source, Qrels) for source in sources):
            raise InputError(what="Qrels.layer takes Qrels",
                             fix="read each source with Qrels.read or from_dict")
        columns = merge_sources(sources, names)
        layers, origin = columns.pop("layers"), columns.pop("origin")
        layered = LayeredQrels(**columns)
        object.__setattr__(layered, "layers", layers)
        object.__setattr__(layered, "layer_of_row", read_only(origin))
        return layered

    # -- views -----------------------------------------------------------
    @property
    def real_grades(self) -> bool:
        """Are the grades held as real numbers (read with ``grades='real'``)?"""
        return self.grades.dtype.kind == "f"

    @property
    def empty_queries(self) -> np.ndarray:
        """The queries declared with no judgment (sorted)."""
        return self.queries[np.diff(self.offsets) == 0]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{query: {doc: grade}}`` (a Python object per row: for small data)."""
        return self._by_query(self.grades)

    def __repr__(self) -> str:
        return f"Qrels({self.num_queries} queries, {len(self)} judgments, source={self.source!r})"


class LayeredQrels(Qrels):
    """Qrels made by :meth:`Qrels.layer`: ``layers`` names the sources in order of precedence (the
    protocol's ``judgments`` policy), ``layer_of_row`` the source of every row (aligned with ``doc_codes``)."""

    layers: Any
    layer_of_row: np.ndarray

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, judgments={self.layers})"


def _as_intents_hint(error: "DuplicateError", path) -> "RankproofError":
    """A pair judged twice in a TREC file whose second column differs on the two lines
    ("1 1 d1 1", "1 2 d1 0") is no repeated judgment: the file is NIST's diversity
    qrels (query intent doc grade), to be read as judgments per intent."""
    from ..io.trec import second_columns

    if not isinstance(error.value, tuple):
        return error
    columns = second_columns(path, error.value)
    if len(set(columns)) < 2:
        return error
    return error.replace(fix=f"the second column differs on those lines ({columns[0]} and {columns[1]}): "
                             "this looks like judgments per intent (query intent doc grade, NIST's diversity "
                             "qrels): read them with --intents (IntentQrels.read in Python)")
