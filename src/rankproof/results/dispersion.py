"""How spread a measure's per-query values are: the numbers beside a mean.

ranx prints the standard deviation of the per-query values beside each mean
(``evaluate(..., return_std=True)``: numpy's ``std``, the population form
dividing by n); :func:`dispersion` gives it and the other usual summaries,
over the queries the mean includes (an excluded query takes no part).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = ["Dispersion", "dispersion"]


@dataclasses.dataclass(frozen=True)
class Dispersion:
    """The spread of one measure's per-query values.

    ``std`` divides by n (ranx's ``return_std``, numpy's default); ``sample_std``
    by n - 1 (NaN with one query). ``q1``, ``median`` and ``q3`` are numpy's
    linear-interpolation quantiles; ``iqr`` = q3 - q1. Every field is NaN when
    no query is included.
    """

    n: int
    std: float
    sample_std: float
    minimum: float
    q1: float
    median: float
    q3: float
    maximum: float

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "iqr": self.iqr}


def dispersion(values: np.ndarray) -> Dispersion:
    """The spread of per-query values (the included ones: no NaN).

    >>> d = dispersion(np.array([0.0, 0.5, 1.0, 1.0]))
    >>> d.std, d.median, d.iqr            # population std: sqrt(mean((v - 0.625)^2))
    (0.414578098794425, 0.75, 0.625)
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return Dispersion(0, *([math.nan] * 7))
    q1, median, q3 = np.quantile(values, [0.25, 0.5, 0.75])
    return Dispersion(n, float(np.std(values)),
                      float(np.std(values, ddof=1)) if n > 1 else math.nan,
                      float(values.min()), float(q1), float(median), float(q3), float(values.max()))
