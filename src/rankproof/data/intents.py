"""IntentQrels: judgments per intent (query, intent, doc, grade), and intent weights.

The judgments of the diversity measures (alpha-nDCG, ERR-IA, nDCG-IA, P-IA,
subtopic recall; see :mod:`rankproof.measures.diversity`). Rows are sorted by
(query, doc, intent). Intents of a query are ordered by their id, numerically
when every intent id is a decimal integer (as NIST's ndeval numbers
subtopics), else by code point.

Intent weights are optional; without them every intent of a query that has a
relevant doc weighs the same (ndeval's convention). Given weights are
renormalised per query over those intents (see
:func:`rankproof.measures.diversity.intent_weights`).

Every other measure sees the doc-level judgments :attr:`IntentQrels.doc_qrels`:
a doc's grade is its highest grade over the intents (relevant to the query
when relevant to some intent, as ndeval's MAP reads it).
"""

from __future__ import annotations

import dataclasses
import math
import os
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from ..errors import DuplicateError, InputError, literal
from .interning import checked_id, checked_mapping
from .qrels import Qrels, integer_grades

__all__ = ["IntentQrels"]

IntentWeights = Mapping[str, Mapping[str, float]]


def _intent_order(intents: np.ndarray) -> np.ndarray:
    """The intent vocabulary sorted: numerically when all are decimal integers."""
    unique = np.unique(intents)
    if len(unique) and all(text.isdecimal() and text.isascii() for text in unique.tolist()):
        return unique[np.argsort([int(text) for text in unique.tolist()], kind="stable")]
    return unique


