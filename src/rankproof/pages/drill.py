"""The drill-down's part of the page model: which queries it keeps, their rows, and each measure's values.

Every query is kept while queries x runs x depth stays under
:data:`~rankproof.pages.model.MAX_DRILL_ROWS`; past it the depth goes down to
:data:`~rankproof.pages.model.MIN_DRILL_DEPTH`, and past that too a chosen
sample is kept, in as many as fit: the largest differences from the baseline,
the lowest and highest values of the baseline, and a seeded random rest (one
run: lowest, highest, random). The full per-query table is the file beside
the page.
"""

from __future__ import annotations

import numpy as np

from ..measures.base import Measure
from ..protocol import Ideal, Protocol
from .ids import ids_of
from .model import MAX_DRILL_ROWS, MIN_DRILL_DEPTH, natural_order

__all__ = ["drill_plan", "drill_rows", "with_measures", "compact", "positions"]


def compact(values: np.ndarray) -> list:
    """Numbers for reading in the drill-down: 4 decimals; whole numbers without a point
    when every value is whole (gains of integer grades).

    >>> compact(np.array([1.0, 2.0])), compact(np.array([0.63092975, 0.0]))
    ([1, 2], [0.6309, 0.0])
    """
    rounded = np.round(np.asarray(values, dtype=np.float64), 4)
    if np.all(rounded == np.round(rounded)):
        return rounded.astype(np.int64).tolist()
    return rounded.tolist()


def positions(ids, wanted: list) -> np.ndarray:
    """Where each of `wanted` (query ids as text) is in `ids`, -1 where it is not: one sort, no dict.

    >>> positions(np.array([3, 1, 2]), ["2", "9", "3"]).tolist()
    [2, -1, 0]
    """
    text = np.asarray(ids).astype(str)
    order = np.argsort(text, kind="stable")
    asked = np.asarray([str(q) for q in wanted], dtype=text.dtype if len(wanted) else str)
    if not len(wanted) or not text.size:
        return np.full(len(wanted), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(text[order], asked), text.size - 1)
    return np.where(text[order][at] == asked, order[at], -1)


