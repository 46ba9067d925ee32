"""The HTML report's explaining sections: how the numbers are made (gain, discount, cumulative
DCG) and the drill-down into one query.

Renderers only (see :mod:`rankproof.report.html`): each function takes the page (its data, runs
and colours) and draws what the page model holds; the page's script fills the controls from the
data embedded here.
"""

from __future__ import annotations

from html import escape

from . import svg
from .cells import figure, json_script

__all__ = ["how", "drill"]


def how(page) -> str:
    """How the numbers are made: the gain and discount in use beside the usual ones, and the
    cumulative DCG of a chosen query against the ideal."""
    d = page.data
    g = d.gain_discount
    if not g:
        return ""
    gain_series = [(name, "#1d2330" if name == g["gain"] else color, g["grades"], values)
                   for (name, values), color in zip(g["gains"].items(), ("#97bbf5", "#efb118", "#a463f2"))]
    discount_series = [(name, "#1d2330" if name == g["discount"] else color, g["ranks"], values)
                       for (name, values), color in zip(g["discounts"].items(), ("#97bbf5", "#efb118", "#a463f2"))]
    gain_legend = svg.legend([(name + (" (here)" if name == g["gain"] else ""), color)
                              for name, color, _, _ in gain_series])
    discount_legend = svg.legend([(name + (" (here)" if name == g["discount"] else ""), color)
                                  for name, color, _, _ in discount_series])
    gain_chart = svg.line_chart("gain", gain_series, x_label="grade", y_label="gain", width=420, height=260,
                                x_ticks=g["grades"], value_format=".4g")
    discount_chart = svg.line_chart("discount", discount_series, x_label="rank", y_label="discount", width=420,
                                    height=260, value_format=".4f")
    drill = d.drill
    return ('<section id="how"><h2>How the numbers are made</h2>'
            f"<p>DCG adds, over the top k, the gain of each document's grade times the discount of its rank; "
            f"NDCG divides by the DCG of the ideal ranking. Here {escape(drill['measure'] if drill else 'DCG')} "
            f"uses <b>gain={escape(g['gain'])}</b> "
            f"and <b>discount={escape(g['discount'])}</b> (drawn in black) beside the usual alternatives.</p>"
            '<div class="grid">'
            + figure(gain_legend + gain_chart, "gain of each grade: linear g, exp2 2<sup>g</sup> - 1"
                           + ("" if g["gain"] in ("linear", "exp2") else f", this protocol's {escape(g['gain'])}"))
            + figure(discount_legend + discount_chart,
                           "discount of each rank: log2 1 / log2(i + 1), reciprocal 1 / i"
                           + ("" if g["discount"] in ("log2", "reciprocal")
                              else f", this protocol's {escape(g['discount'])}"))
            + "</div>"
            + (f'<h3>Cumulative DCG of each run against the ideal, position by position</h3>'
               f'<div class="controls"><label>query <select class="query" aria-label="query"></select></label>'
               f'<span class="muted">{escape(_curve_reading(drill["measure"], drill.get("normalised", True)))} The same query is shown '
               f'in the drill-down below.</span></div>'
               + svg.legend([(run, page.colors[run]) for run in page.runs] + [("ideal (dashed)", "#1d2330")]) +
               '<svg class="figure" id="cumulative" data-figure="cumulative" viewBox="0 0 560 300" width="560" '
               'height="300" role="img" aria-label="cumulative DCG of the chosen query"></svg>'
               if drill else "")
            + "</section>")

def _curve_reading(measure: str, normalised: bool) -> str:
    """How to read the cumulative DCG chart for the drill-down's measure."""
    if normalised:
        return f"{measure} is the run's curve divided by the ideal's, at k."
    return f"{measure} is the run's curve at k; the ideal's is its best possible value."

def drill(page) -> str:
    """The drill-down: one query's rankings, every number, side by side (drawn by the script)."""
    d = page.data
    if not d.drill:
        return ""
    k = d.drill["k"]
    return ('<section id="drill"><h2>Drill-down: one query, every number</h2>'
            f"<p>Each run's top {d.drill['depth']} for the chosen query, side by side: grade, gain, "
            f"discount, contribution (gain x discount) and cumulative DCG, as <code>rankproof explain "
            f"-m {escape(d.drill['measure'])}</code> prints them"
            + (f"; ranks past the cutoff {k} are grey and contribute 0" if k else "")
            + ". Unjudged documents are shaded. Tied documents share the mean discount of the ranks they span "
            "(ties=expected). Open a query directly with <code>#query=ID</code> after the file name. The "
            "measure selector explains another measure of the page: its value per run, its cutoff, and which "
            "ranked documents are relevant at its level.</p>"
            + (f'<p class="note">{escape(d.drill["note"])}</p>' if d.drill.get("note") else "")
            + '<div class="controls"><label>query <select class="query" aria-label="query"></select></label>'
            '<label>measure <select class="measure" aria-label="measure"></select></label></div>'
            '<div class="rankings" id="drill-rankings"></div>'
            + json_script("drill-data", {**d.drill, "first": d.drill["queries"][0] if d.drill["queries"] else ""})
            + "</section>")
