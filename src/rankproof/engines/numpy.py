"""The numpy engine: the reference, and the last engine of the planner."""

from __future__ import annotations

from typing import Sequence

from ..errors import MeasureError, literal
from ..measures.base import Measure
from ..measures.compute import Context, Values

__all__ = ["NumpyEngine"]


class NumpyEngine:
    """The reference engine: each measure's own vectorised numpy function
    (``MeasureSpec.compute``, kernels in :mod:`rankproof.kernels.ranked`),
    one measure after the other over all queries. It supports every measure,
    on every alignment."""

    name = "numpy"

    def supports(self, measure: Measure, alignment=None, protocol=None) -> bool:
        return measure.spec.compute is not None

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        context = Context(alignment.flat(), protocol) if measures else None  # flat arrays
        values: dict[Measure, Values] = {}
        for measure in measures:
            compute = measure.spec.compute
            if compute is None:  # the planner asks supports() first
                raise MeasureError(what=f"the numpy engine cannot compute {literal(measure)}: it has no compute function")
            values[measure] = compute(context, measure)
        return values
