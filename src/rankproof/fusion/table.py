"""The component runs side by side: one row per (query, doc) any of them ranks.

Every fusion method is arithmetic over this table, a whole column (a
component run) at a time: no Python loop per query or per doc, except for
Condorcet's pairwise sort and the ``ranx`` tie order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..data.run import Run
from ..errors import InputError
from .ties import FusionTies, order_within

__all__ = ["Table", "build_table", "fused_order", "fused_run", "ranks_of", "run_rows"]


@dataclasses.dataclass(frozen=True)
class Table:
    """Candidates (query, doc) by component runs.

    Attributes
    ----------
    queries, docs : numpy.ndarray of str
        The union of the components' queries and docs, sorted (codes index them).
    query, doc : numpy.ndarray of int64, shape (M,)
        Each candidate's query and doc code. Candidates are grouped by query,
        in order of first appearance: the first component's docs by rank,
        then the docs the second adds, and so on.
    offsets : numpy.ndarray of int64, shape (len(queries) + 1,)
        Each query's candidate rows.
    scores : numpy.ndarray of float64, shape (M, R)
        The component's score of the candidate, NaN where it does not rank it.
    positions : numpy.ndarray of int64, shape (M, R)
        Its 0-based rank in the component, -1 where absent.
    lengths : numpy.ndarray of int64, shape (len(queries), R)
        How many docs each component ranks for each query.
    names : tuple of str
        The components' names.
    """

    queries: np.ndarray
    docs: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    offsets: np.ndarray
    scores: np.ndarray
    positions: np.ndarray
    lengths: np.ndarray
    names: tuple[str, ...]

    @property
    def present(self) -> np.ndarray:
        """(M, R) bool: the component ranks the candidate."""
        return self.positions >= 0

    @property
    def candidates(self) -> np.ndarray:
        """(M,) how many candidates the candidate's query has."""
        return np.diff(self.offsets)[self.query]

    def arrival(self) -> np.ndarray:
        """(M,) each candidate's order of first appearance under the current ranks: the first component
        that ranks it, then its rank there (the candidates' own order until a normalization re-ranks)."""
        present = self.present
        first = np.where(present.any(axis=1), present.argmax(axis=1), present.shape[1])
        rank = self.positions[np.arange(len(first)), np.minimum(first, present.shape[1] - 1)]
        return np.lexsort((np.arange(len(first)), rank, first)).argsort()

    def with_scores(self, scores: np.ndarray, positions: np.ndarray | None = None,
                    lengths: np.ndarray | None = None) -> "Table":
        """The same candidates with other scores (and ranks, and lengths)."""
        return dataclasses.replace(self, scores=scores,
                                   positions=self.positions if positions is None else positions,
                                   lengths=self.lengths if lengths is None else lengths)

    def restricted(self, keep_queries: np.ndarray) -> "Table":
        """The candidates of the queries where ``keep_queries`` (bool per query) is True."""
        keep = keep_queries[self.query]
        kept = np.flatnonzero(keep_queries)
        counts = np.diff(self.offsets)[kept]
        remap = np.full(len(self.queries), -1, dtype=np.int64)
        remap[kept] = np.arange(len(kept))
        return Table(queries=self.queries[kept], docs=self.docs, query=remap[self.query[keep]],
                     doc=self.doc[keep],
                     offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                     scores=self.scores[keep], positions=self.positions[keep],
                     lengths=self.lengths[kept],
                     names=self.names)


def run_rows(run: Run) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query code, doc code, score) per row of ``run``, in its row order."""
    query = np.repeat(np.arange(run.num_queries, dtype=np.int64), np.diff(run.offsets))
    return (query, np.asarray(run.doc_codes, dtype=np.int64),
            np.asarray(run.scores, dtype=np.float64))


def ranks_of(group: np.ndarray, order: np.ndarray) -> np.ndarray:
    """0-based position of each row within its group, given rows sorted by ``order``."""
    sorted_group = group[order]
    starts = (np.concatenate([[True], sorted_group[1:] != sorted_group[:-1]]) if len(order)
              else np.zeros(0, bool))
    first = (np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0)) if len(order)
             else order)
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order)) - first
    return ranks


def build_table(runs: Sequence[Run], ties: FusionTies) -> Table:
    """Align the component runs on their candidates (see :class:`Table`).

    Each component's ranking is its rows by score, descending, equal scores
    ordered by ``ties``. A doc a component lists twice for one query counts
    once, at its better rank.
    """
    if len(runs) < 2:
        raise InputError(source="fuse", what=f"fusion needs two or more runs; got {len(runs)}",
                         fix="give two or more runs")
    queries = np.unique(np.concatenate([np.asarray(r.queries, dtype=str) for r in runs]))
    docs = np.unique(np.concatenate([np.asarray(r.docs, dtype=str) for r in runs]))
    parts = []
    for index, run in enumerate(runs):
        query, doc, score = run_rows(run)
        query = np.searchsorted(queries, np.asarray(run.queries, dtype=str))[query]
        doc = np.searchsorted(docs, np.asarray(run.docs, dtype=str))[doc]
        order = order_within(query, score, np.arange(len(query)), doc, ties)
        query, doc, score = query[order], doc[order], score[order]
        key = query * len(docs) + doc
        _, first = np.unique(key, return_index=True)
        first.sort()                                    # keep the better-ranked copy, in rank order
        query, doc, score = query[first], doc[first], score[first]
        position = ranks_of(query, np.arange(len(query)))
        parts.append((query, doc, score, position, np.full(len(query), index)))
    query, doc, score, position, component = (np.concatenate(column) for column in zip(*parts))
    arrival = np.lexsort((position, component, query))
    key = (query * len(docs) + doc)[arrival]
    unique_keys, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    by_appearance = np.argsort(first, kind="stable")
    slot = np.empty(len(unique_keys), dtype=np.int64)
    slot[by_appearance] = np.arange(len(unique_keys))
    row = np.empty(len(key), dtype=np.int64)
    row[arrival] = slot[inverse.ravel()]
    m, r = len(unique_keys), len(runs)
    scores = np.full((m, r), np.nan)
    positions = np.full((m, r), -1, dtype=np.int64)
    scores[row, component] = score
    positions[row, component] = position
    cand_query = unique_keys[by_appearance] // max(len(docs), 1)
    cand_doc = unique_keys[by_appearance] % max(len(docs), 1)
    counts = np.bincount(cand_query, minlength=len(queries))
    lengths = np.zeros((len(queries), r), dtype=np.int64)
    np.add.at(lengths, (query, component), 1)
    return Table(queries=queries, docs=docs, query=cand_query.astype(np.int64),
                 doc=cand_doc.astype(np.int64),
                 offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), scores=scores,
                 positions=positions, lengths=lengths, names=tuple(run.name for run in runs))


def fused_order(table: Table, fused: np.ndarray, ties: FusionTies) -> np.ndarray:
    """Candidate rows in fused order: by query, fused score descending, equal scores by ``ties``."""
    return order_within(table.query, fused, table.arrival(), table.doc, ties)


def fused_run(table: Table, fused: np.ndarray, ties: FusionTies, name: str,
              order: np.ndarray | None = None) -> Run:
    """The fused run: its rows in fused order (``order``, or the order ``ties`` gives)."""
    if order is None:
        order = fused_order(table, fused, ties)
    return Run(query_codes=table.query[order], queries=table.queries, doc_codes=table.doc[order],
               docs=table.docs, scores=fused[order], source=name, name=name)
