"""The report's progress display: on a terminal it names the stages; with --quiet, or when stderr is a pipe,
nothing (stderr then holds only messages)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

from rankproof.cli.app import main

from paths import CRANFIELD

ENV = {**os.environ, "COLUMNS": "120", "RANKPROOF_PROGRESS_DELAY": "0"}   # the bar at once
COMMAND = [sys.executable, "-m", "rankproof.cli", "report", "qrels.txt", "bm25.run", "tfidf.run", "-m", "ndcg@10",
           "--resamples", "100"]


def _on_a_terminal(extra: list[str], out) -> str:
    """What the command writes to a pseudo-terminal as its stderr."""
    master, slave = pty.openpty()
    process = subprocess.Popen(COMMAND + extra + ["-o", str(out)], cwd=CRANFIELD, stderr=slave,
                               stdout=subprocess.DEVNULL, env=ENV)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:   # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert process.wait(timeout=120) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_terminal_sees_the_stages(tmp_path):
    shown = _on_a_terminal([], tmp_path / "r.html")
    assert "rankproof report" in shown and "read the inputs" in shown and "page" in shown, shown   # each step drawn


def test_quiet_and_pipes_see_nothing(tmp_path, monkeypatch, capsys):
    assert _on_a_terminal(["--quiet"], tmp_path / "q.html") == ""
    # A pipe, in this process (a second process would only pay the imports again): no bar, no message.
    monkeypatch.setattr("rankproof.cli.progress.DELAY", 0.0)
    monkeypatch.chdir(CRANFIELD)
    assert main(COMMAND[3:] + ["-o", str(tmp_path / "p.html")]) == 0
    assert capsys.readouterr().err == ""
