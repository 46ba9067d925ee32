"""The package is laid out as the flow, in layers, module by module.

Imports are read from the source, at module level and inside functions
alike, so an upward import hidden in a function body fails here too. A
module may import its own layer or a lower one, never a higher one, and the
modules' import graph has no cycle. docs/architecture.md describes the same
table; the test checks that it names every layer.

The one exception is declared, not found: a few convenience methods of
values (``Results.to_html``, ``Results.by``, ``Comparison.to_table``, ...)
render their value through a higher layer, importing it inside the method.
:data:`VIEWS` lists each such edge; any other upward import fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import rankproof

PACKAGE = Path(rankproof.__file__).parent
ARCHITECTURE = PACKAGE.parents[1] / "docs" / "architecture.md"

# Lowest first. A module's layer is that of its first name under rankproof.
LAYERS: list[tuple[str, ...]] = [
    ("errors",),
    ("protocol",),
    ("_libs", "kernels"),
    ("io",),
    ("data",),
    ("pipeline",),
    ("measures",),
    ("typing",),
    ("engines",),
    ("results",),
    ("evaluation",),
    ("explain",),
    ("stats",),
    ("pages",),
    ("report",),
    ("frontdoors", "fusion"),
    # sklearn and streaming: the names training scripts import, re-exporting frontdoors/;
    # executors: what runs the step (in memory, out of core, on Spark), loaded by name from
    # engines.EXECUTORS (rankproof.engines.executor chooses)
    ("sklearn", "streaming", "trec", "spark", "recsys", "executors"),
    ("cli",),
]
LAYER = {name: rank for rank, names in enumerate(LAYERS) for name in names}

# (importing module, imported module): a value's convenience method calling up
# into the renderer or the statistics that present it. Imported inside the
# method, so that the value's module never loads them.
VIEWS = {
    ("rankproof.results", "rankproof.report.figures"),   # Results.to_html
    ("rankproof.results", "rankproof.report.html"),      # Results.to_html, _repr_html_
    ("rankproof.results", "rankproof.stats.segments"),   # Results.by
    ("rankproof.stats.comparison", "rankproof.report.compare"),  # Comparison.to_table/markdown/latex/json/csv
    ("rankproof.stats.comparison", "rankproof.report.figures"),  # Comparison.to_html
    ("rankproof.stats.comparison", "rankproof.report.html"),     # Comparison.to_html, _repr_html_
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["rankproof", *parts])


def _is_module(name: str) -> bool:
    relative = Path(*name.split(".")[1:]) if "." in name else Path()
    return (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative / "__init__.py").is_file() \
        or any((PACKAGE / relative).parent.glob(relative.name + ".*.so")) or \
        (PACKAGE / relative).with_suffix(".pyx").is_file()


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """The rankproof modules that `source` (the text of `module`) imports, anywhere in it.

    ``from a import b`` counts as an import of ``a.b`` when that is a module
    (``from . import svg``), else of ``a``.
    """
    package = module if is_package else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if not name.startswith("rankproof"):
                continue
            for alias in node.names:
                child = f"{name}.{alias.name}"
                found.add(child if _is_module(child) else name)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("rankproof"))
    return found


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        graph[module] = imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
    return graph


def layer_of(module: str) -> int:
    """The layer of a module; the package's own __init__ (the public API) stands above all."""
    parts = module.split(".")
    if len(parts) == 1:
        return len(LAYERS)
    if parts[1] not in LAYER:
        raise AssertionError(f"{module} is in no layer: add {parts[1]!r} to LAYERS and to docs/architecture.md")
    return LAYER[parts[1]]


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((source, target) for source, targets in graph.items() for target in targets
                  if layer_of(target) > layer_of(source) and (source, target) not in VIEWS)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of imports (the modules along it), or None: a depth-first search."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if (module, target) in VIEWS or target == module:
                continue
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_no_module_imports_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_the_modules_import_graph_has_no_cycle():
    assert find_cycle(import_graph()) is None


def test_every_declared_view_is_still_imported():
    graph = import_graph()
    assert [view for view in sorted(VIEWS) if view[1] not in graph.get(view[0], ())] == []


@pytest.mark.parametrize("text, module, bad", [
    # a reader reaching up to the measures, inside a function
    ("def f():\n    from ..measures.base import Measure\n", "rankproof.io.trec", True),
    ("from ..errors import InputError\n", "rankproof.io.trec", False),
    # the results module importing the evaluation step (MIN_COVERAGE lives with the results)
    ("def f():\n    from .evaluation import evaluate\n", "rankproof.results", True),
])
def test_the_check_fails_on_a_deliberately_bad_import(text, module, bad):
    graph = import_graph()
    graph[module] = graph[module] | imports_of(text, module, False)
    assert bool(upward_imports(graph)) is bad


# What renderers never import, at module level or inside a function: they draw the page model
# (rankproof.pages) and other finished values, and compute nothing.
COMPUTING = ("rankproof.evaluation", "rankproof.stats", "rankproof.explain")


def computing_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(renderer, computing module) for every import of the evaluation, statistics or explanations in report/."""
    return sorted((source, target) for source, targets in graph.items() for target in targets
                  if source.startswith("rankproof.report") and target.startswith(COMPUTING))


def test_renderers_import_no_evaluation_statistics_or_explanation():
    assert computing_imports(import_graph()) == []


@pytest.mark.parametrize("text, module", [
    ("def f():\n    from ..stats import compare\n", "rankproof.report.html"),
    ("from ..evaluation import evaluate\n", "rankproof.report.table"),
    ("def f():\n    from ..explain.explanation import explain_top\n", "rankproof.report"),
    ("if TYPE_CHECKING:\n    from ..stats.keywords import TestName\n", "rankproof.report.fusion"),
])
def test_the_renderer_check_fails_on_a_deliberately_bad_import(text, module):
    graph = import_graph()
    graph[module] = graph[module] | imports_of(text, module, module == "rankproof.report")
    assert computing_imports(graph)


def test_the_check_finds_a_cycle_hidden_in_a_function():
    graph = {"rankproof.a.x": {"rankproof.a.y"}, "rankproof.a.y": set()}
    graph["rankproof.a.y"] = imports_of("def f():\n    from .x import g\n", "rankproof.a.y", False)
    assert find_cycle(graph) == ["rankproof.a.x", "rankproof.a.y", "rankproof.a.x"]


def test_the_top_level_holds_at_most_four_modules():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= 4, modules


def test_the_architecture_document_names_every_layer():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    for names in LAYERS:
        for name in names:
            assert re.search(rf"`{re.escape(name)}[/`.]", text), f"docs/architecture.md does not name {name}"


def test_readers_know_nothing_of_values_measures_or_the_pipeline():
    graph = import_graph()
    reader_targets = {t for s, targets in graph.items() if s.startswith("rankproof.io.") for t in targets}
    assert not {t for t in reader_targets
                if t.split(".")[1] in {"data", "measures", "pipeline", "engines", "report", "stats"}}
