"""Usage errors of the command line, raised with the fields of :mod:`rankproof.errors`.

A :class:`UsageError` names the command as its ``source`` ("rankproof
evaluate"), says ``what`` was wrong and the ``fix``; :func:`rankproof.cli.app.main`
prints it as one line and exits with 2. Text given by the user (a path, an
option's value) goes through :func:`literal`, since ``what`` and ``fix`` are
formats whose ``{query}``-style fields a front door fills in.

>>> str(usage("evaluate", "--spark-master is for --engine spark"))
'rankproof evaluate: --spark-master is for --engine spark'
>>> str(InputError(source="--label x{y}", what=literal("write {NAME}=RUN")))
'--label x{y}: write {NAME}=RUN'
"""

from __future__ import annotations

from ..errors import InputError, literal

__all__ = ["UsageError", "usage", "literal", "short"]


class UsageError(InputError):
    """Bad command-line usage, reported in one line (without the "rankproof: " prefix) with exit code 2."""


def usage(command: str | None, what: str, fix: str | None = None) -> UsageError:
    """The usage error of ``rankproof COMMAND``: "rankproof COMMAND: WHAT; FIX"."""
    source = f"rankproof {command}" if command else "rankproof"
    return UsageError(source=source, what=literal(what), fix=literal(fix) if fix else None)


def short(value, width: int = 40) -> str:
    """A value cut for a one-line message."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."
