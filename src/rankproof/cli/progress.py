"""The command line's one progress display: named steps as a rich bar on stderr.

Shown only when stderr is a terminal and ``--quiet`` is not given, and only once a
command has run for :data:`DELAY` seconds: a command that answers at once prints
nothing but its answer, one that reads a large file or starts Spark shows where it is.
A pipe or a file never receives it, so redirected stderr holds only messages. Every
command that can take more than two seconds takes its steps from :func:`steps`
(``rankproof evaluate``, ``rag``, ``why``, ``demo``); :mod:`rankproof.report.progress`
is the report's older display for large inputs, to be replaced by this one.

>>> import io
>>> with Steps(2, "reading", stream=io.StringIO()) as shown:   # not a terminal: nothing, ever
...     shown.step("read qrels")
>>> shown.shown
False
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

__all__ = ["DELAY", "Steps", "steps"]

# Seconds a command runs before its progress appears (a quicker command shows none).
DELAY = 2.0


class Steps:
    """`total` named steps shown as one transient rich progress bar after `delay` seconds.

    Thread-safe: the bar appears from a timer thread while the command works, and
    :meth:`step` may be called before or after it does.
    """

    def __init__(self, total: int, label: str = "working", *, quiet: bool = False, delay: float = DELAY,
                 stream: TextIO | None = None) -> None:
        self._stream = sys.stderr if stream is None else stream
        self._lock = threading.Lock()
        self._progress: Any = None
        self._task: Any = None
        self._total, self._done, self._label = max(int(total), 1), 0, label
        self._closed = False
        self.shown = False
        self._timer: threading.Timer | None = None
        isatty = getattr(self._stream, "isatty", None)
        if not quiet and callable(isatty) and isatty():
            if delay <= 0:
                self._show()
            else:
                self._timer = threading.Timer(delay, self._show)
                self._timer.daemon = True
                self._timer.start()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import Progress

        with self._lock:
            if self._closed:
                return
            self._progress = Progress(console=Console(file=self._stream), transient=True)
            self._task = self._progress.add_task(self._label, total=self._total, completed=self._done)
            self._progress.start()
            self.shown = True

    def step(self, label: str) -> None:
        """One step done; `label` says what (the bar shows the last one)."""
        with self._lock:
            self._done += 1
            self._label = label
            if self._progress is not None:
                self._progress.update(self._task, completed=self._done, description=label)

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


def steps(args: Any, total: int, label: str = "working") -> Steps:
    """The progress of a command run with `args` (its ``--quiet``), in `total` steps."""
    return Steps(total, label, quiet=bool(getattr(args, "quiet", False)), delay=DELAY)
