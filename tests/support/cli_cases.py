"""A table of command-line cases run in this process, and the one check every hostile case shares.

Each case is an argv, the exit code it must end with and the words its one error line (exit 2)
or its output must hold. :func:`run_case` runs ``rankproof.cli.main`` inside the case's folder and
checks, beside the code and the words, what every refusal promises: one line on stderr, never a
traceback nor an internal error, and every input file unchanged byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Case:
    name: str
    argv: list[str]
    exit: int
    words: tuple[str, ...] = ()
    files: dict = field(default_factory=dict)
    out: tuple[str, ...] = ()


def contents(folder: Path) -> dict[str, bytes]:
    """Every regular file of ``folder`` by name, byte for byte (links left out)."""
    return {path.name: path.read_bytes() for path in folder.iterdir() if not path.is_symlink()}


def run_case(case: Case, folder: Path, monkeypatch, capsys) -> None:
    """Run ``case`` through ``rankproof.cli.main`` in ``folder`` and check what it must print and keep."""
    from rankproof.cli import main

    before = contents(folder)
    monkeypatch.chdir(folder)
    monkeypatch.delenv("RANKPROOF_DEBUG", raising=False)
    code = main(case.argv)
    captured = capsys.readouterr()
    assert code == case.exit, captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err, captured.err
    if case.exit == 2:
        assert len(captured.err.strip().splitlines()) == 1, captured.err
        for word in case.words:
            assert word in captured.err, (word, captured.err)
    for word in case.out:
        assert word in captured.out, (word, captured.out)
    for name, content in before.items():
        assert (folder / name).read_bytes() == content, f"{name} changed"
