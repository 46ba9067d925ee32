"""Order and tie groups: rows ranked within their query, and the ``ties`` policy's groups."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .._libs.align_scan import sort_segments, tie_runs
from ..errors import InputError, TieError, literal
from ..protocol import Aggregation, Protocol, Ties
from ..kernels.segments import offsets_of, segment_of

__all__ = ["sort_within_queries", "sort_within_offsets", "rank_order", "rank_order_within",
           "tie_groups", "group_ties",
           "one_tie_per_ranking", "in_order", "merit_order", "tie_orders", "tied_orders",
           "TIE_ORDERS_LIMIT"]


def sort_within_queries(row_query: np.ndarray, num_queries: int, key: np.ndarray,
                        tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Stable order of rows grouped by query (ascending), then by `key`
    ascending, then by `tiebreak` ascending: ``np.lexsort((tiebreak, key, row_query))``.

    When `row_query` is grouped (each query's rows contiguous, in query
    order, as the rows of a :class:`~rankproof.data.run.Run` are), each
    query's rows are sorted on their own (:func:`sort_within_offsets`);
    otherwise by ``np.lexsort``.

    >>> sort_within_queries(np.array([0, 0, 0, 1, 1]), 2, np.array([3., 1., 2., 5., 4.])).tolist()
    [1, 2, 0, 4, 3]
    """
    n = len(row_query)
    grouped = n == 0 or bool((row_query[1:] >= row_query[:-1]).all())
    if not grouped:
        return np.lexsort((key, row_query) if tiebreak is None else (tiebreak, key, row_query))
    return sort_within_offsets(offsets_of(np.asarray(row_query, dtype=np.int64), num_queries), key,
                               tiebreak)


def _exact(key: np.ndarray) -> bool:
    """Does float64 hold every value of `key` exactly (the compiled sort compares float64)?"""
    return (key.dtype.kind == "f"
            or (key.dtype.kind in "iu" and (len(key) == 0 or np.abs(key).max() <= 2**53)))


def sort_within_offsets(offsets: np.ndarray, key: np.ndarray,
                        tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Stable order of rows within each query by `key` ascending, then by
    `tiebreak` ascending, the queries' rows delimited by `offsets`.

    Rankings are short (tens of docs per user in recommender logs): one
    compiled pass sorts each query's rows on its own (insertion, or a merge
    sort for long rankings; :func:`rankproof._libs.align_scan.sort_segments`),
    where a lexsort would sort every row at once. Integer keys beyond
    float64's exact range go to ``np.lexsort``.

    >>> sort_within_offsets(np.array([0, 3, 5]), np.array([3., 1., 2., 5., 4.])).tolist()
    [1, 2, 0, 4, 3]
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if not _exact(key):
        row_query = segment_of(np.diff(offsets))
        return np.lexsort((key, row_query) if tiebreak is None else (tiebreak, key, row_query))
    return sort_segments(offsets, np.ascontiguousarray(key, dtype=np.float64),
                         None if tiebreak is None
                         else np.ascontiguousarray(tiebreak, dtype=np.int64))


def tie_groups(offsets: np.ndarray, row_score: np.ndarray | None, counts: dict) -> np.ndarray:
    """Offsets of the runs of equal scores within each query of rows in rank
    order (the queries delimited by `offsets`); one run per row when there are
    no scores. Records ``tied_groups`` and ``tied_docs`` (runs of two rows or
    more, and their rows) in `counts`."""
    n = int(offsets[-1])
    if row_score is None or n == 0:
        counts["tied_groups"] = counts["tied_docs"] = 0
        return np.arange(n + 1, dtype=np.int64)
    tie_offsets, counts["tied_groups"], counts["tied_docs"] = tie_runs(
        np.ascontiguousarray(offsets, dtype=np.int64),
        np.ascontiguousarray(row_score, dtype=np.float64))
    return tie_offsets



