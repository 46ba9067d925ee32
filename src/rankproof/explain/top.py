"""The numbers behind a DCG-family measure for every query at once, cut at a depth: the rows the
HTML report's drill-down shows (:func:`explain_top`), vectorised over one alignment of the run.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError
from ..evaluation import resolve_protocol
from ..kernels.segments import offsets_of
from ..measures.base import Measure
from ..measures.compute import discount_table, gains_of
from ..measures.parse import parse_measure
from ..pipeline.alignment import align
from ..protocol import Ideal
from ..typing import ProtocolLike
from .pools import expanded_pool, pool_ids

__all__ = ["explain_top", "TopRankings"]


@dataclasses.dataclass(frozen=True)
class TopRankings:
    """The top rows of every query's ranking and ideal list, as flat arrays.

    What :func:`explain` gives for one query, for every evaluated query at
    once, cut at ``depth`` rows. Query ``i``'s ranked rows are
    ``offsets[i]:offsets[i + 1]`` of ``doc``, ``judged``, ``grade``, ``gain``,
    ``discount``, ``contribution`` and ``cumulative``; its ideal rows are
    ``ideal_offsets[i]:ideal_offsets[i + 1]`` of the ``ideal_*`` arrays.
    ``grade`` is 0 where ``judged`` is False.
    """

    queries: list
    measure: Measure
    depth: int
    offsets: np.ndarray
    doc: np.ndarray
    judged: np.ndarray
    grade: np.ndarray
    gain: np.ndarray
    discount: np.ndarray
    contribution: np.ndarray
    cumulative: np.ndarray
    ideal_offsets: np.ndarray
    ideal_doc: np.ndarray
    ideal_grade: np.ndarray
    ideal_gain: np.ndarray
    ideal_cumulative: np.ndarray


def _segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sum of `values` restarting at each of `offsets`."""
    total = np.cumsum(values)
    before = np.concatenate([[0.0], total])[offsets[:-1]]
    return total - np.repeat(before, np.diff(offsets))


