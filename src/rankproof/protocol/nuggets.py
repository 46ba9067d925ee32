"""The ``nuggets`` policy: whether values score answers by nuggets, and what a partial_support counts.

Rankings are measured under ``nuggets=none`` (the default, left out of the
canonical text). Results read from nuggetizer's assignment files
(:func:`rankproof.evaluate_nuggets`) hold ``nuggets=partial_support:0.5``:
their values score answers by nuggets, a partially supported nugget counting
0.5 in ``vital_score`` and ``all_score`` (nuggetizer's
``calculate_nugget_scores``). The text is in the protocol and so in its
fingerprint, which compare checks.

>>> str(parse_nuggets("nuggetizer")), str(parse_nuggets("none"))
('partial_support:0.5', 'none')
>>> parse_nuggets("partial_support:0.5") == Nuggets(0.5)
True
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ..errors import ProtocolError, literal, shorten
from .values import format_number

__all__ = ["Nuggets", "parse_nuggets", "NUGGETIZER"]


@dataclasses.dataclass(frozen=True)
class Nuggets:
    """``partial``: what a partial_support nugget counts (None: the values are not nugget scores)."""

    partial: float | None = None

    def __str__(self) -> str:
        return "none" if self.partial is None else f"partial_support:{format_number(self.partial)}"

    @property
    def scored(self) -> bool:
        """Do the values score answers by nuggets?"""
        return self.partial is not None


NUGGETIZER = Nuggets(0.5)
_FIX = "write none, nuggetizer (partial_support:0.5) or partial_support:X with X from 0 to 1"


def parse_nuggets(value: Any) -> Nuggets:
    """The policy from its text: ``none``, ``nuggetizer`` or ``partial_support:X`` (0 <= X <= 1)."""
    if isinstance(value, Nuggets):
        return value
    text = str(value).strip().lower()
    if text == "none":
        return Nuggets()
    if text == "nuggetizer":
        return NUGGETIZER
    head, sep, number = text.partition(":")
    credit = math.nan
    if head == "partial_support" and sep:
        try:
            credit = float(number)
        except ValueError:
            pass
    if not 0 <= credit <= 1:
        raise ProtocolError(what=f"policy nuggets does not accept {literal(repr(shorten(str(value))))}",
                            value=value, fix=_FIX)
    return Nuggets(credit)