def rank_order(row_query: np.ndarray, num_queries: int, score: np.ndarray | None, doc: np.ndarray,
               protocol: Protocol) -> np.ndarray | None:
    """The order of rows within each query that the tie policy gives; None
    when the rows are already in it (most runs list docs by score descending).
    Rows must be grouped by query; :func:`rank_order_within` says more.
    """
    if score is None:
        return None
    if len(row_query) and not bool((row_query[1:] >= row_query[:-1]).all()):
        # grouped, but not in query order: lexsort puts the queries in order too
        if not _out_of_order(row_query[1:] == row_query[:-1], score, doc, protocol):
            return None
        key = -score
        return np.lexsort((key, row_query) if protocol.ties is not Ties.DOCID
                          else (-doc, key, row_query))
    return rank_order_within(offsets_of(np.asarray(row_query, dtype=np.int64), num_queries), score,
                             doc, protocol)


def _out_of_order(same_query: np.ndarray, score: np.ndarray, doc: np.ndarray,
                  protocol: Protocol) -> bool:
    """Is any pair of neighbouring rows of one query out of the tie policy's order?"""
    if protocol.ties is Ties.DOCID:
        in_order = (~same_query | (score[1:] < score[:-1])
                    | ((score[1:] == score[:-1]) & (doc[1:] < doc[:-1])))
    else:
        in_order = ~same_query | (score[1:] <= score[:-1])
    return not bool(in_order.all())


def rank_order_within(offsets: np.ndarray, score: np.ndarray | None, doc: np.ndarray,
                      protocol: Protocol) -> np.ndarray | None:
    """The order of rows within each query (delimited by `offsets`) that the
    tie policy gives; None when the rows are already in it.

    Score descending; tied rows in input order (``expected``, ``input``,
    ``error``: a stable sort), or by doc code descending (``docid``:
    trec_eval's strcmp order, as codes compare like ids). Without scores the
    rows are already ranked.

    >>> from rankproof.protocol import Protocol
    >>> rank_order_within(np.array([0, 2, 4]), np.array([1., 2., 5., 4.]), np.arange(4), Protocol()).tolist()
    [1, 0, 2, 3]
    """
    if score is None or len(score) < 2:
        return None
    n = len(score)
    same_query = np.ones(n - 1, dtype=bool)
    starts = np.asarray(offsets[1:-1])
    same_query[starts[(starts > 0) & (starts < n)] - 1] = False
    if not _out_of_order(same_query, score, doc, protocol):
        return None
    del same_query
    if protocol.ties is Ties.DOCID:
        return sort_within_offsets(offsets, -score, -doc)
    return sort_within_offsets(offsets, -score)


def group_ties(offsets: np.ndarray, score: np.ndarray | None, protocol: Protocol, counts: dict,
               describe_tie: Callable[[int, int], "dict | str"]) -> tuple[np.ndarray, np.ndarray]:
    """The ``ties`` policy's groups: (group offsets, tie offsets) of rows in rank order,
    the queries delimited by `offsets`.

    Tie offsets delimit runs of equal scores whatever the policy (for
    counting); group offsets delimit what the measures average over: the tie
    runs under ``ties=expected``, one row each otherwise. ``ties=error``
    refuses the first tie, named by ``describe_tie(lo, hi)``: the fields of
    the error (``what`` and where), or a finished description.
    """
    n = int(offsets[-1])
    tie_offsets = tie_groups(offsets, score, counts)
    if protocol.ties is Ties.ERROR and counts["tied_groups"]:
        g = int(np.flatnonzero(np.diff(tie_offsets) > 1)[0])
        lo, hi = int(tie_offsets[g]), int(tie_offsets[g + 1])
        described = describe_tie(lo, hi)
        in_all = f" ({counts['tied_groups']} tied groups in all)"
        fix = "set the policy ties=expected for the exact mean over their orders, or ties=docid for trec_eval's order"
        if isinstance(described, str):  # a finished description
            raise TieError(f"{described}{in_all}; {fix}")
        raise TieError(**{**described, "what": described["what"] + in_all}, fix=fix)
    if (protocol.ties is Ties.EXPECTED and score is not None) or not counts["tied_groups"]:
        return tie_offsets, tie_offsets  # without ties, one group per position either way
    return np.arange(n + 1, dtype=np.int64), tie_offsets



