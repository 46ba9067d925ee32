"""The domain of every fusion parameter, as a table, checked before any run is read.

=================  ======================================  =====================================
parameter          domain                                  why
=================  ======================================  =====================================
``k`` (rrf)        a finite number >= 0                    ``1 / (k + p + 1)``: k < 0 divides by
                                                           zero or flips the sign near the top
``phi`` (rbc)      0 < phi < 1                             the weights ``phi ** p`` of a
                                                           geometric series that must shrink
``gamma`` (gmnz)   a finite number                         ``|R| ** gamma``
``sigma``          a finite number > 0                     ``log(|R| + sigma)``, a small positive
(logn_isr)                                                 constant
``n_segments``     an integer >= 1                         how many segments a list is cut into
(probfuse)
``w`` (slidefuse)  an integer >= 0                         the half-width of the window
``weights``        finite numbers, not all zero            one per run; all zero fuses nothing
=================  ======================================  =====================================

A value inside the domain but beyond the data (a window wider than the
longest list, more segments than ranks) gives the same fused run as the
longest list's width: the methods cap it, so no value runs without bound.

Examples
--------
>>> check_domains({"phi": 0.5, "k": 60})
>>> try:
...     check_domains({"phi": 1.5})
... except Exception as error:
...     print(error)
fuse: phi=1.5 is outside its domain: a number strictly between 0 and 1; e.g. --param phi=0.8
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import InputError, literal

__all__ = ["DOMAINS", "check_domains"]


def _number(value: Any) -> float | None:
    """The value as a float, or None when it is not a real number (a bool is not one)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _finite(low: float | None = None, *, above: bool = False) -> Callable[[Any], bool]:
    def inside(value: Any) -> bool:
        x = _number(value)
        return (x is not None and math.isfinite(x)
                and (low is None or (x > low if above else x >= low)))
    return inside


def _integer(low: int) -> Callable[[Any], bool]:
    def inside(value: Any) -> bool:
        x = _number(value)
        return x is not None and math.isfinite(x) and x.is_integer() and x >= low
    return inside


def _open_unit(value: Any) -> bool:
    x = _number(value)
    return x is not None and 0 < x < 1


# parameter -> (whether a value is inside, the domain in words, an example)
DOMAINS: dict[str, tuple[Callable[[Any], bool], str, str]] = {
    "k": (_finite(0), "a finite number >= 0", "k=60"),
    "phi": (_open_unit, "a number strictly between 0 and 1", "phi=0.8"),
    "gamma": (_finite(), "a finite number", "gamma=0.5"),
    "sigma": (_finite(0, above=True), "a finite number > 0", "sigma=0.01"),
    "n_segments": (_integer(1), "an integer >= 1", "n_segments=10"),
    "w": (_integer(0), "an integer >= 0", "w=5"),
}


def check_domains(params: Mapping[str, Any]) -> None:
    """Refuse a parameter outside its domain (:data:`DOMAINS`) and weights that fuse nothing.

    Raises
    ------
    InputError
        Naming the parameter, its value, its domain and an example.
    """
    for name, value in params.items():
        if name == "weights":
            _check_weights(value)
        elif name in DOMAINS and not DOMAINS[name][0](value):
            _, words, example = DOMAINS[name]
            raise InputError(source="fuse",
                             what=literal(f"{name}={value!r} is outside its domain: {words}"),
                             value=value, fix=f"e.g. --param {example}")


def _check_weights(weights: Any) -> None:
    numbers = [_number(w) for w in weights]
    if any(x is None or not math.isfinite(x) for x in numbers):
        raise InputError(source="fuse",
                         what=literal(f"weights {tuple(weights)!r}: each must be a finite number"),
                         value=tuple(weights), fix="e.g. --weights 0.5,0.3,0.2")
    if all(x == 0 for x in numbers):
        raise InputError(source="fuse",
                         what=literal(f"weights {tuple(weights)!r} are all zero: nothing is fused"),
                         value=tuple(weights),
                         fix="give at least one non-zero weight, e.g. --weights 0.5,0.5")
