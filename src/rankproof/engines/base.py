"""The engine interface: aligned rankings + measures -> per-query values.

An engine receives what the alignment made of the inputs (query offsets,
per-position grade and judged flags, tie-group offsets, the judged pool of
every query) and computes measures on it. It never sees ids and never applies
a row policy; the protocol only tells it the measure settings that default to
a policy (gain, discount, ideal pool, rel, denominators). Every engine gives
the same numbers: choosing one changes the speed, never a value, which is why
the choice is a keyword of :func:`rankproof.evaluate` and not a policy of the
:class:`~rankproof.Protocol`.

The planner (:mod:`rankproof.engines.plan`) asks each engine, in the order of
the registry, whether it ``supports`` a measure on an alignment, and refuses
the tied groups a measure has no closed form for before any engine runs.
"""

from __future__ import annotations

from typing import Protocol as _Interface, Sequence, runtime_checkable

import numpy as np

from ..errors import TieError, literal
from ..measures.base import Measure, TieSupport
from ..measures.compute import Values

__all__ = ["Engine", "NumpyEngine", "refuse_ordered_ties", "refuse_ties"]


@runtime_checkable
class Engine(_Interface):
    """What an engine offers.

    Attributes
    ----------
    name : str
        The name it is registered under (``evaluate(..., engine=name)``).

    Notes
    -----
    An alignment is any :class:`~rankproof.pipeline.aligned.AlignmentLike`;
    the planner gives an engine its flat arrays (``alignment.flat()``), or,
    for an engine that declares ``reads_matrix = True`` (the dense engine),
    the alignment as it is. The engines of the registry also read
    ``alignment.flat()`` themselves, for a caller that hands them a score
    matrix's alignment directly.
    """

    name: str

    def supports(self, measure: Measure, alignment=None, protocol=None) -> bool:
        """Does the engine compute this measure on this alignment under this
        protocol? Without an alignment (or a protocol): on some alignment."""
        ...

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        """Per-query :class:`~rankproof.measures.compute.Values` of every measure.

        ``value`` per query, the ``numerator`` / ``denominator`` that micro
        averaging sums (ratio measures), and ``undefined`` (queries where the
        measure divides by 0 because nothing is relevant: the zero_ideal
        policy decides their value later). Called by the planner with the
        measures it ``supports``, after the tie refusals (:func:`refuse_ties`).
        """
        ...


def refuse_ordered_ties(alignment, measures: Sequence[Measure]) -> None:
    """Raise TieError for a measure without a closed form over tied orders
    when the alignment still has tied groups (``ties=expected``)."""
    ordered = [m for m in measures if m.spec.ties is TieSupport.ORDERED]
    if not ordered:
        return
    tied_groups = int((np.diff(alignment.flat().group_offsets) > 1).sum())
    if tied_groups:
        raise TieError(
            what=f"{literal(ordered[0])} has no closed form for the expectation over tied orders, and "
                 f"{literal(alignment.run_source)} has {tied_groups} tied groups",
            fix="set the policy ties=docid (trec_eval's order) or ties=input")


def refuse_ties(alignment, measures: Sequence[Measure], protocol) -> None:
    """Every tie refusal, once, whatever the engine: the measures that need
    one order (``TieSupport.ORDERED``), then each measure's own check
    (``MeasureSpec.check_ties``: AP over the hits with a group crossing k)."""
    refuse_ordered_ties(alignment, measures)
    for measure in measures:
        if measure.spec.check_ties is not None:
            measure.spec.check_ties(alignment.flat(), measure, protocol)


from .numpy import NumpyEngine  # noqa: E402  (re-exported: it lived here)
