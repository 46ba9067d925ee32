"""Limits on hostile input, as data: each has a default and an environment variable.

A reader that meets input beyond one of these refuses it with a message that
names the limit, its value and how to raise it, instead of running out of
memory (a 1 MB id, a gzip bomb), reading forever (``/dev/zero`` as a run) or
crashing inside a parser (JSON nested 10,000 deep).

==========================  ===============================  ====================
limit                       environment variable             default
==========================  ===============================  ====================
id length (bytes)           RANKPROOF_MAX_ID_LENGTH          4096
decompressed size (bytes)   RANKPROOF_MAX_DECOMPRESSED_BYTES 64 GiB
decompression ratio         RANKPROOF_MAX_DECOMPRESSION_RATIO 1000
stream size (bytes)         RANKPROOF_MAX_STREAM_BYTES       4 GiB 
JSON nesting depth          RANKPROOF_MAX_NESTING_DEPTH      64
FIFO wait for a writer (s)  RANKPROOF_FIFO_TIMEOUT           30
==========================  ===============================  ====================

The stream limit applies only to inputs that have no size (pipes, devices,
``<(...)``); a regular file's size is known and is not limited here.

Examples
--------
>>> MAX_ID_LENGTH.value()
4096
>>> MAX_ID_LENGTH.refusal("doc id of 5000 bytes")
'doc id of 5000 bytes is beyond the id length limit of 4096 bytes; raise it with RANKPROOF_MAX_ID_LENGTH=... if the input is meant to be so'

An error raised for a limit carries the two halves as fields:

>>> error = InputError(what=MAX_ID_LENGTH.beyond("the doc id of 5000 bytes"), fix=MAX_ID_LENGTH.fix, line=3)
>>> str(error)
'line 3: the doc id of 5000 bytes is beyond the id length limit of 4096 bytes; raise it with RANKPROOF_MAX_ID_LENGTH=... if the input is meant to be so'
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import InputError, literal

__all__ = [
    "Limit",
    "LIMITS",
    "MAX_ID_LENGTH",
    "MAX_DECOMPRESSED_BYTES",
    "MAX_DECOMPRESSION_RATIO",
    "MAX_STREAM_BYTES",
    "MAX_NESTING_DEPTH",
    "FIFO_TIMEOUT",
]


@dataclass(frozen=True)
class Limit:
    """One limit: what it bounds, its default, and the variable that overrides it."""

    name: str
    variable: str
    default: int
    unit: str

    def value(self) -> int:
        """The limit in force: the environment variable when set, else the default."""
        text = os.environ.get(self.variable)
        if text is None or not text.strip():
            return self.default
        try:
            number = int(text.strip())
        except ValueError:
            number = -1
        if number <= 0:
            raise InputError(source=f"{self.variable}={text!r}", value=text,
                             what=f"give the {self.name} limit as a positive whole number of {self.unit} "
                                  f"(default {self.default})")
        return number

    def beyond(self, what: str) -> str:
        """The ``what`` of an error for input beyond this limit (a template: braces in
        `what`, which says what was found, are kept as braces)."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{literal(what)} is beyond the {self.name} limit of {self.value()}{unit}"

    @property
    def fix(self) -> str:
        """The ``fix`` of an error for input beyond this limit."""
        return f"raise it with {self.variable}=... if the input is meant to be so"

    def refusal(self, what: str) -> str:
        """The message for input beyond this limit; `what` says what was found."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{what} is beyond the {self.name} limit of {self.value()}{unit}; {self.fix}"


MAX_ID_LENGTH = Limit("id length", "RANKPROOF_MAX_ID_LENGTH", 4096, "bytes")
MAX_DECOMPRESSED_BYTES = Limit("decompressed size", "RANKPROOF_MAX_DECOMPRESSED_BYTES",
                               64 * 1024**3, "bytes")
MAX_DECOMPRESSION_RATIO = Limit("decompression ratio", "RANKPROOF_MAX_DECOMPRESSION_RATIO", 1000,
                                "")
MAX_STREAM_BYTES = Limit("stream size", "RANKPROOF_MAX_STREAM_BYTES", 4 * 1024**3, "bytes")
MAX_NESTING_DEPTH = Limit("JSON nesting depth", "RANKPROOF_MAX_NESTING_DEPTH", 64, "levels")
FIFO_TIMEOUT = Limit("FIFO wait", "RANKPROOF_FIFO_TIMEOUT", 30, "seconds")

LIMITS = (MAX_ID_LENGTH, MAX_DECOMPRESSED_BYTES, MAX_DECOMPRESSION_RATIO, MAX_STREAM_BYTES,
          MAX_NESTING_DEPTH,
          FIFO_TIMEOUT)
"""Every limit, for documentation and for messages that list them."""
