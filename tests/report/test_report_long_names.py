"""The report with long run names in Chromium (issue 40): no text of a table runs into the next cell
("difference vs preds_20000.parquetdifference" was a long name running into the next column's header)
and no text of a figure reaches outside it (the forest plot's names were cut at the page's left edge),
at 1400 and 800 px wide. A screenshot of each width is written beside the page (tmp_path) for a reader
of a failing run.
"""

from __future__ import annotations

import base64
import shutil

import pytest

from rankproof.cli.app import main

from browser import DevTools, needs_chromium
from paths import CRANFIELD

pytestmark = [needs_chromium, pytest.mark.slow]

LONG = "preds_20000_users_two_tower_model_trained_2026-12-06_learning_rate_0.001"

# Every pair of neighbouring cells of a table row where the text of the first reaches into the second
# (the text's own box, from a Range over the cell, against the next cell's box), with what both say.
OVERLAPS = """(() => {
  const found = [];
  const text = cell => { const r = document.createRange(); r.selectNodeContents(cell);
                         return r.getBoundingClientRect(); };
  for (const table of document.querySelectorAll('table')) {
    for (const row of table.rows) {
      const cells = [...row.cells].filter(c => c.getBoundingClientRect().width > 0);
      for (let i = 1; i < cells.length; i++) {
        const before = text(cells[i - 1]), next = cells[i].getBoundingClientRect();
        if (before.width > 0 && before.right > next.left + 1)
          found.push(cells[i - 1].innerText.slice(0, 60) + ' | ' + cells[i].innerText.slice(0, 60));
      }
    }
  }
  return found;
})()"""


# Every text of a figure that reaches outside its figure (cut off at the page's or the figure's edge).
CLIPPED = """[...document.querySelectorAll('svg.figure')].flatMap(figure => {
  const box = figure.getBoundingClientRect();
  return [...figure.querySelectorAll('text')].filter(t => t.textContent.trim()).filter(t => {
    const r = t.getBoundingClientRect();
    return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1);
  }).map(t => figure.dataset.figure + ': ' + t.textContent.slice(0, 60));
})"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long_names")
    runs = [folder / f"{LONG}_{name}.run" for name in ("bm25", "tfidf")]
    for run, name in zip(runs, ("bm25", "tfidf")):
        shutil.copy(CRANFIELD / f"{name}.run", run)
    out = folder / "long.html"
    assert main(["report", str(CRANFIELD / "qrels.txt"), *map(str, runs), "--baseline", runs[0].name,
                 "-m", "ndcg@10", "-m", "ap", "--resamples", "100", "--quiet", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = DevTools(tmp_path_factory.mktemp("profile"))
    yield driver
    driver.close()


@pytest.mark.parametrize("width", [1400, 800])
def test_long_run_names_run_into_no_other_cell(page, browser, tmp_path, width):
    session = browser.open("about:blank")
    browser.send("Emulation.setDeviceMetricsOverride", session, width=width, height=1000, deviceScaleFactor=1,
                 mobile=False)
    browser.send("Page.navigate", session, url=page.as_uri())
    browser.evaluate(session, "new Promise(r => { const t = () => document.readyState === 'complete' "
                              "&& document.getElementById('summary') ? r(1) : setTimeout(t, 50); t(); })")
    shot = browser.send("Page.captureScreenshot", session, format="png", captureBeyondViewport=True)
    (tmp_path / f"long-names-{width}.png").write_bytes(base64.b64decode(shot["data"]))
    headers = browser.evaluate(session, "[...document.querySelectorAll('th')].map(h => h.textContent).join(' ')")
    assert f"difference vs {LONG}_bm25.run" in headers   # the long name is in a header (wrapped, not cut)
    assert browser.evaluate(session, OVERLAPS) == []
    assert browser.evaluate(session, CLIPPED) == []   # the forest plot's long names are shortened to fit
    assert browser.errors() == []
