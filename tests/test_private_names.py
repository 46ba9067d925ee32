"""No module reaches into another's private names.

``from x import _y`` across modules, and ``obj._y`` on an object of another
module (a private attribute its own module neither sets nor defines), are
what made the old evaluation step private in name only. Read from the
source with ast, so a function-level import counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rankproof

PACKAGE = Path(rankproof.__file__).parent


# The namedtuple API is public although its names start with an underscore.
PUBLIC_BY_CONVENTION = {"_make", "_replace", "_asdict", "_fields", "_field_defaults"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in PUBLIC_BY_CONVENTION


def private_imports(source: str) -> list[str]:
    """``from x import _y`` of a rankproof module (relative or absolute)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("rankproof")):
            found += [f"line {node.lineno}: from {'.' * node.level}{node.module or ''} import {alias.name}"
                      for alias in node.names if _private(alias.name)]
    return found


def _own_private_names(tree: ast.AST) -> set[str]:
    """Private names a module defines or sets itself: its functions, classes, their methods and
    attributes assigned through any name (``self._x = ...``, ``copy._x = ...`` of its own objects)."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _private(node.value):
            own.add(node.value)  # __slots__ entries, object.__setattr__(self, "_x", ...)
    return {name for name in own if _private(name)}


def private_reads(source: str) -> list[str]:
    """``obj._y`` where the module neither defines nor sets ``_y`` (so ``_y`` belongs to another module)."""
    tree = ast.parse(source)
    own = _own_private_names(tree)
    return [f"line {node.lineno}: .{node.attr}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own
            and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})]


def _offences(check) -> dict[str, list[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        hits = check(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits
    return found


def test_no_module_imports_another_modules_private_name():
    assert _offences(private_imports) == {}


def test_no_module_reads_another_modules_private_attribute():
    assert _offences(private_reads) == {}


def test_the_checks_can_fail():
    assert private_imports("def f():\n    from ..evaluation import _as_protocol\n")
    assert not private_imports("from ..evaluation import resolve_protocol\n")
    assert private_reads("def f(results):\n    return results._measures\n")
    assert not private_reads("class A:\n    def __init__(self):\n        self._m = 1\n"
                             "    def merge(self, other):\n        return other._m\n")
    assert not private_reads("import collections\nRow = collections.namedtuple('Row', 'a')\nRow._make([1])\n")
