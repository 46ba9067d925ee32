"""Every command of ``rankproof`` shows its progress on a terminal and nothing with --quiet or on a pipe
(issue 40: "a progress display on every command that can take more than two seconds").

The commands are enumerated from the parser's own table (``COMMAND_MODULES``) and trec-eval, so a new
command without an invocation here fails :func:`test_every_command_is_run_here`. Each runs in this
process on the bundled Cranfield files (or a few lines written to tmp_path), with the display's delay
at 0 (as a run past two seconds shows it), against a stderr that says it is a terminal; one command
also runs as a process of its own on a real pseudo-terminal.
"""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

import rankproof.cli.progress as progress
from rankproof.cli.app import main
from rankproof.cli.parser import COMMAND_MODULES, build_parser

from paths import CRANFIELD, PACKAGE

# Twenty-two commands in one process (~3 s of CPU, most of it their first imports), and one on a pty.
pytestmark = pytest.mark.slow

RAG = PACKAGE / "_data" / "rag"
QRELS, BM25, TFIDF, LMD = (str(CRANFIELD / name) for name in ("qrels.txt", "bm25.run", "tfidf.run", "lmdirichlet.run"))
HUMAN, JUDGE = str(CRANFIELD / "human_sample.qrels"), str(CRANFIELD / "llm_judge.qrels")
RAGAS = ["--chunk-map", "sep:_", "--peer", "ragas", "-m", "ap"]


def _inputs(tmp) -> dict[str, list[str]]:
    """A cheap invocation of each command; the outputs go under `tmp`."""
    (tmp / "users.csv").write_text("user,bucket,age\n" + "".join(f"u{i},{'ab'[i % 2]},{20 + i % 7}\n"
                                                                    for i in range(40)))
    (tmp / "clicks.txt").write_text("".join(f"q{q} d{r} {r} {int(r == 1 or (q + r) % 5 == 0)}\n"
                                            for q in range(10) for r in range(1, 5)))
    queries = sorted({line.split()[0] for line in Path(QRELS).read_text().splitlines() if line.strip()})
    (tmp / "groups.csv").write_text("user,group\n" + "".join(f"{q},{'ab'[i % 2]}\n" for i, q in enumerate(queries)))
    for name, run in (("current.json", BM25), ("reference.json", TFIDF)):
        assert main(["evaluate", QRELS, run, "-m", "ndcg@10", "--per-query", "--format", "json", "--quiet",
                     "-o", str(tmp / name)]) == 0
    return {
        "evaluate": [QRELS, BM25, "-m", "ndcg@10"],
        "rag": [str(RAG / "seed000_ragas.jsonl"), *RAGAS],
        "nuggets": [str(RAG / "seed000_nuggets.jsonl")],
        "explain": [QRELS, BM25, "--query", "1", "-m", "ndcg@10"],
        "why": [str(RAG / "seed000_ragas.jsonl"), *RAGAS],
        "measures": ["ndcg"],
        "protocol": ["--preset", "trec_eval"],
        "trec-eval": ["-m", "map", QRELS, BM25],
        "compare": [QRELS, BM25, TFIDF, "-m", "ndcg@10", "--resamples", "200"],
        "systems": [QRELS, BM25, TFIDF, LMD, "-m", "ndcg@10"],
        "agree": [HUMAN, JUDGE],
        "similarity": [BM25, TFIDF],
        "report": [QRELS, BM25, "-m", "ndcg@10", "--resamples", "100", "-o", str(tmp / "r.html")],
        "fuse": [BM25, TFIDF, "-o", str(tmp / "fused.run")],
        "fit-pbm": [str(tmp / "clicks.txt"), "-o", str(tmp / "pbm.json")],
        "demo": [],
        "balance": [str(tmp / "users.csv")],
        "monitor": [str(tmp / "current.json"), str(tmp / "reference.json"), "--resamples", "100"],
        "ppi": [HUMAN, JUDGE, BM25, "-m", "ndcg@10"],
        "pool": [BM25, TFIDF, "--size", "5", "-o", str(tmp / "pool.qrels")],
        "leaderboard": [QRELS, BM25, TFIDF, "-m", "ndcg@10"],
        "judge-bias": [HUMAN, JUDGE, BM25, TFIDF, "-m", "ndcg@10"],
        "segments": [QRELS, BM25, "-m", "ndcg@10", "--groups", str(tmp / "groups.csv"), "--resamples", "100"],
    }


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def _drawn(text: str) -> bool:
    """A rich bar was drawn: the cursor hidden, a bar's glyphs."""
    return "\x1b[?25l" in text or "━" in text


def _run(monkeypatch, capsys, stream, command: str, arguments: list[str]) -> tuple[int, str]:
    monkeypatch.setattr("sys.stderr", stream)
    code = main([command, *arguments])
    capsys.readouterr()
    return code, stream.getvalue()


def test_every_command_is_run_here(tmp_path):
    assert set(_inputs(tmp_path)) == {*COMMAND_MODULES, "trec-eval"}


def test_each_command_shows_progress_on_a_terminal_and_takes_quiet(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(progress, "DELAY", 0.0)   # the bar at once, as a run past the delay shows it
    for command, arguments in _inputs(tmp_path).items():
        code, shown = _run(monkeypatch, capsys, Terminal(), command, arguments)
        assert code == 0 and _drawn(shown) and f"rankproof {command}" in shown, (command, shown[-300:])
        if command != "trec-eval":   # trec_eval's own options (getopt): --quiet is run below
            args = build_parser(command).parse_args([command, *arguments, "--quiet"])
            assert args.quiet is True, command   # what the display reads (cli.app)


@pytest.mark.parametrize("command", ["agree", "trec-eval", "evaluate", "fuse"])
def test_quiet_or_a_pipe_shows_none(monkeypatch, capsys, tmp_path, command):
    # Commands without a --quiet of their own (agree, trec-eval), with one (evaluate, fuse).
    monkeypatch.setattr(progress, "DELAY", 0.0)
    arguments = _inputs(tmp_path)[command]
    code, quiet = _run(monkeypatch, capsys, Terminal(), command, ["--quiet", *arguments])
    assert code == 0 and not _drawn(quiet), quiet[-300:]
    code, piped = _run(monkeypatch, capsys, Pipe(), command, arguments)
    assert code == 0 and not _drawn(piped), piped[-300:]


def test_a_real_terminal_sees_the_steps_and_stdout_keeps_the_answer(tmp_path):
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "rankproof.cli", "compare", QRELS, BM25, TFIDF, "-m", "ndcg@10",
                                "--resamples", "200"], stdout=subprocess.PIPE, stderr=slave,
                               env={**os.environ, "RANKPROOF_PROGRESS_DELAY": "0", "COLUMNS": "120"})
    os.close(slave)
    chunks = []
    while select.select([master], [], [], 60)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    out = process.stdout.read().decode() if process.stdout else ""
    assert process.wait(timeout=60) == 0
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert "rankproof compare" in shown and "read qrels" in shown, shown[-300:]
    assert "queries paired: 225" in out and "\x1b[" not in out   # the answer whole, on stdout only


@pytest.mark.parametrize("text, seconds", [(None, 2.0), ("0", 0.0), ("0.5", 0.5), ("soon", 2.0), ("-1", 2.0)])
def test_the_delay_may_be_set_from_the_environment(text, seconds):
    from rankproof.report.progress import delay_seconds

    assert delay_seconds(text) == seconds
