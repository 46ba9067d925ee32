"""One exception hierarchy for every user-facing error.

Every message says what was wrong, where (file, line, query, doc) and what to
do about it, so the command line can print it as one line and exit with 2.
Internal bugs are never raised as :class:`RankproofError`.
"""

from __future__ import annotations

__all__ = [
    "RankproofError",
    "InputError",
    "ParseError",
    "DuplicateError",
    "UnjudgedError",
    "TieError",
    "ZeroIdealError",
    "MissingQueryError",
    "ProtocolError",
    "MeasureError",
    "ComparabilityError",
]


def where(
    *,
    source: str | None = None,
    line: int | None = None,
    query: str | None = None,
    doc: str | None = None,
) -> str:
    """Format a location prefix such as ``"run.txt line 17: query q3, doc D12: "``.

    Parts that are unknown are left out; an empty location gives ``""``.
    """
    head = " ".join(
        part
        for part in (source, f"line {line}" if line is not None else None)
        if part
    )
    subject = ", ".join(
        part
        for part in (
            f"query {query}" if query is not None else None,
            f"doc {doc}" if doc is not None else None,
        )
        if part
    )
    parts = [p for p in (head, subject) if p]
    return (": ".join(parts) + ": ") if parts else ""


class RankproofError(Exception):
    """Base class of every error rankproof raises on bad input or usage."""


class InputError(RankproofError, ValueError):
    """The qrels, the run or an argument cannot be used as given."""


class ParseError(InputError):
    """A file (or a row of a table) does not have the expected shape."""


class DuplicateError(InputError):
    """A document appears twice for one query."""


class UnjudgedError(InputError):
    """A ranked document has no judgment and the protocol says ``unjudged=error``."""


class TieError(InputError):
    """Tied scores met the protocol ``ties=error``."""


class ZeroIdealError(InputError):
    """A query has no relevant document and the protocol says ``zero_ideal=error``."""


class MissingQueryError(InputError):
    """A query is on one side only and the protocol says that is an error."""


class CoverageError(MissingQueryError):
    """A run ranks too few of the judged queries (none, or fewer than the share asked for)."""


class ProtocolError(InputError):
    """An unknown policy, or a value a policy does not accept."""


class MeasureError(InputError):
    """An unknown measure, parameter or cutoff."""


class ComparabilityError(InputError):
    """Runs to compare were evaluated under different protocols, qrels or query sets."""
