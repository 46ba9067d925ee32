"""Cuts of a run to its top rows: the depth policy, and the top k of set measures."""

from __future__ import annotations

import numpy as np

from ..data.run import Run
from ..errors import TieError
from ..protocol import Protocol, Ties
from .rows import apply_score_precision
from .ties import rank_order

__all__ = ["top_rows", "truncate"]


def top_rows(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """Rows of the run ranked within each query's top k, under the tie policy.

    For set measures of the top k (catalogue coverage): the set is defined
    only when no group of tied scores crosses rank k, so under
    ``ties=expected`` and ``ties=error`` such a tie is refused; ``docid`` and
    ``input`` order the tied docs as for every other measure.

    >>> run = Run.from_dict({"u": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> run.docs[run.doc_codes[top_rows(run, 2, Protocol())]].tolist()
    ['a', 'b']
    """
    lengths = np.diff(run.offsets)
    row_query = np.repeat(np.arange(run.num_queries, dtype=np.int64), lengths)
    score = apply_score_precision(run.scores, protocol) if run.has_scores else None
    order = rank_order(row_query, run.num_queries, score, run.doc_codes, protocol)
    if order is None:
        order = np.arange(len(row_query))
    rank = np.arange(len(order)) - np.repeat(run.offsets[:-1], lengths)
    if score is not None and protocol.ties in (Ties.EXPECTED, Ties.ERROR):
        ordered = score[order]
        # A tie crossing the cutoff: 0-based ranks k - 1 and k hold equal scores.
        at_k = np.flatnonzero((rank[1:] == k) & (ordered[1:] == ordered[:-1]))
        if at_k.size:
            query = run.queries[row_query[at_k[0]]]
            raise TieError(
                what=f"{{docs}} tie at score {ordered[at_k[0]].item()!r} across rank {k} ({at_k.size} {{queries}}), so "
                     f"the top {k} is not determined", source=run.source, query=str(query),
                value=ordered[at_k[0]].item(), fix="set the policy ties=input (the given order) or ties=docid")
    return order[rank < k]


def truncate(run: Run, depth: int, protocol: Protocol) -> Run:
    """The depth policy: keep each query's top ``depth`` docs in trec_eval's
    order (score descending, then doc id descending), as trec_eval's -M does
    before anything else, with scores held as the protocol's score_precision
    says (trec_eval 9 compares float32)."""
    lengths = np.diff(run.offsets)
    if len(lengths) == 0 or lengths.max() <= depth:
        return run
    query = np.repeat(np.arange(run.num_queries, dtype=np.int64), lengths)
    order = np.lexsort((-run.doc_codes, -apply_score_precision(run.scores, protocol), query))
    rank = np.arange(len(order), dtype=np.int64) - run.offsets[query]
    keep = order[rank < depth]
    return Run(query_codes=query[keep], queries=run.queries, doc_codes=run.doc_codes[keep], docs=run.docs,
               scores=run.scores[keep], lines=run.lines[keep], source=run.source, name=run.name)
