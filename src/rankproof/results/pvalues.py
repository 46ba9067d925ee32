"""One way to print a p-value for reading, shared by the commands and the pages that print them
(below both stats/ and report/, so each reads this one definition).

Four decimals, and ``< 0.0001`` below that: a p-value from resampling or an
approximation is not known to more digits, and ``0.0e+00`` or ``0.0000``
would claim an impossible certainty. NaN (no test) prints ``n/a``.

>>> [p_text(p) for p in (0.0312, 3e-7, 0.0, float("nan"))]
['0.0312', '< 0.0001', '< 0.0001', 'n/a']
"""

from __future__ import annotations

import math

__all__ = ["p_text", "SMALLEST"]

SMALLEST = 0.0001


def p_text(p: float) -> str:
    """``p`` with 4 decimals, ``< 0.0001`` below that, ``n/a`` for NaN."""
    if p is None or math.isnan(p):
        return "n/a"
    return f"< {SMALLEST:g}" if p < SMALLEST else f"{p:.4f}"
