"""The aligned ranking table: the protocol every alignment declares, and the pipeline's own.

:class:`AlignmentLike` is what the evaluation step and the planner read of
an alignment, whatever made it. Two kinds implement it:

- :class:`Alignment`, what :func:`~rankproof.pipeline.align` (and a score
  matrix's general path, :func:`~rankproof.pipeline.scores.score_alignment`)
  make: every position as flat arrays in rank order;
- :class:`~rankproof.pipeline.dense.DenseAlignment`, a dense score matrix
  under ``ties=expected``, which offers the matrix itself (``dense_matrix``)
  to the dense engine and builds its flat arrays only when asked
  (:meth:`AlignmentLike.flat`).

The step never asks which kind it holds: what differs (the counts, the tie
warning, the flat arrays) is a method of the protocol.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from .._libs.align_scan import count_per_query, cutoff_counts as count_cutoffs
from ..kernels.segments import offsets_of
from .layers import layer_cutoff_counts
from .ties import in_order, one_tie_per_ranking

__all__ = ["AlignmentLike", "Alignment", "DenseMatrix", "QueryOffsets", "QueryTable", "query_table",
           "cutoff_counts",
           "assume_unjudged"]


class DenseMatrix:
    """What marks an alignment as a dense score matrix the dense engine reads:
    ``score`` (rows, columns; NaN: not a candidate) and ``relevance`` (the
    grades, non-negative). An alignment offers it as ``dense_matrix``."""

    def __init__(self, score: np.ndarray, relevance: np.ndarray) -> None:
        self.score = score
        self.relevance = relevance


@runtime_checkable
class AlignmentLike(Protocol):
    """What the evaluation step and the engines read of an alignment.

    Attributes
    ----------
    queries : array, the evaluated queries
    in_run : bool array, per query: does the run rank it
    offsets : int64 array, each query's positions (len = queries + 1)
    run_source, qrels_source : str, for messages
    notes : tuple of str, facts the printed results state
    dense_matrix : DenseMatrix or None
        The score matrix the dense engine reads; None for flat arrays.
    """

    @property
    def queries(self) -> np.ndarray: ...

    @property
    def in_run(self) -> np.ndarray: ...

    @property
    def offsets(self) -> np.ndarray: ...

    @property
    def run_source(self) -> str: ...

    @property
    def qrels_source(self) -> str: ...

    @property
    def notes(self) -> tuple: ...

    @property
    def num_queries(self) -> int: ...

    @property
    def dense_matrix(self) -> "DenseMatrix | None": ...

    def flat(self) -> "Alignment":
        """The flat arrays every engine but the dense one reads (the alignment itself when
        it is flat)."""
        ...

    def query_table(self) -> "QueryTable":
        """What results keep: the per-query facts."""
        ...

    def step_counts(self, measures, qrels: Any = None) -> "dict | Callable[[], dict]":
        """The results' counts: the policies' and the per-measure cutoff counts (a function giving
        them on first use where counting costs a pass of its own)."""
        ...

    def tied_rankings(self) -> int:
        """Rankings that are each one tie of equal scores, when every ranking of at least two docs
        is (0 otherwise, and where another check warns of tied rows)."""
        ...


class QueryOffsets:
    """What an alignment's query offsets give: the number of queries and each ranking's length."""

    queries: np.ndarray
    offsets: np.ndarray

    @property
    def num_queries(self) -> int:
        return len(self.queries)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


@dataclasses.dataclass(frozen=True)
class Alignment(QueryOffsets):
    """Rankings and pools of every evaluated query, as flat arrays.

    Attributes
    ----------
    queries : str array, the evaluated queries (sorted)
    in_run : bool array, per query: does the run rank it
    offsets : int64 array, ranking positions of each query (len = queries + 1)
    doc, grade, line : int64 arrays, per position in rank order
        (``grade`` is 0 for unjudged docs; ``doc`` indexes ``docs``)
    judged : bool array, per position
    pooled : bool array, per position: the doc appears in the qrels at all,
        including negative grades read as unjudged (trec_eval's "in the pool
        but unjudged", which infAP tells apart from docs never pooled)
    score : float64 array, per position
    group_offsets : int64 array
        Groups whose internal order the measures average over (``ties=expected``);
        under every other tie policy each position is its own group.
    tie_offsets : int64 array
        Groups of equal scores, whatever the tie policy (for counting).
    pool_offsets, pool_grade : the judged grades of each query
    pool_doc, pool_docs : the judged doc of each pool entry, as a code into
        ``pool_docs`` (the qrels' doc vocabulary); None when the input has no doc ids
    counts : dict of int, what the policies touched
    notes : tuple of str, facts about the input that the printed results state
        (e.g. where the ideal pool of a score matrix comes from)
    """

    queries: np.ndarray
    in_run: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    pooled: np.ndarray
    score: np.ndarray
    line: np.ndarray
    group_offsets: np.ndarray
    tie_offsets: np.ndarray
    pool_offsets: np.ndarray
    pool_grade: np.ndarray
    counts: dict
    run_source: str
    qrels_source: str
    notes: tuple = ()
    pool_doc: np.ndarray | None = None
    pool_docs: np.ndarray | None = None

    def query_table(self) -> "QueryTable":
        """What results keep: the per-query facts (see :func:`query_table`)."""
        return query_table(self)

    # Judgments per intent (pipeline/intents.IntentAlignment holds them); none here.
    intents = None  # type: Any

    @property
    def dense_matrix(self) -> None:
        """No score matrix: flat arrays (see :class:`AlignmentLike`)."""
        return None

    def flat(self) -> "Alignment":
        """The alignment itself: its arrays are flat already."""
        return self

    def step_counts(self, measures, qrels: Any = None) -> dict:
        """The policies' counts, the per-measure cutoff counts and those per source of
        layered qrels."""
        return {**self.counts, **cutoff_counts(self, measures),
                **layer_cutoff_counts(self, measures, qrels)}

    def tied_rankings(self) -> int:
        """See :func:`~rankproof.pipeline.ties.one_tie_per_ranking`."""
        return one_tie_per_ranking(self.offsets, self.tie_offsets)

    def in_order(self, order: np.ndarray) -> "Alignment":
        """The positions taken in `order`, each its own group
        (see :func:`~rankproof.pipeline.ties.in_order`)."""
        return in_order(self, order)


@dataclasses.dataclass(frozen=True)
class QueryTable:
    """What results keep of an alignment: one entry per evaluated query, no positions.

    Attributes
    ----------
    queries : str array, the evaluated queries
    in_run : bool array, does the run rank the query
    retrieved : int64 array, docs in the query's ranking (after the row policies)
    unjudged_retrieved : int64 array, unjudged docs among them
    qrels_source, run_source : str, for messages
    notes : tuple of str, facts the printed results state
    grade_range : (lowest, highest) judged grade of the pools, None when unknown
    judged_queries, missing_queries : int, queries judged, and those of them the run does not answer (an
        empty list is an answer: the coverage guard counts it as ranked, missing_query decides its value)
    warnings : tuple of str, what the evaluation step found doubtful (ids that half match, every ranking one tie)
    """

    queries: np.ndarray
    in_run: np.ndarray
    retrieved: np.ndarray
    unjudged_retrieved: np.ndarray
    qrels_source: str
    run_source: str
    notes: tuple = ()
    grade_range: tuple | None = None
    judged_queries: int = 0
    missing_queries: int = 0
    warnings: tuple = ()


def query_table(a: Alignment) -> QueryTable:
    """The per-query facts of an alignment."""
    lengths = a.lengths
    if a.counts.get("unjudged_retrieved", 0):
        unjudged = count_per_query(np.ascontiguousarray(a.offsets, dtype=np.int64),
                                   np.ascontiguousarray(~a.judged).view(np.uint8))
    else:
        unjudged = np.zeros(a.num_queries, dtype=np.int64)
    grade_range = (a.pool_grade.min(), a.pool_grade.max()) if len(a.pool_grade) else None
    return QueryTable(queries=a.queries, in_run=a.in_run, retrieved=lengths,
                      unjudged_retrieved=unjudged,
                      qrels_source=a.qrels_source, run_source=a.run_source, notes=tuple(a.notes),
                      grade_range=grade_range, judged_queries=a.counts.get("queries_in_qrels", 0),
                      missing_queries=a.counts.get("queries_missing_from_run", 0)
                      - a.counts.get("queries_ranked_empty", 0))


def cutoff_counts(a: Alignment, measures) -> dict[str, dict[str, int]]:
    """Per measure: unjudged docs that can land within its cutoff, and tied
    groups crossing it (``unjudged_in_cutoff``, ``tied_groups_crossing_cutoff``).

    A doc whose group of averaged ties starts inside the cutoff can land
    inside it; a tie group crosses cutoff k when it holds ranks k and k + 1.
    One compiled walk over the queries serves every cutoff.
    """
    counts: dict[str, dict[str, int]] = {"unjudged_in_cutoff": {},
                                         "tied_groups_crossing_cutoff": {}}
    cutoffs = sorted({measure.cutoff for measure in measures if measure.cutoff is not None})
    if cutoffs:
        unjudged, crossing = count_cutoffs(
            np.ascontiguousarray(a.offsets, dtype=np.int64),
            np.ascontiguousarray(a.group_offsets, dtype=np.int64),
            np.ascontiguousarray(a.tie_offsets, dtype=np.int64),
            np.ascontiguousarray(a.judged).view(np.uint8),
            np.array(cutoffs, dtype=np.int64))
        at_cutoff = {k: (int(u), int(c)) for k, u, c in zip(cutoffs, unjudged, crossing)}
    unjudged_in_all = None
    for measure in measures:
        if measure.cutoff is None:
            if measure.spec.cutoff:  # a measure that takes a cutoff, given none: the whole ranking
                if unjudged_in_all is None:
                    unjudged_in_all = int(len(a.judged) - np.count_nonzero(a.judged))
                counts["unjudged_in_cutoff"][str(measure)] = unjudged_in_all
            continue
        unjudged_in, crossing_at = at_cutoff[measure.cutoff]
        counts["unjudged_in_cutoff"][str(measure)] = unjudged_in
        counts["tied_groups_crossing_cutoff"][str(measure)] = crossing_at
    return counts


def assume_unjudged(a: Alignment, grade: "int | float", cutoff: int | None = None) -> Alignment:
    """The alignment with every unjudged ranked doc that can land in the top
    `cutoff` (its tie group starts there; every one without a cutoff) judged
    at `grade`, and added to its query's judged pool, so that ideals and R
    count it: the optimistic completion of the judgments (see
    :meth:`rankproof.Results.bounds`).

    >>> from rankproof import Protocol, Qrels, Run
    >>> from rankproof.pipeline import align
    >>> a = align(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["x", "a", "y"]}), Protocol())
    >>> b = assume_unjudged(a, 2, cutoff=2)
    >>> b.grade.tolist(), b.judged.tolist(), sorted(b.pool_grade.tolist())
    ([2, 1, 0], [True, True, False], [1, 2])
    """
    lengths = np.diff(a.offsets)
    position = np.arange(len(a.judged), dtype=np.int64)
    query = np.repeat(np.arange(a.num_queries, dtype=np.int64), lengths)
    group_start = a.group_offsets[np.searchsorted(a.group_offsets, position, side="right") - 1]
    change = ~a.judged
    if cutoff is not None:
        change &= group_start - a.offsets[query] < cutoff
    if not change.any():
        return a
    kind = np.result_type(a.grade.dtype, a.pool_grade.dtype, np.asarray(grade).dtype)
    new_grade = np.where(change, grade, a.grade).astype(kind)
    pool_query = np.repeat(np.arange(a.num_queries, dtype=np.int64), np.diff(a.pool_offsets))
    all_query = np.concatenate([pool_query, query[change]])
    order = np.argsort(all_query, kind="stable")
    pool_grade = np.concatenate([a.pool_grade.astype(kind),
                                 np.full(int(change.sum()), grade, dtype=kind)])[order]
    return dataclasses.replace(a, grade=new_grade, judged=a.judged | change,
                               pooled=a.pooled | change,
                               pool_offsets=offsets_of(all_query, a.num_queries),
                               pool_grade=pool_grade,
                               counts=dict(a.counts))
