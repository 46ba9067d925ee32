"""The measure planner: which engine computes which measure.

Each measure goes to the first engine, in the registry's order
(:data:`rankproof.engines.ENGINES`, the numpy reference last), whose
``supports(measure, alignment, protocol)`` says yes; a preferred engine is
tried first. The tie refusals run here, once, before any engine.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import MeasureError
from ..measures.base import Measure
from ..measures.compute import Values
from . import ENGINES, Engine, get_engine
from .base import refuse_ties

__all__ = ["compute", "plan"]


def _order(prefer: "str | Engine | None") -> list["str | Engine"]:
    """Engine names (or the preferred Engine itself) in the order they are tried."""
    if prefer is None:
        return list(ENGINES)
    first = get_engine(prefer)  # an unknown name fails here, before the work
    return [first, *(name for name in ENGINES if name != first.name)]


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
            if engine.supports(measure, alignment, protocol):
                chosen.setdefault(engine.name, (engine, []))[1].append(measure)
                break
        else:
            raise MeasureError(f"no engine computes {measure} (engines tried: "
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
        values.update(engine.evaluate(alignment, mine, protocol))
    return {measure: values[measure] for measure in measures}
