"""Grade columns read into numbers: integer grades (the default) or real ones (``grades=real``).

Every grade is checked as it is read; a bad one is an error naming its source, line, query and
doc (``locate(i)`` gives them for the i-th grade), and what to do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import REAL_GRADES_HINT, ParseError, literal
from .numbers import REAL_GRADES, finite_floats, is_number, shown_value

__all__ = ["as_real", "integer_grades", "real_grades"]


def as_real(grades: Any) -> bool:
    """Read a ``grades=`` argument: True for 'real', False for 'integer'
    (a :class:`~rankproof.protocol.Protocol`'s ``grades`` policy, or its text)."""
    from ..protocol.policies import Grades, parse_enum

    return parse_enum("grades", Grades, grades) is Grades.REAL


def _refuse(locate, i: int, what: str, fix: str, value: Any) -> ParseError:
    return ParseError(what=what, fix=fix, value=value, **locate(i))


def real_grades(values: Any, locate) -> np.ndarray:
    """Grades as float64: finite numbers (integers included); booleans, text
    and NaN or infinite values are refused. ``locate(i)`` gives the location
    fields (source, line, query, doc) of row i for errors."""
    return finite_floats(values, locate, REAL_GRADES)


_SMALL = "use small integer grades such as 0, 1, 2"


def _object_grades(array: np.ndarray, locate) -> np.ndarray | None:
    """Python values one by one (from_dict): a bool, a list or a huge int would
    otherwise be converted, wrapped or fail later. int64 grades when all are
    integers, else None."""
    for i, value in enumerate(array.tolist()):
        if not is_number(value):
            raise _refuse(locate, i, f"grade {shown_value(value)} is not an integer",
                          "grades must be integers such as 0, 1, 2", value)
        if isinstance(value, (int, np.integer)) and not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise _refuse(locate, i,
                          f"grade {literal(str(value)[:40])} does not fit in a 64-bit integer",
                          _SMALL, value)
    if all(isinstance(value, (int, np.integer)) for value in array.tolist()):
        return array.astype(np.int64)
    return None


def integer_grades(values: Any, locate, real_hint: bool = True) -> np.ndarray:
    """Grades as int64; non-integer or non-numeric values are refused.

    ``locate(i)`` gives the location fields of row ``i`` for errors;
    `real_hint` says whether the message may point to ``grades=real`` (judgments
    per intent are binary, and take no real grades).
    """
    array = np.asarray(values)
    if array.dtype == bool:
        raise ParseError(what="grades must be integers, not booleans", **locate(0))
    if array.dtype.kind == "u" and array.size and array.max() > _INT64_MAX:
        i = int(np.argmax(array > _INT64_MAX))
        raise _refuse(locate, i, f"grade {array[i].item()} does not fit in a 64-bit integer",
                      _SMALL,
                      array[i].item())
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype == object:
        integers = _object_grades(array, locate)
        if integers is not None:
            return integers
    if array.dtype.kind != "f":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            for i, value in enumerate(array.tolist()):
                try:
                    float(value)
                except (TypeError, ValueError):
                    raise _refuse(locate, i, f"grade {literal(repr(value))} is not an integer",
                                  "grades must be integers such as 0, 1, 2", value) from None
            raise
    bad = ~np.isfinite(array) | (array != np.round(array))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        hint = f", {REAL_GRADES_HINT}" if np.isfinite(array[i]) and real_hint else ""
        raise _refuse(locate, i, f"grade {literal(repr(array[i].item()))} is not an integer",
                      f"grades must be integers (map fractional labels to integer grades first{hint})",
                      array[i].item())
    # float64 holds 2^63 exactly; anything from there on would wrap in int64.
    outside = (array < _INT64_MIN) | (array >= 2.0**63)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise _refuse(locate, i,
                      f"grade {literal(repr(array[i].item()))} does not fit in a 64-bit integer",
                      _SMALL, array[i].item())
    return array.astype(np.int64)


_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
