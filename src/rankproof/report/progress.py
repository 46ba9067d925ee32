"""The one progress display of the command line: a rich bar of named steps on stderr.

Shown only when stderr is a terminal and ``--quiet`` is not given, and only once a
command has run for :data:`DELAY` seconds: a command that answers at once prints
nothing but its answer, one that reads a large file, resamples or starts Spark shows
where it is. A pipe or a file never receives it, so redirected stderr holds only messages.

Every command runs inside one display (:func:`rankproof.cli.progress.command_progress`
opens it around the command: the command's name and the seconds elapsed, an
indeterminate bar); a command that knows its steps (``evaluate``, ``report``,
``compare``, ``trec-eval``, the out-of-core evaluation, ...) names them with
:func:`within`, which retargets that display rather than
opening a second one (rich allows one live display at a time). The display ends at
the command's first write to stdout, so its answer is never interleaved with it.

>>> import io
>>> with Steps(2, "reading", stream=io.StringIO()) as shown:   # not a terminal: nothing, ever
...     shown.step("read qrels")
>>> shown.shown
False
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, TextIO

__all__ = ["DELAY", "delay_seconds", "Steps", "Part", "within", "current", "opened", "closed",
           "LARGE_INPUT_BYTES", "is_large"]

def delay_seconds(text: str | None, default: float = 2.0) -> float:
    """RANKPROOF_PROGRESS_DELAY's seconds (not a number, or negative: the default)."""
    try:
        seconds = float(text) if text else default
    except ValueError:
        return default
    return seconds if seconds >= 0 else default


# Seconds a command runs before its progress appears (a quicker command shows none);
# RANKPROOF_PROGRESS_DELAY sets another (0: at once, as the tests on a pseudo-terminal want).
DELAY = delay_seconds(os.environ.get("RANKPROOF_PROGRESS_DELAY"))

# Inputs above this size (about a million TREC lines) are large (rankproof.cli.large).
LARGE_INPUT_BYTES = 40 * 1024 * 1024

_OPEN: list["Steps"] = []   # the display open around the running command, if any


def is_large(paths, threshold: int | None = None) -> bool:
    """Do the files (stdin '-' counts as unknown: not large) hold more than the threshold?"""
    limit = LARGE_INPUT_BYTES if threshold is None else threshold
    try:
        return sum(os.path.getsize(p) for p in paths if p != "-") > limit
    except OSError:
        return False


class Steps:
    """`total` named steps (None: not known) shown as one transient rich bar after `delay` seconds.

    Thread-safe: the bar appears from a timer thread while the command works, and
    :meth:`step` may be called before or after it does.
    """

    def __init__(self, total: int | None, label: str = "working", *, quiet: bool = False,
                 delay: float = DELAY,
                 stream: TextIO | None = None) -> None:
        self._stream = sys.stderr if stream is None else stream
        self._lock = threading.Lock()
        self._progress: Any = None
        self._task: Any = None
        self._total, self._done, self._label = _total(total), 0, label
        self._closed = False
        self.shown = False
        self._timer: threading.Timer | None = None
        isatty = getattr(self._stream, "isatty", None)
        self.may_show = not quiet and callable(isatty) and bool(isatty())
        if self.may_show:
            if delay <= 0:
                self._show()
            else:
                self._timer = threading.Timer(delay, self._show)
                self._timer.daemon = True
                self._timer.start()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        with self._lock:
            if self._closed:
                return
            # stdout is the command's answer: never redirected into the bar's stream.
            self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                      TimeElapsedColumn(),
                                      console=Console(file=self._stream), transient=True,
                                      redirect_stdout=False)
            self._task = self._progress.add_task(self._label, total=self._total,
                                                 completed=self._done)
            self._progress.start()
            self.shown = True

    def step(self, label: str) -> None:
        """One step done; `label` says what (the bar shows the last one)."""
        with self._lock:
            self._done += 1
            self._label = label
            if self._progress is not None:
                self._progress.update(self._task, completed=self._done, description=label,
                                      refresh=True)

    def restart(self, total: int | None, label: str) -> None:
        """Count `total` new steps from zero under `label` (a command's own steps inside its display)."""
        with self._lock:
            self._total, self._done, self._label = _total(total), 0, label
            if self._progress is not None:
                self._progress.update(self._task, total=self._total, completed=0, description=label,
                                      refresh=True)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._progress is not None:
                self._progress.stop()
                self._progress = None

    def __enter__(self) -> "Steps":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _total(total: int | None) -> int | None:
    return None if total is None else max(int(total), 1)


class Part:
    """A command's own steps shown in the display open around it (:func:`within`): closing them
    leaves the display open."""

    def __init__(self, display: Steps, total: int | None, label: str) -> None:
        self._display = display
        display.restart(total, label)

    def step(self, label: str) -> None:
        self._display.step(label)

    def close(self) -> None:
        """Nothing to close: the command's display ends with the command (or its first output)."""

    def __enter__(self) -> "Part":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def current() -> Steps | None:
    """The display open around the running command, if one is."""
    return _OPEN[-1] if _OPEN else None


def opened(display: Steps) -> None:
    """`display` is the running command's (until :func:`closed`)."""
    _OPEN.append(display)


def closed(display: Steps) -> None:
    display.close()
    if display in _OPEN:
        _OPEN.remove(display)


def within(total: int | None, label: str, *, quiet: bool = False,
           delay: float = DELAY) -> "Steps | Part":
    """`total` named steps: in the running command's display when one is open, else in a new one."""
    display = current()
    if display is not None:
        return Part(display, total, label)
    return Steps(total, label, quiet=quiet, delay=delay)

