"""A measure's spec is the one source of its capabilities.

No module of the package, measures/ and recsys/ included, tells measures apart by
name: what differs between measures is a field of their spec
(:class:`~rankproof.measures.base.MeasureSpec`: ``kernel``, ``dcg``, ``working``,
``of_rank``, ...; :class:`~rankproof.recsys.registry.SideSpec`: ``needs``, ``kind``,
...). Read from the source with ast, over every registered name (the ranking
measures' and the side-data measures'), the check finds:

- a comparison with a name or a literal tuple, list or set holding one
  (``name == "ndcg"``, ``name in ("rr", "hit")``);
- a name table: a module-level tuple, list, set or dict whose entries (keys) are
  mostly registered names, looked up or tested (``TABLE[name]``,
  ``TABLE.get(name)``, ``name in TABLE``);
- a read of ``.family``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rankproof
import rankproof.recsys  # noqa: F401  (registers the side-data measures)
from rankproof.measures.vocabulary import known_names

PACKAGE = Path(rankproof.__file__).parent
NAMES = frozenset(known_names())


def _strings(node: ast.AST) -> "list[str] | None":
    """The string entries of a literal tuple, list, set or dict (its keys); None if not one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple") \
            and len(node.args) == 1:
        return _strings(node.args[0])
    items = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) \
        else None
    if items is None:
        return None
    return [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _names_in(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names_in(e) for e in node.elts)) if node.elts else set()
    return set()


def name_tables(tree: ast.Module) -> dict[str, set[str]]:
    """Module-level names bound to a table of measure names: at least two, and at least half its entries."""
    tables = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        strings = _strings(node.value) if targets and node.value is not None else None
        hits = set(strings or ()) & NAMES
        if len(hits) >= 2 and 2 * len(hits) >= len(strings or ()):
            tables.update({target.id: hits for target in targets if isinstance(target, ast.Name)})
    return tables


def _table(node: ast.AST, tables: dict[str, set[str]]) -> set[str]:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return tables.get(name, set()) if name is not None else set()


def name_tests(source: str) -> list[str]:
    """Comparisons with a registered measure's name, lookups in name tables, and reads of ``.family``."""
    tree = ast.parse(source)
    tables = name_tables(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                hits = _names_in(side) | _table(side, tables)
                if hits:
                    found.append(f"line {node.lineno}: compares with {sorted(hits)}")
        elif isinstance(node, ast.Subscript) and _table(node.value, tables):
            found.append(f"line {node.lineno}: looks up a table of {sorted(_table(node.value, tables))}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and _table(node.func.value, tables):
            found.append(f"line {node.lineno}: looks up a table of {sorted(_table(node.func.value, tables))}")
        elif isinstance(node, ast.Attribute) and node.attr == "family":
            found.append(f"line {node.lineno}: reads .family")
    return found


def test_no_module_tests_a_measure_name_or_family():
    offences = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        hits = name_tests(path.read_text(encoding="utf-8"))
        if hits:
            offences[str(path.relative_to(PACKAGE))] = hits
    assert offences == {}


def test_the_check_can_fail():
    assert name_tests('if measure.name in ("rr", "hit"):\n    pass\n')
    assert name_tests('x = m.spec.family != "diversity"\n')
    assert name_tests('ok = text == "ndcg"\n')
    assert name_tests('ok = spec.name == "coverage"\n')                          # a side-data measure
    assert name_tests('MEASURES = ("ap", "rr", "p")\nif name not in MEASURES:\n    pass\n')
    assert name_tests('TABLE = {"ndcg": 1, "hit": 2}\nf = TABLE[name]\n')
    assert name_tests('TABLE = {"ndcg": 1, "hit": 2}\nf = TABLE.get(name)\n')
    assert name_tests('NAMES = frozenset(("ild", "novelty"))\nok = name in NAMES\n')
    assert not name_tests('if measure.spec.first_relevant_only:\n    pass\n')
    # a table that merely holds a measure's name among other words is not a name table
    assert not name_tests('UNITS = {"b": 1, "kb": 2, "mb": 3, "g": 4}\nf = UNITS[unit]\n')
