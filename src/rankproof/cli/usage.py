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

from ..errors import InputError, literal, shorten

__all__ = ["UsageError", "usage", "literal", "short", "count_option", "fraction_option", "share_option"]


class UsageError(InputError):
    """Bad command-line usage, reported in one line (without the "rankproof: " prefix) with exit code 2."""


def usage(command: str | None, what: str, fix: str | None = None) -> UsageError:
    """The usage error of ``rankproof COMMAND``: "rankproof COMMAND: WHAT; FIX"."""
    source = f"rankproof {command}" if command else "rankproof"
    return UsageError(source=source, what=literal(what), fix=literal(fix) if fix else None)


def short(value, width: int = 40) -> str:
    """A value cut for a one-line message (an option's value)."""
    return shorten(value, width)


def count_option(option: str, minimum: int = 1):
    """An argparse ``type`` for a count given on the command line (``--resamples``):
    an integer >= `minimum`, refused in the option's own name (not the Python parameter's)."""
    import argparse

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"an integer >= {minimum} is needed (got {text!r})")
        return value

    return read


def fraction_option(option: str):
    """An argparse ``type`` for a level strictly between 0 and 1 (``--alpha``, ``--confidence``, ``--power``)."""
    import argparse
    import math

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"a number between 0 and 1 is needed, such as 0.05 (got {text!r})")
        return value

    return read


def share_option(text: str) -> float:
    """An argparse ``type``: a share between 0 and 1, both included (--min-coverage)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a share between 0 and 1 is needed, such as 0.5 (got {text!r})")
    return value
