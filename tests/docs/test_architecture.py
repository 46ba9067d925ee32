"""docs/architecture.md names only what exists, and says which test holds each of its rules.

Every name the document writes in backticks is looked up: a path (``pipeline/alignment.py``,
``tests/io/``) must exist under the package or the repository; a dotted name
(``engines.ENGINES``, ``io/formats.INPUT_FORMATS``, ``Results.replace``) must import; a bare
identifier (``MeasureSpec``, ``apply_zero_ideal``) must be defined or used as a word in the
package. A renamed module, a moved function or a test file that no longer exists fails here
the day it happens. The document's closing table names the test or command behind each rule;
every test file it names must exist.
"""

from __future__ import annotations

import importlib
import re

import pytest

from paths import PACKAGE, ROOT

DOCUMENT = ROOT / "docs" / "architecture.md"
TEXT = DOCUMENT.read_text(encoding="utf-8")
# Backticked words that are prose, shell or placeholders, not names in the code.
NOT_CODE = {"NAME", "HELP", "EXAMPLES", "kernel=", "make parity", "make test", "make test-fast",
            "../shared", ".ci/run", ".pxd", ".pyi", ".pyx", "__init__", "__init__.py", "--engine",
            "--help", "RANKPROOF_REQUIRE_ORACLES=1", "cpdef enum Kind", "ids", "datasets", "memory",
            "out_of_core", "spark", "rag", "dense", "compiled", "numpy", "dcg", "dcg_parts"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_/]*(\.[A-Za-z_][A-Za-z0-9_]*)+")
SOURCES = "\n".join(path.read_text(encoding="utf-8")
                    for folder in (PACKAGE, ROOT / "tests") for path in sorted(folder.rglob("*"))
                    if path.suffix in {".py", ".pyi", ".pyx", ".pxd"} and path.name != "test_architecture.py")


def _names() -> list[str]:
    names = set()
    for token in re.findall(r"`([^`\n]+)`", TEXT):
        token = re.sub(r"\(.*\)$", "", token.strip())   # a call written out: the callable's name
        if token and token not in NOT_CODE and " " not in token and "=" not in token:
            names.add(token)
    return sorted(names)


def _exists_as_path(token: str) -> bool:
    path = token.rstrip("/")
    return any(any(base.glob(path)) for base in (PACKAGE, ROOT)) or \
        ("/" not in path and any(PACKAGE.rglob(path)))


def _defined(name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", SOURCES) is not None


def _attribute(value: object, parts: list[str]) -> bool:
    for attribute in parts:
        fields = getattr(value, "__dataclass_fields__", {})
        if attribute in fields and not hasattr(value, attribute):
            return True                                 # a dataclass field without a default
        if not hasattr(value, attribute):
            return False
        value = getattr(value, attribute)
    return True


def _class_module(name: str) -> object | None:
    for path in sorted(PACKAGE.rglob("*.py")):
        if re.search(rf"^class {re.escape(name)}\b", path.read_text(encoding="utf-8"), re.M):
            module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            return importlib.import_module(module.removesuffix(".__init__"))
    return None


def _imports(token: str) -> bool:
    parts = token.removeprefix("rankproof.").replace("/", ".").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(["rankproof", *parts[:cut]]))
        except ImportError:
            continue
        return _attribute(value, parts[cut:])
    if parts[0][:1].isupper():                          # a class's attribute: Results.replace
        module = _class_module(parts[0])
        return module is not None and _attribute(module, parts)
    # an instance's method (error.spelled) or a compiled module's function (ranked.plan_layout)
    return _defined(parts[-1])


def _resolves(token: str) -> bool:
    if token.endswith((".py", ".md", ".pxd", ".pyx", "/")) or token.startswith(("tests/", "docs/")):
        return _exists_as_path(token)
    if DOTTED.fullmatch(token):
        return _imports(token) or _exists_as_path(token)
    if IDENTIFIER.fullmatch(token):
        return _defined(token)
    return True


@pytest.mark.parametrize("token", _names())
def test_every_name_in_the_document_exists(token):
    assert _resolves(token), f"docs/architecture.md names `{token}`, which the code no longer has"


@pytest.mark.parametrize("token", ["pipeline/nowhere.py", "engines.NO_SUCH_TABLE", "NoSuchClassAnywhere",
                                   "tests/io/test_no_such_file.py"])
def test_the_check_fails_on_a_name_that_does_not_exist(token):
    assert not _resolves(token)


def test_every_rule_names_the_test_or_command_that_holds_it():
    section = TEXT.split("## What holds this document true", 1)
    assert len(section) == 2, "the document lost its closing table of rules and their tests"
    named = re.findall(r"`(tests/[^`:]+\.py)", section[1])
    assert named, "the closing table names no test"
    assert [path for path in named if not (ROOT / path).exists()] == []


def test_kernels_never_see_a_protocol_nor_validate_against_one():
    """The compiled modules and numpy kernels import nothing of rankproof above them."""
    kernels = [*sorted((PACKAGE / "kernels").glob("*.py")), *sorted((PACKAGE / "_libs").glob("*.py*"))]
    above = re.compile(r"^\s*(from|cimport|import)\s+(rankproof\.|\.\.|\.(protocol|pipeline|measures|data|io)\b)",
                       re.M)
    assert [path.name for path in kernels if above.search(path.read_text(encoding="utf-8"))] == []


def test_tests_mirror_the_package_and_keep_their_helpers_in_support():
    tests = ROOT / "tests"
    folders = {path.name for path in tests.iterdir() if path.is_dir() and not path.name.startswith((".", "_"))}
    package = {path.stem for path in PACKAGE.iterdir() if not path.name.startswith((".", "_"))}
    # the site, the peers, the helpers, the repository's own tools (tools/)
    assert folders - package == {"docs", "parity", "support", "tools"}
    helpers = [str(path.relative_to(tests)) for path in tests.rglob("*.py")
               if not path.name.startswith("test_") and path.name != "conftest.py"
               and path.parent != tests / "support" and "__pycache__" not in path.parts]
    assert helpers == []
    names = [path.name for path in tests.rglob("test_*.py")]
    assert len(names) == len(set(names)), "test file names must be unique across folders"
    front_doors = {path.name for path in (PACKAGE / "frontdoors").iterdir() if path.is_dir()
                   and not path.name.startswith("_")}
    assert front_doors <= {path.name for path in (tests / "frontdoors").iterdir() if path.is_dir()}
