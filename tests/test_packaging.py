"""rankproof ships its type information: the py.typed marker (PEP 561) and a
.pyi stub beside every compiled module, declared as package data so that a
wheel carries them, and each stub names what its compiled module defines.

A full wheel build is too slow for the suite; README ("Building and
releasing") gives the command that checks a built wheel's contents.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

import pytest

from paths import ROOT

PACKAGE = ROOT / "src" / "rankproof"
COMPILED = sorted(PACKAGE.rglob("*.pyx"))


def _package_data() -> dict[str, list[str]]:
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-data"]


def _declared(path: Path, package_data: dict[str, list[str]]) -> bool:
    """Does a package-data pattern of setuptools take this file? (`"*"` applies to every package.)"""
    relative = path.relative_to(PACKAGE.parent)
    package = ".".join(relative.parent.parts)
    for key, patterns in package_data.items():
        if key == "*" or key == package:
            if any(fnmatch(relative.name, pattern) for pattern in patterns):
                return True
        elif package.startswith(key + "."):
            inner = relative.relative_to(Path(*key.split(".")))
            if any(fnmatch(str(inner), pattern) for pattern in patterns):
                return True
    return False


def test_py_typed_is_package_data():
    assert resources.files("rankproof").joinpath("py.typed").is_file()
    assert "py.typed" in _package_data()["rankproof"]


def test_every_compiled_module_has_a_declared_stub():
    assert len(COMPILED) >= 3  # _ranked, _trec_scan, _dense_kernel at least
    package_data = _package_data()
    for pyx in COMPILED:
        stub = pyx.with_suffix(".pyi")
        assert stub.is_file(), f"{pyx.relative_to(ROOT)} has no .pyi stub beside it"
        assert _declared(stub, package_data), f"{stub.relative_to(ROOT)} is not package data in pyproject.toml"


def _stub_functions(stub: Path) -> tuple[set[str], dict[str, list[str]]]:
    """(top-level names, parameter names of each top-level function) of a stub."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    names: set[str] = set()
    parameters: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
            parameters[node.name] = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names, parameters


@pytest.mark.parametrize("pyx", COMPILED, ids=lambda p: p.stem)
def test_stub_matches_the_compiled_module(pyx: Path):
    """Every name of the stub exists in the built module, functions with the same parameters."""
    module_name = ".".join(pyx.relative_to(PACKAGE.parent).with_suffix("").parts)
    module = importlib.import_module(module_name)
    names, parameters = _stub_functions(pyx.with_suffix(".pyi"))
    missing = sorted(name for name in names if not hasattr(module, name))
    assert not missing, f"{pyx.with_suffix('.pyi').name} declares {missing}, which {module_name} lacks"
    for name, expected in parameters.items():
        actual = list(inspect.signature(getattr(module, name)).parameters)
        assert actual == expected, f"{module_name}.{name}{tuple(actual)}: the stub says {tuple(expected)}"


# -- the dtype and contiguity each stub states, against the compiled signatures ------------------
_C_DTYPES = {"int64_t": "int64", "int32_t": "int32", "uint8_t": "uint8", "uint64_t": "uint64",
             "double": "float64", "float": "float32"}
# `const int64_t[::1] offsets`, `grade_t[:, ::1] grade`: element type, dimensions, name
_MEMORYVIEW = re.compile(r"(?:const\s+)?(\w+)\[([^\]]*)\]\s+(\w+)")


def _compiled_signature(module, name: str, pyx_text: str) -> str:
    """The signature Cython embeds in the built function's docstring (embedsignature); a
    fused function embeds a generic one, so its `def` line in the .pyx is read instead."""
    first = (getattr(module, name).__doc__ or "").split("\n", 1)[0]
    if first.startswith(name + "(") and "_fused_sigindex" not in first:
        return first
    match = re.search(rf"^def {name}\((.*?)\):", pyx_text, re.S | re.M)
    assert match, f"no def {name} in the .pyx"
    return f"{name}({match.group(1)})"


def _memoryviews(signature: str, pyx_text: str) -> dict[str, tuple[set[str], bool]]:
    """Parameter -> (numpy dtypes it takes, C-contiguous?) of each typed-memoryview parameter."""
    fused = {m.group(1): m.group(2).split() for m in re.finditer(r"^ctypedef fused (\w+):\n((?:    .+\n)+)",
                                                                    pyx_text, re.M)}
    return {name: ({_C_DTYPES[c] for c in fused.get(ctype, [ctype])}, dims.replace(" ", "").endswith("::1"))
            for ctype, dims, name in _MEMORYVIEW.findall(signature)}


def _stub_arrays(stub: Path) -> dict[str, dict[str, tuple[set[str], str]]]:
    """Function -> parameter -> (dtypes of its NDArray annotation, the comment on its line)."""
    source = stub.read_text(encoding="utf-8")
    lines = source.splitlines()
    stated: dict[str, dict[str, tuple[set[str], str]]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            stated[node.name] = {
                a.arg: (set(re.findall(r"NDArray\[np\.(\w+)\]", ast.unparse(a.annotation)) if a.annotation else ()),
                        lines[a.lineno - 1].partition("#")[2])
                for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
    return stated


@pytest.mark.parametrize("pyx", COMPILED, ids=lambda p: p.stem)
def test_stub_states_the_dtype_and_layout_of_each_array(pyx: Path):
    """Each array a compiled function takes as a typed memoryview has, in the stub, an
    NDArray annotation of exactly its dtype(s) and a comment saying C-contiguous ([::1]) or
    any stride ([:])."""
    module_name = ".".join(pyx.relative_to(PACKAGE.parent).with_suffix("").parts)
    module = importlib.import_module(module_name)
    pyx_text = pyx.read_text(encoding="utf-8")
    checked = 0
    for function, parameters in _stub_arrays(pyx.with_suffix(".pyi")).items():
        compiled = _memoryviews(_compiled_signature(module, function, pyx_text), pyx_text)
        for name, (dtypes, contiguous) in compiled.items():
            stub_dtypes, comment = parameters[name]
            assert stub_dtypes == dtypes, f"{module_name}.{function}({name}): stub {stub_dtypes}, compiled {dtypes}"
            layout = "C-contiguous" if contiguous else "any stride"
            assert layout in comment, f"{module_name}.{function}({name}) is {layout}; the stub says {comment!r}"
            checked += 1
    # trec_scan and vocabulary type their arrays inside the functions
    assert checked or module_name.endswith(("trec_scan", "vocabulary"))
