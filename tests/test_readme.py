"""Every code block of the README runs as written from the repository's root.

Blocks are classified by their fence and by an HTML comment on the line
before them:

- ``python`` blocks run (a block of ``>>>`` lines runs as a doctest); the
  code runs in a temporary folder holding a link to the repository's ``src``,
  so the README's relative paths (``src/rankproof/_data/cranfield/...``)
  resolve and anything written lands in the temporary folder;
- ``sh`` blocks: each line starting with ``rankproof`` runs through the
  command line (in-process) and must exit 0; install lines (``pip``,
  ``make``, ``source``) are not run here;
- ``<!-- readme-test: output -->`` before a block: the exact stdout of the
  block before it;
- ``<!-- readme-test: skip -->``: illustrative (a synopsis), not run.

An untagged block with neither comment fails the test, so a new block must be
classified.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
from dataclasses import dataclass

import pytest

from rankproof.cli.app import main

from paths import ROOT

README = ROOT / "README.md"
FENCE = re.compile(r"^```(?P<lang>[A-Za-z]*)\n(?P<body>.*?)^```\n", re.S | re.M)
MARK = re.compile(r"<!-- readme-test: (?P<mark>skip|output) -->\s*$")
NOT_RUN = ("pip", "make", "source", "cd")


@dataclass
class Block:
    line: int
    lang: str
    body: str
    mark: str | None


def blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        found.append(Block(text.count("\n", 0, match.start()) + 1, match["lang"], match["body"],
                           mark["mark"] if mark else None))
    return found


def runnable() -> list[tuple[Block, Block | None]]:
    """(block to run, its expected output block or None)."""
    all_blocks = blocks()
    pairs = []
    for index, block in enumerate(all_blocks):
        if block.mark is not None:
            continue
        following = all_blocks[index + 1] if index + 1 < len(all_blocks) else None
        expected = following if following is not None and following.mark == "output" else None
        pairs.append((block, expected))
    return pairs


def test_every_block_is_classified():
    for block in blocks():
        assert block.mark is not None or block.lang in ("python", "sh"), (
            f"README line {block.line}: a ``` block without a language; mark it "
            "<!-- readme-test: skip --> (illustrative) or <!-- readme-test: output --> (expected output)")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run_python(body: str, label: str) -> str:
    out = io.StringIO()
    if body.lstrip().startswith(">>>"):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(body, {}, label, str(README), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        with contextlib.redirect_stdout(out):
            runner.run(test)
        assert runner.failures == 0, out.getvalue()
        return ""
    with contextlib.redirect_stdout(out):
        exec(compile(body, label, "exec"), {"__name__": "__readme__"})
    return out.getvalue()


def _run_shell(body: str, label: str, capsys) -> str:
    printed = []
    for raw in body.splitlines():
        command = raw.split("#", 1)[0].strip()
        if not command or command.split()[0] in NOT_RUN:
            continue
        words = shlex.split(command)
        assert words[0] in ("rankproof", ".venv/bin/rankproof"), f"{label}: cannot run {command!r} here"
        capsys.readouterr()
        try:
            code = main(words[1:])
        except SystemExit as done:   # --help, --version
            code = done.code
        captured = capsys.readouterr()
        assert code == 0, f"{label}: {command!r} exited {code}: {captured.err}"
        printed.append(captured.out)
    return "".join(printed)


@pytest.mark.parametrize("block, expected", runnable(), ids=lambda b: f"line{b.line}" if isinstance(b, Block) else "")
def test_readme_block_runs(block, expected, workdir, capsys):
    label = f"README.md line {block.line}"
    if block.lang == "python":
        out = _run_python(block.body, label)
    else:
        os.chdir(ROOT)   # shell lines run from the repository's root, as the README says
        out = _run_shell(block.body, label, capsys)
    if expected is not None:
        assert [line.rstrip() for line in out.splitlines()] == [line.rstrip() for line in expected.body.splitlines()], label
