"""The report's beyond-accuracy section (issue 26): side-data measures beside accuracy, their curves,
exposure by item category and values per user group, on the MovieLens-shaped log; rendered in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankproof.cli.app import main

from browser import CHROMIUM, DevTools, needs_chromium

from movielens import write_log

COLUMNS = ["--columns", "query=user,doc=item"]


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("beyond")
    log = write_log(folder / "log", users=120, items=200)
    output = folder / "report.html"
    assert main(["report", str(log["truth"]), str(log["pop"]), str(log["taste"]), *COLUMNS, "-m", "ndcg@10",
                 "-m", "coverage@10", "-m", "ild@10", "-m", "calibration@10", "--train", str(log["train"]),
                 "--features", str(log["features"]), "--groups", str(log["groups"]), "--resamples", "100",
                 "-o", str(output)]) == 0
    return output


def test_the_section_is_in_the_page(page):
    html = page.read_text()
    assert '<section id="beyond">' in html
    assert 'data-figure="beyond-coverage"' in html or 'beyond-coverage' in html
    for table in ("beyond-values", "beyond-exposure", "beyond-groups"):
        assert f'class="{table}"' in html
    assert "<td class=text>calibration@10</td><td class=text>heavy</td>" in html
    assert html.index('id="summary"') < html.index('id="beyond"') < html.index('id="provenance"')


def test_no_section_without_side_data(tmp_path):
    log = write_log(tmp_path / "log", users=20, items=60)
    output = tmp_path / "plain.html"
    assert main(["report", str(log["truth"]), str(log["pop"]), *COLUMNS, "-m", "ndcg@10", "--resamples", "50",
                 "-o", str(output)]) == 0
    assert 'id="beyond"' not in output.read_text()


@needs_chromium
@pytest.mark.slow
def test_the_section_renders_in_chromium(page, tmp_path):
    assert CHROMIUM is not None
    browser = DevTools(tmp_path / "profile")
    try:
        session = browser.open(page.as_uri())
        shown = browser.evaluate(session, """(() => {
          const s = document.getElementById('beyond');
          const box = s.getBoundingClientRect();
          const figures = [...s.querySelectorAll('svg.figure')].map(f => {
            const r = f.getBoundingClientRect(); return [r.width, r.height, f.querySelectorAll('polyline').length]; });
          const cells = [...s.querySelectorAll('table.beyond-values td[data-measure]')].map(td => td.textContent);
          return {height: box.height, figures, cells,
                  groups: s.querySelectorAll('table.beyond-groups tr').length,
                  exposure: s.querySelectorAll('table.beyond-exposure tr').length,
                  nav: !!document.querySelector('nav a[href="#beyond"]')};
        })()""")
        assert shown["height"] > 300, shown
        assert len(shown["figures"]) == 2  # coverage against k, popularity against rank
        assert all(w > 200 and h > 100 and lines == 2 for w, h, lines in shown["figures"]), shown["figures"]
        assert len(shown["cells"]) == 2 * 3 and all(c.replace(".", "").isdigit() for c in shown["cells"]), shown
        # header + (ndcg, ild, calibration) x (heavy, light): calibration per group; a max - min row each
        assert shown["groups"] == 1 + 3 * 2 + 3
        assert shown["exposure"] > 2 and shown["nav"]
        assert browser.errors() == []
    finally:
        browser.close()


def test_accuracy_measures_per_user_group_worked_by_hand(tmp_path):
    """u (group g1) has its one relevant item at rank 1: ndcg@2 1; v (g1) at rank 2: 1/log2(3) = 0.6309;
    w (g2) has none in its top 2: 0. g1's mean (1 + 0.6309) / 2 = 0.8155, g2's 0."""
    files = {"truth.csv": "user,item,grade\nu,a,1\nv,d,1\nw,c,1\n",
             "recs.csv": "user,item,score\nu,a,3\nu,b,2\nv,a,3\nv,d,2\nw,a,3\nw,b,2\nw,c,1\n",
             "groups.csv": "user,group\nu,g1\nv,g1\nw,g2\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    output = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "truth.csv"), str(tmp_path / "recs.csv"), *COLUMNS, "-m", "ndcg@2",
                 "--groups", str(tmp_path / "groups.csv"), "--resamples", "50", "-o", str(output)]) == 0
    html = output.read_text()
    assert "<td class=text>ndcg@2</td><td class=text>g1</td><td>0.8155</td>" in html
    assert "<td class=text>ndcg@2</td><td class=text>g2</td><td>0.0000</td>" in html


def test_side_measures_alone_say_what_the_page_adds(tmp_path, capsys):
    """-m novelty@2 alone: the summary still needs accuracy measures, so the default ones join it,
    and both the page (at the top) and stderr say which and why; with an accuracy measure named,
    nothing is added and nothing is said."""
    files = {"truth.csv": "user,item,grade\nu,a,1\nv,d,1\n",
             "recs.csv": "user,item,score\nu,a,3\nu,b,2\nv,a,3\nv,d,2\n",
             "train.csv": "user,item\nx,a\ny,b\nz,d\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    inputs = [str(tmp_path / "truth.csv"), str(tmp_path / "recs.csv"), *COLUMNS,
              "--train", str(tmp_path / "train.csv"), "--resamples", "20"]
    alone, both = tmp_path / "alone.html", tmp_path / "both.html"
    assert main(["report", *inputs, "-m", "novelty@2", "-o", str(alone)]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "note: added" in line]
    assert said == ["rankproof: note: added the accuracy measures ndcg@10 ap rr p@10, as -m named "
                    "side-data measures only (novelty@2: in the beyond-accuracy section) and the "
                    "summary, the statistics and the drill-down are built on accuracy measures; "
                    "name the ones you want with -m"]
    html = alone.read_text()
    header = html[html.index('<header id="header">'):html.index("</header>")]
    assert ("<div class=\"missing\" data-added>Added to this page: the accuracy measures ndcg@10 ap "
            "rr p@10, as -m named side-data measures only (novelty@2: in the") in header
    assert 'data-measure="ndcg@10"' in html and '<section id="beyond">' in html
    assert main(["report", *inputs, "-m", "ndcg@2", "-m", "novelty@2", "-o", str(both)]) == 0
    assert "note: added" not in capsys.readouterr().err
    html = both.read_text()
    assert "data-added" not in html and 'data-measure="ndcg@10"' not in html
