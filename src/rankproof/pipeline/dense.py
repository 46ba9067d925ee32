"""The alignment of a dense score matrix under ``ties=expected``: :class:`DenseAlignment`.

It implements :class:`~rankproof.pipeline.aligned.AlignmentLike` without
flat arrays: the dense engine (:mod:`rankproof.engines.dense`) reads the
matrix itself (``dense_matrix``), and the counts are made on first use by a
row-wise sort in chunks. Every other engine, and a count the sort does not
give, reads :meth:`DenseAlignment.flat`: the general alignment of the same
matrix (:func:`~rankproof.pipeline.scores.score_alignment`), built once, on
first use.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..data.scores import ScoreInput
from ..protocol import Protocol, Ties
from .aligned import Alignment, DenseMatrix, QueryOffsets, QueryTable
from .scores import POOL_NOTE, base_counts, score_alignment

__all__ = ["DenseAlignment", "dense_applies"]


def dense_applies(scores: ScoreInput, protocol: Protocol) -> bool:
    """Does a :class:`DenseAlignment` hold these scores under this protocol (a dense
    matrix with candidates, no negative grade, ``ties=expected``)?"""
    if not (scores.dense and not scores.negative and protocol.ties is Ties.EXPECTED
            and scores.score.shape[1] > 0):
        return False
    # Masked entries become scores of -inf: a real score of -inf would be taken for one.
    return not (scores.masked and np.isneginf(scores.score).any())


class DenseAlignment(QueryOffsets):
    """An alignment for dense matrices under ``ties=expected`` (see the module docstring).

    It holds what :class:`~rankproof.results.Results` needs (the row names;
    the counts, computed on first use by a row-wise sort in chunks; the
    per-measure cutoff counts) and the matrix itself (``dense_matrix``), from
    which the dense engine computes ndcg, dcg and ideal_dcg.
    """

    notes = (POOL_NOTE,)
    run_source = "y_score"
    qrels_source = "y_true"

    def __init__(self, scores: ScoreInput, protocol: Protocol) -> None:
        self._scores = scores
        self._protocol = protocol
        self._full: Alignment | None = None
        self._counts: dict | None = None
        self._crossing: dict[int, int] = {}
        self.dense_matrix = DenseMatrix(scores.score, scores.relevance)
        self.queries = scores.queries
        rows, columns = scores.score.shape
        self.in_run = np.ones(rows, dtype=bool)
        # Masked entries (NaN scores) are not candidates: the kernel skips them.
        self._mask = np.isnan(scores.score) if scores.masked else None
        lengths = (columns - np.count_nonzero(self._mask, axis=1) if self._mask is not None
                   else np.full(rows, columns))
        self.offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)

    def flat(self) -> Alignment:
        """The general alignment of the same matrix, built on first use."""
        if self._full is None:
            self._full = score_alignment(self._scores, self._protocol)
        return self._full

    @property
    def counts(self) -> dict:
        return self._counts if self._counts is not None else self._count_ties(())

    def _count_ties(self, cutoffs) -> dict:
        counts = base_counts(self._scores)
        # Masked entries sort last as -inf, where no tie among them is counted.
        score = (np.where(self._mask, -np.inf, self._scores.score) if self._mask is not None
                 else self._scores.score)
        counts["tied_groups"], counts["tied_docs"], crossing = _tie_counts(score, cutoffs,
                                                                           self._mask is not None)
        self._counts = counts
        self._crossing.update(crossing)
        return counts

    def cutoff_counts(self, measures) -> dict:
        """Per measure: unjudged docs within its cutoff (none: every candidate is judged) and
        rows whose ranks k and k + 1 tie."""
        cutoffs = sorted({m.cutoff for m in measures if m.cutoff is not None})
        if self._counts is None or not set(cutoffs) <= set(self._crossing):
            self._count_ties(cutoffs)
        return {
            "unjudged_in_cutoff": {str(m): 0 for m in measures if m.cutoff is not None
                                   or m.spec.cutoff},
            "tied_groups_crossing_cutoff": {str(m): self._crossing[m.cutoff] for m in measures
                                            if m.cutoff is not None},
        }

    def step_counts(self, measures, qrels: Any = None) -> Callable[[], dict]:
        """The counts on first use: a sort of the whole matrix, which a covered run never
        asks for."""
        def counts() -> dict:
            return {**self.counts, **self.cutoff_counts(measures)}
        return counts

    def tied_rankings(self) -> int:
        """0: a score matrix's tied rows are told by its front door
        (``frontdoors/scores/_tied``)."""
        return 0

    def query_table(self) -> QueryTable:
        """Per-row facts without the counts: every candidate is judged on this path."""
        rows = self.num_queries
        return QueryTable(queries=self.queries, in_run=self.in_run, retrieved=self.lengths,
                          unjudged_retrieved=np.zeros(rows, dtype=np.int64),
                          qrels_source=self.qrels_source,
                          run_source=self.run_source, notes=self.notes, judged_queries=rows)


def _tie_counts(score: np.ndarray, cutoffs=(), masked: bool = False,
                chunk_rows: int = 8192) -> tuple[int, int, dict]:
    """(tied groups, tied docs) over whole rows of a dense score matrix, and
    for each cutoff k the number of rows whose ranks k and k + 1 tie (a tied
    group crossing the cutoff). ``masked``: scores of -inf are not candidates."""
    groups = docs = 0
    columns = score.shape[1]
    crossing = {k: 0 for k in cutoffs}
    for start in range(0, score.shape[0], chunk_rows):
        block = np.sort(score[start:start + chunk_rows], axis=1)
        same = block[:, 1:] == block[:, :-1]
        if masked:
            same &= block[:, 1:] != -np.inf
        for k in cutoffs:
            # ranks k and k + 1 (descending) are ascending columns m - k and m - k - 1
            if k < columns:
                crossing[k] += int(np.count_nonzero(same[:, columns - k - 1]))
        # A tied group starts where an equal pair follows an unequal one (or the row start).
        starts = same.copy()
        starts[:, 1:] &= ~same[:, :-1]
        group_count = int(np.count_nonzero(starts))
        groups += group_count
        docs += int(np.count_nonzero(same)) + group_count
    return groups, docs, crossing
