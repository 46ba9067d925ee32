"""The API reference, generated at build time: one page for the names of
``rankproof.__all__`` and one per public module of the package (a module or
subpackage whose name has no leading underscore and which declares
``__all__``), each rendered by mkdocstrings from the numpydoc docstrings.

Nothing here is committed as a page: ``scripts/docs/hooks.py`` adds what
``pages()`` returns to the site, and a public name without a docstring
fails the build (``missing_docstrings``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil

FOLDER = "reference/api"
PACKAGE = "rankproof"


# Folders that group public modules without being one (``rankproof.frontdoors.frame``):
# their modules are listed as if they stood at the top.
FOLDERS = ("frontdoors",)


def public_modules() -> list[str]:
    """``rankproof.X`` for every public module or subpackage declaring ``__all__``, in name order,
    and ``rankproof.frontdoors.X`` for the front doors not re-exported at the top under their name
    (``rankproof.sklearn`` is documented there, not twice)."""
    package = importlib.import_module(PACKAGE)
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        if hasattr(module, "__all__"):
            found.append(module.__name__)
    top = {name.rsplit(".", 1)[1] for name in found}
    for folder in FOLDERS:
        inner = importlib.import_module(f"{PACKAGE}.{folder}")
        for info in sorted(pkgutil.iter_modules(inner.__path__), key=lambda info: info.name):
            module = importlib.import_module(f"{PACKAGE}.{folder}.{info.name}")
            if not info.name.startswith("_") and info.name not in top and hasattr(module, "__all__"):
                found.append(module.__name__)
    return found


def public_names(module_name: str) -> list[str]:
    """The names a module exports; the measures' own names (one per registered
    measure, documented in the measures reference) are left out."""
    module = importlib.import_module(module_name)
    names = list(module.__all__)
    if module_name == f"{PACKAGE}.measures":
        from rankproof.measures import REGISTRY

        names = [name for name in names if name not in REGISTRY]
    return [name for name in names if not name.startswith("__")]


def documented(module_name: str, name: str) -> bool:
    """Is there something to render: a docstring on the object itself (data such
    as dicts and constants carry theirs in the source, which griffe reads)."""
    value = getattr(importlib.import_module(module_name), name)
    if not (inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value)):
        return True
    return bool((value.__doc__ or "").strip())


def rendered() -> dict[str, str]:
    """``{path: public path}`` of every object the API pages render: each public
    module, each of its names and the package's (under their public path), and
    the path each function or class is defined under (``rankproof.stats.comparison.compare``
    for ``rankproof.stats.compare``), which a docstring may name instead."""
    found: dict[str, str] = {}
    for module in [PACKAGE, *public_modules()]:
        found.setdefault(module, module if module != PACKAGE else f"{FOLDER}/index")
        imported = importlib.import_module(module)
        for name in public_names(module):
            public = f"{module}.{name}"
            value = getattr(imported, name)
            if inspect.ismodule(value):
                continue
            found.setdefault(public, shadowed(module, name) or public)
            if inspect.isclass(value) or inspect.isfunction(value):
                found.setdefault(f"{value.__module__}.{value.__qualname__}", public)
    found.pop(PACKAGE)
    return found


def rendered_classes() -> set[str]:
    """Public paths of the rendered classes (whose public members are rendered too)."""
    classes = set()
    for module in [PACKAGE, *public_modules()]:
        imported = importlib.import_module(module)
        classes.update(f"{module}.{name}" for name in public_names(module) if inspect.isclass(getattr(imported, name)))
    return classes


def missing_docstrings() -> list[str]:
    """Public functions, classes and modules without a docstring."""
    missing = [f"{PACKAGE}.{name}" for name in public_names(PACKAGE) if not documented(PACKAGE, name)]
    for module in public_modules():
        if not (importlib.import_module(module).__doc__ or "").strip():
            missing.append(module)
        missing += [f"{module}.{name}" for name in public_names(module) if not documented(module, name)]
    return missing


def _directive(identifier: str, members: list[str] | None = None, heading_level: int = 2) -> str:
    lines = [f"::: {identifier}", "    options:", f"      heading_level: {heading_level}"]
    if members is not None:
        lines.append("      members:")
        lines += [f"        - {name}" for name in members] if members else []
        if not members:
            lines[-1] = "      members: false"
    return "\n".join(lines)


def index_page() -> str:
    """The top-level names, each rendered where the package exports it (``rankproof.Qrels``)."""
    lines = ["# API reference", "", "<!-- generated by scripts/docs/api_pages.py from rankproof.__all__ -->", "",
             "Everything `from rankproof import ...` offers (`rankproof.__all__`), then one page per public "
             "module (the left-hand menu). `rankproof.__version__` is the installed version (from the package's "
             "metadata). The measures themselves (`ndcg`, `ap`, ...) are in the "
             "[measures reference](../measures/index.md).", ""]
    package = importlib.import_module(PACKAGE)
    for name in public_names(PACKAGE):
        if inspect.ismodule(getattr(package, name)):  # rankproof.report: its own page
            lines += [f"## `{PACKAGE}.{name}`", "", f"The module, callable: see [`{PACKAGE}.{name}`]"
                      f"({name}.md).", ""]
            continue
        lines += [_directive(f"{PACKAGE}.{name}"), ""]
    return "\n".join(lines)


def shadowed(module_name: str, name: str) -> str | None:
    """Where a name is defined when a submodule of the same name hides it from
    the static loader (``rankproof.spark.evaluate``, the function, is defined in
    the module ``rankproof.spark.evaluate``): its defining path, else None."""
    value = getattr(importlib.import_module(module_name), name)
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None
    if not hasattr(importlib.import_module(module_name), "__path__"):  # a module, not a package
        return None
    if importlib.util.find_spec(f"{module_name}.{name}") is None:
        return None
    return f"{value.__module__}.{value.__qualname__}"


def module_page(module_name: str) -> str:
    names = public_names(module_name)
    hidden = {name: shadowed(module_name, name) for name in names if shadowed(module_name, name)}
    lines = [f"# `{module_name}`", "", "<!-- generated by scripts/docs/api_pages.py from the module's __all__ -->", "",
             "::: " + module_name, "    options:", "      heading_level: 1", "      show_root_heading: false",
             "      members:"]
    lines += [f"        - {name}" for name in names if name not in hidden] or ["        []"]
    for path in hidden.values():
        lines += ["", _directive(path)]
    return "\n".join(lines) + "\n"


def page_path(module_name: str) -> str:
    return f"{FOLDER}/{module_name.removeprefix(PACKAGE + '.')}.md"


def pages() -> dict[str, str]:
    """``{path under docs/: markdown}``: the index, then one page per public module."""
    generated = {f"{FOLDER}/index.md": index_page()}
    for module in public_modules():
        generated[page_path(module)] = module_page(module)
    return generated


def nav() -> list:
    return [f"{FOLDER}/index.md"] + [{module: page_path(module)} for module in public_modules()]
