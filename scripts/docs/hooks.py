"""mkdocs hooks (``hooks:`` in mkdocs.yml): the generated reference pages.

- ``on_config``: the nav entries ``reference/measures/index.md`` and
  ``reference/api/index.md`` become sections holding every generated page,
  so that a new measure family or public module needs no nav edit;
- ``on_files``: the pages themselves, generated in memory (never written
  to docs/, never committed) from the registry and the package;
- a public name without a docstring is a warning, which ``strict: true``
  turns into a failed build.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the generators beside this file
    sys.path.insert(0, str(HERE))

import api_pages  # noqa: E402
import measure_pages  # noqa: E402

log = logging.getLogger("mkdocs.plugins.rankproof")

SECTIONS = {f"{measure_pages.FOLDER}/index.md": measure_pages.nav,
            f"{api_pages.FOLDER}/index.md": api_pages.nav}


def _expand(items: list) -> list:
    expanded = []
    for item in items:
        if isinstance(item, dict):
            (title, value), = item.items()
            if isinstance(value, list):
                expanded.append({title: _expand(value)})
            elif value in SECTIONS:
                expanded.append({title: SECTIONS[value]()})
            else:
                expanded.append(item)
        else:
            expanded.append(item)
    return expanded


def on_config(config, **kwargs):
    config["nav"] = _expand(config["nav"])
    return config


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File

    for missing in api_pages.missing_docstrings():
        log.warning("public name without a docstring: %s", missing)
    generated = {**measure_pages.pages(), **api_pages.pages()}
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files
