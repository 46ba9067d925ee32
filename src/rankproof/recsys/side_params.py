"""The parsers of side-data measures' parameters (``coverage(universe=...)``,
``ee_l(gamma=0.5)``): each takes the parameter's text or value and returns it
parsed, or raises ``ValueError`` with the domain it expected, which the
measure parser turns into a one-line refusal naming the parameter.

:func:`one_of` and :func:`in_open_unit` are the same checks for a keyword of
a measure function (``novelty(..., unseen="drop")``, ``gini(..., patience=0.85)``),
and :func:`check_cutoff` for its cutoff ``k``: they refuse with an :class:`~rankproof.errors.InputError` naming the
keyword or the function.

>>> open_unit("0.5"), positive("2"), positive_int("3"), choice("a", "b")("b")
(0.5, 2.0, 3, 'b')
>>> open_unit("1")
Traceback (most recent call last):
...
ValueError: expected a number in (0, 1); got '1'
"""

from __future__ import annotations

import math
from typing import Any, Callable, TypeVar

import numpy as np

from ..errors import InputError, literal

__all__ = ["check_cutoff", "choice", "in_open_unit", "one_of", "open_unit", "positive",
           "positive_int"]

_T = TypeVar("_T")


def _shown(value: Any) -> str:
    return repr(str(value)[:40])


def choice(*allowed: str) -> Callable[[Any], str]:
    """A parameter's parser that takes one of `allowed` (the value's text) and refuses anything else."""
    def parse(value: Any) -> str:
        if str(value) not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}; got {_shown(value)}")
        return str(value)
    return parse


def check_cutoff(k: Any, name: str) -> int:
    """`k` as an int >= 1, or a refusal naming the measure function `name`.

    >>> check_cutoff(np.int64(10), "gini")
    10
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(what=f"the cutoff k of {name} must be an integer >= 1; got {literal(repr(k))}. "
                         f"Write {name}(run, 10, ...)", value=k)
    return int(k)


def in_open_unit(name: str, value: Any, example: float) -> float:
    """`value` when it is a number strictly between 0 and 1 (a patience, a persistence); else a
    refusal naming the keyword `name`, with `example` as a value it takes.

    >>> in_open_unit("patience", 0.5, example=0.85)
    0.5
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise InputError(what=f"{name} must be in (0, 1), e.g. {example:g}; got {literal(repr(value))}",
                         value=value)
    return float(value)


def one_of(name: str, value: _T, allowed: tuple[str, ...]) -> _T:
    """`value` when it is one of `allowed`; else a refusal naming the keyword `name` and its choices.

    >>> one_of("unseen", "drop", ("zero", "drop"))
    'drop'
    >>> one_of("unseen", "laplace", ("zero", "drop"))
    Traceback (most recent call last):
    ...
    rankproof.errors.InputError: unseen must be one of zero, drop; got 'laplace'
    """
    if value not in allowed:
        raise InputError(what=f"{name} must be one of {', '.join(allowed)}; got {literal(repr(value))}",
                         value=value)
    return value


def open_unit(value: Any) -> float:
    """A number strictly between 0 and 1 (a patience, a persistence)."""
    number = float(value)
    if not 0 < number < 1:
        raise ValueError(f"expected a number in (0, 1); got {_shown(value)}")
    return number


def positive(value: Any) -> float:
    """A finite number above 0 (an exponent, a temperature)."""
    number = float(value)
    if not 0 < number < math.inf:
        raise ValueError(f"expected a number > 0; got {_shown(value)}")
    return number


def positive_int(value: Any) -> int:
    """An integer of at least 1 (a number of samples)."""
    number = int(str(value))
    if number < 1:
        raise ValueError(f"expected an integer >= 1; got {_shown(value)}")
    return number
