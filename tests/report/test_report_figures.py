"""The report's figures (issue 28): identical curves both visible, padded interval plots, y titles clear of
long tick labels, curves stopping at the cutoff."""

from __future__ import annotations

import re
import shutil

import pytest

from rankproof.cli.app import main
from rankproof.report import svg

from paths import CRANFIELD


def test_an_identical_curve_is_dashed_and_named():
    series = [("bm25", "#111111", [1, 2, 3], [0.5, 0.4, 0.3]), ("copy", "#222222", [1, 2, 3], [0.5, 0.4, 0.3]),
              ("other", "#333333", [1, 2, 3], [0.5, 0.2, 0.1])]
    chart = svg.line_chart("c", series, x_label="k", y_label="v")
    lines = re.findall(r"<polyline[^>]*>.*?</polyline>", chart)
    assert len(lines) == 3
    assert "stroke-dasharray" not in lines[0] and "stroke-dasharray" not in lines[2]
    assert "stroke-dasharray" in lines[1] and "<title>copy (identical to bm25)</title>" in lines[1]


@pytest.mark.slow
def test_the_report_says_which_runs_have_the_same_curve(tmp_path):
    copy = tmp_path / "copy.run"
    shutil.copy(CRANFIELD / "bm25.run", copy)
    out = tmp_path / "r.html"
    assert main(["report", str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "bm25.run"), str(copy), "-m", "ndcg@10",
                 "--resamples", "50", "-o", str(out)]) == 0
    assert "copy.run (dashed) is identical to bm25.run" in out.read_text(encoding="utf-8")


def _x_positions(chart: str, element: str, attribute: str) -> list[float]:
    return [float(v) for v in re.findall(rf'<{element} class="mark[^"]*" [^>]*?{attribute}="([-\d.]+)"', chart)]


def test_interval_plots_are_padded():
    rows = [("s1", "a", "#111", 0.5, 0.0, 1.0), ("s2", "a", "#111", 0.7, 0.4, 1.0)]
    chart = svg.interval_chart("i", rows, x_label="mean", width=560)
    left = 150
    lows, highs = _x_positions(chart, "line", "x1"), _x_positions(chart, "line", "x2")
    # Data from 0 to 1 over a plot 560 - 150 - 16 = 394 px wide: a twentieth of the span each side,
    # so the interval ends are 394 / 22 ~ 17.9 px inside the frame, not on it.
    assert min(lows) > left + 15 and max(highs) < 560 - 16 - 15


def test_the_y_title_clears_five_digit_tick_labels():
    chart = svg.histogram("h", [0.0, 0.5, 1.0], [12_000, 3], "#111", x_label="rr")
    # The longest tick label, 5 characters right-aligned at left - 6, must end right of the title's line at
    # x = 11 (+- 6 px for 11.5 px text): left - 6 - 5 x 7 px > 17.
    left = float(re.search(r'<line class="grid" x1="([\d.]+)"', chart).group(1))
    assert left - 6 - 5 * 7 > 17, left


def test_a_forest_plot_draws_every_comparison(tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", str(CRANFIELD / "qrels.txt"), *(str(CRANFIELD / f"{n}.run") for n in ("bm25", "tfidf",
                 "lmdirichlet")), "-m", "ndcg@10", "-m", "ap", "--resamples", "50", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    forest = page[page.index('<section id="forest">'):]
    forest = forest[:forest.index("</section>")]
    assert forest.count('class="mark interval"') == 4  # the first run is the baseline: 2 pairs x 2 measures
    assert page.index('id="summary"') < page.index('id="forest"') < page.index('id="provenance"') \
        < page.index('id="counts"')


def test_per_query_distributions_are_overlaid(tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", str(CRANFIELD / "qrels.txt"), *(str(CRANFIELD / f"{n}.run") for n in ("bm25", "tfidf")),
                 "-m", "ndcg@10", "--resamples", "50", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    figures = re.findall(r'data-figure="(hist-[^"]*)"', page)
    assert figures == ["hist-ndcg@10"]  # one figure per measure, not one per run side by side
    chart = page[page.index('data-figure="hist-ndcg@10"'):]
    chart = chart[:chart.index("</svg>")]
    assert chart.count('class="mark step"') == 2  # both runs on the same axis


def test_report_reads_judgments_per_intent(tmp_path, capsys):
    """report --intents (refused before): the diversity measures' means are those of evaluate --intents."""
    qrels = tmp_path / "div.qrels"
    qrels.write_text("".join(f"q{q} {i} d{q}{d} {g}\n" for q in range(1, 4)
                             for i, d, g in ((1, 1, 1), (1, 2, 0), (2, 2, 1), (2, 3, 1), (3, 4, 1))))
    runs = []
    for name, order in (("a", [1, 2, 3, 4, 5]), ("b", [4, 5, 3, 2, 1])):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"q{q} Q0 d{q}{d} {r} {10 - r} {name}\n" for q in range(1, 4)
                               for r, d in enumerate(order, 1)))
        runs.append(run)
    out = tmp_path / "r.html"
    assert main(["report", "--intents", str(qrels), *map(str, runs), "-m", "alpha_ndcg@5", "-m", "ndcg@5",
                 "--resamples", "50", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["evaluate", "--intents", str(qrels), *map(str, runs), "-m", "alpha_ndcg@5", "--format", "csv",
                 "--quiet"]) == 0
    expected = {line.split(",")[0]: float(line.split(",")[3]) for line in capsys.readouterr().out.splitlines()[1:]
                if ",all," in line}
    assert set(expected) == {"a.run", "b.run"}
    for run, value in expected.items():
        shown = re.search(rf'data-key="mean" data-run="{run}" data-measure="alpha_ndcg@5" data-value="([^"]+)"', page)
        assert shown and float(shown.group(1)) == value, (run, shown)
    assert "highest grade over the intents" in page
