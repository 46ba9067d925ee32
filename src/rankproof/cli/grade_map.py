"""``--grade-map``: grades mapped before anything else (``1:4,2:3,-1:0`` or a JSON file ``{"1": 4}``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import InputError
from .usage import literal, short

__all__ = ["grade_map"]

_PAIRS = "write integer pairs such as 1:4,2:3,-1:0 (use --grade-map=-1:0,... when the first grade is negative)"


def grade_map(text: str | None) -> dict[int, int] | None:
    """The mapping of --grade-map TEXT (None without the option).

    >>> grade_map("1:4,2:3,-1:0")
    {1: 4, 2: 3, -1: 0}
    """
    if text is None:
        return None
    if text.endswith(".json") or _is_file(text):
        items = _json_items(text)
    else:
        items = [part.split(":", 1) if ":" in part else (part, None) for part in text.split(",")
                 if part.strip()]
    mapping: dict[int, int] = {}
    for old, new in items:
        if new is None:
            raise InputError(source="--grade-map",
                             what=literal(f"cannot read {short(old)}: no ':' in it"),
                             fix=_PAIRS)
        try:   # more than 19 digits cannot fit in 64 bits, and int() refuses past 4,300
            grade, value = (_integer(str(item).strip()) for item in (old, new))
        except InputError:
            raise
        except (TypeError, ValueError):
            raise InputError(source="--grade-map",
                             what=literal(f"cannot read {short(old)}:{short(new)}"),
                             fix=_PAIRS) from None
        if grade in mapping:
            raise InputError(source="--grade-map", what=f"grade {grade} is mapped twice",
                             fix="map each grade once")
        for number in (grade, value):
            if not -(2**63) <= number < 2**63:
                raise InputError(source="--grade-map",
                                 what=f"{short(number)} does not fit in a 64-bit integer",
                                 fix="use small integer grades such as 0, 1, 2")
        mapping[grade] = value
    return mapping


def _integer(text: str) -> int:
    digits = text.lstrip("+-")
    if len(digits) > 19 and digits.isdigit():
        raise InputError(source="--grade-map",
                         what=f"an integer of {len(digits):,} digits does not fit in a 64-bit integer",
                         value=short(text), fix="use small integer grades such as 0, 1, 2")
    return int(text)


def _is_file(text: str) -> bool:
    """Whether --grade-map names a file; an inline map too long for a file name is no file."""
    try:
        return Path(text).exists()
    except OSError:   # ENAMETOOLONG for 100 inline grades
        return False


def _json_items(text: str) -> Iterable[Sequence[Any]]:
    from ..io.files import check_json_nesting, json_int, load_text

    example = "give a JSON file such as {\"1\": 4, \"2\": 3}"
    source = f"--grade-map {text}"
    data = load_text(text, source, what="grade map", label="JSON", binary_hint=lambda _: example,
                     encoding_fix=lambda _: example)
    check_json_nesting(data, source)
    try:
        raw = json.loads(data, parse_int=json_int)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise InputError(source=source, what=literal(f"not valid JSON ({error})"),
                         fix=literal("write {\"1\": 4, \"2\": 3}")) from None
    if not isinstance(raw, dict):
        raise InputError(source=source,
                         what=literal("expected a JSON object such as {\"1\": 4, \"2\": 3}"),
                         fix="write one grade: new grade pair per key")
    return raw.items()
