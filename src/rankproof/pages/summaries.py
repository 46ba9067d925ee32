"""The page's per-query summaries: distributions, sorted differences, and the gain and discount tables.

Each is computed once per run with numpy over the whole per-query column and
kept bounded: a histogram has 20 bins, a sorted series keeps the
:data:`~rankproof.pages.model.MAX_BARS` extremes with their ids and an
outline of the rest.
"""

from __future__ import annotations

import math

import numpy as np

from ..measures.base import Measure
from ..protocol import Protocol
from .ids import ids_of
from .model import HISTOGRAM_BINS, MAX_BARS, SortedValues

__all__ = ["histograms", "differences", "gain_discount", "sorted_values", "aligned_values"]


def histograms(results, measures) -> dict:
    """Per measure, the bin edges (the measure's declared range when bounded) and each run's counts."""
    out = {}
    for m in measures:
        columns = [r.values(m) for r in results]
        finite = np.concatenate([c[np.isfinite(c)] for c in columns]) if columns else np.array([])
        # A bounded measure is drawn over its whole range (the declared one), others over the
        # data's.
        low, high = m.spec.value_range if np.isfinite(m.spec.value_range).all() else (
            float(finite.min(initial=0.0)), float(finite.max(initial=1.0)))
        if high <= low:
            high = low + 1.0
        edges = np.linspace(low, high, HISTOGRAM_BINS + 1)
        out[str(m)] = {"edges": edges.tolist(),
                       "counts": {r.run_name: np.histogram(c[np.isfinite(c)],
                                                           bins=edges)[0].tolist()
                                  for r, c in zip(results, columns)}}
    return out


def sorted_values(queries: np.ndarray, values: np.ndarray,
                  max_bars: int = MAX_BARS) -> SortedValues:
    """`values` sorted ascending (ties by query id), thinned to a bounded :class:`SortedValues`.

    >>> s = sorted_values(np.array(["b", "a", "c"]), np.array([0.5, 0.5, -1.0]))
    >>> s.count, s.bars, s.outline, s.bound
    (3, ((0, 'c', -1.0), (1, 'a', 0.5), (2, 'b', 0.5)), (), 1.0)
    >>> many = sorted_values(np.arange(1000).astype(str), np.linspace(-1, 1, 1000), max_bars=10)
    >>> len(many.bars), many.bars[0][:2], many.bars[-1][:2], len(many.outline)
    (10, (0, '0'), (999, '999'), 21)
    """
    by_id = np.argsort(queries, kind="stable")
    order = by_id[np.argsort(values[by_id], kind="stable")]
    ordered = values[order]
    count = int(ordered.size)
    bound = float(np.abs(ordered).max(initial=0.0))
    if count <= max_bars:
        shown = np.arange(count)
        outline: tuple = ()
    else:
        ends = max_bars // 2
        shown = np.concatenate([np.arange(ends), np.arange(count - ends, count)])
        # At most 2 x max_bars points: finer than the pixels of the chart.
        every = max(1, math.ceil(count / (2 * max_bars)))
        points = np.unique(np.append(np.arange(0, count, every), count - 1))
        outline = tuple(zip(points.tolist(), ordered[points].tolist()))
    ids = queries[order[shown]].tolist()
    bars = tuple(zip(shown.tolist(), [str(q) for q in ids], ordered[shown].tolist()))
    return SortedValues(count=count, bars=bars, outline=outline, bound=bound)


def aligned_values(result, base, measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(queries, run's values, baseline's values) over the queries both have, in the run's order."""
    queries = ids_of(result)
    values = result.values(measure)
    base_queries = ids_of(base)
    if queries.shape == base_queries.shape and bool(np.all(queries == base_queries)):
        return queries, values, base.values(measure)
    index = {q: i for i, q in enumerate(base_queries.tolist())}
    where = np.array([index.get(q, -1) for q in queries.tolist()], dtype=np.int64)
    keep = where >= 0
    return queries[keep], values[keep], base.values(measure)[where[keep]]


def differences(results, baseline: str, measures) -> dict:
    """Per measure and run, its per-query value minus the baseline's, sorted (queries where both have one)."""
    base = next(r for r in results if r.run_name == baseline)
    out: dict[str, dict[str, SortedValues]] = {}
    for m in measures:
        per_run = {}
        for r in results:
            if r.run_name == baseline:
                continue
            queries, values, base_values = aligned_values(r, base, m)
            both = ~(np.isnan(values) | np.isnan(base_values))
            per_run[r.run_name] = sorted_values(queries[both], values[both] - base_values[both])
        out[str(m)] = per_run
    return out


def gain_discount(qrels, measure: Measure, protocol: Protocol, depth: int) -> dict:
    """The protocol's gain and discount beside the usual alternatives."""
    from ..measures.compute import discount_table, gains_of
    from ..protocol import Discount, Gain

    gain = measure.setting("gain", protocol)
    discount = measure.setting("discount", protocol)
    top = int(max(qrels.grades.max(initial=1), 1))
    grades = np.arange(0, top + 1)
    gains = {str(g): gains_of(grades, g).tolist() for g in (Gain.LINEAR, Gain.EXP2)}
    gains.setdefault(str(gain), gains_of(grades, gain).tolist())
    discounts = {str(d): discount_table(d, depth).tolist()
                 for d in (Discount.LOG2, Discount.RECIPROCAL)}
    discounts.setdefault(str(discount), discount_table(discount, depth).tolist())
    return {"grades": grades.tolist(), "gains": gains, "gain": str(gain),
            "ranks": list(range(1, depth + 1)), "discounts": discounts, "discount": str(discount)}