def _first_rows(offsets: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the first `depth` rows of each segment, and the new offsets."""
    lengths = np.minimum(np.diff(offsets), depth)
    kept = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    within = np.arange(kept[-1], dtype=np.int64) - np.repeat(kept[:-1], lengths)
    return np.repeat(offsets[:-1], lengths) + within, kept


def explain_top(qrels: Qrels, run: Run, measure: "str | Measure" = "ndcg@10",
                protocol: ProtocolLike = None, *, depth: int = 20) -> TopRankings:
    """:func:`~rankproof.explain.explanation.explain` for every query at once, cut at `depth` rows: the numbers
    behind a DCG-family measure, vectorised (one alignment for the whole run).

    The rows equal what ``explain(qrels, run, query, measure, protocol)``
    gives for the query (its first `depth` ranked rows and ideal rows); a
    judged query the run does not rank has no ranked rows.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2}, "q2": {"C": 1}})
    >>> top = explain_top(qrels, Run.from_dict({"q1": ["B", "E"], "q2": ["C"]}), "ndcg@2")
    >>> top.queries, top.offsets.tolist(), top.doc.tolist()
    (['q1', 'q2'], [0, 2, 3], ['B', 'E', 'C'])
    >>> top.contribution.round(4).tolist()   # 2 / log2(2), 0 (unjudged), 1 / log2(2)
    [2.0, 0.0, 1.0]
    >>> top.ideal_doc.tolist(), top.ideal_cumulative.round(4).tolist()   # 3, 3 + 2 / log2(3)
    (['A', 'B', 'C'], [3.0, 4.2619, 1.0])
    """
    protocol = resolve_protocol(protocol)
    measure = parse_measure(measure)
    if depth < 1:
        raise InputError(what=f"depth must be at least 1; got {depth}", value=depth)
    a = align(qrels, run, protocol)
    gain_policy = measure.setting("gain", protocol) if "gain" in measure.spec.params else protocol.gain
    discount_policy = (measure.setting("discount", protocol) if "discount" in measure.spec.params
                       else protocol.discount)
    lengths = np.diff(a.offsets)
    longest = int(max(lengths.max(initial=0), np.diff(a.pool_offsets).max(initial=0), 1))
    table = discount_table(discount_policy, longest)
    position_query = np.repeat(np.arange(a.num_queries), lengths)
    gains = np.where(a.judged, gains_of(a.grade, gain_policy), 0.0)
    discount = _discounts(a, measure, table, position_query)
    contribution = gains * discount
    cumulative = _segment_cumsum(contribution, a.offsets)
    rows, offsets = _first_rows(a.offsets, depth)
    pool_docs, pool_grades, pool_gains, pool_offsets, ideal_cumulative = _ideal(
        a, measure, protocol, gain_policy, table, position_query)
    ideal_rows, ideal_offsets = _first_rows(pool_offsets, depth)

    return TopRankings(
        queries=a.queries.tolist(), measure=measure, depth=depth, offsets=offsets,
        doc=a.docs[a.doc[rows]].astype(str), judged=a.judged[rows], grade=np.where(a.judged[rows], a.grade[rows], 0),
        gain=gains[rows], discount=discount[rows], contribution=contribution[rows], cumulative=cumulative[rows],
        ideal_offsets=ideal_offsets, ideal_doc=pool_docs[ideal_rows], ideal_grade=pool_grades[ideal_rows],
        ideal_gain=pool_gains[ideal_rows], ideal_cumulative=ideal_cumulative[ideal_rows])


def _discounts(a, measure: Measure, table: np.ndarray, position_query: np.ndarray) -> np.ndarray:
    """Each ranked position's discount: its rank's, or (ties=expected) the mean discount of the
    ranks its tied group spans inside the cutoff, as :func:`~rankproof.explain.explanation.explain`
    gives it."""
    lengths = np.diff(a.offsets)
    cumulative_table = np.concatenate([[0.0], np.cumsum(table)])
    # Per position: its rank within the query and the span of its group.
    start = a.offsets[position_query]
    rank0 = np.arange(len(a.doc), dtype=np.int64) - start
    k = (np.full(len(a.doc), measure.cutoff, dtype=np.int64) if measure.cutoff is not None
         else lengths[position_query])
    group = np.searchsorted(a.group_offsets, np.arange(len(a.doc)), side="right") - 1
    group_lo = a.group_offsets[group] - start
    group_hi = a.group_offsets[group + 1] - start
    size = group_hi - group_lo
    # As explain: a tied group (ties=expected) shares the mean discount of the
    # ranks it spans inside the cutoff; a lone doc gets its rank's discount.
    mean_discount = (cumulative_table[np.minimum(group_hi, k)] - cumulative_table[np.minimum(group_lo, k)]) / size
    own = np.where(rank0 < k, table[np.minimum(rank0, len(table) - 1)], 0.0)
    return np.where(size > 1, mean_discount, own)


def _ideal(a, measure: Measure, protocol, gain_policy, table: np.ndarray, position_query: np.ndarray):
    """Every query's ideal list (its pool by gain descending, then doc id; positive gains only,
    cut as the measure cuts it): (docs, grades, gains, offsets, cumulative DCG)."""
    lengths = np.diff(a.offsets)
    ideal_policy = measure.setting("ideal", protocol) if "ideal" in measure.spec.params else protocol.ideal
    if ideal_policy is Ideal.JUDGED:
        # Every query's pool as the pipeline read it (negative grades per the policy).
        pool_query = np.repeat(np.arange(a.num_queries), np.diff(a.pool_offsets))
        pool_docs, pool_grades = pool_ids(a).astype(str), a.pool_grade
    elif ideal_policy is Ideal.EXPANDED:
        cutoffs = np.full(a.num_queries, measure.cutoff, dtype=np.int64) if measure.cutoff is not None else lengths
        pool_query, pool_docs, pool_grades = expanded_pool(a, cutoffs)
        pool_docs = pool_docs.astype(str)
    else:
        pool_query, pool_docs, pool_grades = (position_query[a.judged], a.docs[a.doc][a.judged].astype(str),
                                              a.grade[a.judged])
    pool_gains = np.maximum(gains_of(pool_grades, gain_policy), 0.0)
    order = np.lexsort((pool_docs, -pool_gains, pool_query))
    keep = order[pool_gains[order] > 0]  # explain stops at the first gain of 0
    pool_query, pool_docs, pool_grades, pool_gains = (pool_query[keep], pool_docs[keep], pool_grades[keep],
                                                      pool_gains[keep])
    pool_offsets = offsets_of(pool_query, a.num_queries)
    ideal_rank0 = np.arange(len(pool_query), dtype=np.int64) - pool_offsets[pool_query]
    if measure.cutoff is not None or ideal_policy is Ideal.EXPANDED:
        cut = np.full(a.num_queries, measure.cutoff if measure.cutoff is not None else np.iinfo(np.int64).max)
        if ideal_policy is Ideal.EXPANDED:  # that ideal is cut at the list's length
            cut = np.minimum(cut, lengths)
        inside = ideal_rank0 < cut[pool_query]
        pool_query, pool_docs, pool_grades, pool_gains, ideal_rank0 = (
            pool_query[inside], pool_docs[inside], pool_grades[inside], pool_gains[inside], ideal_rank0[inside])
        pool_offsets = offsets_of(pool_query, a.num_queries)
    ideal_cumulative = _segment_cumsum(pool_gains * table[ideal_rank0], pool_offsets)
    return pool_docs, pool_grades, pool_gains, pool_offsets, ideal_cumulative