@dataclasses.dataclass(frozen=True, init=False, eq=False, repr=False)
class IntentQrels:
    """Relevance judgments per intent (subtopic), immutable and columnar.

    Build one with :meth:`read` (TREC diversity format ``query intent doc
    grade``, or a CSV/TSV/JSON Lines/Parquet file with an intent column),
    :meth:`from_dict`, :meth:`from_table`; add weights with
    :meth:`with_weights`.

    Attributes
    ----------
    queries, docs, intents : numpy.ndarray of str
        Sorted vocabularies (intents: numerically when all are integers).
    query_codes, intent_codes, doc_codes, grades, lines : numpy.ndarray of int64
        Per row, sorted by (query, doc, intent).
    weights : mapping query -> {intent: weight} or None
        As given; None means uniform over the intents with a relevant doc.
    source : str

    Examples
    --------
    >>> qrels = IntentQrels.from_dict({"q1": {"1": {"a": 1, "b": 0}, "2": {"b": 2}}})
    >>> qrels.num_queries, len(qrels), qrels.doc_qrels.to_dict()
    (1, 3, {'q1': {'a': 1, 'b': 2}})
    """

    queries: np.ndarray
    docs: np.ndarray
    intents: np.ndarray
    query_codes: np.ndarray
    intent_codes: np.ndarray
    doc_codes: np.ndarray
    grades: np.ndarray
    lines: np.ndarray
    source: str
    weights: "IntentWeights | None"

    def __init__(self, *, query: Any, intent: Any, doc: Any, grade: Any, line: Any = None,
                 source: str = "qrels", weights: "IntentWeights | None" = None) -> None:
        query = np.asarray(query, dtype=str)
        intent = np.asarray(intent, dtype=str)
        doc = np.asarray(doc, dtype=str)
        grade = integer_grades(np.asarray(grade),
                               lambda i: {"source": source, "query": str(query[i]),
                                                             "doc": str(doc[i])}, real_hint=False)
        line = (np.full(len(grade), -1, dtype=np.int64) if line is None
                else np.asarray(line, dtype=np.int64))
        if len(grade) == 0:
            raise InputError(source=source, what="the qrels hold no judgments",
                             fix="give at least one ({query}, intent, {doc}, {grade})")
        queries, query_codes = np.unique(query, return_inverse=True)
        docs, doc_codes = np.unique(doc, return_inverse=True)
        intents = _intent_order(intent)
        # The code of an intent is its place in `intents` (which may be in numeric order).
        string_order = np.argsort(intents)
        intent_codes = string_order[np.searchsorted(intents[string_order], intent)]
        order = np.lexsort((intent_codes, doc_codes, query_codes))
        query_codes, doc_codes, intent_codes = (a.reshape(-1)[order].astype(np.int64) for a in
                                                (query_codes, doc_codes, intent_codes))
        grade, line = grade[order], line[order]
        same = ((query_codes[1:] == query_codes[:-1]) & (doc_codes[1:] == doc_codes[:-1])
                & (intent_codes[1:] == intent_codes[:-1]))
        if same.any():
            i = int(np.flatnonzero(same)[0]) + 1
            at = f" (lines {line[i - 1]} and {line[i]})" if line[i] >= 0 else ""
            raise DuplicateError(source=source,
                                 line=int(max(line[i - 1], line[i])) if line[i] >= 0 else None,
                                 query=str(queries[query_codes[i]]), doc=str(docs[doc_codes[i]]),
                                 what=f"intent {literal(intents[intent_codes[i]])} is {{judged}} twice{at}",
                                 fix="keep one {judgment} per ({query}, intent, {doc})")
        set_ = object.__setattr__
        for name, value in (("queries", queries), ("docs", docs), ("intents", intents),
                            ("query_codes", query_codes), ("intent_codes", intent_codes),
                            ("doc_codes", doc_codes), ("grades", grade), ("lines", line)):
            value.flags.writeable = False
            set_(self, name, value)
        set_(self, "source", str(source))
        set_(self, "weights", None if weights is None else _checked_weights(weights, self))

    # -- constructors ----------------------------------------------------
    @classmethod
    def from_dict(cls, judgments: Mapping[str, Mapping[str, Mapping[str, int]]], *,
                  source: str = "qrels",
                  weights: "IntentWeights | None" = None) -> "IntentQrels":
        """Build from ``{query: {intent: {doc: grade}}}``.

        >>> IntentQrels.from_dict({"q1": {"1": {"a": 1.5}}})
        Traceback (most recent call last):
        ...
        rankproof.errors.ParseError: qrels: query q1, doc a: grade 1.5 is not an integer; grades must be integers (map fractional labels to integer grades first)
        """
        rows: list[tuple[str, str, str]] = []
        grades: list[Any] = []
        shape = "{{query: {{intent: {{doc: grade}}}}}}"
        for query, intents in checked_mapping(judgments, shape, source).items():
            for intent, docs in checked_mapping(intents, "{{intent: {{doc: grade}}}}", source,
                                                query).items():
                for doc, grade in checked_mapping(docs, "{{doc: grade}}", source, query,
                                                  prefix=f"intent {literal(intent)}: ").items():
                    rows.append((checked_id(query, "query", source),
                                 checked_id(intent, "intent", source, query),
                                 checked_id(doc, "doc", source, query)))
                    grades.append(grade)
        describe = lambda i: {"source": source, "query": rows[i][0], "doc": rows[i][2]}  # noqa: E731
        grade_array = integer_grades(np.array(grades, dtype=object) if grades
                                     else np.zeros(0, np.int64), describe,
                                      real_hint=False)
        return cls(query=[r[0] for r in rows], intent=[r[1] for r in rows],
                   doc=[r[2] for r in rows],
                   grade=grade_array, source=source, weights=weights)

    @classmethod
    def read(cls, path: "str | os.PathLike[str]", format: str | None = None, *,
             query: str = "query",
             intent: str = "intent", doc: str = "doc", grade: str = "grade",
             weights: "IntentWeights | str | os.PathLike[str] | None" = None) -> "IntentQrels":
        """Read judgments per intent.

        Parameters
        ----------
        path : str or os.PathLike
            A TREC diversity qrels file (``query intent doc grade``), or a
            CSV, TSV, JSON Lines or Parquet file with an intent column.
        format : {"trec", "csv", "tsv", "jsonl", "parquet"}, optional
            Without it the extension decides, TREC otherwise.
        query, intent, doc, grade : str, optional
            Column names of table formats (unused for TREC files).
        weights : mapping or path, optional
            Intent weights ``{query: {intent: weight}}``, or a file of
            ``query intent weight`` lines.
        """
        from ..io.formats import QRELS, format_of, read_table
        from ..io.intents import intent_columns_from_table, read_trec_intent_qrels

        fmt = format_of(path, format)
        if fmt == "trec":
            columns = read_trec_intent_qrels(path)
        else:
            named = {"query": query, "intent": intent, "doc": doc, "grade": grade}
            table, lines, source = read_table(path, fmt, named, QRELS)
            columns = intent_columns_from_table(table, query=query, intent=intent, doc=doc,
                                                grade=grade,
                                                source=source, lines=lines)
        return cls(query=columns.query, intent=columns.intent, doc=columns.doc, grade=columns.grade,
                   line=columns.line, source=columns.source, weights=_weights_argument(weights))

    @classmethod
    def from_table(cls, table, *, query: str = "query", intent: str = "intent", doc: str = "doc",
                   grade: str = "grade", source: str = "table",
                   weights: "IntentWeights | str | os.PathLike[str] | None" = None) -> "IntentQrels":
        """Build from a pyarrow Table, a pandas DataFrame or a polars DataFrame with an intent column.

        >>> import pandas as pd
        >>> frame = pd.DataFrame({"query": ["1", "1"], "intent": [1, 2], "doc": ["a", "b"], "grade": [1, 1]})
        >>> IntentQrels.from_table(frame).to_dict()
        {'1': {'1': {'a': 1}, '2': {'b': 1}}}
        """
        from ..io.intents import intent_columns_from_table

        columns = intent_columns_from_table(table, query=query, intent=intent, doc=doc, grade=grade,
                                            source=source)
        return cls(query=columns.query, intent=columns.intent, doc=columns.doc, grade=columns.grade,
                   line=columns.line, source=columns.source, weights=_weights_argument(weights))

    def with_weights(self, weights: "IntentWeights | str | os.PathLike[str]") -> "IntentQrels":
        """The same judgments with intent weights (a mapping or a ``query intent weight`` file).

        Only the weights of intents with a relevant doc are used (renormalised
        per query); the others, and weights of queries not judged, are not.

        >>> qrels = IntentQrels.from_dict({"q1": {"1": {"a": 1}, "2": {"b": 1}}})
        >>> qrels.with_weights({"q1": {"1": 3, "2": 1}}).weights
        {'q1': {'1': 3.0, '2': 1.0}}
        """
        return IntentQrels(query=self.queries[self.query_codes],
                           intent=self.intents[self.intent_codes],
                           doc=self.docs[self.doc_codes], grade=self.grades, line=self.lines,
                           source=self.source,
                           weights=_weights_argument(weights))

    # -- views -----------------------------------------------------------
    @property
    def num_queries(self) -> int:
        return len(self.queries)

    def __len__(self) -> int:
        return len(self.grades)

    @cached_property
    def doc_qrels(self) -> Qrels:
        """Doc-level judgments: each (query, doc) with its highest grade over the intents."""
        key = self.query_codes * max(len(self.docs), 1) + self.doc_codes
        first = np.concatenate([[True], key[1:] != key[:-1]])
        starts = np.flatnonzero(first)
        grades = np.maximum.reduceat(self.grades, starts)
        return Qrels(query_codes=self.query_codes[starts], queries=self.queries,
                     doc_codes=self.doc_codes[starts],
                     docs=self.docs, grades=grades, lines=self.lines[starts], source=self.source)

    def to_dict(self) -> dict[str, dict[str, dict[str, int]]]:
        """``{query: {intent: {doc: grade}}}`` (for small data)."""
        out: dict[str, dict[str, dict[str, int]]] = {}
        for q, i, d, g in zip(self.queries[self.query_codes].tolist(),
                              self.intents[self.intent_codes].tolist(),
                              self.docs[self.doc_codes].tolist(), self.grades.tolist()):
            out.setdefault(q, {}).setdefault(i, {})[d] = g
        return {q: {i: out[q][i] for i in sorted(out[q], key=list(self.intents).index)}
                for q in out}

    def __repr__(self) -> str:
        return (f"IntentQrels({self.num_queries} queries, {len(self.intents)} intents, {len(self)} judgments, "
                f"source={self.source!r})")


