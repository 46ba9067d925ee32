"""The report in Chromium (issue 28): the results on the first screen, and no two texts of a figure overlapping
at 800 and 1400 px wide (bounding boxes of every SVG text from the DOM)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankproof.cli.app import main

from browser import DevTools, needs_chromium
from paths import CRANFIELD

pytestmark = [needs_chromium, pytest.mark.slow]

QRELS = CRANFIELD / "qrels.txt"
RUNS = [CRANFIELD / f"{name}.run" for name in ("bm25", "tfidf", "lmdirichlet")]

# Every pair of SVG text boxes inside one figure that intersect by more than half a pixel each way.
OVERLAPS = """
(() => {
  const found = [];
  document.querySelectorAll("svg.figure").forEach(figure => {
    const boxes = [...figure.querySelectorAll("text")].filter(t => t.textContent.trim())
      .map(t => [t.textContent, t.getBoundingClientRect()]).filter(([, r]) => r.width > 0 && r.height > 0);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [a, r] = boxes[i], [b, s] = boxes[j];
      const w = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      if (w > 0.5 && h > 0.5) found.push(figure.dataset.figure + ": " + a + " / " + b);
    }
  });
  return found;
})()
"""

# Every word of a table header that the browser broke across lines, with its header. A word is a run
# of non-space characters inside one text node: the report's <wbr> (between a measure and its cutoff;
# after _ / , or an opening parenthesis) starts a new text node, so a break there is allowed.
BROKEN_WORDS = """
(() => {
  const found = [];
  for (const th of document.querySelectorAll("th")) {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      let tops = new Set(), word = "";
      const flush = () => { if (tops.size > 1) found.push(th.textContent + " | " + word);
                            tops = new Set(); word = ""; };
      for (let i = 0; i < node.data.length; i++) {
        if (/\\s/.test(node.data[i])) { flush(); continue; }
        const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (box) tops.add(Math.round(box.top));
        word += node.data[i];
      }
      flush();
    }
  }
  return found;
})()
"""


def _view(browser: DevTools, url: str, width: int, height: int = 1000) -> str:
    session = browser.open("about:blank")
    browser.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height, deviceScaleFactor=1,
                 mobile=False)
    browser.send("Page.navigate", session, url=url)
    browser.evaluate(session, "new Promise(r => { const t = () => document.readyState === 'complete' "
                              "&& document.getElementById('summary') ? r(1) : setTimeout(t, 50); t(); })")
    return session


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """The Cranfield report against a baseline, and one of 12,000 queries whose histograms count in the
    thousands (5-digit tick labels beside the rotated axis title)."""
    folder = tmp_path_factory.mktemp("layout")
    cranfield = folder / "cranfield.html"
    assert main(["report", str(QRELS), *map(str, RUNS), "--baseline", "bm25.run", "--resamples", "200",
                 "-o", str(cranfield)]) == 0
    qrels, run_a, run_b = folder / "many.qrels", folder / "a.run", folder / "b.run"
    queries = range(12_000)
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in queries))
    run_a.write_text("".join(f"q{q} Q0 d{q} 1 1.0 a\n" for q in queries))
    run_b.write_text("".join(f"q{q} Q0 x{q} 1 1.0 b\nq{q} Q0 d{q} 2 0.5 b\n" for q in queries))
    many = folder / "many.html"
    assert main(["report", str(qrels), str(run_a), str(run_b), "-m", "rr", "--resamples", "100",
                 "-o", str(many)]) == 0
    # Grades up to 15 under gain=exp2: gains of 32767, a cumulative DCG in the tens of thousands (drill-down).
    big_qrels, big_a, big_b = folder / "big.qrels", folder / "big_a.run", folder / "big_b.run"
    big_qrels.write_text("".join(f"q{q} 0 d{d} {15 - d}\n" for q in range(3) for d in range(8)))
    big_a.write_text("".join(f"q{q} Q0 d{d} {d + 1} {10 - d} a\n" for q in range(3) for d in range(8)))
    big_b.write_text("".join(f"q{q} Q0 d{7 - d} {d + 1} {10 - d} b\n" for q in range(3) for d in range(8)))
    big = folder / "big.html"
    assert main(["report", str(big_qrels), str(big_a), str(big_b), "-m", "ndcg@5", "--policy", "gain=exp2",
                 "--resamples", "50", "-o", str(big)]) == 0
    return {"cranfield": cranfield, "many": many, "big": big}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = DevTools(tmp_path_factory.mktemp("profile"))
    yield driver
    driver.close()


def test_the_results_are_on_the_first_screen(reports, browser):
    session = _view(browser, reports["cranfield"].as_uri(), 1400, 1000)
    top, bottom = browser.evaluate(session, "(() => { const r = document.querySelector('#summary table')"
                                            ".getBoundingClientRect(); return [r.top, r.bottom]; })()")
    assert 0 <= top < 1000, top  # the summary table starts inside the first 1000 px
    # Provenance and counts come after the results.
    order = browser.evaluate(session, "[...document.querySelectorAll('main > section, main > header')]"
                                      ".map(s => s.id)")
    assert order.index("summary") < order.index("provenance") < order.index("counts"), order
    assert browser.evaluate(session, "!!document.querySelector('#forest svg.figure .mark.interval')")


@pytest.mark.parametrize("width", [800, 1400])
@pytest.mark.parametrize("name", ["cranfield", "many", "big"])
def test_no_two_texts_of_a_figure_overlap(reports, browser, name, width):
    session = _view(browser, reports[name].as_uri(), width)
    assert browser.evaluate(session, "document.querySelectorAll('svg.figure text').length") > 20
    assert browser.evaluate(session, OVERLAPS) == []
    assert browser.errors() == []


def test_the_summary_table_scrolls_instead_of_being_cut(reports, browser):
    session = _view(browser, reports["cranfield"].as_uri(), 800)
    box = browser.evaluate(session, "(() => { const t = document.querySelector('#summary table'), "
                                    "p = t.parentElement; return [t.scrollWidth, p.clientWidth, "
                                    "getComputedStyle(p).overflowX]; })()")
    table_width, shown_width, overflow = box
    # The table is wider than 800 px allows: its container scrolls, so its last columns can be reached.
    assert table_width > shown_width and overflow == "auto", box


def test_the_measure_selector_changes_the_drill_down(reports, browser):
    session = _view(browser, reports["cranfield"].as_uri() + "#query=57", 1400)
    headings = "[...document.querySelectorAll('#drill-rankings .ranking[data-run] h3')].map(h => h.textContent)"
    columns = "document.querySelector('#drill-rankings .ranking[data-run] table tr').textContent"
    options = browser.evaluate(session, "[...document.querySelector('#drill select.measure').options]"
                                        ".map(o => o.textContent)")
    assert options == ["ndcg@10", "ap", "rr", "p@10"]  # the page's measures (the default ones)
    before = browser.evaluate(session, headings)
    assert all(": ndcg@10 = " in h for h in before) and "gain" in browser.evaluate(session, columns)
    browser.evaluate(session, "(() => { const s = document.querySelector('#drill select.measure'); s.value = '3'; "
                              "s.dispatchEvent(new Event('change')); })()")
    after = browser.evaluate(session, headings)
    assert all(": p@10 = " in h for h in after), after
    assert "relevant so far" in browser.evaluate(session, columns)
    # p@10 of query 57, as the page's own per-query value: the count of relevant docs in the top 10, over 10.
    counted = browser.evaluate(session, "(() => { const rows = [...document.querySelectorAll("
                                        "'#drill-rankings .ranking[data-run]')[0].querySelectorAll('tr')].slice(1, 11); "
                                        "return rows.filter(r => r.children[3].textContent === 'yes').length; })()")
    value = float(after[0].rsplit("= ", 1)[1])
    assert value == pytest.approx(counted / 10, abs=5e-5)
    assert browser.evaluate(session, "document.getElementById('drill').dataset.measure") == "p@10"


@pytest.mark.parametrize("width", [500, 800])
def test_table_headers_wrap_between_words_only(reports, browser, width):
    """At 800 px the summary's headers ("difference vs bm25.run", "queries needed") wrap in narrow
    columns: at spaces (or between a measure and its cutoff), never inside a word ("differ/ence");
    at 500 px the drill-down's tables too. A word too long for its column widens it."""
    session = _view(browser, reports["cranfield"].as_uri() + "#query=57", width)
    assert browser.evaluate(session, "document.querySelectorAll('th').length") > 30
    assert browser.evaluate(session, BROKEN_WORDS) == []
