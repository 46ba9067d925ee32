"""Results of disjoint sets of queries joined as one (:meth:`rankproof.Results.concat`).

Each function joins one part of what :class:`~rankproof.Results` hold: the
per-query table, the measures' values, the counts (each a count of cases,
so they add), and the per-query intervals (bounds, ranges over tied orders).
``cat`` joins the parts' per-query arrays, in the parts' order or sorted by
query (see :func:`joined_table`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import InputError, literal
from ..measures.base import Measure
from ..pipeline.alignment import QueryTable
from .values import MeasureResult

__all__ = ["Intervals", "check_parts", "joined_table", "joined_measures", "joined_counts",
           "joined_intervals"]

Cat = Callable[[Sequence[np.ndarray]], np.ndarray]
Intervals = dict[Measure, tuple[np.ndarray, np.ndarray]]


def check_parts(parts: Sequence[Any]) -> None:
    """Refuse parts that cannot be one evaluation: none, or evaluated under other protocols or measures."""
    if not parts:
        raise InputError(what="Results.concat needs at least one Results")
    first = parts[0]
    for part in parts[1:]:
        if part.protocol != first.protocol:
            raise InputError(what=f"Results.concat: {literal(part.run_name)} was evaluated under protocol "
                             f"{part.protocol.fingerprint}, {literal(first.run_name)} under "
                             f"{first.protocol.fingerprint}",
                             fix="evaluate every part under one protocol")
        if part.measures != first.measures:
            raise InputError(what=literal(f"Results.concat: {part.run_name} holds "
                                          f"{', '.join(map(str, part.measures))}, {first.run_name} holds "
                                          f"{', '.join(map(str, first.measures))}"),
                             fix="evaluate every part with the same measures")


def joined_table(tables: Sequence[QueryTable], sort: bool) -> tuple[QueryTable, Cat]:
    """The parts' query tables as one, and the function that joins per-query arrays in its order
    (sorted by query when `sort`); a query in two parts is refused."""
    queries = np.concatenate([t.queries for t in tables])
    in_order = queries[(order := np.argsort(queries, kind="stable"))]
    if (in_order[1:] == in_order[:-1]).any():
        raise InputError(what="Results.concat: a {query} appears in two parts",
                         fix="give each {query} to one part only")

    def cat(arrays: Sequence[np.ndarray]) -> np.ndarray:
        joined = np.concatenate(arrays)
        return joined[order] if sort else joined

    ranges = [t.grade_range for t in tables if t.grade_range is not None]
    first = tables[0]
    table = QueryTable(
        queries=in_order if sort else queries, in_run=cat([t.in_run for t in tables]),
        retrieved=cat([t.retrieved for t in tables]),
        unjudged_retrieved=cat([t.unjudged_retrieved for t in tables]),
        qrels_source=first.qrels_source, run_source=first.run_source,
        notes=tuple(dict.fromkeys(note for t in tables for note in t.notes)),
        grade_range=(min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None,
        judged_queries=sum(t.judged_queries for t in tables),
        warnings=tuple({w: 0 for t in tables for w in t.warnings}),
        missing_queries=sum(t.missing_queries for t in tables))
    return table, cat


def joined_measures(parts: Sequence[Mapping[Measure, MeasureResult]], measures: Sequence[Measure],
                    cat: Cat) -> dict[Measure, MeasureResult]:
    """Each measure's per-query values, joined (an array some part lacks stays None)."""
    joined = {}
    for measure in measures:
        results = [part[measure] for part in parts]

        def arrays(name: str) -> np.ndarray | None:
            found = [getattr(r, name) for r in results]
            return None if any(a is None for a in found) else cat(found)

        joined[measure] = MeasureResult(
            measure=measure, value=arrays("value"), included=arrays("included"),  # type: ignore[arg-type]
            numerator=arrays("numerator"), denominator=arrays("denominator"),
            zero_ideal=arrays("zero_ideal"))  # type: ignore[arg-type]
    return joined



def joined_counts(parts: Sequence[Any]) -> "dict[str, Any] | Callable[[], dict[str, Any]]":
    """The parts' counts added (per measure too); counted on first use when a part counts so."""

    def counts() -> dict[str, Any]:
        total: dict[str, Any] = {}
        for part in parts:
            source = part() if callable(part) else part
            for key, value in source.items():
                if isinstance(value, dict):
                    inner = total.setdefault(key, {})
                    inner.update({m: inner.get(m, 0) + v for m, v in value.items()})
                else:
                    total[key] = total.get(key, 0) + value
        return total

    return counts if any(callable(part) for part in parts) else counts()


def joined_intervals(parts: Sequence[Intervals], measures: Sequence[Measure],
                     cat: Cat) -> Intervals | None:
    """Per measure, the parts' (low, high) per query joined; None unless every part holds them."""
    if not all(parts):
        return None
    return {m: (cat([p[m][0] for p in parts]), cat([p[m][1] for p in parts])) for m in measures}
