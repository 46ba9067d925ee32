"""A griffe extension: the docstrings' Sphinx roles as mkdocstrings cross-references.

The package's docstrings are numpydoc, written for Sphinx: they refer to
other objects as ``:class:`~rankproof.results.Results``` or
``:func:`rankproof.evaluate```. Each such role becomes an autorefs link
(``[`Results`][rankproof.results.Results]``) when its target is rendered
on the site, and plain code otherwise (a private module, a compiled
module); a target that does not exist at all is a warning, so that the
strict build fails on a broken reference.
"""

from __future__ import annotations

import importlib
import logging
import re

import sys
from pathlib import Path

import griffe

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_pages  # noqa: E402

log = logging.getLogger("mkdocs.plugins.rankproof.xrefs")

ROLE = re.compile(r":(?:py:)?(?P<role>class|func|meth|mod|attr|data|obj|exc|const):`(?P<tilde>~?)(?P<target>[^`]+)`")


def resolves(target: str) -> bool:
    """Does the dotted path name a module or an attribute of one?"""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                value = getattr(value, part)
        except AttributeError:
            return False
        return True
    return False


def link_target(target: str, rendered: dict[str, str], classes: set[str]) -> str | None:
    """The public path the site renders ``target`` under (the target itself, a
    member of a rendered class, or where a rendered name is defined), or None."""
    if target in rendered:
        return rendered[target]
    owner, _, member = target.rpartition(".")
    public_owner = rendered.get(owner)
    if public_owner in classes and not member.startswith("_"):
        return f"{public_owner}.{member}"
    return None


def fence_doctests(text: str) -> str:
    """Doctest paragraphs (``>>>`` lines and their output) outside a numpydoc
    Examples section, as pycon code blocks: as Markdown they would be prose,
    and ``values["q1"]["map"]`` a reference link."""
    paragraphs = text.split("\n\n")
    out = []
    in_examples = False
    for paragraph in paragraphs:
        stripped = paragraph.lstrip("\n")
        if re.match(r"^\s*(Examples|Example)\n\s*-{3,}", stripped):
            in_examples = True
        elif re.match(r"^\s*\w[\w ]*\n\s*-{3,}", stripped):
            in_examples = False
        if not in_examples and stripped.lstrip().startswith(">>>") and "```" not in paragraph:
            indent = stripped[: len(stripped) - len(stripped.lstrip())]
            paragraph = f"{indent}```pycon\n{stripped}\n{indent}```"
        out.append(paragraph)
    return "\n\n".join(out)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring griffe loads."""

    def __init__(self) -> None:
        super().__init__()
        self.rendered = api_pages.rendered()
        self.classes = api_pages.rendered_classes()

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        docstring = obj.docstring
        if docstring is None:
            return
        docstring.value = fence_doctests(ROLE.sub(lambda match: self._link(obj, match), docstring.value))

    def _link(self, obj: griffe.Object, match: re.Match) -> str:
        target = match["target"].strip()
        if target.startswith("."):  # relative: to the docstring's module, else to its package
            here = obj.module.path
            candidates = [here + target, here.rpartition(".")[0] + target]
            target = next((path for path in candidates if resolves(path)), candidates[0])
        shown = target.rsplit(".", 1)[-1] if match["tilde"] else target
        if not target.startswith("rankproof"):
            return f"`{shown}`"
        if not resolves(target):
            log.warning("%s: a docstring refers to %s, which does not exist", obj.path, target)
            return f"`{shown}`"
        public = link_target(target, self.rendered, self.classes)
        return f"[`{shown}`][{public}]" if public is not None else f"`{shown}`"