def _value_matrix(columns: dict, baseline: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(queries, values[run, query] with NaN where a run has none, the baseline's row)."""
    names = list(columns)
    first = np.asarray(columns[names[0]][0])
    if all(len(q) == len(first) and bool(np.all(np.asarray(q) == first))
           for q, _ in columns.values()):
        return (first, np.stack([np.asarray(v, dtype=np.float64) for _, v in columns.values()]),
                names.index(baseline))
    queries = np.asarray(sorted({str(q) for ids, _ in columns.values()
                                 for q in np.asarray(ids).tolist()}))
    matrix = np.full((len(names), len(queries)), np.nan)
    for row, name in enumerate(names):
        ids, values = columns[name]
        where = positions(queries, np.asarray(ids).tolist())
        matrix[row, where] = values
    return queries, matrix, names.index(baseline)


def _sample(matrix: np.ndarray, base: int, room: int, seed: int) -> tuple[np.ndarray, str]:
    """Positions of the chosen queries and how they were chosen."""
    count = matrix.shape[1]
    chosen: list[int] = []
    taken = np.zeros(count, dtype=bool)

    def take(order: np.ndarray, share: int) -> None:
        fresh = order[~taken[order]][:share]
        taken[fresh] = True
        chosen.extend(fresh.tolist())

    baseline = matrix[base]
    low = np.where(np.isnan(baseline), np.inf, baseline)
    high = np.where(np.isnan(baseline), -np.inf, baseline)
    parts = []
    if matrix.shape[0] > 1:
        others = np.delete(matrix, base, axis=0)
        spread = np.nan_to_num(np.abs(others - baseline), nan=0.0).max(axis=0)
        take(np.argsort(-spread, kind="stable"), room // 4)
        parts.append("the largest differences from the baseline")
        share = room // 4
    else:
        share = room // 3
    take(np.argsort(low, kind="stable"), share)
    take(np.argsort(-high, kind="stable"), share)
    parts += ["the baseline's lowest values", "its highest"]
    rest = np.flatnonzero(~taken)
    picked = np.random.default_rng(seed).choice(rest, size=min(room - len(chosen), rest.size),
                                                replace=False)
    chosen.extend(np.sort(picked).tolist())
    return (np.asarray(chosen, dtype=np.int64),
            ", ".join(parts) + f" and a random rest (seed {seed})")


def drill_plan(columns: dict, baseline: str, depth: int, seed: int = 0) -> tuple[int, list | None,
                                                                                 str]:
    """The drill-down's depth and queries (None: all), and a note when it keeps less.

    ``columns``: run -> (query ids, values of the drill-down's measure, NaN: none).

    >>> one = {"a": (np.array(["1", "2"]), np.array([0.5, 0.1]))}
    >>> drill_plan(one, "a", 20)
    (20, None, '')
    >>> many = {"a": (np.arange(12_000).astype(str), np.linspace(0, 1, 12_000))}
    >>> depth, kept, note = drill_plan(many, "a", 20)
    >>> depth, len(kept), note[:45]
    (5, 10000, 'The drill-down keeps the 10,000 of 12,000 que')
    """
    runs = len(columns)
    queries, matrix, base = _value_matrix(columns, baseline)
    count = len(queries)
    if count * runs * depth <= MAX_DRILL_ROWS:
        return depth, None, ""
    fitted = max(MIN_DRILL_DEPTH, MAX_DRILL_ROWS // max(1, count * runs))
    if count * runs * fitted <= MAX_DRILL_ROWS:
        return fitted, None, (f"Each ranking's top {fitted} is kept (not {depth}) so that the page stays light "
                              f"with {count:,} queries.")
    room = MAX_DRILL_ROWS // (runs * MIN_DRILL_DEPTH)
    chosen, how = _sample(matrix, base, room, seed)
    return MIN_DRILL_DEPTH, [str(q) for q in queries[chosen].tolist()], (
        f"The drill-down keeps the {room:,} of {count:,} queries chosen so that the page stays light: {how} (each "
        f"ranking's top {MIN_DRILL_DEPTH}); every query's values are in the per-query table beside the page.")


def _spans(top_queries, offsets: np.ndarray, queries: list) -> tuple[np.ndarray, np.ndarray]:
    """(row index of every row of `queries`, in order; each query's row count: 0 where absent)."""
    where = positions(np.asarray(top_queries), queries)
    present = where >= 0
    lo = np.where(present, offsets[np.maximum(where, 0)], 0)
    counts = np.where(present, offsets[np.maximum(where, 0) + 1] - lo, 0)
    rows = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    return rows.astype(np.int64), counts


def _split(rows: list, counts: np.ndarray) -> list:
    ends = np.cumsum(counts).tolist()
    return [rows[end - count:end] for end, count in zip(ends, counts.tolist())]


def _ranked_rows(top, queries: list, rank_discount: np.ndarray, k: int | None, depth: int) -> list:
    """One run's rows of each of `queries` (empty for a query it does not rank): each array taken once."""
    rows, counts = _spans(top.queries, top.offsets, queries)
    gain, contribution = compact(top.gain[rows]), compact(top.contribution[rows])
    cumulative, shown = compact(top.cumulative[rows]), compact(top.discount[rows])
    rank = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    own = np.where(rank < (k if k is not None else depth),
                   rank_discount[np.minimum(rank, depth - 1)], 0.0)
    tied = (np.abs(top.discount[rows] - own) > 1e-12).tolist()
    judged = top.judged[rows].tolist()
    out = [[doc, grade if seen else None, g, c, total] for doc, grade, seen, g, c, total in zip(
        top.doc[rows].tolist(), top.grade[rows].tolist(), judged, gain, contribution, cumulative)]
    for j in np.flatnonzero(tied).tolist():
        out[j].append(shown[j])  # a tied doc's share of its group's discounts
    return _split(out, counts)


def _ideal_rows(top, queries: list) -> list:
    rows, counts = _spans(top.queries, top.ideal_offsets, queries)
    out = [[doc, grade, gain, total] for doc, grade, gain, total in zip(
        top.ideal_doc[rows].tolist(), top.ideal_grade[rows].tolist(), compact(top.ideal_gain[rows]),
        compact(top.ideal_cumulative[rows]))]
    return _split(out, counts)


def _shown_values(where: np.ndarray, column: np.ndarray) -> list:
    """The values at positions `where` (None where excluded, or absent: -1), 4 decimals."""
    return [None if i < 0 or np.isnan(column[i]) else round(float(column[i]), 4)
            for i in where.tolist()]


def drill_rows(tops: dict, measure: Measure, protocol: Protocol, values: dict, depth: int,
               keep: list | None = None, note: str = "") -> dict:
    """Each run's top rows of the kept queries, and the ideal list, as compact lists.

    ``tops``: run -> :class:`~rankproof.explain.explanation.TopRankings`; ``values``: run -> (query
    ids, values of `measure`). A
    ranked row is ``[doc, grade or None (unjudged), gain, contribution,
    cumulative]``, with the discount appended when it is not the rank's own
    (a tied group shares its mean discount); an ideal row is ``[doc, grade,
    gain, cumulative]``. The discount of each rank is given once.
    """
    from ..measures.compute import discount_table

    rank_discount = discount_table(measure.setting("discount", protocol), depth)
    first = next(iter(tops.values()))
    kept = None if keep is None else {str(q) for q in keep}
    queries = natural_order(first.queries if kept is None
                            else [q for q in first.queries if q in kept])
    rankings = {name: _ranked_rows(top, queries, rank_discount, measure.cutoff, depth)
                for name, top in tops.items()}
    ideal_setting = (measure.setting("ideal", protocol) if "ideal" in measure.spec.params
                     else protocol.ideal)
    per_run_ideal = ideal_setting is not Ideal.JUDGED
    shown = {name: _shown_values(positions(ids, queries), column)
             for name, (ids, column) in values.items()}
    return {
        "measure": str(measure), "normalised": measure.spec.normalised, "depth": depth,
        "k": measure.cutoff,
        "runs": list(tops), "note": note, "queries": queries, "discount": compact(rank_discount),
        "rankings": rankings,
        # Under ideal=judged the ideal list is the qrels', the same for every run: given once.
        "ideal": ({name: _ideal_rows(top, queries) for name, top in tops.items()} if per_run_ideal
                  else _ideal_rows(first, queries)),
        "ideal_per_run": per_run_ideal,
        "values": {name: shown[name] for name in tops},
    }


def with_measures(drill: dict, results, page_measures, gain_measure: Measure,
                  protocol: Protocol) -> dict:
    """The drill-down's measure selector: every page measure with each run's value per query, its cutoff and
    its relevance level (the ranked rows are the same for every measure; only the DCG family has gains)."""
    choices = [{"measure": drill["measure"], "k": drill["k"], "gain_based": True,
                "values": drill["values"],
                "rel": protocol.rel}]
    where = {r.run_name: positions(ids_of(r), drill["queries"]) for r in results}
    for m in page_measures:
        if str(m) == drill["measure"]:
            continue
        values = {r.run_name: _shown_values(where[r.run_name], r.values(m)) for r in results}
        rel = m.setting("rel", protocol) if "rel" in m.spec.params else protocol.rel
        choices.append({"measure": str(m), "k": m.cutoff,
                        "gain_based": m.spec.dcg is not None and m == gain_measure,
                        "values": values, "rel": rel})
    return {**drill, "measures": choices}
