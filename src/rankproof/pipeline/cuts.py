"""Cuts of a run to its top rows: the depth policy, and the top k of set measures."""

from __future__ import annotations

import numpy as np

from ..data.run import Run
from ..errors import TieError
from ..protocol import Protocol, Ties
from .rows import apply_score_precision
from .ties import rank_order_within

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
    # The rows are grouped by query in code order (Run's invariant), so the run's offsets delimit
    # each query's rows: no query column as long as the rows, and a tie across rank k is looked
    # for at each query's k-th row only.
    offsets = run.offsets
    lengths = np.diff(offsets)
    score = apply_score_precision(run.scores, protocol) if run.has_scores else None
    order = rank_order_within(offsets, score, run.doc_codes, protocol)
    if k < 1:
        return np.zeros(0, dtype=np.int64)
    if score is not None and protocol.ties in (Ties.EXPECTED, Ties.ERROR):
        longer = np.flatnonzero(lengths > k)
        last = offsets[longer] + k - 1  # 0-based rank k - 1 of each query with more than k rows
        below, above = (last, last + 1) if order is None else (order[last], order[last + 1])
        crossing = np.flatnonzero(score[below] == score[above])
        if crossing.size:
            value = score[below[crossing[0]]]
            raise TieError(
                what=f"{{docs}} tie at score {value.item()!r} across rank {k} ({crossing.size} {{queries}}), so "
                     f"the top {k} is not determined", source=run.source,
                query=str(run.queries[longer[crossing[0]]]), value=value.item(),
                fix="set the policy ties=input (the given order) or ties=docid")
    kept = np.minimum(lengths, k)
    # Each query's first kept positions in rank order: its offset, plus 0, 1, ... kept - 1.
    positions = (np.arange(int(kept.sum()), dtype=np.int64)
                 + np.repeat(offsets[:-1] - (np.cumsum(kept) - kept), kept))
    return positions if order is None else order[positions]


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
    return Run(query_codes=query[keep], queries=run.queries, doc_codes=run.doc_codes[keep],
               docs=run.docs,
               scores=run.scores[keep], lines=run.lines[keep], source=run.source, name=run.name)
