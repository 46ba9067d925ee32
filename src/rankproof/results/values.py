"""The values a :class:`~rankproof.results.Results` holds and gives out: one
measure over every query (:class:`MeasureResult`), and a mean with its bounds
under the unjudged docs (:class:`Bounds`) or over the orders of tied docs
(:class:`TieRange`)."""

from __future__ import annotations

import dataclasses
import math
import operator
from typing import Any

import numpy as np

from ..measures.base import Measure

__all__ = ["MeasureResult", "Bounds", "TieRange", "kept_mean", "alias"]


def alias(name: str, doc: str) -> Any:
    """A read-only attribute under a second name: reading it reads attribute ``name``
    (a range's ``min`` for its ``lower``, a setting's earlier name for its new one).

    >>> class Span:
    ...     lower = 0.25
    ...     min = alias("lower", "The lowest end.")
    >>> Span().min, Span.min.__doc__
    (0.25, 'The lowest end.')
    """
    return property(operator.attrgetter(name), doc=doc)


@dataclasses.dataclass(frozen=True)
class MeasureResult:
    """One measure over every evaluated query.

    ``value`` is NaN where ``included`` is False (excluded by zero_ideal='exclude').
    """

    measure: Measure
    value: np.ndarray
    included: np.ndarray
    numerator: np.ndarray | None
    denominator: np.ndarray | None
    zero_ideal: np.ndarray


@dataclasses.dataclass(frozen=True)
class Bounds:
    """A measure's value and its interval over what the unjudged docs could be.

    ``lower`` and ``upper`` average the per-query bounds under the protocol's
    aggregation (macro or weighted); ``value`` is the measure's mean. Print
    it as ``0.341 [0.341, 0.612]``.

    Attributes
    ----------
    measure : Measure
    value, lower, upper : float
    queries : list, the evaluated queries
    query_value, query_lower, query_upper : numpy.ndarray, per query (NaN: excluded)
    """

    measure: Measure
    value: float
    lower: float
    upper: float
    queries: list
    query_value: np.ndarray
    query_lower: np.ndarray
    query_upper: np.ndarray

    @property
    def width(self) -> float:
        """upper - lower: how much the unjudged docs could still move the mean."""
        return self.upper - self.lower

    def per_query(self) -> dict:
        """``{query: (lower, upper)}``."""
        return {q: (lo, hi) for q, lo, hi in zip(self.queries, self.query_lower.tolist(),
                                                 self.query_upper.tolist())}

    def format(self, digits: int = 3) -> str:
        return f"{self.value:.{digits}f} [{self.lower:.{digits}f}, {self.upper:.{digits}f}]"

    def __str__(self) -> str:
        return f"{self.measure} {self.format()}"

    def overlaps(self, other: "Bounds") -> bool:
        """Do the two intervals overlap, so that the judged docs alone do not
        decide which mean is higher (the sign of the difference could flip)?"""
        return not (self.lower > other.upper or other.lower > self.upper)


@dataclasses.dataclass(frozen=True)
class TieRange(Bounds):
    """A measure's value and its range over the orders of tied docs
    (``evaluate(..., ties_range=True)``): per query the lowest and highest
    value over every order of each group of equal scores; for the mean, the
    mean of the lowest and of the highest (queries are independent, so each
    is reached by one choice of orders). The value (under ``ties=expected``
    the mean over those orders, under ``docid`` or ``input`` one of them) lies
    within. Print it as ``0.341 [0.300, 0.400]``.

    ``lower`` and ``upper`` are the range's ends (``min`` and ``max``), as in
    :class:`Bounds`.
    """

    min = alias("lower", "The range's lowest end: :attr:`lower`.")
    max = alias("upper", "The range's highest end: :attr:`upper`.")

    def __str__(self) -> str:
        return f"{self.measure} {self.format()} over tied orders"


def kept_mean(values: np.ndarray, keep: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The mean of ``values[keep]``, weighted by ``weights[keep]`` when given: sum(w * v) / sum(w).
    NaN when nothing is kept or the kept weights sum to 0.

    >>> kept_mean(np.array([1.0, 2.0, 6.0]), np.array([True, False, True]), np.array([3.0, 1.0, 1.0]))
    2.25
    """
    if not keep.any():
        return math.nan
    if weights is None:
        return float(values[keep].mean())
    w = weights[keep]
    return float(np.dot(w, values[keep]) / w.sum()) if w.sum() else math.nan