def _weights_argument(weights: "IntentWeights | str | os.PathLike[str] | None") -> "IntentWeights | None":
    if weights is None or isinstance(weights, Mapping):
        return weights
    if isinstance(weights, (str, os.PathLike)):
        from ..io.intents import read_intent_weights

        return read_intent_weights(weights)
    raise InputError(what="intent weights must be a mapping {{query: {{intent: weight}}}} or a file of "
                          "'query intent weight' lines", fix=f"got {type(weights).__name__}")


def _checked_weights(weights: IntentWeights, qrels: IntentQrels) -> dict[str, dict[str, float]]:
    """IntentWeights as {query: {intent: float}}: finite, non-negative, ids as text."""
    if not isinstance(weights, Mapping):
        raise InputError(what="intent weights must be a mapping {{query: {{intent: weight}}}}",
                         fix=f"got {type(weights).__name__}")
    checked: dict[str, dict[str, float]] = {}
    for query, per_intent in weights.items():
        q = checked_id(query, "query", "intent weights")
        if not isinstance(per_intent, Mapping):
            raise InputError(source="intent weights", query=q,
                             what="give a mapping {{intent: weight}}",
                             fix=f"got {type(per_intent).__name__}")
        for intent, weight in per_intent.items():
            i = checked_id(intent, "intent", "intent weights", q)
            ok = (isinstance(weight, (int, float, np.integer, np.floating))
                  and not isinstance(weight, bool))
            if not ok or not math.isfinite(float(weight)) or float(weight) < 0:
                raise InputError(source="intent weights", query=q, value=weight,
                                 what=f"the weight of intent {literal(i)} is {literal(repr(str(weight)[:40]))}",
                                 fix="give a finite non-negative number")
            checked.setdefault(q, {})[i] = float(weight)
    return checked
