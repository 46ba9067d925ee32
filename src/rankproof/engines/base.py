"""The engine interface: aligned rankings + measures -> per-query values.

An engine receives what the alignment made of the inputs (query offsets,
per-position grade and judged flags, tie-group offsets, the judged pool of
every query) and computes measures on it. It never sees ids and never applies
a row policy; the protocol only tells it the measure settings that default to
a policy (gain, discount, ideal pool, rel, denominators). Every engine gives
the same numbers: choosing one changes the speed, never a value, which is why
the choice is a keyword of :func:`rankproof.evaluate` and not a policy of the
:class:`~rankproof.Protocol`.
"""

from __future__ import annotations

from typing import Protocol as _Interface, Sequence, runtime_checkable

import numpy as np

from ..errors import MeasureError, TieError
from ..measures.base import Measure
from ..measures.compute import Context, Values

__all__ = ["Engine", "NumpyEngine", "refuse_ordered_ties"]


@runtime_checkable
class Engine(_Interface):
    """What an engine offers.

    Attributes
    ----------
    name : str
        The name it is registered under (``evaluate(..., engine=name)``).
    """

    name: str

    def supports(self, measure: Measure) -> bool:
        """Does the engine compute this measure itself (not by delegating)?"""
        ...

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        """Per-query :class:`~rankproof.measures.compute.Values` of every measure.

        ``value`` per query, the ``numerator`` / ``denominator`` that micro
        averaging sums (ratio measures), and ``undefined`` (queries where the
        measure divides by 0 because nothing is relevant: the zero_ideal
        policy decides their value later). Raises the measure errors that do
        not depend on the engine (a tie the measure has no closed form for).
        """
        ...


def refuse_ordered_ties(alignment, measures: Sequence[Measure]) -> None:
    """Raise TieError for a measure without a closed form over tied orders
    when the alignment still has tied groups (``ties=expected``)."""
    ordered = [m for m in measures if m.spec.ties == "ordered"]
    if not ordered:
        return
    tied_groups = int((np.diff(alignment.group_offsets) > 1).sum())
    if tied_groups:
        raise TieError(
            f"{ordered[0]} has no closed form for the expectation over tied orders, and "
            f"{alignment.run_source} has {tied_groups} tied groups; set the policy ties=docid "
            "(trec_eval's order) or ties=input"
        )


class NumpyEngine:
    """The reference engine: each measure's own vectorised numpy function
    (``MeasureSpec.compute``, kernels in :mod:`rankproof.kernels.ranked`),
    one measure after the other over all queries. It supports every measure."""

    name = "numpy"

    def supports(self, measure: Measure) -> bool:
        return measure.spec.compute is not None

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        refuse_ordered_ties(alignment, measures)
        context = Context(alignment, protocol) if measures else None
        values: dict[Measure, Values] = {}
        for measure in measures:
            compute = measure.spec.compute
            if compute is None:  # callers ask supports() first
                raise MeasureError(f"the numpy engine cannot compute {measure}: it has no compute function")
            values[measure] = compute(context, measure)
        return values
