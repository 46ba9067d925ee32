"""Run: one system's rankings, held as flat columns.

Rows are grouped by query; within a query they keep their input order (the
tie policies ``input`` and the duplicate policy ``first`` need it). Ordering
by score happens later, in alignment, under the protocol's tie policy.
"""

from __future__ import annotations

import dataclasses

import os
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ParseError, literal
from ..kernels.segments import ranks_within
from .interning import checked_id, intern, sorted_vocabulary
from .numbers import SCORES, finite_floats
from .query_rows import QueryRows
from ..io.lines import no_lines, take_lines

__all__ = ["Run"]


def _grouping_order(query_codes: np.ndarray) -> np.ndarray | None:
    """The stable order that groups rows by query code; None if already grouped.

    Files usually list each query's rows in one block, just not in code order
    (q10 sorts before q2). Then it is enough to order the blocks, which is far
    cheaper than a stable sort of every row.
    """
    n = len(query_codes)
    if n == 0:
        return None
    block_starts = np.flatnonzero(np.r_[True, query_codes[1:] != query_codes[:-1]])
    block_codes = query_codes[block_starts]
    if (np.diff(block_codes) > 0).all():
        return None
    block_order = np.argsort(block_codes, kind="stable")
    ordered_codes = block_codes[block_order]
    if (ordered_codes[1:] == ordered_codes[:-1]).any():
        return np.argsort(query_codes, kind="stable")  # a query in several blocks
    block_lengths = np.diff(np.r_[block_starts, n])[block_order]
    # Row i of the result lies in block b (in the new order) and is row
    # firsts[b] + (i - new_start[b]) of the input: one repeat and one add.
    shift = block_starts[block_order] - (np.cumsum(block_lengths) - block_lengths)
    # int32 where the rows allow: the order is as long as the run, and taking by it costs the same.
    index = np.int32 if n < 2**31 else np.int64
    order = np.repeat(shift.astype(index), block_lengths)
    order += np.arange(n, dtype=index)
    return order


