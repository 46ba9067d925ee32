"""How equal scores are ordered: in each component run, and in the fused run.

Fusion reads ranks (``rrf``, ``isr``, ``bordafuse``, ``posfuse``, ...) and
writes a ranking, so the order of equal scores changes the fused values and
the fused file. :class:`FusionTies` names the three orders rankproof offers:

``docid`` (the default)
    Equal scores ordered by doc id, descending: the order trec_eval and
    rankproof's default protocol (``ties=docid``) give them when they read
    the file, so the fused run is evaluated in the order it was written.
``input``
    Equal scores keep the order they came in: a component's own row order;
    in the fused run, the order of first appearance (first component first,
    then by rank in it).
``ranx``
    What ranx does: numba's ``np.argsort`` of the negated scores, a
    quicksort (insertion sort under 16 elements, median-of-three pivots)
    that is not stable on longer lists, over the same input orders as
    ``input``. This is the preset the parity test against ranx uses.
"""

from __future__ import annotations

import enum

import numpy as np

from ..errors import InputError

__all__ = ["FusionTies", "parse_ties", "quicksort_argsort", "order_within"]

# numba/misc/quicksort.py: below this many elements a partition is insertion sorted.
SMALL_QUICKSORT = 15


class FusionTies(str, enum.Enum):
    """Order of equal scores in the component runs and in the fused run."""

    DOCID = "docid"
    INPUT = "input"
    RANX = "ranx"

    def __str__(self) -> str:
        return self.value


def parse_ties(value: "FusionTies | str") -> FusionTies:
    """The tie policy named by ``value`` (``docid``, ``input`` or ``ranx``)."""
    try:
        return FusionTies(value)
    except ValueError:
        raise InputError(source="fuse", what=f"unknown tie policy {value!r}", value=value,
                         fix="use one of " + ", ".join(t.value for t in FusionTies)) from None


def quicksort_argsort(keys: np.ndarray) -> np.ndarray:
    """The permutation numba's ``np.argsort(keys)`` (kind quicksort) returns.

    A transcription of the algorithm of ``numba/misc/quicksort.py`` (not of
    its code): median-of-three pivot stashed at the end, Hoare partition,
    the larger side pushed on a stack, insertion sort below 16 elements.
    Equal keys end up in an order that depends on the input order, which is
    what ranx's rankings inherit.
    """
    a = np.asarray(keys, dtype=np.float64).tolist()
    r = list(range(len(a)))
    stack = [(0, len(a) - 1)] if len(a) >= 2 else []
    while stack:
        low, high = stack.pop()
        while high - low >= SMALL_QUICKSORT:
            i = _partition(a, r, low, high)
            if high - i > i - low:
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        _insertion_sort(a, r, low, high)
    return np.asarray(r, dtype=np.int64)


def _insertion_sort(a: list, r: list, low: int, high: int) -> None:
    for i in range(low + 1, high + 1):
        k = r[i]
        v = a[k]
        j = i
        while j > low and v < a[r[j - 1]]:
            r[j] = r[j - 1]
            j -= 1
        r[j] = k


def _partition(a: list, r: list, low: int, high: int) -> int:
    mid = (low + high) >> 1
    if a[r[mid]] < a[r[low]]:
        r[low], r[mid] = r[mid], r[low]
    if a[r[high]] < a[r[mid]]:
        r[high], r[mid] = r[mid], r[high]
    if a[r[mid]] < a[r[low]]:
        r[low], r[mid] = r[mid], r[low]
    pivot = a[r[mid]]
    r[high], r[mid] = r[mid], r[high]
    i, j = low, high - 1
    while True:
        while i < high and a[r[i]] < pivot:
            i += 1
        while j >= low and pivot < a[r[j]]:
            j -= 1
        if i >= j:
            break
        r[i], r[j] = r[j], r[i]
        i += 1
        j -= 1
    r[i], r[high] = r[high], r[i]
    return i


def order_within(group: np.ndarray, scores: np.ndarray, arrival: np.ndarray, doc: np.ndarray,
                 ties: FusionTies) -> np.ndarray:
    """Rows ordered by group ascending, then score descending, equal scores by ``ties``.

    ``arrival`` is each row's input order (smaller first) and ``doc`` its doc
    code (codes sort as the ids do).
    """
    from ..pipeline.ties import sort_within_queries

    groups = int(group.max()) + 1 if len(group) else 0
    if ties is FusionTies.DOCID:
        return sort_within_queries(group, groups, -scores, -doc)
    by_arrival = np.lexsort((arrival, group))
    if ties is FusionTies.INPUT:
        return by_arrival[sort_within_queries(group[by_arrival], groups, -scores[by_arrival])]
    # ranx: per group, numba's quicksort of the negated scores over the arrival order.
    grouped = group[by_arrival]
    bounds = np.flatnonzero(np.diff(grouped)) + 1
    out = by_arrival.copy()
    for lo, hi in zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [len(grouped)]])):
        segment = by_arrival[lo:hi]
        if len(segment) > 1:
            out[lo:hi] = segment[quicksort_argsort(-scores[segment])]
    return out
