"""The ``judgments`` policy: where the judgments came from, when qrels are layered.

Plain qrels are measured under ``judgments=none`` (the default, left out of
the canonical text). Qrels layered from several sources
(:meth:`rankproof.Qrels.layer`: the first source that judged a (query, doc)
wins) are measured under ``judgments=layers:human>judge``, the sources in
order of precedence; the text is in the protocol and so in its fingerprint,
so results measured on differently layered judgments do not pass for
comparable.

>>> str(parse_layers("layers:human>llm")), str(parse_layers("none"))
('layers:human>llm', 'none')
>>> parse_layers("layers:human>llm") == Layers(("human", "llm"))
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import ProtocolError, literal, shorten
from .values import read_policy

__all__ = ["Layers", "parse_layers"]

_FIX = "write none, or layers:A>B>... naming the sources in order of precedence (letters, digits, _ - .)"


@dataclasses.dataclass(frozen=True)
class Layers:
    """``names``: the judgment sources in order of precedence (empty: the qrels are not layered)."""

    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "layers:" + ">".join(self.names) if self.names else "none"


def _valid(name: str) -> bool:
    return bool(name) and all(c.isalnum() or c in "_-." for c in name)


def parse_layers(value: Any) -> Layers:
    """The policy from its text: ``none`` or ``layers:A>B>...`` (two or more distinct names)."""
    return read_policy(value, Layers, _layers)


def _layers(text: str) -> Layers:
    head, sep, rest = text.partition(":")
    names = tuple(rest.split(">")) if head == "layers" and sep else ()
    if len(names) < 2 or len(set(names)) != len(names) or not all(map(_valid, names)):
        raise ProtocolError(what=f"cannot read judgments={literal(repr(shorten(text, 40)))}",
                            fix=_FIX, value=text)
    return Layers(names)