@dataclasses.dataclass(frozen=True, init=False, eq=False, repr=False)
class Run(QueryRows):
    """A system's rankings, immutable and columnar.

    Build one with :meth:`read` (any format), :meth:`read_trec`, :meth:`from_dict`
    (ordered lists or scores), :meth:`from_table` or :meth:`from_pandas`.

    Attributes
    ----------
    queries : numpy.ndarray of str
        Queries the run answers, sorted (a query may have an empty ranking).
    offsets : numpy.ndarray of int64
        Row range of each query, length ``len(queries) + 1``.
    docs : numpy.ndarray of str
        Vocabulary of ranked docs, sorted.
    doc_codes : numpy.ndarray of int64
    scores : numpy.ndarray of float64
        Per row; for a run given as ordered lists, ``-position`` (so sorting
        by score keeps the given order and nothing ties).
    has_scores : bool
        False when the run was given as ordered lists without scores.
    lines : numpy.ndarray of int64
        Line of each row in its source file, ``-1`` when not from a file.
    source, name : str
        Where it came from, and the run's name (the TREC tag when read from a file).

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"B": 0.9, "C": 0.4}, "q2": {"A": 0.5, "B": 0.7}})
    >>> run.num_queries, len(run), run.has_scores
    (2, 4, True)
    >>> Run.from_dict({"q1": ["B", "C"]}).has_scores   # an ordered list: the order is the ranking
    False
    """

    scores: np.ndarray
    has_scores: bool
    lines: np.ndarray
    source: str
    name: str

    def __init__(self, *, query_codes, queries, doc_codes, docs, scores=None, lines=None,
                 source="run", name=None):
        query_codes = np.asarray(query_codes, dtype=np.int64)
        doc_codes = np.asarray(doc_codes, dtype=np.int64)
        queries, query_codes = sorted_vocabulary(np.asarray(queries, dtype=str), query_codes)
        docs, doc_codes = sorted_vocabulary(np.asarray(docs, dtype=str), doc_codes)
        has_scores = scores is not None
        n = len(doc_codes)
        lines = no_lines(n) if lines is None else np.asarray(lines, dtype=np.int64)
        if has_scores:
            scores = np.asarray(scores, dtype=np.float64)
            bad = ~np.isfinite(scores)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                value = scores[i].item()
                raise ParseError(source=source, line=int(lines[i]) if lines[i] >= 0 else None,
                                 query=str(queries[query_codes[i]]), doc=str(docs[doc_codes[i]]),
                                 what=f"score {literal(repr(value))} {SCORES.not_finite}",
                                 fix=SCORES.finite, value=value)

        # Group rows by query, keeping input order inside a query. A query's
        # row count does not depend on the row order, so the query codes
        # themselves are never reordered: the offsets are all that is kept.
        counts = np.bincount(query_codes, minlength=len(queries))
        order = _grouping_order(query_codes)
        del query_codes
        if order is not None:
            doc_codes, lines = doc_codes[order], take_lines(lines, order)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        if has_scores:
            scores = scores[order] if order is not None else scores
        else:
            # Without scores the given order is the ranking: -position keeps it.
            position = ranks_within(counts)
            scores = -position.astype(np.float64)

        self._hold(queries, offsets, docs, doc_codes, scores, has_scores, lines, source, name)

    def _hold(self, queries, offsets, docs, doc_codes, scores, has_scores, lines, source,
              name) -> None:
        """Set the fields (read-only views of the arrays) of rows already grouped by query."""
        self._hold_fields(queries=queries, offsets=offsets, docs=np.asarray(docs, dtype=str),
                          doc_codes=doc_codes, scores=scores, has_scores=has_scores, lines=lines,
                          source=str(source), name=str(name) if name is not None else str(source))


    # -- constructors ----------------------------------------------------
    @classmethod
    def from_dict(cls, rankings: Mapping[str, "Sequence[str] | Mapping[str, float]"], *,
                  source: str = "run", name: str | None = None) -> "Run":
        """Build from ``{query: [doc, ...]}`` (ordered) or ``{query: {doc: score}}``.

        All queries must use the same form: either every ranking is an ordered
        list, or every ranking maps docs to scores.
        """
        query_ids: list[str] = []
        doc_ids: list[str] = []
        scores: list[Any] = []
        kinds = set()
        empty_queries: list[str] = []
        if not isinstance(rankings, Mapping):
            raise ParseError(source=source, fix=f"got {type(rankings).__name__}",
                             what="rankings must be a mapping {{query: [doc, ...]}} or {{query: {{doc: score}}}}")
        for query, ranking in rankings.items():
            checked_id(query, "query", source)
            if isinstance(ranking, Mapping):
                kinds.add("scores")
                items: list[Any] = list(ranking.items())
                doc_ids.extend(checked_id(d, "doc", source, query) for d, _ in items)
                scores.extend(s for _, s in items)
            elif (isinstance(ranking, (str, bytes))
                  or not isinstance(ranking, Sequence | np.ndarray)):
                raise ParseError(source=source, query=str(query),
                                 fix=f"got {type(ranking).__name__}",
                                 what="a ranking must be a list of doc ids or a mapping {{doc: score}}")
            else:
                kinds.add("list")
                items = list(ranking)
                doc_ids.extend(checked_id(d, "doc", source, query) for d in items)
            query_ids.extend([str(query)] * len(items))
            if not items:
                empty_queries.append(str(query))
        if len(kinds) > 1:
            raise ParseError(source=source,
                             what="some rankings are lists and some are {{doc: score}} mappings",
                             fix="use one form for every query")
        all_queries = (np.unique(np.array([str(q) for q in rankings], dtype=str)) if rankings
                       else np.zeros(0, "<U1"))
        query_codes = (np.searchsorted(all_queries, np.array(query_ids, dtype=str)) if query_ids
                       else np.zeros(0, np.int64))
        doc_codes, docs = intern(doc_ids)
        score_array = None
        if "scores" in kinds and scores:
            describe = lambda i: {"source": source, "query": query_ids[i], "doc": doc_ids[i]}  # noqa: E731
            score_array = finite_floats(np.array(scores, dtype=object), describe, SCORES)
        elif "scores" in kinds:
            score_array = np.zeros(0, dtype=np.float64)
        return cls(query_codes=query_codes, queries=all_queries, doc_codes=doc_codes, docs=docs,
                   scores=score_array, source=source, name=name)

    @classmethod
    def from_pandas(cls, frame, *, query: str = "query", doc: str = "doc",
                    score: str | None = "score",
                    source: str = "DataFrame", name: str | None = None) -> "Run":
        """Build from a pandas DataFrame; ``score=None`` means rows are in rank order."""
        wanted = [c for c in (query, doc, score) if c is not None]
        missing = [c for c in wanted if c not in frame.columns]
        if missing:
            raise ParseError(source=source,
                             what=f"no column {literal(', '.join(map(repr, missing)))}",
                             fix=f"columns are {literal(', '.join(map(str, frame.columns)))}. "
                                 "Name them with query=, doc=, score=")
        query_codes, queries = intern(frame[query].to_numpy())
        doc_codes, docs = intern(frame[doc].to_numpy())
        scores = None
        if score is not None:
            query_ids, doc_ids = frame[query].to_numpy(), frame[doc].to_numpy()
            describe = lambda i: {"source": f"{source} row {i}", "query": str(query_ids[i]), "doc": str(doc_ids[i])}  # noqa: E731
            scores = finite_floats(frame[score].to_numpy(), describe, SCORES)
        return cls(query_codes=query_codes, queries=queries, doc_codes=doc_codes, docs=docs,
                   scores=scores, source=source, name=name)

    @classmethod
    def read_trec(cls, path: "str | os.PathLike[str]", *, name: str | None = None) -> "Run":
        """Read a TREC run file (``query col2 doc rank score tag``; ``.gz`` accepted).

        Column 2 and the rank column are ignored: the order comes from the
        scores and the protocol's tie policy, as in trec_eval.
        """
        from ..io.trec import read_trec_run_columns

        columns = read_trec_run_columns(path)
        return cls(query_codes=columns.query_codes, queries=columns.query_vocab,
                   doc_codes=columns.doc_codes, docs=columns.doc_vocab, scores=columns.score,
                   lines=columns.line, source=columns.source,
                   name=name if name is not None else os.path.basename(columns.source))

    @classmethod
    def read(cls, path: "str | os.PathLike[str]", format: str | None = None, *,
             query: str = "query", doc: str = "doc", score: str | None = "score",
             name: str | None = None, header: bool = True) -> "Run":
        """Read a run from a TREC, CSV, TSV, JSON Lines, Parquet or run3 file.

        Parameters
        ----------
        path : str or os.PathLike
            The file; text formats may be gzip-compressed (``.gz``).
        format : {"trec", "csv", "tsv", "jsonl", "parquet", "run3"}, optional
            Without it the extension decides: ``.csv``, ``.tsv``,
            ``.jsonl``/``.ndjson``, ``.parquet`` (each optionally ``.gz``),
            and TREC for anything else (run3, ``query doc score`` lines, when
            the first data line has three columns, the third a number).
        query, doc : str, optional
            Names of the columns (or JSON fields) holding the query and
            document ids. Unused for TREC files.
        score : str or None, optional
            Name of the score column. None means the rows are in rank order
            within each query, best first (then ``has_scores`` is False).
            Unused for TREC files, which always have scores.
        name : str, optional
            The run's name; the file's base name by default.
        header : bool, optional
            As for :meth:`rankproof.Qrels.read`: False reads a CSV or TSV file
            without a header line, its columns by 1-based position (the score
            in column 3 unless named by position: ``score=4``).

        Returns
        -------
        Run
            Named `name` (else the file's base name), its rows grouped by query
            in file order (the order the ``input`` tie policy keeps), and
            ``lines`` each row's line in the file (``-1`` for Parquet).

        Raises
        ------
        rankproof.errors.ParseError
            If the file cannot be read as a run; the message names the file
            and the line (the row, for Parquet).
        """
        from ..io.formats import read_run_columns

        columns = read_run_columns(path, format, query=query, doc=doc, score=score, header=header,
                                   grouped=True)
        return cls._from_columns(columns,
                                 name if name is not None else os.path.basename(columns.source))

    @classmethod
    def from_table(cls, table, *, query: str = "query", doc: str = "doc",
                   score: str | None = "score",
                   source: str = "table", name: str | None = None) -> "Run":
        """Build from a pyarrow Table, a pandas DataFrame or a polars DataFrame.

        Parameters
        ----------
        table : pyarrow.Table, pandas.DataFrame or polars.DataFrame
            One row per ranked document; other columns are ignored.
        query, doc : str, optional
            Column names. Ids may be strings or integers (``7`` and ``"7"``
            are one id).
        score : str or None, optional
            Name of the score column (finite numbers). None means the rows
            are in rank order within each query, best first.
        source : str, optional
            Names the table in messages, which give the 1-based row.
        name : str, optional
            The run's name; `source` by default.

        Returns
        -------
        Run
            Its rows grouped by query in table order; ``lines`` are all
            ``-1``: messages name a table's 1-based row.

        Raises
        ------
        rankproof.errors.ParseError
            If a column is missing, or an id or score is missing or invalid.

        Examples
        --------
        >>> import pyarrow as pa
        >>> run = Run.from_table(pa.table({"query": ["q1", "q1"], "doc": ["b", "a"]}), score=None)
        >>> run.has_scores, list(run.to_dict()["q1"])    # no scores: the row order is the ranking
        (False, ['b', 'a'])
        """
        from ..io.tables import run_columns_from_table

        columns = run_columns_from_table(table, query=query, doc=doc, score=score, source=source,
                                         grouped=True)
        return cls._from_columns(columns, name)

    @classmethod
    def _from_columns(cls, columns, name) -> "Run":
        offsets = getattr(columns, "offsets", None)   # io.grouping.GroupedRunColumns
        if offsets is not None:
            # Read grouped by query (io.tables.grouped_run_columns): sorted vocabularies,
            # finite scores (-position without them), nothing left to reorder.
            run = cls.__new__(cls)
            run._hold(columns.query_vocab, offsets, columns.doc_vocab, columns.doc_codes,
                      columns.score,
                      columns.has_scores, columns.line, columns.source, name)
            return run
        # Without scores, the constructor derives -position from the row
        # order itself, and records that the run had no scores.
        return cls(query_codes=columns.query_codes, queries=columns.query_vocab,
                   doc_codes=columns.doc_codes, docs=columns.doc_vocab,
                   scores=columns.score if columns.has_scores else None,
                   lines=columns.line, source=columns.source, name=name)

    # -- views -----------------------------------------------------------
    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {doc: score}}`` (a Python object per row: for small data)."""
        return self._by_query(self.scores)

    def __repr__(self) -> str:
        return f"Run({self.name!r}: {self.num_queries} queries, {len(self)} ranked docs)"
