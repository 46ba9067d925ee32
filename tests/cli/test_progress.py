"""The command line's one progress display (rankproof.cli.progress, issue 40): on a terminal
after DELAY seconds, never on a pipe or a file, never with --quiet, never on stdout."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

import rankproof.cli.progress as progress
from rankproof.cli.app import main
from rankproof.cli.progress import Steps

CRANFIELD = Path(progress.__file__).resolve().parents[1] / "_data" / "cranfield"
RAGAS = Path(progress.__file__).resolve().parents[1] / "_data" / "rag" / "seed000_ragas.jsonl"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _wait_shown(steps: Steps) -> None:
    for _ in range(200):   # the bar comes from a timer thread
        if steps.shown:
            return
        time.sleep(0.01)


def test_a_terminal_sees_the_steps_after_the_delay():
    terminal = Terminal()
    with Steps(2, "reading", delay=0.0, stream=terminal) as steps:
        _wait_shown(steps)
        steps.step("read qrels")
    assert steps.shown
    assert "read qrels" in terminal.getvalue() or "reading" in terminal.getvalue()


def test_nothing_before_the_delay_with_quiet_or_on_a_pipe():
    quick = Steps(2, "reading", delay=60.0, stream=Terminal())
    quick.step("read qrels")
    quick.close()
    assert not quick.shown
    quiet = Steps(2, "reading", quiet=True, delay=0.0, stream=Terminal())
    time.sleep(0.05)
    quiet.close()
    assert not quiet.shown
    pipe = io.StringIO()
    piped = Steps(2, "reading", delay=0.0, stream=pipe)
    time.sleep(0.05)
    piped.close()
    assert not piped.shown and pipe.getvalue() == ""


@pytest.mark.parametrize("command", [
    ["evaluate", str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "bm25.run"), "-m", "ndcg@10"],
    ["rag", str(RAGAS), "-m", "ap", "--chunk-map", "sep:_", "--peer", "ragas"],
    ["why", str(RAGAS), "--peer", "ragas", "-m", "ap", "--chunk-map", "sep:_"],
    ["demo"],
])
def test_commands_show_progress_on_a_terminal_only(monkeypatch, capsys, command):
    monkeypatch.setattr(progress, "DELAY", 0.0)   # the bar at once, as a run past the delay shows it
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out           # stdout never receives it
    shown = terminal.getvalue()
    assert "\x1b[" in shown or "━" in shown, shown[:300]
    # --quiet: nothing on the terminal but errors.
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([*command, "--quiet"]) == 0
    assert terminal.getvalue() == ""
