"""ListValues: one value per list (user) of a side-data measure, as the per-list measures return.

The per-list measures (:mod:`~rankproof.recsys.beyond`, :mod:`~rankproof.recsys.calibration`, ...)
return it, and :func:`~rankproof.recsys.sessions.session_mean` takes it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .measure_value import MeasureValue

__all__ = ["ListValues"]


@dataclasses.dataclass(frozen=True)
class ListValues(MeasureValue):
    """Per-query values of one beyond-accuracy measure (its ``measure`` e.g.
    ``ild(distance=cosine)@10``).

    Attributes
    ----------
    queries : numpy.ndarray of str
        Every query (user) of the run, sorted.
    values : numpy.ndarray of float64
        Per query; ``nan`` where undefined.
    sizes : numpy.ndarray of int64
        Items of each list inside the cutoff (n = min(k, list length)).
    """

    queries: np.ndarray
    values: np.ndarray
    sizes: np.ndarray

    @property
    def undefined(self) -> int:
        """Lists whose value is undefined (left out of the mean)."""
        return int(np.isnan(self.values).sum())

    @property
    def mean(self) -> float:
        """Mean over the lists with a value; nan when none has one."""
        defined = self.values[~np.isnan(self.values)]
        return float(defined.mean()) if defined.size else math.nan

    def per_query(self) -> dict[str, float]:
        """``{query: value}`` for the lists with a value."""
        keep = ~np.isnan(self.values)
        return dict(zip(self.queries[keep].tolist(), self.values[keep].tolist()))

    def __str__(self) -> str:
        return (f"{self.measure} {self.mean:.4f} over {len(self.values) - self.undefined} lists"
                + (f" ({self.undefined} undefined, left out)" if self.undefined else ""))
