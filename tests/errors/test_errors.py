"""Structured errors (issue 22): raise sites pass fields, and every front door words them.

A raise site counts as fielded when its exception is built with ``what=``
(the fields errors.render words in a front door's vocabulary), or by a
helper of the same files whose every rankproof error is built so. Re-raises
(``raise``, ``raise error``, ``raise error.in_words_of(...)``) and
non-rankproof exceptions (internal bugs raised as RuntimeError or
ValueError) are not raise sites of user errors.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from rankproof import errors
from rankproof.errors import (
    QUERIES_AND_DOCS,
    USERS_AND_ITEMS,
    DuplicateError,
    InputError,
    ParseError,
    Vocabulary,
    literal,
    render,
)

from paths import PACKAGE as SRC  # the package's source

# Every module of the package: at least 95% of the sites that build a rankproof error pass fields.
CONVERTED = [SRC]

RANKPROOF_ERRORS = frozenset(name for name, value in vars(errors).items()
                             if isinstance(value, type) and issubclass(value, errors.RankproofError))
OTHER_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                             if isinstance(value, type) and issubclass(value, BaseException))


@dataclass(frozen=True)
class Site:
    path: Path
    line: int
    fielded: bool


def _python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def _name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _has_what(call: ast.Call) -> bool:
    return any(keyword.arg == "what" for keyword in call.keywords)


def _classes(trees: list[ast.Module]) -> tuple[set[str], set[str]]:
    """(rankproof error classes, other exception classes) defined in the files."""
    ours, others = set(RANKPROOF_ERRORS), set(OTHER_EXCEPTIONS)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases}
                (ours if bases & ours else others).add(node.name)
    return ours, others - ours


def _helpers(trees: list[ast.Module], ours: set[str]) -> dict[str, bool]:
    """Functions that return rankproof errors: name -> whether every error they return has fields."""
    helpers: dict[str, bool] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            built = [ret.value for ret in ast.walk(node) if isinstance(ret, ast.Return)
                     and isinstance(ret.value, ast.Call) and _name(ret.value) in ours]
            if built:
                helpers[node.name] = helpers.get(node.name, True) and all(_has_what(call) for call in built)
    return helpers


def raise_sites(paths: list[Path]) -> list[Site]:
    """Every raise of a user error in the Python files under `paths`, fielded or not."""
    files = _python_files(paths)
    trees = [ast.parse(path.read_text(), str(path)) for path in files]
    ours, others = _classes(trees)
    helpers = _helpers(trees, ours)
    sites = []
    for path, tree in zip(files, trees):
        caught = {node.name for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.name}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
                continue  # a bare raise, or a re-raise of a caught error
            func = node.exc.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in caught:
                continue  # a caught error raised again in other words (error.in_words_of(...))
            built = node.exc
            if isinstance(func, ast.Attribute) and func.attr == "in_words_of" and isinstance(func.value, ast.Call):
                built = func.value  # an error built here and worded for a front door: judge how it is built
            name = _name(built)
            if name in others:
                continue  # an internal bug, or a private signal between functions
            fielded = _has_what(built) or helpers.get(name or "", False)
            sites.append(Site(path, node.lineno, fielded))
    return sites


def test_raise_sites_pass_fields():
    sites = raise_sites(CONVERTED)
    unfielded = [f"{site.path.relative_to(SRC)}:{site.line}" for site in sites if not site.fielded]
    assert len(sites) > 400
    assert (len(sites) - len(unfielded)) / len(sites) >= 0.95, unfielded


def test_the_count_tells_fields_from_finished_strings(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "from rankproof.errors import ParseError\n"
        "class _Signal(Exception):\n    pass\n"
        "def helper(x):\n    return ParseError(what='bad {doc}', source=x)\n"
        "def old(x):\n    return ParseError(f'{x}: bad')\n"
        "def f(x):\n"
        "    try:\n        pass\n    except ParseError as error:\n        raise error.in_words_of(x)\n"
        "    if x:\n        raise\n"
        "    raise ParseError(what='bad', source=x)\n"
        "    raise ParseError(f'{x}: bad')\n"
        "    raise helper(x)\n"
        "    raise old(x)\n"
        "    raise RuntimeError('a bug')\n"
        "    raise _Signal()\n"
        "    raise ParseError(what='bad {doc}', source=x).in_words_of(x)\n"
        "    raise ParseError(f'{x}: bad').in_words_of(x)\n"
    )
    assert [(site.line, site.fielded) for site in raise_sites([module])] == [
        (15, True), (16, False), (17, True), (18, False), (21, True), (22, False)]


def test_frame_py_has_no_regex():
    text = (SRC / "frontdoors" / "frame.py").read_text()
    assert not re.search(r"^\s*(import re\b|from re import)", text, re.M) and "re.compile" not in text


# -- rendering ---------------------------------------------------------------------------------------


def test_one_error_in_the_words_of_each_front_door():
    error = DuplicateError(what="{judged} twice with different grades 1 and 2", source="truth", row=3,
                           query="query 7", doc="doc A", fix="keep one {judgment} per ({query}, {doc})")
    assert str(error) == ("truth row 3: query query 7, doc doc A: judged twice with different grades 1 and 2; "
                          "keep one judgment per (query, doc)")
    assert error.render(USERS_AND_ITEMS) == ("truth row 3: user query 7, item doc A: in the truth twice with "
                                             "different grades 1 and 2; keep one row per (user, item)")
    worded = error.in_words_of(USERS_AND_ITEMS)
    assert type(worded) is DuplicateError and worded.fields() == error.fields()
    assert str(worded) == error.render(USERS_AND_ITEMS)


def test_text_of_the_input_keeps_its_braces():
    what = f"no column {literal(repr('{grade}'))} (named by {{grade}}=)"
    assert render(what=what, vocabulary=USERS_AND_ITEMS) == "no column '{grade}' (named by rating=)"
    assert render(what=what, vocabulary=QUERIES_AND_DOCS) == "no column '{grade}' (named by grade=)"


def test_a_finished_message_is_kept_as_given():
    error = InputError("query q1: doc d1 is odd")
    assert not error.has_fields and error.fields() == {}
    assert error.render(USERS_AND_ITEMS) == "query q1: doc d1 is odd"


@pytest.mark.parametrize("vocabulary", [QUERIES_AND_DOCS, USERS_AND_ITEMS, Vocabulary(query="topic")])
def test_every_word_of_a_vocabulary_renders(vocabulary):
    words = vocabulary.words()
    what = " ".join("{" + word + "}" for word in words)
    assert render(what=what, vocabulary=vocabulary) == " ".join(words.values())
    assert words["queries"] == {"query": "queries", "user": "users", "topic": "topics"}[vocabulary.query]


def test_a_reader_error_carries_its_fields(tmp_path):
    from rankproof import Run

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 tag\nq1 Q0 d{2} 2 high tag\n")
    with pytest.raises(ParseError) as caught:
        Run.read(path)
    error = caught.value
    assert (error.source, error.line, error.query, error.doc, error.value) == (str(path), 2, "q1", "d{2}", "high")
    assert str(error) == (f"{path} line 2: query q1, doc d{{2}}: score 'high' is not a number; "
                          "give every document a numeric score such as 11.17")
    assert error.render(USERS_AND_ITEMS).startswith(f"{path} line 2: user q1, item d{{2}}: score 'high'")