def one_tie_per_ranking(offsets: np.ndarray, tie_offsets: np.ndarray) -> int:
    """How many rankings of two docs or more are one tie of equal scores from first to last,
    when every such ranking is (0 when any one is not, or none has two docs).

    >>> one_tie_per_ranking(np.array([0, 3, 4, 6]), np.array([0, 3, 4, 6]))  # rankings of 3, 1 and 2 docs
    2
    >>> one_tie_per_ranking(np.array([0, 3, 4]), np.array([0, 1, 3, 4]))  # the first: 1 doc, then a tie of 2
    0
    """
    lengths = np.diff(offsets)
    long = lengths >= 2
    if not long.any():
        return 0
    # A ranking is one tie when its start is a tie offset and the next tie offset is its end.
    at = np.searchsorted(tie_offsets, offsets[:-1][long])
    starts = tie_offsets[np.minimum(at, len(tie_offsets) - 1)] == offsets[:-1][long]
    ends = tie_offsets[np.minimum(at + 1, len(tie_offsets) - 1)] == offsets[1:][long]
    return int(long.sum()) if bool((starts & ends).all()) else 0


def in_order(a, order: np.ndarray):
    """The alignment `a` with its ranked positions taken in `order` (a
    permutation that keeps each query's positions within the query), each
    position its own group: the measures read that one order. Judgments per
    intent, when attached, move with their positions."""
    fields = {name: getattr(a, name)[order]
              for name in ("doc", "grade", "judged", "pooled", "score", "line")}
    intents = getattr(a, "intents", None)
    if intents is not None:
        starts, lengths = (intents.position_offsets[:-1][order],
                           np.diff(intents.position_offsets)[order])
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        take = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
        fields["intents"] = dataclasses.replace(intents, position_offsets=offsets,
                                                position_pair=intents.position_pair[take],
                                                position_grade=intents.position_grade[take])
    return dataclasses.replace(a, **fields, group_offsets=np.arange(len(a.doc) + 1, dtype=np.int64),
                               counts=dict(a.counts))


def merit_order(tie_offsets: np.ndarray, merit: np.ndarray, descending: bool) -> np.ndarray:
    """The positions with each tied group (runs of `tie_offsets`) sorted by
    `merit`, descending or ascending; equal merits keep their order.

    >>> merit_order(np.array([0, 3, 4]), np.array([0., 2., 1., 5.]), True).tolist()
    [1, 2, 0, 3]
    """
    group = np.repeat(np.arange(len(tie_offsets) - 1), np.diff(tie_offsets))
    return np.lexsort((-merit if descending else merit, group))


def _distinct_orders(labels: list) -> list[tuple]:
    """Every distinct order of a multiset of labels (each once)."""
    remaining: dict = {}
    for label in labels:
        remaining[label] = remaining.get(label, 0) + 1
    found: list[tuple] = []

    def extend(prefix: list) -> None:
        if len(prefix) == len(labels):
            found.append(tuple(prefix))
            return
        for label in list(remaining):
            if remaining[label]:
                remaining[label] -= 1
                extend(prefix + [label])
                remaining[label] += 1

    extend([])
    return found


def _orders_of_group(lo: int, labels: list) -> list[np.ndarray]:
    """A group's distinct orders as positions: the rows of one label in their order."""
    orders = []
    for sequence in _distinct_orders(labels):
        rows: dict = {}
        for offset, label in enumerate(labels):
            rows.setdefault(label, []).append(lo + offset)
        orders.append(np.array([rows[label].pop(0) for label in sequence], dtype=np.int64))
    return orders


def _multinomial(labels: list) -> int:
    import math
    count = math.factorial(len(labels))
    for label in set(labels):
        count //= math.factorial(labels.count(label))
    return count


