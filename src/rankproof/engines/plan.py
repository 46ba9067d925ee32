"""The measure planner: which engine computes which measure.

Each measure goes to the first engine, in the registry's order
(:data:`rankproof.engines.ENGINES`, the numpy reference last), whose
``supports(measure, alignment, protocol)`` says yes; a preferred engine is
tried first. The tie refusals run here, once, before any engine.

Engines read an alignment's flat arrays (:meth:`AlignmentLike.flat
<rankproof.pipeline.aligned.AlignmentLike.flat>`, the alignment itself when
it is flat); an engine that reads a score matrix as it is declares
``reads_matrix = True`` (the dense engine) and is given the alignment as it is.
"""

from __future__ import annotations

import functools
import inspect
from typing import Sequence

from ..errors import MeasureError, literal
from ..measures.base import Measure
from ..measures.compute import Values
from . import ENGINES, Engine, get_engine
from .base import refuse_ties

__all__ = ["compute", "plan", "view"]


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
