"""Progress on the command line: every command runs inside one display (rankproof.report.progress).

:func:`command_progress` opens it around each command (``rankproof.cli.app``): on a
terminal, after :data:`DELAY` seconds, the command's name, an indeterminate bar and the
seconds elapsed; never with ``--quiet`` (every command takes it), never on a pipe or a
file. A command that knows its steps names them with :func:`steps` (``evaluate``,
``rag``, ``why``, ``report``, ``compare``, ``demo``; ``trec-eval`` and the out-of-core
evaluation through :func:`rankproof.report.progress.within`): they show in the same
display. The display ends at the command's first write to stdout.

>>> import io
>>> from argparse import Namespace
>>> with steps(Namespace(quiet=True), 2, "reading") as shown:   # --quiet: nothing, ever
...     shown.step("read qrels")
>>> shown.shown
False
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator

from ..report.progress import DELAY, Part, Steps, closed, opened, within

__all__ = ["DELAY", "Steps", "steps", "command_progress"]


def steps(args: Any, total: int, label: str = "working") -> "Steps | Part":
    """The progress of a command run with `args` (its ``--quiet``), in `total` named steps."""
    return within(total, label, quiet=bool(getattr(args, "quiet", False)), delay=DELAY)


class _EndsDisplay:
    """stdout, ending the display at the command's first write (its answer is never mixed with the bar)."""

    def __init__(self, stream: Any, display: Steps) -> None:
        self._stream, self._display = stream, display

    def _end(self) -> Any:
        self._display.close()
        return self._stream

    def write(self, text: str) -> int:
        return self._end().write(text)

    def writelines(self, lines) -> None:
        self._end().writelines(lines)

    def fileno(self) -> int:   # report.output writes the answer to the descriptor itself
        return self._end().fileno()

    @property
    def buffer(self) -> Any:
        return self._end().buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def command_progress(command: str, quiet: bool) -> Iterator[Steps]:
    """The display of `command` (``rankproof NAME``), open while it runs."""
    display = Steps(None, f"rankproof {command}", quiet=quiet, delay=DELAY)
    opened(display)
    stdout = sys.stdout
    if display.may_show and stdout is not None:
        sys.stdout = _EndsDisplay(stdout, display)
    try:
        yield display
    finally:
        if isinstance(sys.stdout, _EndsDisplay):
            sys.stdout = stdout
        closed(display)
