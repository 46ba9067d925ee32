"""The measure planner: which engine computes which measure.

Each measure goes to the first engine, in the registry's order
(:data:`rankproof.engines.ENGINES`, the numpy reference last), whose
``supports(measure, alignment, protocol)`` says yes; a preferred engine is
tried first. The tie refusals run here, once, before any engine.

Engines read an alignment's flat arrays (:meth:`AlignmentLike.flat
<rankproof.pipeline.aligned.AlignmentLike.flat>`, the alignment itself when
it is flat); an engine that reads a score matrix as it is declares
``reads_matrix = True`` (the dense engine) and is given the alignment as it is.

The step's pass (:func:`compute_pass`) computes the values of the alignment and, beside them,
the ranges a caller asked for (:class:`Range`: the range over tied orders, the bounds under the
unjudged docs): other alignments of the same queries, made by the pipeline, evaluated by the
same plan and reduced to each measure's per-query minimum and maximum as they come.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..errors import MeasureError, literal
from ..measures.base import Measure
from ..measures.compute import Values
from . import ENGINES, Engine, get_engine
from .base import refuse_ties

__all__ = ["compute", "compute_pass", "ranges_over", "Range", "plan", "view"]


def _order(prefer: "str | Engine | None") -> list["str | Engine"]:
    """Engine names (or the preferred Engine itself) in the order they are tried."""
    if prefer is None:
        return list(ENGINES)
    first = get_engine(prefer)  # an unknown name fails here, before the work
    return [first, *(name for name in ENGINES if name != first.name)]


def view(engine: Engine, alignment):
    """What `engine` reads of `alignment`: the alignment as it is for an engine that reads
    score matrices (``reads_matrix``), its flat arrays for every other."""
    return alignment if getattr(engine, "reads_matrix", False) else alignment.flat()


def _supports(engine: Engine, measure: Measure, alignment, protocol) -> bool:
    """``engine.supports(measure, alignment, protocol)``; an engine written
    for the earlier interface, ``supports(measure)``, is asked that."""
    if _takes_measure_only(type(engine)):
        return engine.supports(measure)
    return engine.supports(measure, view(engine, alignment), protocol)


@functools.lru_cache(maxsize=64)
def _takes_measure_only(kind: type) -> bool:
    try:
        supports = kind.supports  # type: ignore[attr-defined]
        parameters = list(inspect.signature(supports).parameters.values())
    except (AttributeError, TypeError, ValueError):  # no signature to read: the current interface
        return False
    positional = [p for p in parameters[1:]
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) < 3 and not any(p.kind is p.VAR_POSITIONAL for p in parameters)


def plan(alignment, measures: Sequence[Measure], protocol,
         prefer: "str | Engine | None" = None) -> list[tuple[Engine, list[Measure]]]:
    """``[(engine, its measures), ...]``: every measure on the first engine that
    supports it, engines in the order tried. Engines are loaded only when a
    measure reaches them (preferring numpy loads no compiled module)."""
    order = _order(prefer)
    chosen: dict[str, tuple[Engine, list[Measure]]] = {}
    for measure in measures:
        for item in order:
            engine = get_engine(item)
            if _supports(engine, measure, alignment, protocol):
                chosen.setdefault(engine.name, (engine, []))[1].append(measure)
                break
        else:
            if not measure.spec.ranking:
                raise MeasureError(what=f"{literal(measure)} is not computed from a ranking",
                                   value=str(measure),
                                   fix="nugget scores are read from nuggetizer's assignment files: "
                                       "rankproof.evaluate_nuggets(paths) or rankproof nuggets FILE")
            raise MeasureError(what=f"no engine computes {literal(measure)} (engines tried: "
                                    f"{', '.join(get_engine(item).name for item in order)})")
    ranks = {get_engine(item).name: i for i, item in enumerate(order)}
    return sorted(chosen.values(), key=lambda pair: ranks[pair[0].name])


def compute(alignment, measures: Sequence[Measure], protocol,
            prefer: "str | Engine | None" = None) -> dict[Measure, Values]:
    """Every measure's per-query values over the alignment: the tie refusals,
    then each engine of the plan on its measures."""
    refuse_ties(alignment, measures, protocol)
    values: dict[Measure, Values] = {}
    for engine, mine in plan(alignment, measures, protocol, prefer):
        values.update(engine.evaluate(view(engine, alignment), mine, protocol))
    return {measure: values[measure] for measure in measures}


# Per query, a measure's lowest and highest value over the alignments of a range.
Interval = tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class Range:
    """Alignments of the same queries evaluated beside the plain one: each measure's range is its
    per-query minimum and maximum over the alignments that list it, and over its plain values
    too when `with_plain`.

    `alignments`: ``(alignment, its measures)`` pairs, made as they are asked for (an
    enumeration of orders is never held at once): the reorderings of tied docs
    (:func:`rankproof.pipeline.ties.tied_orders`), the completions of the judgments
    (:func:`rankproof.pipeline.assume_unjudged`).
    """

    alignments: Iterable[tuple[Any, Sequence[Measure]]]
    with_plain: bool = False


def compute_pass(alignment, measures: Sequence[Measure], protocol,
                 prefer: "str | Engine | None" = None, *, finish: Callable[[Values, Measure], Any],
                 ranges: "Mapping[str, Range] | None" = None
                 ) -> tuple[dict[Measure, Any], dict[str, dict[Measure, Interval]]]:
    """The step's pass: every measure over `alignment`, finished by the step's query policies
    (``finish(values, measure)``, e.g. the zero-ideal policy; its ``value`` is the per-query
    array), then each of `ranges` (:func:`ranges_over`) by the same planner.

    Returns ``({measure: finished values}, {range name: {measure: (min, max) per query}})``.
    """
    values = compute(alignment, measures, protocol, prefer)
    finished = {measure: finish(values[measure], measure) for measure in measures}
    found = {name: ranges_over(wanted, protocol, prefer, finish,
                               finished if wanted.with_plain else None)
             for name, wanted in (ranges or {}).items()}
    return finished, found


def ranges_over(wanted: Range, protocol, prefer: "str | Engine | None",
                finish: Callable[[Values, Measure], Any],
                plain: "Mapping[Measure, Any] | None" = None) -> dict[Measure, Interval]:
    """Each measure's per-query (min, max) over the alignments of `wanted`, every one planned
    and computed as the plain alignment is (:func:`compute`) and finished by `finish`; with
    `plain` (the plain values, finished), over those too. NaN (an excluded query) gives way to
    a number."""
    low: dict[Measure, np.ndarray] = {}
    high: dict[Measure, np.ndarray] = {}

    def add(measure: Measure, value: np.ndarray) -> None:
        if measure not in low:
            low[measure], high[measure] = value, value
        else:
            with np.errstate(invalid="ignore"):
                low[measure] = np.fmin(low[measure], value)
                high[measure] = np.fmax(high[measure], value)

    for alignment, measures in wanted.alignments:
        values = compute(alignment, measures, protocol, prefer)
        for measure in measures:
            add(measure, finish(values[measure], measure).value)
    if plain is not None:
        for measure in list(low):
            add(measure, plain[measure].value)
    return {measure: (low[measure], high[measure]) for measure in low}
