"""What a grade or a score may be, and what is wrong with one that is not.

Every reader (TREC files, tables, files of judgments per intent) reads a
value by these rules, so a value means the same thing in every format, and
says what is wrong with a bad one in the same words: a :class:`Problem`, the
``what`` and ``fix`` fields of the error the reader raises with the value's
location.

>>> grade_problem("1.5").what
"grade '1.5' is not an integer"
>>> score_problem("11.17") is None
True
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

import numpy as np

from ..errors import REAL_GRADES_HINT, literal, shorten as cut_short

__all__ = [
    "INTEGER",
    "FLOAT",
    "Problem",
    "shorten",
    "grade_problem",
    "real_grade_problem",
    "score_problem",
    "grade_number_problem",
    "grade_text_problem",
    "real_grade_text_problem",
]

# Integers as trec_eval's atol reads them, minus the leading whitespace (which
# cannot occur inside a column). pyarrow alone would also take "0x10" as 16.
INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_INTEGRAL_DECIMAL = re.compile(r"([+-]?[0-9]+)\.0*", re.ASCII)
# The number syntax of scores (the compiled scan accepts exactly these, minus
# NaN and infinities); also the rule for numbers held as text in tables.
FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)",
    re.ASCII | re.IGNORECASE,
)
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_INT64_LIMIT = 2.0**63
_SHOWN_CHARS = 80

_INTEGER_GRADES = "give every judgment an integer grade such as 0, 1, 2"
_SMALL_GRADES = "use small integer grades such as 0, 1, 2"
_FRACTIONAL = f"grades must be integers (map fractional labels to integer grades first, {REAL_GRADES_HINT})"


class Problem(NamedTuple):
    """What is wrong with one value: the ``what`` and ``fix`` of its error (templates
    in the sense of :func:`rankproof.errors.render`), and the value itself."""

    what: str
    fix: str | None = None
    value: Any = None


def shorten(text: str) -> str:
    """Cut text that would make a one-line message unreadable (a value of a file's line)."""
    return cut_short(text, _SHOWN_CHARS)


def grade_problem(value: str) -> Problem | None:
    """What is wrong with a grade of a TREC file, or None if it is a valid integer."""
    shown = literal(repr(shorten(value)))
    integral = _INTEGRAL_DECIMAL.fullmatch(value)   # 3.0 is 3, as trec_eval reads it
    if integral:
        value = integral[1]
    if INTEGER.fullmatch(value):
        # More than 19 digits cannot fit, and int() refuses past 4,300 digits.
        if len(value.lstrip("+-")) <= 19 and _INT64_MIN <= int(value) <= _INT64_MAX:
            return None
        return Problem(f"grade {shown} does not fit in a 64-bit integer", _SMALL_GRADES, value)
    if FLOAT.fullmatch(value):
        return Problem(f"grade {shown} is not an integer",
                       "grades must be integers, so map fractional grades to integers with a grade map "
                       "(e.g. 0.5 -> 1, 1.0 -> 2), " + REAL_GRADES_HINT, value)
    return Problem(f"grade {shown} is not an integer", "grades must be integers such as 0, 1, 2",
                   value)


def real_grade_problem(value: str) -> Problem | None:
    """What is wrong with a real-valued grade (grades=real), or None if it is a finite number."""
    if FLOAT.fullmatch(value) and math.isfinite(float(value)):
        return None
    return Problem(f"grade {literal(repr(value))} is not a finite number",
                   "grades must be numbers such as 0, 1.5, 3", value)


def score_problem(value: str) -> Problem | None:
    """What is wrong with a score, or None if it is a finite number."""
    shown = literal(repr(value))
    if not FLOAT.fullmatch(value):
        return Problem(f"score {shown} is not a number",
                       "give every document a numeric score such as 11.17", value)
    number = float(value)
    if math.isnan(number):
        return Problem(f"NaN score {shown}", "give every document a finite score", value)
    if math.isinf(number):
        return Problem(f"infinite score {shown}", "give every document a finite score", value)
    return None


def grade_number_problem(shown: str, number: float) -> Problem | None:
    """What is wrong with a grade given as a float (`shown` as the message spells it),
    or None if it is integral."""
    text = literal(shown)
    if np.isnan(number):
        return Problem(f"grade {text} is NaN", _INTEGER_GRADES, number)
    if np.isinf(number):
        return Problem(f"grade {text} is infinite", _INTEGER_GRADES, number)
    if number != np.round(number):
        return Problem(f"grade {text} is not an integer", _FRACTIONAL, number)
    if not -_INT64_LIMIT <= number < _INT64_LIMIT:
        return Problem(f"grade {text} does not fit in a 64-bit integer", _SMALL_GRADES, number)
    return None


def grade_text_problem(text: str) -> Problem | None:
    """What is wrong with a grade written as text in a table, or None if it is an integer."""
    stripped = text.strip()
    if not stripped:
        return Problem("no grade (the value is empty)", _INTEGER_GRADES, text)
    shown = literal(repr(shorten(text)))
    if INTEGER.fullmatch(stripped):
        if _INT64_MIN <= int(stripped) <= _INT64_MAX:
            return None
        return Problem(f"grade {shown} does not fit in a 64-bit integer", _SMALL_GRADES, text)
    if FLOAT.fullmatch(stripped):
        return grade_number_problem(repr(shorten(text)), float(stripped))
    return Problem(f"grade {shown} is not an integer", _INTEGER_GRADES, text)


def real_grade_text_problem(text: str) -> Problem | None:
    """What is wrong with a real-valued grade written as text, or None if it is a finite number."""
    stripped = text.strip()
    if not stripped:
        return Problem("no grade (the value is empty)",
                       "give every judgment a grade such as 0, 1.5, 3", text)
    if FLOAT.fullmatch(stripped) and np.isfinite(float(stripped)):
        return None
    return Problem(f"grade {literal(repr(shorten(text)))} is not a finite number",
                   "give every judgment a grade such as 0, 1.5, 3", text)
