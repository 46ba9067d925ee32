"""mkdocs hooks (mkdocs.yml `hooks:`): the pages generated at build time, never committed.

- ``atlas.md``: every peer run on the atlas's edge cases (``atlas.py``, ``atlas_page.py``);
- ``benchmarks.md``: ``benchmarks/results/*.json`` as tables and plots (``bench_page.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def on_files(files, config):
    from mkdocs.structure.files import File

    if str(HERE) not in sys.path:  # mkdocs restores sys.path after loading a hook: the generators' folder
        sys.path.insert(0, str(HERE))
    import atlas
    import atlas_page
    import bench_page

    files.append(File.generated(config, "atlas.md", content=atlas_page.render(atlas.build())))
    files.append(File.generated(config, "benchmarks.md",
                                content=bench_page.render(bench_page.load(ROOT / "benchmarks" / "results"))))
    return files
