"""The runs a comparison reads: named, evaluated, checked comparable, and laid out as one matrix.

The inputs half of :func:`rankproof.stats.compare` (and of the commands that
compare many runs): runs named (or relabelled), Runs evaluated under one
protocol, refused when their protocols, qrels or query sets differ, and their
per-query values gathered into ``values[run, measure, query]``.
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ComparabilityError, InputError, literal
from ..measures.base import Measure
from ..measures.parse import parse_measures
from ..protocol import Aggregation
from ..engines.options import EvaluationOptions
from .matrix import query_values, same_queries, sorted_ids

__all__ = ["evaluated_runs", "same_queries", "comparable", "value_matrix"]


def _relabelled(items: list[tuple[str, Any]], labels) -> list[tuple[str, Any]]:
    """Rename runs: ``labels`` is a list (one label per run, in order) or a mapping {old name: label}."""
    if labels is None:
        return items
    if isinstance(labels, Mapping):
        unknown = [str(k) for k in labels if str(k) not in {name for name, _ in items}]
        if unknown:
            raise InputError(what=literal(f"labels names run {unknown[0]!r}, which is not one of the runs "
                                          f"({', '.join(name for name, _ in items)})"),
                             value=unknown[0])
        table = {str(k): str(v) for k, v in labels.items()}
        return [(table.get(name, name), run) for name, run in items]
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise InputError(what="labels must be a list (one per run) or a mapping {{run name: label}}; got "
                              f"{type(labels).__name__}", value=type(labels).__name__)
    if len(labels) != len(items):
        raise InputError(what=f"labels has {len(labels)} names for {len(items)} runs",
                         value=len(labels),
                         fix="give one label per run")
    return [(str(label), run) for label, (_, run) in zip(labels, items)]


def _named(runs, labels=None) -> list[tuple[str, Any]]:
    if isinstance(runs, Mapping):
        items = [(str(name), run) for name, run in runs.items()]
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        items = [(str(getattr(run, "run_name", None) or getattr(run, "name", None)
                      or f"run{i + 1}"), run)
                 for i, run in enumerate(runs)]
    else:
        raise InputError(what=f"runs must be a mapping {{{{name: Run or Results}}}} or a list of them; got "
                              f"{type(runs).__name__}", value=type(runs).__name__)
    items = _relabelled(items, labels)
    names = [name for name, _ in items]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(what=literal(f"run name {repeated[0]} is given twice"), value=repeated[0],
                         fix="give each run a distinct name (pass a mapping {{name: run}})")
    if len(items) < 2:
        raise InputError(what=f"compare needs at least two runs; got {len(items)}",
                         value=len(items))
    return items


def evaluated_runs(qrels, runs, measures, protocol, labels=None,
                   options: EvaluationOptions | None = None
                   ) -> tuple[list[str], list[Any], list[Measure]]:
    """The runs' names, each run's Results (a Run evaluated under `protocol` and `options`, Results
    and saved results as given) and the measures compared."""
    from ..data.run import Run
    from ..evaluation import evaluate_read

    items = _named(runs, labels)
    if measures is None:
        first = next((r for _, r in items if not isinstance(r, Run)), None)
        if first is None:
            raise InputError(what="give the measures to compare, e.g. measures=['ndcg@10', 'ap']")
        measure_list = list(first.measures)
    else:
        measure_list = list(dict.fromkeys(parse_measures(measures)))
    names, evaluated = [], []
    for name, run in items:
        if isinstance(run, Run):
            if qrels is None:
                raise InputError(what=literal(f"run {name} is a Run"), value=name,
                                 fix="give the qrels to evaluate it against")
            run = evaluate_read(lambda: (qrels, run), measure_list, protocol, options=options)
        elif not all(_has(run, attr) for attr in ("values", "queries", "protocol", "qrels_digest")):
            raise InputError(what=f"expected a Run, Results or saved results; got {type(run).__name__}",
                             source=f"run {name}", value=type(run).__name__)
        names.append(name)
        evaluated.append(run)
    return names, evaluated, measure_list


def _has(value: Any, attr: str) -> bool:
    """Whether `value` has `attr`, asked of its class or its own fields: ``hasattr`` would compute a
    property (a million query ids as a list, the qrels' digest) only to throw it away."""
    return hasattr(type(value), attr) or attr in getattr(value, "__dict__", {})


def _few(items: list[str], limit: int = 3) -> str:
    return ", ".join(str(item) for item in items[:limit]) + (" ..." if len(items) > limit else "")


def _mismatches(names: list[str], evaluated: list[Any], queries: list[Any],
                same: bool = False) -> list[str]:
    """What differs between each run and the first: protocol, qrels, query set."""
    first_name, first = names[0], evaluated[0]
    found = []
    # Ids compared as text: saved results (JSON) hold integer user ids as text.
    first_queries = set() if same else set(map(str, queries[0]))
    for name, other, other_ids in zip(names[1:], evaluated[1:], queries[1:]):
        if other.protocol.fingerprint != first.protocol.fingerprint:
            policies = ", ".join(f"{key} {a} vs {b}"
                                 for key, (a,
                                           b) in first.protocol.differences(other.protocol).items())
            found.append(f"protocols differ: {first_name} {first.protocol.fingerprint}, {name} "
                         f"{other.protocol.fingerprint} ({policies})")
        if other.qrels_digest is None or other.qrels_digest != first.qrels_digest:
            found.append(f"qrels differ: {first_name} was evaluated on qrels digest {first.qrels_digest}, "
                         f"{name} on {other.qrels_digest}")
        ids = first_queries if same else set(map(str, other_ids))
        if ids != first_queries:
            only_first = sorted(first_queries - ids)
            only_other = sorted(ids - first_queries)
            parts = []
            if only_first:
                parts.append(f"{len(only_first)} queries only in {first_name} ({_few(only_first)})")
            if only_other:
                parts.append(f"{len(only_other)} only in {name} ({_few(only_other)})")
            found.append(f"query sets differ: {' and '.join(parts)}")
    return found


def value_matrix(evaluated: list[Any], measures: list[Measure], queries: list[Any],
                 same: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(union of queries, values[run, measure, query]) with NaN where a run lacks a query.
    `queries` holds each run's ids (:func:`rankproof.stats.matrix.query_ids`); ``same``: every
    run holds the same ids in the same order (:func:`same_queries`)."""
    shared = sorted_ids(queries[0]) if same else None
    if shared is not None:   # one qrels, one query order: one order of the ids serves every run
        union, order = shared
        values = np.empty((len(evaluated), len(measures), len(union)))
        for i, result in enumerate(evaluated):
            for j, measure in enumerate(measures):
                column = query_values(result, measure)
                values[i, j] = column if order is None else column[order]
        return union, values
    query_arrays = [np.asarray(ids, dtype=object).astype(str) for ids in queries]
    union = np.unique(np.concatenate(query_arrays))
    values = np.full((len(evaluated), len(measures), len(union)), np.nan)
    for i, (result, ids) in enumerate(zip(evaluated, query_arrays)):
        columns = np.searchsorted(union, ids)
        for j, measure in enumerate(measures):
            values[i, j, columns] = query_values(result, measure)
    return union, values


def comparable(names: list[str], evaluated: list[Any], baseline: str | None, allow_mismatch: bool,
               queries: list[Any], same: bool = False) -> list[str]:
    """Refuse runs that cannot be compared; what differs between them (allow_mismatch).
    `queries` and `same` are as for :func:`value_matrix`."""
    for name, result in zip(names, evaluated):
        if result.protocol.aggregation is not Aggregation.MACRO:
            raise InputError(
                what=literal(f"run {name} was evaluated with aggregation={result.protocol.aggregation}"),
                value=str(result.protocol.aggregation),
                fix="paired tests compare per-query values, whose mean is the macro mean: evaluate with "
                    "aggregation=macro")
    if baseline is not None and baseline not in names:
        near = difflib.get_close_matches(str(baseline), names, n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise InputError(what=literal(f"baseline {baseline!r} is not one of the runs"),
                         value=baseline,
                         fix=literal(f"{hint}choose one of {', '.join(names)}"))
    mismatches = _mismatches(names, evaluated, queries, same)
    if mismatches and not allow_mismatch:
        raise ComparabilityError(
            what=literal("runs are not comparable: " + "; ".join(mismatches)
                         + ". Evaluate every run under one "
                         "protocol on the same qrels and queries, or ")
            + "{do[allow_mismatch]} to compare them anyway on the "
                         "queries they share", value=tuple(mismatches))
    return mismatches

