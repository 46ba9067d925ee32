"""The one JSON writer: standard JSON only, so a non-finite number is refused, never written bare.

``json.dumps`` writes ``Infinity`` and ``NaN`` by default: text that is not
JSON, which strict readers (and ``rankproof compare --results``) refuse.
Every document rankproof writes goes through :func:`json_text`, which
dumps with ``allow_nan=False`` and, when a value is not finite, names where
it sits in one line.

>>> json_text({"a": [1.5, None]})
'{"a": [1.5, null]}'
>>> non_finite_at({"runs": {"r": {"dcg@10": float("inf")}}})
('runs.r.dcg@10', inf)
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import InputError, literal

__all__ = ["json_text", "non_finite_at"]


def non_finite_at(value: Any, path: str = "") -> tuple[str, float] | None:
    """(where, value) of the first non-finite float in a JSON-ready document, or None."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return where or "the document", item
        if isinstance(item, dict):
            stack.extend((f"{where}.{key}" if where else str(key), v)
                         for key, v in reversed(list(item.items())))
        elif isinstance(item, (list, tuple)):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None


def json_text(document: Any, **options: Any) -> str:
    """``json.dumps(document, allow_nan=False, **options)``; a non-finite number is one clear error."""
    try:
        return json.dumps(document, allow_nan=False, **options)
    except ValueError as error:
        found = non_finite_at(document)
        if found is None:
            raise
        where, value = found
        raise InputError(what=literal(f"{where} is {value}, which JSON cannot hold"), value=value,
                         fix="this number overflowed; check the inputs' magnitudes (grades, gains, weights)"
                         ) from error
