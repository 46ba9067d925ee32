"""Usage errors of the command line, raised with the fields of :mod:`rankproof.errors`.

A :class:`UsageError` names the command as its ``source`` ("rankproof
evaluate"), says ``what`` was wrong and the ``fix``; :func:`rankproof.cli.app.main`
prints it as one line and exits with 2. Text given by the user (a path, an
option's value) goes through :func:`literal`, since ``what`` and ``fix`` are
formats whose ``{query}``-style fields a front door fills in.

>>> str(usage("evaluate", "--bounds evaluates in memory", "leave out --memory-budget"))
'rankproof evaluate: --bounds evaluates in memory; leave out --memory-budget'
>>> str(InputError(source="--label x{y}", what=literal("write {NAME}=RUN")))
'--label x{y}: write {NAME}=RUN'
"""

from __future__ import annotations

from ..errors import InputError, literal, shorten

__all__ = ["UsageError", "usage", "literal", "short", "number_option", "count_option",
           "fraction_option",
           "share_option", "precision_option", "checked_option", "budget_option", "drop_option",
           "add_coverage_options"]


class UsageError(InputError):
    """Bad command-line usage, reported in one line (without the "rankproof: " prefix) with exit code 2."""


def usage(command: str | None, what: str, fix: str | None = None) -> UsageError:
    """The usage error of ``rankproof COMMAND``: "rankproof COMMAND: WHAT; FIX"."""
    source = f"rankproof {command}" if command else "rankproof"
    return UsageError(source=source, what=literal(what), fix=literal(fix) if fix else None)


def short(value, width: int = 40) -> str:
    """A value cut for a one-line message (an option's value)."""
    return shorten(value, width)


def number_option(option: str, low: float | None = None, high: float | None = None, *,
                  integer: bool = False,
                  open_low: bool = False, open_high: bool = False, example: str | None = None):
    """An argparse ``type`` for a number given on the command line, checked against its domain.

    The domain is ``low <= x <= high`` (``<`` on an open side; a side given as None is
    unbounded but the number is finite), an integer when `integer`. A value outside it is
    refused at parse time, in one line naming the flag (argparse adds ``argument --flag:``)
    and the domain. The returned function carries ``domain`` (that text), which
    tests/cli/test_numeric_options.py requires of every numeric option.

    >>> read = number_option("--alpha", 0, 1, open_low=True, open_high=True, example="0.05")
    >>> read("0.01"), read.domain
    (0.01, 'a number between 0 and 1 (both excluded)')
    """
    import argparse
    import math

    kind = "an integer" if integer else "a number"
    if low is None and high is None:
        domain = f"{kind}, finite"
    elif high is None:
        domain = f"{kind} {'>' if open_low else '>='} {low:g}"
    elif low is None:
        domain = f"{kind} {'<' if open_high else '<='} {high:g}"
    else:
        ends = {(False, False): " (both included)", (True, True): " (both excluded)",
                (True, False): f" ({low:g} excluded)", (False, True): f" ({high:g} excluded)"}
        domain = f"{kind} between {low:g} and {high:g}{ends[open_low, open_high]}"

    def inside(value: float) -> bool:
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an integer past the float range: no count of ours is that large
            return False
        return (finite and (low is None or value > low or (not open_low and value == low))
                and (high is None or value < high or (not open_high and value == high)))

    def read(text: str):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            value = math.nan
        if not inside(value):
            such = f", such as {example}" if example else ""
            raise argparse.ArgumentTypeError(f"{domain} is needed{such} (got {short(text)!r})")
        return value

    read.domain = domain  # type: ignore[attr-defined]
    read.bounds = (low, high, open_low, open_high, integer)  # type: ignore[attr-defined]
    read.__name__ = read.__qualname__ = f"{option} ({domain})"
    return read


def count_option(option: str, minimum: int = 1):
    """An argparse ``type`` for a count given on the command line (``--resamples``):
    an integer >= `minimum`, refused in the option's own name (not the Python parameter's)."""
    return number_option(option, minimum, integer=True, example=str(max(minimum, 1)))


def fraction_option(option: str):
    """An argparse ``type`` for a level strictly between 0 and 1 (``--alpha``, ``--confidence``, ``--power``)."""
    return number_option(option, 0, 1, open_low=True, open_high=True, example="0.05")


#: An argparse ``type``: a share between 0 and 1, both included (--min-coverage).
share_option = number_option("--min-coverage", 0, 1, example="0.5")

#: An argparse ``type``: --precision, the decimals printed (0 to 17, a double's digits).
precision_option = number_option("--precision", 0, 17, integer=True, example="4")


def checked_option(domain: str, check):
    """An argparse ``type`` for a number written in a unit (a size, a drop): ``check(text)``
    raises an InputError outside the domain; what it returns is the option's value (the
    text itself when it returns None), so the text is parsed once.

    The check runs when parsed, so ``--memory-budget 0`` is refused before any file is opened.
    """
    import argparse

    from ..errors import InputError

    def read(text: str):
        try:
            value = check(text)
        except InputError as error:
            raise argparse.ArgumentTypeError(f"{domain} is needed (got {short(text)!r})") from error
        return text if value is None else value

    read.domain = domain  # type: ignore[attr-defined]
    read.__name__ = read.__qualname__ = domain
    return read


def _budget(text: str) -> int:
    from ..frontdoors.budget import parse_budget

    return parse_budget(text)


def _drop(text: str) -> None:
    from ..recsys.monitor import Threshold

    Threshold.parse(text)


#: An argparse ``type``: --memory-budget, a positive size (2GB, 512MB, bytes), read as bytes.
budget_option = checked_option("a positive size such as 2GB or 512MB", _budget)

#: An argparse ``type``: monitor's --max-drop, a relative (5%) or absolute (0.01) drop >= 0.
drop_option = checked_option("a drop >= 0 such as 5% or 0.01", _drop)


def add_coverage_options(parser) -> None:
    """--min-coverage and --allow-partial: the coverage guard of every command that evaluates runs
    (a refusal of the guard names both flags, so every command it can come from takes them)."""
    from ..results.coverage import MIN_COVERAGE

    # A share in [0, 1], checked when parsed: 5 or -1 would silently accept or refuse every run.
    parser.add_argument("--min-coverage", type=share_option, default=MIN_COVERAGE, metavar="SHARE",
                        help=f"refuse a run ranking less than this share of the judged queries "
                             f"(default {MIN_COVERAGE}; a run ranking none is always refused)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="take runs that rank too few judged queries anyway (a warning says how many)")
