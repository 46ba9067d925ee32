"""Cuts of a run to its top rows: the depth policy, and the top k of set measures."""

from __future__ import annotations

import numpy as np

from ..data.run import Run
from ..errors import TieError
from ..protocol import Protocol, Ties
from .rows import apply_score_precision
from .ties import rank_order_within

__all__ = ["top_rows", "top_order", "rows_of_order", "truncate"]


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
    return rows_of_order(run, k, top_order(run, k, protocol))


def top_order(run: Run, k: int, protocol: Protocol) -> "np.ndarray | None":
    """The order of the run's rows within each query under the tie policy (None: the rows are
    in it already, so each query's top k are its first min(k, n) rows), once no group of tied
    scores crosses rank k where :func:`top_rows` refuses one.

    >>> top_order(Run.from_dict({"u": {"a": 1.0, "b": 2.0}}), 1, Protocol()).tolist()
    [1, 0]
    >>> print(top_order(Run.from_dict({"u": {"b": 2.0, "a": 1.0}}), 2, Protocol()))
    None
    """
    # The rows are grouped by query in code order (Run's invariant), so the run's offsets delimit
    # each query's rows: no query column as long as the rows, and a tie across rank k is looked
    # for at each query's k-th row only.
    offsets = run.offsets
    score = apply_score_precision(run.scores, protocol) if run.has_scores else None
    order = rank_order_within(offsets, score, run.doc_codes, protocol)
    if k < 1 or score is None or protocol.ties not in (Ties.EXPECTED, Ties.ERROR):
        return order
    longer = np.flatnonzero(np.diff(offsets) > k)
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
    return order


def rows_of_order(run: Run, k: int, order: "np.ndarray | None") -> np.ndarray:
    """Each query's top k rows, grouped by query in rank order, from the order of
    :func:`top_order` (None: each query's first min(k, n) rows)."""
    if k < 1:
        return np.zeros(0, dtype=np.int64)
    offsets = run.offsets
    kept = np.minimum(np.diff(offsets), k)
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
