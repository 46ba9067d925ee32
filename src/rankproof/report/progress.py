"""A progress display on stderr for long commands, only when stderr is a terminal.

The command line shows it for large inputs (``rankproof evaluate``,
``compare`` and ``trec-eval``); a pipe or a file never receives it, so
redirected stderr holds only messages.
"""

from __future__ import annotations

import os
import sys

__all__ = ["Stages", "LARGE_INPUT_BYTES", "is_large"]

# Inputs above this size (about a million TREC lines) get a progress display.
LARGE_INPUT_BYTES = 40 * 1024 * 1024


def is_large(paths, threshold: int | None = None) -> bool:
    """Do the files (stdin '-' counts as unknown: not large) hold more than the threshold?"""
    limit = LARGE_INPUT_BYTES if threshold is None else threshold
    try:
        return sum(os.path.getsize(p) for p in paths if p != "-") > limit
    except OSError:
        return False


class Stages:
    """Named steps of a command shown as one progress bar (rich, transient).

    ``enabled`` is the caller's decision (large inputs); the display also
    needs stderr to be a terminal.
    """

    def __init__(self, total: int, enabled: bool, label: str = "evaluating") -> None:
        self._progress = None
        if enabled and total > 1 and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(file=sys.stderr), transient=True)
            self._task = self._progress.add_task(label, total=total)
            self._progress.start()

    def step(self, label: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=label)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __enter__(self) -> "Stages":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
