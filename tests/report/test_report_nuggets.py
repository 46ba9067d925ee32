"""The report of nugget scores (issue 27): ``rankproof report --nuggets A B`` draws the four scores of two
nuggetizer assignment files as it draws ranking measures. Means are the hand-worked table
(tests/support/nugget_table.py); differences, intervals and p-values those of ``rankproof nuggets --compare``
(the same compare, the same resamples); rendered in Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rankproof.cli.app import main
from rankproof.measures.nuggets import NUGGET_SCORES

from browser import CHROMIUM, DevTools, needs_chromium
from nugget_table import FULL, FULL_EXPECTED, MEANS, RECORDS, write

RESAMPLES = "500"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("nuggets")
    return write(folder / "a.jsonl", RECORDS), write(folder / "b.jsonl", FULL)


@pytest.fixture(scope="module")
def page(files) -> Path:
    output = files[0].parent / "nuggets.html"
    assert main(["report", "--nuggets", *map(str, files), "--resamples", RESAMPLES, "-o", str(output)]) == 0
    return output


def _cells(html: str) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(key, run, measure) -> (data-value, text) of the summary's cells."""
    found = re.findall(r'<td[^>]*data-key="([^"]+)" data-run="([^"]+)" data-measure="([^"]+)"'
                       r'(?: data-value="([^"]*)")?[^>]*>([^<]*)', html)
    return {(key, run, measure): (value, text) for key, run, measure, value, text in found}


def test_the_page_holds_every_nugget_score_with_its_protocol(page):
    html = page.read_text(encoding="utf-8")
    for section in ("summary", "forest", "provenance", "counts", "distribution", "differences"):
        assert f'<section id="{section}"' in html, section
    for score in NUGGET_SCORES:
        assert f'data-figure="hist-{score}"' in html and f'data-figure="diff-{score}-b"' in html
    assert "nuggets=partial_support:0.5" in html and "nugget scores score answers, not rankings" in html
    # The counts: 10 nuggets, 4 vital; A supports 5 and B all 10.
    assert re.search(r"nuggets supported</td><td[^>]*>5</td><td[^>]*>10</td>", html)
    assert '<section id="drill"' not in html and 'data-figure="cutoff-' not in html


def test_means_and_differences_are_the_table_and_compares(page, files, capsys):
    cells = _cells(page.read_text(encoding="utf-8"))
    full_means = [sum(row[i] for row in FULL_EXPECTED.values()) / 4 for i in range(4)]
    for i, score in enumerate(NUGGET_SCORES):
        for run, mean in (("a", MEANS[i]), ("b", full_means[i])):
            value, text = cells[("mean", run, score)]
            assert float(value) == pytest.approx(mean, abs=1e-15) and text == f"{mean:.4f}"
    assert main(["nuggets", *map(str, files), "--compare", "--baseline", "a.jsonl", "--resamples", RESAMPLES,
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert len(rows) == 4
    for row in rows:
        assert (row["run_a"], row["run_b"]) == ("a", "b")
        assert float(cells[("difference", "b", row["measure"])][0]) == row["difference"]
        assert float(cells[("p_corrected", "b", row["measure"])][0]) == row["p_corrected"]
        assert cells[("wtl", "b", row["measure"])][1] == f"{row['wins']}/{row['ties']}/{row['losses']}"


def test_ranking_options_are_refused_with_nuggets(files, tmp_path, capsys):
    assert main(["report", "--nuggets", str(files[0]), "-m", "ndcg@10", "-o", str(tmp_path / "x.html")]) == 2
    assert "--nuggets takes assignment files only, not --measure" in capsys.readouterr().err
    assert main(["report", "-o", str(tmp_path / "x.html")]) == 2
    assert "give QRELS and at least one RUN (or --nuggets FILE ...)" in capsys.readouterr().err


def test_files_on_other_queries_need_allow_mismatch(files, tmp_path, capsys):
    """As rankproof compare: a file answering a query the other does not is refused, naming the option."""
    more = write(tmp_path / "more.jsonl", FULL + [{"qid": "q9", "nuggets": [RECORDS[0]["nuggets"][0]]}])
    output = tmp_path / "page.html"
    assert main(["report", "--nuggets", str(files[0]), str(more), "--resamples", RESAMPLES, "-o", str(output)]) == 2
    err = capsys.readouterr().err
    assert "query sets differ: 1 only in more (q9)" in err and "--allow-mismatch" in err and not output.exists()
    assert main(["report", "--nuggets", str(files[0]), str(more), "--resamples", RESAMPLES, "--allow-mismatch",
                 "-o", str(output)]) == 0
    assert "compared despite a mismatch: query sets differ" in output.read_text(encoding="utf-8")


@needs_chromium
@pytest.mark.slow
def test_the_page_renders_in_chromium(page, tmp_path):
    assert CHROMIUM is not None
    browser = DevTools(tmp_path / "profile")
    try:
        session = browser.open(page.as_uri())
        shown = browser.evaluate(session, """(() => [...document.querySelectorAll('svg.figure')].map(f => {
            const r = f.getBoundingClientRect();
            return [f.dataset.figure, r.width, r.height, f.querySelectorAll('.mark').length]; }))()""")
        drawn = {figure: (width, height, marks) for figure, width, height, marks in shown}
        assert {f"hist-{s}" for s in NUGGET_SCORES} | {f"diff-{s}-b" for s in NUGGET_SCORES} <= set(drawn)
        assert all(width > 100 and height > 50 and marks > 0 for width, height, marks in drawn.values()), drawn
        assert browser.errors() == []
    finally:
        browser.close()
