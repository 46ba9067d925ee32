"""The atlas page at 1400 px in Chromium (issue 40): with long tool names, long calls and long
missing-tool commands, no table is wider than its column of text (material wraps a wide table
in a scrolling box, which clips its last columns) and no two cells of a row overlap.

The page is rendered from fake peers (no tool is run but rankproof) into a one-page site with
the project's theme and Markdown extensions, then opened in headless Chromium; a screenshot is
written beside it (tmp_path) for a reader of a failing run.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys

import pytest

from browser import DevTools, needs_chromium
from paths import ROOT, SRC

sys.path.insert(0, str(ROOT / "scripts" / "docs"))

import atlas  # noqa: E402
import atlas_page  # noqa: E402
from atlas_cases import CASES  # noqa: E402
from atlas_peers import Outcome, Peer  # noqa: E402

pytestmark = [pytest.mark.slow]

LONG = "an-evaluation-toolkit-with-a-long-name"
WIDTH = 1400

SITE = """site_name: atlas layout
theme:
  name: material
  font: false
markdown_extensions:
  - admonition
  - attr_list
  - tables
  - toc:
      permalink: true
  - pymdownx.superfences
  - pymdownx.details
"""

# Every table's box (material's scrolling wrapper, else the table) and how far its content overflows;
# every pair of neighbouring cells of a row that overlap.
MEASURE = """(() => {
  const out = {overflow: [], overlap: [], wide: []};
  for (const table of document.querySelectorAll('article table')) {
    const box = table.closest('.md-typeset__scrollwrap') || table.parentElement;
    if (box.scrollWidth > box.clientWidth + 1) out.overflow.push([box.scrollWidth, box.clientWidth,
      table.rows[0].innerText.slice(0, 80)]);
    if (table.getBoundingClientRect().right > window.innerWidth) out.wide.push(table.rows[0].innerText.slice(0, 80));
    for (const row of table.rows) {
      const cells = [...row.cells].map(c => c.getBoundingClientRect());
      for (let i = 1; i < cells.length; i++) {
        if (cells[i].left < cells[i - 1].right - 1) out.overlap.push(row.innerText.slice(0, 80));
      }
    }
  }
  return out;
})()"""


def _peer(key: str, value: float, module: str = "math") -> Peer:
    return Peer(key, f"{LONG} {key}", "trec_eval", ("ndcg", "p", "ap"), module,
                f"{LONG}.evaluate(qrels_dictionary_of_dictionaries, run_dictionary_of_dictionaries, "
                f"measures=['ndcg_cut_10', 'P_10', 'map'], aggregate=True, strict_mode=False)",
                lambda case, q, r: {m: Outcome(value=value) for m in ("ndcg", "p", "ap")})


@needs_chromium
def test_the_atlas_with_long_names_fits_1400_px(tmp_path):
    peers = (_peer("first", 0.5), _peer("second", 0.123), _peer("third", 0.25),
             _peer("absent", 0.0, module="no_such_module_for_the_atlas_layout"))
    built = atlas.build(peers, CASES[:2])
    page = atlas_page.render(built)
    assert f"{LONG} absent: not installed; .venv/bin/pip install no_such_module_for_the_atlas_layout" in page
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(page, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(SITE, encoding="utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(tmp_path / "site")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    browser = DevTools(tmp_path / "profile")
    try:
        session = browser.open((tmp_path / "site" / "index.html").as_uri())
        browser.send("Emulation.setDeviceMetricsOverride", session, width=WIDTH, height=1000, deviceScaleFactor=1,
                     mobile=False)
        found = browser.evaluate(session, MEASURE)
        shot = browser.send("Page.captureScreenshot", session, format="png", captureBeyondViewport=True)
    finally:
        browser.close()
    (tmp_path / "atlas-1400.png").write_bytes(base64.b64decode(shot["data"]))
    assert (tmp_path / "atlas-1400.png").stat().st_size > 1000
    assert found["overlap"] == []
    assert found["wide"] == []
    assert found["overflow"] == [], found["overflow"]
