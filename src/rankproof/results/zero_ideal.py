"""The query policies applied to the engines' values: ``zero_ideal`` (queries where nothing is
relevant: an error, zero, one, excluded, or dropped from every measure)."""

from __future__ import annotations

import numpy as np

from ..errors import ZeroIdealError, literal
from ..measures.base import Measure
from ..protocol import Protocol, ZeroIdeal
from .values import MeasureResult

__all__ = ["apply_zero_ideal", "nothing_relevant"]


def apply_zero_ideal(values, measure: Measure, protocol: Protocol, queries: np.ndarray,
                     nothing_relevant: np.ndarray | None = None) -> MeasureResult:
    """A measure's per-query result under the zero_ideal policy (normalised
    measures of queries where nothing is relevant: error, zero, one or
    excluded; under ``drop``, every measure of the queries `nothing_relevant`
    marks (:func:`nothing_relevant`) is excluded too)."""
    value = values.value.astype(np.float64, copy=True)
    included = np.ones(len(value), dtype=bool)
    if measure.spec.always_excluded and values.undefined is not None:
        # no value at all (accuracy without a pair): out of the mean under every policy, counted
        value[values.undefined] = np.nan
        included &= ~values.undefined
    undefined = (values.undefined if (values.undefined is not None and measure.spec.normalised)
                 else None)
    if protocol.zero_ideal in _WHOLE_QUERY and nothing_relevant is not None:
        undefined = nothing_relevant if undefined is None else (undefined | nothing_relevant)
    zero_ideal = int(undefined.sum()) if undefined is not None else 0
    if undefined is not None and zero_ideal:
        policy = protocol.zero_ideal
        if policy is ZeroIdeal.ERROR:
            first = queries[np.flatnonzero(undefined)[0]]
            raise ZeroIdealError(
                query=first, what=f"nothing relevant, so {literal(measure)} is "
                                  f"{'undefined' if measure.spec.normalised else 'refused (zero_ideal=error)'} "
                                  f"({zero_ideal} such {{queries}})",
                fix="set the policy zero_ideal=zero to score them 0 (counted), zero_ideal=exclude to leave them out, "
                    "or zero_ideal=one")
        if policy is ZeroIdeal.ONE:
            value[undefined] = 1.0
        elif policy is ZeroIdeal.ZERO:
            value[undefined] = 0.0
        else:
            value[undefined] = np.nan
            included &= ~undefined
    return MeasureResult(
        measure=measure, value=value, included=included,
        numerator=values.numerator, denominator=values.denominator,
        zero_ideal=undefined if undefined is not None else np.zeros(len(value), dtype=bool),
    )


# The zero_ideal options that act on a query with nothing relevant whatever the measure: drop leaves
# it out of every mean, error refuses it (LlamaIndex raises ValueError on an empty expected list for
# every metric, hit rate and MRR included); the others act on the normalised measures only.
_WHOLE_QUERY = (ZeroIdeal.DROP, ZeroIdeal.ERROR)


def nothing_relevant(alignment, protocol: Protocol) -> np.ndarray | None:
    """Per query of the alignment: no judged doc at grade ``rel`` or above
    (what ``zero_ideal=drop`` leaves out of every measure and
    ``zero_ideal=error`` refuses for every measure); None under the other
    zero_ideal policies."""
    if protocol.zero_ideal not in _WHOLE_QUERY:
        return None
    alignment = alignment.flat()  # the judged pools (a score matrix's general alignment)
    pool_query = np.repeat(np.arange(alignment.num_queries), np.diff(alignment.pool_offsets))
    relevant = np.bincount(pool_query[alignment.pool_grade >= protocol.rel],
                           minlength=alignment.num_queries)
    return relevant == 0
