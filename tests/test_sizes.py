"""No function over 80 lines (its docstring left out) and no module over 600 lines (issue 22, item 8).

Every Python module of the package; the compiled modules (.pyx, .pxd) are
held to the module size only (their loops are written out for speed).
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "rankproof"
FILES = sorted(PACKAGE.rglob("*.py"))
COMPILED = sorted([*PACKAGE.rglob("*.pyx"), *PACKAGE.rglob("*.pxd")])


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


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_functions_and_modules_stay_small(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 600, f"{path.name} has {len(text.splitlines())} lines"
    long = [f"{node.name} ({_lines_without_docstrings(node)} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _lines_without_docstrings(node) > 80]
    assert not long, f"{path.name}: {', '.join(long)}"


@pytest.mark.parametrize("path", COMPILED, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_compiled_modules_stay_under_600_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 600
