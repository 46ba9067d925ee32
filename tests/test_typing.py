"""Each type name is defined once, in rankproof.typing (issue 37, item 7)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import get_args

import rankproof
from rankproof import typing as rp_typing

PACKAGE = Path(rankproof.__file__).parent
SPELLED_OUT = ('"Protocol | str | None"', '"Iterable[str | Measure] | str | Measure"')
ALIAS_HEADS = {"Literal", "Mapping", "Callable", "Union", "Sequence", "Iterable"}


def _aliases(path: Path) -> list[str]:
    """The module-level type aliases of a module: `Name = Literal[...]` (and the like) or `Name: TypeAlias = ...`."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and ast.unparse(node.annotation) == "TypeAlias":
            found.append(node.target.id)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name) \
                and node.value.value.id in ALIAS_HEADS:
            found.append(node.targets[0].id)
    return found


def test_no_type_alias_is_defined_twice():
    names = Counter(name for path in PACKAGE.rglob("*.py") for name in _aliases(path))
    assert [name for name, count in names.items() if count > 1] == []


def test_the_alias_finder_sees_a_repeated_literal(tmp_path):
    # The check above must be able to fail: a Literal alias written again is an alias.
    module = tmp_path / "m.py"
    module.write_text('from typing import Literal\nTestName = Literal["t"]\nX: TypeAlias = "int"\n')
    assert _aliases(module) == ["TestName", "X"]


def test_signatures_name_the_aliases_instead_of_spelling_them_out():
    spelled = [(path.relative_to(PACKAGE).as_posix(), text)
               for path in PACKAGE.rglob("*.py") if path.name != "typing.py"
               for text in SPELLED_OUT if text in path.read_text(encoding="utf-8")]
    assert spelled == []


def test_the_statistics_options_are_the_ones_their_functions_accept():
    from rankproof.stats.corrections import CORRECTIONS
    from rankproof.stats.significance import TESTS

    assert set(get_args(rp_typing.TestName)) == set(TESTS)
    assert set(get_args(rp_typing.CorrectionName)) == set(CORRECTIONS)


def test_the_earlier_import_paths_still_give_the_same_names():
    from rankproof.stats import keywords

    assert keywords.TestName is rp_typing.TestName
    assert keywords.BootstrapMethod is rp_typing.BootstrapMethod
