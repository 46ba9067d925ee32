"""The columns a reader gives: a TREC file's, a table's or a Parquet file's rows, interned.

One entry per data row, in file order; the ids are integer codes into sorted vocabularies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["QrelsColumns", "RunColumns"]


@dataclass(frozen=True)
class _Ids:
    """The query and doc ids of every row, as codes into sorted vocabularies.

    Attributes
    ----------
    query_codes : numpy.ndarray of int64
        Code of each row's query in `query_vocab`.
    query_vocab : numpy.ndarray of str
        Query ids, unique and sorted by code point.
    doc_codes : numpy.ndarray of int64
        Code of each row's document in `doc_vocab`.
    doc_vocab : numpy.ndarray of str
        Document ids, unique and sorted by code point.
    """

    query_codes: np.ndarray
    query_vocab: np.ndarray
    doc_codes: np.ndarray
    doc_vocab: np.ndarray


@dataclass(frozen=True)
class QrelsColumns(_Ids):
    """The judgments of a TREC qrels file, one entry per data line, in file order.

    Besides the ids (`query_codes`, `query_vocab`, `doc_codes`, `doc_vocab`: each row's query
    and doc as codes into vocabularies sorted by code point):

    Attributes
    ----------
    grade : numpy.ndarray of int64
        Relevance grade of each row, as written (negative grades included).
    line : numpy.ndarray of int64
        1-based line number of each row in the original file; ``-1`` for
        rows that have no line (a table in memory, a Parquet file).
    source : str
        The path as given, for messages.
    """

    grade: np.ndarray
    line: np.ndarray
    source: str


@dataclass(frozen=True)
class RunColumns(_Ids):
    """The ranked documents of a TREC run file, one entry per data line, in file order.

    Besides the ids (`query_codes`, `query_vocab`, `doc_codes`, `doc_vocab`, as in
    :class:`QrelsColumns`):

    Attributes
    ----------
    score : numpy.ndarray of float64
        Score of each row; always finite.
    line : numpy.ndarray of int64
        The 1-based line number of each row; ``-1`` where a row has none.
    source : str
        The path as given, for messages.
    tag : str or None
        The run tag (6th column) of the first data line; None when the rows
        did not come from a TREC file.
    has_scores : bool
        False when the source gave no scores and its rows are in rank order
        within each query; `score` then holds ``-position`` within the query
        (0, -1, -2, ...), which sorts into the given order without ties.
        TREC files always have scores.
    """

    score: np.ndarray
    line: np.ndarray
    source: str
    tag: str | None
    # Last and defaulted, so that code building RunColumns positionally or
    # without it keeps working.
    has_scores: bool = True