def tie_orders(offsets: np.ndarray, tie_offsets: np.ndarray, classes: np.ndarray, limit: int,
               describe: Callable[[int, int], str]):
    """Every distinct order of the tied docs of every query, as permutations of
    all positions: the j-th permutation takes each query's j-th order (orders
    differ only where docs of a different `classes` value are tied; a query
    with fewer orders repeats its first; the first permutation is the identity
    when nothing varies). Queries are independent, so the
    per-query minimum and maximum over these permutations are those over
    every order of every query. More than `limit` orders for one query raise
    :class:`~rankproof.errors.TieError` (``describe(query, orders)`` says what).
    """
    sizes = np.diff(tie_offsets)
    query_of_group = np.searchsorted(offsets, tie_offsets[:-1], side="right") - 1
    per_query: dict[int, list] = {}
    for g in np.flatnonzero(sizes > 1).tolist():
        lo, hi = int(tie_offsets[g]), int(tie_offsets[g + 1])
        labels = classes[lo:hi].tolist()
        if len(set(labels)) > 1:
            per_query.setdefault(int(query_of_group[g]), []).append((lo, labels))
    counts = {}
    for q, groups in per_query.items():
        counts[q] = 1
        for _, labels in groups:
            counts[q] *= _multinomial(labels)
            if counts[q] > limit:
                raise TieError(what=describe(q, counts[q]),
                               fix="ask the range of measures with a merit order (ndcg, dcg, ap, p, r, rr, ...), "
                                   "or break the ties (ties=docid) for this measure")
    expanded = {q: [(lo, _orders_of_group(lo, labels)) for lo, labels in groups]
                for q, groups in per_query.items()}
    identity = np.arange(int(offsets[-1]), dtype=np.int64)
    for j in range(max(counts.values(), default=1)):
        order = identity.copy()
        for q, groups in expanded.items():
            index = j if j < counts[q] else 0
            for lo, orders in groups:  # the mixed-radix digits of index, one per group
                index, digit = divmod(index, len(orders))
                order[lo:lo + len(orders[digit])] = orders[digit]
        yield order


# The most distinct orders of one query's tied docs enumerated for a measure without a merit order.
TIE_ORDERS_LIMIT = 720


def tied_orders(alignment, protocol: Protocol, measures: Sequence[Any],
                limit: int = TIE_ORDERS_LIMIT) -> Iterator[tuple[Any, list]]:
    """The reorderings of a flat alignment over which each measure's range over tied orders is
    taken (see :meth:`rankproof.Results.tie_range`), whatever the tie policy: ``(alignment in one
    order, the measures it is evaluated for)``, each position its own group
    (:meth:`~rankproof.pipeline.aligned.Alignment.in_order`).

    A measure with a merit order (``MeasureSpec.tie_merit``, :mod:`rankproof.measures.extremes`)
    reads two orders, each tied group sorted by merit descending, then ascending (measures of one
    merit share them); the others read every distinct order of each query's tied docs
    (:func:`tie_orders`: docs tell apart by grade and judgment, or every doc under judgments per
    intent or for a measure reading other queries' judgments), refused beyond `limit` orders for
    one query. The planner evaluates them in the step's pass
    (:func:`rankproof.engines.plan.compute_pass`); they are made as it asks for them.
    """
    if protocol.aggregation is Aggregation.MICRO:
        raise InputError(what="the range over tied orders is averaged per {query} "
                              "(aggregation=macro or weighted); aggregation=micro has none per "
                              "{query}",
                         fix="set aggregation=macro")
    by_merit: list[tuple[np.ndarray, list]] = []
    enumerated: list = []
    for measure in measures:
        merit_of = measure.spec.tie_merit
        merit = (None if merit_of is None
                 else merit_of(alignment.grade, alignment.judged, measure, protocol))
        if merit is None:
            enumerated.append(measure)
            continue
        same = next((group for m, group in by_merit if np.array_equal(m, merit)), None)
        if same is None:
            by_merit.append((merit, [measure]))
        else:
            same.append(measure)
    return _reorderings(alignment, protocol, by_merit, enumerated, limit)


def _reorderings(alignment, protocol: Protocol, by_merit: list, enumerated: list,
                 limit: int) -> Iterator[tuple[Any, list]]:
    for merit, measures in by_merit:
        for descending in (True, False):
            order = merit_order(alignment.tie_offsets, merit, descending)
            yield alignment.in_order(order), measures
    if not enumerated:
        return
    if alignment.intents is not None or any(m.spec.reads_all_judgments for m in enumerated):
        # each doc its own judgments per intent, or judgments for other queries (hole@k reads them)
        classes = np.arange(len(alignment.doc))
    else:
        rows = np.stack([np.asarray(alignment.grade, dtype=np.float64), alignment.judged,
                         alignment.pooled], axis=1)
        classes = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
    names = ", ".join(map(str, enumerated))

    def describe(query: int, orders: int) -> str:
        return (f"{literal(names)} has no merit order, so its range over tied orders is "
                f"enumerated; the tied {{docs}} of {{query}} {literal(alignment.queries[query])} "
                f"have {orders} distinct orders or more, beyond the limit of {limit}")

    for order in tie_orders(alignment.offsets, alignment.tie_offsets, classes, limit, describe):
        yield alignment.in_order(order), enumerated
