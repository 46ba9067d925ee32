"""The packages form layers: no two of them import each other, even lazily.

Imports are read from the source (module level and inside functions), so a
cycle hidden in a function body fails here too.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import rankproof

PACKAGE = Path(rankproof.__file__).parent


def _subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "rankproof" and (PACKAGE / parts[1]).is_dir() else None


def _imports(path: Path) -> set[str]:
    """Absolute names of the rankproof modules a file imports."""
    module = "rankproof." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("rankproof")}


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        source = _subpackage("rankproof." + ".".join(path.relative_to(PACKAGE).parts))
        if source is None:
            continue
        for name in _imports(path):
            target = _subpackage(name)
            if target and target != source:
                graph.setdefault(source, set()).add(target)
    return graph


def test_no_two_packages_import_each_other():
    graph = _package_graph()
    mutual = [(a, b) for a, b in itertools.combinations(sorted(graph), 2)
              if b in graph.get(a, ()) and a in graph.get(b, ())]
    assert not mutual, f"packages importing each other: {mutual}"


def test_readers_know_nothing_of_values_measures_or_the_pipeline():
    assert not _package_graph().get("io", set()) & {"data", "measures", "kernels", "report", "stats"}
