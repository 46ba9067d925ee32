"""The ``ids`` policy: how query and doc ids are normalised before qrels and run are matched.

By default (``ids=none``) ids match exactly as written: ``001`` and ``1`` are
two queries. A protocol may name steps, applied in this order whatever the
order written, to the query and doc ids of both sides:

==============  ==================================================  ===================
step            what it does                                        example
==============  ==================================================  ===================
``strip``       drops blanks around the id                          ``' d1 '`` -> ``d1``
``casefold``    folds case (Unicode case folding)                   ``D1`` -> ``d1``
``strip_zeros`` drops the leading zeros of an id made of digits     ``007`` -> ``7``
==============  ==================================================  ===================

Combined with commas: ``ids=strip,casefold``. The text lists them in the
order above, so one set of steps has one text and one fingerprint.

>>> policy = parse_ids("strip_zeros,strip")
>>> str(policy), policy.apply(["001", " 02 ", "0", "d07"])
('strip,strip_zeros', ['1', '2', '0', 'd07'])
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterable

from ..errors import ProtocolError, literal

__all__ = ["IdPolicy", "parse_ids", "ID_STEPS"]

# The steps, in the order they apply (and the text lists them).
ID_STEPS = ("strip", "casefold", "strip_zeros")
_LEADING_ZEROS = re.compile(r"^0+(?=[0-9])")


def _strip_zeros(text: str) -> str:
    return _LEADING_ZEROS.sub("", text, count=1) if text.isascii() and text.isdigit() else text


_STEP: dict[str, Callable[[str], str]] = {"strip": str.strip, "casefold": str.casefold,
                                          "strip_zeros": _strip_zeros}


@dataclasses.dataclass(frozen=True)
class IdPolicy:
    """The steps that normalise ids (see the module); none by default."""

    steps: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = [s for s in self.steps if s not in ID_STEPS]
        if unknown:
            raise ProtocolError(what=f"policy ids does not accept {literal(repr(unknown[0]))}",
                                value=unknown[0],
                                fix=f"choose none, or one or more of {', '.join(ID_STEPS)} joined by commas "
                                    "(e.g. ids=strip,casefold)")
        object.__setattr__(self, "steps", tuple(s for s in ID_STEPS if s in self.steps))

    def __bool__(self) -> bool:
        return bool(self.steps)

    def __str__(self) -> str:
        return ",".join(self.steps) if self.steps else "none"

    def one(self, text: str) -> str:
        """One id normalised."""
        for step in self.steps:
            text = _STEP[step](text)
        return text

    def apply(self, ids: Iterable[str]) -> list[str]:
        """Every id normalised, in order."""
        return [self.one(text) for text in ids]


def parse_ids(value: Any) -> IdPolicy:
    """Read the ids policy: an IdPolicy, ``none``, a step, steps joined by commas, or a sequence of steps."""
    if isinstance(value, IdPolicy):
        return value
    if isinstance(value, (list, tuple)):
        steps = [str(v).strip().lower() for v in value]
    else:
        text = str(value).strip().lower()
        steps = [] if text == "none" else [part.strip() for part in text.split(",")]
    if any(not step for step in steps):
        raise ProtocolError(what=f"policy ids does not accept {literal(repr(value))}", value=value,
                            fix=f"write none, or steps joined by commas without blanks: {','.join(ID_STEPS)}")
    return IdPolicy(tuple(steps))
