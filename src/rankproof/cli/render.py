"""What the commands print: results in each output format, the notes on stderr, plain text on stdout.

stdout holds only the output asked for; counts and warnings go to stderr
(``--quiet`` drops them).
"""

from __future__ import annotations

import sys

from .usage import usage

__all__ = ["FORMATS", "COMPARE_FORMATS", "render_results", "render_comparison", "notes", "digits", "print_text"]

FORMATS = ("table", "json", "csv", "markdown", "trec")
COMPARE_FORMATS = ("table", "json", "csv", "markdown", "latex")


def render_results(results, fmt: str, per_query: bool, places: int = 4) -> str:
    """Results (one per run) in an output format of ``rankproof evaluate``."""
    if fmt == "json":
        from ..report.data import to_json

        return to_json(results, per_query=True)
    if fmt == "csv":
        from ..report.data import to_csv

        return to_csv(results, per_query=per_query)
    if fmt == "trec":
        from ..report.data import to_trec

        return to_trec(results, per_query=per_query, digits=places)
    from ..report.table import to_markdown, to_table

    if fmt == "markdown":
        return to_markdown(results, per_query=per_query, digits=places)
    return to_table(results, per_query=per_query, digits=places, notes=False)


def render_comparison(comparison, fmt: str) -> str:
    """A Comparison in an output format of ``rankproof compare``."""
    from ..report import compare as render

    return {"table": render.to_table, "json": render.to_json, "csv": render.to_csv,
            "markdown": render.to_markdown, "latex": render.to_latex}[fmt](comparison)


def notes(results, quiet: bool) -> None:
    """Counts and warnings on stderr, whatever the format: stdout holds only the output asked for."""
    if quiet:
        return
    from ..report.table import notes_lines

    for line in notes_lines(results):
        print(f"rankproof: {line}", file=sys.stderr)


def digits(args) -> int:
    """The decimals of --precision (default 4)."""
    places = getattr(args, "precision", None)
    if places is None:
        return 4
    if not 0 <= places <= 17:
        raise usage(None, f"--precision {places} is not a number of decimals", "give a number between 0 and 17")
    return places


def print_text(text: str) -> None:
    """Text to stdout, with a full disk or a closed stdout reported as bad usage."""
    from ..report.output import write_output

    write_output(text, None)
