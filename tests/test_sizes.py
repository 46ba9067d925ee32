"""The house limits (issue 37 item 10): no module over 500 lines, no function over 60 lines of code
(its docstring left out), no line over 100 characters outside strings.

Every Python module of the package is held to all three; the compiled modules (.pyx, .pxd) to the
module size and the line length (their loops are written out for speed, so no function limit), the
stubs (.pyi) to the line length. ``tools/wrap_lines.py`` breaks long lines inside brackets.
"""

import ast
import io
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "rankproof"
FILES = sorted(PACKAGE.rglob("*.py"))
COMPILED = sorted([*PACKAGE.rglob("*.pyx"), *PACKAGE.rglob("*.pxd")])
STUBS = sorted(PACKAGE.rglob("*.pyi"))
MODULE_LINES, FUNCTION_LINES, LINE_CHARACTERS = 500, 60, 100


def _lines_without_docstrings(node: ast.AST) -> int:
    lines = set(range(node.lineno, node.end_lineno + 1))
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            lines -= set(range(body[0].lineno, body[0].end_lineno + 1))
    return len(lines)


def test_the_rule_counts_code_not_docstrings():
    source = 'def f():\n    """Doc\n\n    more doc.\n    """\n    return 1\n'
    assert _lines_without_docstrings(ast.parse(source).body[0]) == 2


def test_the_function_rule_fails_one_line_over():
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    assert _lines_without_docstrings(ast.parse("def f():\n" + body).body[0]) == FUNCTION_LINES + 1


def _long_lines(text: str) -> list[int]:
    """The lines over 100 characters that no string touches (a string may be long)."""
    in_strings: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            in_strings.update(range(token.start[0], token.end[0] + 1))
    return [number for number, line in enumerate(text.splitlines(), 1)
            if len(line) > LINE_CHARACTERS and number not in in_strings]


def test_the_line_rule_lets_strings_be_long_but_not_code():
    code = "x = [" + ", ".join(["1"] * 40) + "]\n"
    text = "y = '" + "a" * 120 + "'\n"
    assert _long_lines(code + text) == [1]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_house_limits(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MODULE_LINES, f"{path.name} has {len(text.splitlines())} lines"
    long = [f"{node.name} ({_lines_without_docstrings(node)} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and _lines_without_docstrings(node) > FUNCTION_LINES]
    assert not long, f"{path.name}: {', '.join(long)}"
    assert not _long_lines(text), f"{path.name}: lines {_long_lines(text)} over {LINE_CHARACTERS}"


@pytest.mark.parametrize("path", COMPILED, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_compiled_modules_stay_under_500_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MODULE_LINES


@pytest.mark.parametrize("path", COMPILED + STUBS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_compiled_modules_and_stubs_keep_lines_short(path):
    # Cython's tokens are Python's for this purpose: strings and brackets are the same.
    text = path.read_text(encoding="utf-8")
    assert not _long_lines(text), f"{path.name}: lines {_long_lines(text)} over {LINE_CHARACTERS}"
