"""MeasureSpec is the one source of per-measure capabilities.

Outside measures/, no module compares anything with a measure's name (or a
tuple of names) and none reads a spec's ``family``: what differs between
measures is a field of :class:`~rankproof.measures.base.MeasureSpec`
(``kernel``, ``dcg``, ``needs_intents``, ``first_relevant_only``, ...). Read
from the source with ast.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rankproof
from rankproof.measures import REGISTRY

PACKAGE = Path(rankproof.__file__).parent


def _names_in(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names_in(e) for e in node.elts)) if node.elts else set()
    return set()


def name_tests(source: str) -> list[str]:
    """Comparisons with a registered measure's name, and reads of ``.family``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                hits = _names_in(side) & set(REGISTRY)
                if hits:
                    found.append(f"line {node.lineno}: compares with {sorted(hits)}")
        elif isinstance(node, ast.Attribute) and node.attr == "family":
            found.append(f"line {node.lineno}: reads .family")
    return found


def test_no_module_outside_measures_tests_a_measure_name_or_family():
    offences = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "measures":
            continue
        hits = name_tests(path.read_text(encoding="utf-8"))
        if hits:
            offences[str(path.relative_to(PACKAGE))] = hits
    assert offences == {}


def test_the_check_can_fail():
    assert name_tests('if measure.name in ("rr", "hit"):\n    pass\n')
    assert name_tests('x = m.spec.family != "diversity"\n')
    assert name_tests('ok = text == "ndcg"\n')
    assert not name_tests('if measure.spec.first_relevant_only:\n    pass\n')
