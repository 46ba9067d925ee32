"""Python values read into finite float64: the scores of a run and real-valued grades.

The values come from ``from_dict`` or a DataFrame (any Python or numpy value),
so each is checked as it is read; a bad one is an error naming its source,
line, query and doc (``locate(i)`` gives them for the i-th value), what is
wrong (a boolean, text, a value beyond float64, NaN or an infinity) and what
to do. Both kinds of number are read by one function: only the words differ
(:class:`Numbers`).

>>> finite_floats([1, 2.5], lambda i: {"source": "run"}, SCORES).tolist()
[1.0, 2.5]
>>> finite_floats([1, float("nan")], lambda i: {"source": "run"}, SCORES)
Traceback (most recent call last):
...
rankproof.errors.ParseError: run: score nan is not finite; give every document a finite score
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParseError, literal

__all__ = ["Numbers", "SCORES", "REAL_GRADES", "finite_floats", "shown_value", "is_number"]


@dataclass(frozen=True)
class Numbers:
    """How the messages about one kind of number name it (`noun`), say that a value is NaN
    or an infinity (`not_finite`), and what to do with a value that is not a number
    (`numeric`) or not a finite one (`finite`)."""

    noun: str
    not_finite: str
    numeric: str
    finite: str


SCORES = Numbers("score", "is not finite", "give every document a numeric score",
                 "give every document a finite score")
REAL_GRADES = Numbers("grade", "is not a finite number", "grades must be numbers such as 0, 1.5, 3",
                      "give every judgment a finite grade such as 0, 1.5, 3")


def shown_value(value: Any) -> str:
    """A Python value in a message, cut to 40 characters, as a template."""
    return literal(repr(str(value)[:40]))


def is_number(value: Any) -> bool:
    """A Python or numpy number, not a bool (a bool is an int to Python, not a grade or score)."""
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))


def _refuse_unreadable(array: np.ndarray, locate, numbers: Numbers) -> None:
    """Raise the error for the first value float() cannot read (after ``astype`` failed)."""
    for i, value in enumerate(array.tolist()):
        try:
            float(value)
        except OverflowError:
            raise ParseError(what=f"{numbers.noun} {literal(str(value)[:40])} is beyond float64",
                             fix=numbers.finite, value=value, **locate(i)) from None
        except (TypeError, ValueError):
            raise ParseError(what=f"{numbers.noun} {shown_value(value)} is not a number",
                             fix=numbers.numeric, value=value, **locate(i)) from None


def finite_floats(values: Any, locate, numbers: Numbers) -> np.ndarray:
    """`values` as a new float64 array of finite numbers (integers included); booleans, text,
    values beyond float64, NaN and infinities are refused, the first one named by
    ``locate(i)`` (the location fields: source, line, query, doc) in `numbers`' words."""
    array = np.asarray(values)
    if array.dtype == bool:
        raise ParseError(what=f"{numbers.noun}s must be numbers, not booleans", **locate(0))
    if array.dtype == object:
        # Python values one by one: a bool or a list would otherwise be converted or fail later.
        for i, value in enumerate(array.tolist()):
            if not is_number(value):
                raise ParseError(what=f"{numbers.noun} {shown_value(value)} is not a number",
                                 fix=numbers.numeric, value=value, **locate(i))
    try:
        floats = array.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        _refuse_unreadable(array, locate, numbers)
        raise
    bad = ~np.isfinite(floats)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = floats[i].item()
        raise ParseError(what=f"{numbers.noun} {literal(repr(value))} {numbers.not_finite}",
                         fix=numbers.finite, value=value, **locate(i))
    return floats
