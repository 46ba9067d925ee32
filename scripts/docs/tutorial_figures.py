"""The tutorial's figures, drawn at build time from rankproof's own output.

A mkdocs hook (``hooks:`` in mkdocs.yml): ``on_files`` adds one generated SVG
file per figure under ``figures/``, so nothing generated is committed and the
figures always show what the installed rankproof computes. The numbers come
from the HTML report's data (``rankproof.report.figures.prepare``: the gain
and discount tables, the cumulative DCG of the run and of the ideal ranking)
and from ``evaluate`` (precision at each cutoff); the drawing is the report's
own ``rankproof.report.svg.line_chart``.

Run alone (``python scripts/docs/tutorial_figures.py OUTDIR``) it writes the
SVG files into OUTDIR, for a look without building the site.
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

# The tutorial's one query: a ranking of six documents and the judged pool
# (G is judged, highly relevant, and not retrieved). docs/tutorial.md states
# the same example; tests/test_tutorial.py checks that the two agree.
QRELS = {"q": {"A": 2, "B": 0, "C": 3, "D": 0, "E": 1, "F": 0, "G": 3}}
RANKING = ["B", "A", "C", "D", "E", "F"]
K = 5
FOLDER = "figures"

STYLE = ("svg{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:11px}"
         ".grid{stroke:#eceef1}.axis,.tick{stroke:#8a919c}text{fill:#3b4350}"
         "text.label{fill:#5d6675;font-size:11.5px}polyline{fill:none;stroke-width:2}"
         ".cutoff{stroke:#9498a0;stroke-dasharray:3 3}.cutoff-label{fill:#5d6675}")
BLACK, BLUE, YELLOW, RED = "#1d2330", "#4269d0", "#efb118", "#ff725c"
LEGEND_HEIGHT = 24


def _standalone(chart: str, entries: list[tuple[str, str, bool]], width: int, height: int) -> str:
    """A chart of ``line_chart`` as a file of its own: namespace, white ground, its
    style inside (an ``<img>`` sees no page CSS), and a legend row above it."""
    legend, x = [], 52
    for name, color, dashed in entries:
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        legend.append(f'<line x1="{x}" x2="{x + 18}" y1="12" y2="12" stroke="{color}" stroke-width="2"{dash}/>'
                      f'<text x="{x + 24}" y="12" dy="0.32em">{escape(name)}</text>')
        x += 34 + 6.5 * len(name)
    total = height + LEGEND_HEIGHT
    inner = chart.replace("<svg ", f'<svg y="{LEGEND_HEIGHT}" ', 1)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {total}" width="{width}" '
            f'height="{total}"><style>{STYLE}</style><rect width="100%" height="100%" fill="#fff"/>'
            + "".join(legend) + inner + "</svg>")


def figures() -> dict[str, str]:
    """Figure name -> SVG text."""
    from rankproof import Qrels, Run, evaluate
    from rankproof.report import svg
    from rankproof.report.figures import prepare

    qrels, run = Qrels.from_dict(QRELS), Run.from_dict({"q": RANKING})
    data = prepare(qrels, {"system": run}, [f"ndcg@{K}", "ap", "rr"], n_resamples=100,
                   drill_depth=len(RANKING))
    g = data.gain_discount
    out = {}

    gains = [("linear: g", BLACK, g["grades"], g["gains"]["linear"]),
             ("exp2: 2^g - 1", YELLOW, g["grades"], g["gains"]["exp2"])]
    chart = svg.line_chart("gain", gains, x_label="grade g", y_label="gain", width=420, height=260,
                           x_ticks=g["grades"], value_format=".4g")
    out["tutorial-gain"] = _standalone(chart, [(name, color, False) for name, color, _, _ in gains], 420, 260)

    ranks = g["ranks"]
    discounts = [("log2: 1 / log2(i + 1)", BLACK, ranks, g["discounts"]["log2"]),
                 ("reciprocal: 1 / i", YELLOW, ranks, g["discounts"]["reciprocal"])]
    chart = svg.line_chart("discount", discounts, x_label="rank i", y_label="discount", width=420, height=260,
                           x_ticks=ranks, y_range=(0.0, 1.0))
    out["tutorial-discount"] = _standalone(chart, [(name, color, False) for name, color, _, _ in discounts],
                                           420, 260)

    drill = data.drill
    ranked = [row[4] for row in drill["rankings"]["system"][0]]
    ideal = [row[3] for row in drill["ideal"][0]]
    ideal += [ideal[-1]] * (len(ranked) - len(ideal))   # the ideal's grade-0 docs add nothing
    positions = list(range(1, len(ranked) + 1))
    series = [("the system's ranking", BLUE, positions, ranked), ("the ideal ranking", BLACK, positions, ideal)]
    chart = svg.line_chart("cumulative", series, x_label="rank", y_label="cumulative DCG", width=560, height=300,
                           x_ticks=positions, vline=K, vline_label=f"k = {K}", dashed=("the ideal ranking",))
    out["tutorial-cumulative"] = _standalone(
        chart, [("the system's ranking", BLUE, False), ("the ideal ranking", BLACK, True)], 560, 300)

    cutoffs = list(range(1, len(RANKING) + 1))
    results = evaluate(qrels, run, [f"p@{k}" for k in cutoffs] + ["ap"])
    precision = [results.mean(f"p@{k}") for k in cutoffs]
    relevant = [p if QRELS["q"][doc] >= 1 else float("nan") for p, doc in zip(precision, RANKING)]
    ap = results.mean("ap")
    series = [("precision at k", YELLOW, cutoffs, precision),
              ("at each relevant rank", RED, cutoffs, relevant),
              (f"AP = {ap:.4f}", BLACK, cutoffs, [ap] * len(cutoffs))]
    chart = svg.line_chart("precision", series, x_label="rank k", y_label="precision", width=560, height=300,
                           x_ticks=cutoffs, y_range=(0.0, 1.0), dashed=(f"AP = {ap:.4f}",))
    out["tutorial-precision"] = _standalone(
        chart, [(name, color, name.startswith("AP")) for name, color, _, _ in series], 560, 300)
    return out


def on_files(files, config):
    """mkdocs hook: add the figures as generated files of the site."""
    from mkdocs.structure.files import File

    for name, text in figures().items():
        files.append(File.generated(config, f"{FOLDER}/{name}.svg", content=text))
    return files


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    target.mkdir(parents=True, exist_ok=True)
    for name, text in figures().items():
        (target / f"{name}.svg").write_text(text, encoding="utf-8")
        print(target / f"{name}.svg")
