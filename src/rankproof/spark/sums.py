"""Exact sums of floats, so that a mean does not depend on how the queries were partitioned.

A float64 is an integer multiple of 2^-1074; every partition sums its values
exactly as one Python integer (in units of 2^-1127, which also holds the
subnormals' mantissas whole), the driver adds those integers and rounds once.
The mean is then the correctly rounded quotient whatever the partitioning,
where a Spark ``sum`` would round in the order the partitions arrive.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["exact_sum", "exact_ratio"]

_SCALE = 1127  # the sum is held times 2**_SCALE


def exact_sum(values: np.ndarray) -> int | None:
    """The sum of `values` times 2**1127, exactly; None when one is not finite.

    >>> exact_sum(np.array([0.1, 0.2])) == (Fraction(0.1) + Fraction(0.2)) * 2**1127
    True
    """
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        return None
    values = values[values != 0]
    if not len(values):
        return 0
    fraction, exponent = np.frexp(values)
    # value * 2**_SCALE = mantissa * 2**shift, with |mantissa| < 2**53 an integer and shift >= 1
    mantissa = (fraction * 2.0**53).astype(np.int64) + (1 << 53)  # made non-negative: < 2**54
    shift = exponent.astype(np.int64) + (_SCALE - 53)
    # Three 18-bit parts summed per shift by bincount: float64 sums of integers below 2**53 are
    # exact.
    counts = np.bincount(shift)
    parts = [np.bincount(shift, weights=(mantissa >> (18 * i)) & 0x3FFFF) for i in range(3)]
    total = 0
    for s in np.flatnonzero(counts):
        whole = sum(int(parts[i][s]) << (18 * i) for i in range(3)) - (int(counts[s]) << 53)
        total += whole << int(s)
    return total


def exact_ratio(numerator: int, denominator: int, scaled: bool = False) -> float:
    """numerator / denominator rounded once: a sum of :func:`exact_sum` over a count,
    or (`scaled`) over another such sum.

    >>> exact_ratio(exact_sum(np.array([0.25, 0.5])), 2)
    0.375
    """
    return float(Fraction(numerator, denominator if scaled else denominator << _SCALE))
