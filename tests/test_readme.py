"""Every code block of the README and of the documentation site runs as written.

The pages checked are README.md and every ``docs/**/*.md`` (found by glob, so
a page added to the site is checked with no edit here). Blocks are classified
by their fence and by an HTML comment on the line before them:

- ``python`` blocks run (a block of ``>>>`` lines runs as a doctest); the
  code runs in a temporary folder holding a link to the repository's ``src``,
  so relative paths (``src/rankproof/_data/cranfield/...``) resolve and
  anything written lands in the temporary folder; each block runs alone, in
  a fresh namespace, so a block must hold its own imports;
- ``sh`` blocks: each line starting with ``rankproof`` runs through the
  command line (in-process, from the repository's root) and must exit 0;
  install lines (``pip``, ``make``, ``source``, ``cd``) are not run here;
- ``<!-- readme-test: output -->`` before a block: the exact stdout of the
  block before it;
- ``<!-- readme-test: skip -->``: illustrative (a synopsis), not run.

A block with neither mark and another language (or none) fails the test, so a
new block must be classified. Fences may be indented (inside a list item or
an admonition: the body is dedented by the fence's indent), longer than three
backticks (to show a fence inside a block) or tildes, and carry attributes
after the language (```` ```python title="x.py" ````).
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from rankproof.cli.app import main

from paths import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<lang>[A-Za-z]*)[^\n`]*\n(?P<body>.*?)"
                   r"^(?P=indent)(?P=fence)[ \t]*$", re.S | re.M)
MARK = re.compile(r"<!-- readme-test: (?P<mark>skip|output) -->\s*$")
NOT_RUN = ("pip", "make", "source", "cd")
RUN = ("python", "sh")


def pages() -> list[Path]:
    """README.md, then every page of the site in path order."""
    return [README, *sorted(DOCS.glob("**/*.md"))]


@dataclass
class Block:
    page: str     # relative to the repository's root
    line: int
    lang: str
    body: str
    mark: str | None

    @property
    def label(self) -> str:
        return f"{self.page} line {self.line}"


def _dedent(body: str, indent: str) -> str:
    if not indent:
        return body
    return "".join(line[len(indent):] if line.startswith(indent) else line.lstrip(" \t")
                   for line in body.splitlines(keepends=True))


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match["lang"],
                           _dedent(match["body"], match["indent"]), mark["mark"] if mark else None))
    return found


def all_blocks() -> list[Block]:
    return [block for path in pages() for block in blocks(path)]


def runnable() -> list[tuple[Block, Block | None]]:
    """(block to run, its expected output block or None), over every page."""
    pairs = []
    for path in pages():
        found = blocks(path)
        for index, block in enumerate(found):
            if block.mark is not None:
                continue
            following = found[index + 1] if index + 1 < len(found) else None
            expected = following if following is not None and following.mark == "output" else None
            pairs.append((block, expected))
    return pairs


def test_pages_are_found():
    found = pages()
    assert README in found and DOCS / "tutorial.md" in found and DOCS / "guide" / "protocols.md" in found


def test_every_block_is_classified():
    unclassified = [block.label for block in all_blocks() if block.mark is None and block.lang not in RUN]
    assert not unclassified, (
        f"``` blocks that are neither python nor sh and carry no mark: {unclassified}; mark each "
        "<!-- readme-test: skip --> (illustrative) or <!-- readme-test: output --> (expected output)")


def test_every_output_follows_a_block_that_runs():
    for path in pages():
        found = blocks(path)
        for before, block in zip([None, *found], found):
            if block.mark == "output":
                assert before is not None and before.mark is None, (
                    f"{block.label}: an expected output must follow a block that runs")


def test_the_classifier_reads_indented_fences_and_marks(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n    ```python\n    x = 1\n      y = 2\n    ```\n\n<!-- readme-test: skip -->\n"
                    "```\nsynopsis\n```\n\n```sh title=\"run\"\nrankproof --version\n```\n\n"
                    "````markdown\n```python\nnested\n```\n````\n", encoding="utf-8")
    found = blocks(page)
    assert [(b.lang, b.body, b.mark) for b in found] == [
        ("python", "x = 1\n  y = 2\n", None), ("", "synopsis\n", "skip"), ("sh", "rankproof --version\n", None),
        ("markdown", "```python\nnested\n```\n", None)]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run_python(body: str, label: str, path: str) -> str:
    out = io.StringIO()
    if body.lstrip().startswith(">>>"):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(body, {}, label, path, 0)
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


@pytest.mark.parametrize("block, expected", runnable(),
                         ids=lambda b: f"{b.page}:{b.line}" if isinstance(b, Block) else "")
def test_block_runs(block, expected, workdir, capsys):
    if block.lang == "python":
        out = _run_python(block.body, block.label, str(ROOT / block.page))
    else:
        os.chdir(ROOT)   # shell lines run from the repository's root, as the pages say
        out = _run_shell(block.body, block.label, capsys)
    if expected is not None:
        got = [line.rstrip() for line in out.splitlines()]
        assert got == [line.rstrip() for line in expected.body.splitlines()], block.label
