"""What a caller gives as a protocol (None, a preset's name, protocol text or a Protocol) as a
Protocol value: :func:`as_protocol`. Reading the files a protocol's policies name is the
evaluation step's :func:`rankproof.evaluation.resolve_protocol`, the one public name that
resolves a protocol."""

from __future__ import annotations

from ..errors import InputError
from . import Protocol

__all__ = ["as_protocol"]


def as_protocol(protocol: Protocol | str | None) -> Protocol:
    """A Protocol from what a caller gives: None (the default), a preset name, protocol text, or a Protocol.

    >>> as_protocol("trec_eval") == Protocol.preset("trec_eval")
    True
    """
    if protocol is None:
        return Protocol()
    if isinstance(protocol, str):
        return Protocol.preset(protocol) if "=" not in protocol else Protocol.from_text(protocol)
    if not isinstance(protocol, Protocol):
        raise InputError(what=f"protocol must be a Protocol, a preset name or protocol text; got {type(protocol).__name__}",
                         value=protocol)
    return protocol
