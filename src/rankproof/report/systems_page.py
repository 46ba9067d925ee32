"""The report's many-system section: letters of the randomised Tukey HSD and the risk-reward plot.

The analysis is made with the page model (:func:`rankproof.pages.statistics.systems_analysis`,
only with more than two runs); :func:`section` only renders what it holds:
per measure, the runs' means with their compact letter display (runs that
share a letter are not significantly different under the randomised Tukey
HSD over all runs) and, per run against the baseline, the risk-reward plot:
one bar per topic, the difference to the baseline with each loss weighted
1 + alpha (Dincer, Macdonald and Ounis 2014), sorted, with URisk and TRisk.
"""

from __future__ import annotations

from html import escape

from ..pages.statistics import RISK_ALPHA
from . import svg
from .letters import compact_letters

__all__ = ["section", "RISK_ALPHA"]


def __getattr__(name: str):
    if name == "analyse":   # made by the page model now
        from ..pages.statistics import analyse

        return analyse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _letters_table(measure) -> str:
    letters = compact_letters(list(measure.means), list(measure.different))
    order = sorted(range(len(measure.systems)), key=lambda i: (-measure.means[i], i))
    rows = "".join(f'<tr><td class="text">{escape(measure.systems[i])}</td><td class="num">'
                   f'{measure.means[i]:.4f}</td><td class="text">{escape(letters[i])}</td></tr>'
                   for i in order)
    return ('<table class="summary"><tr><th class="text">run</th><th>mean</th><th class="text">group</th></tr>'
            f"{rows}</table>")


def _risk_figures(measure: str, rows, figure) -> str:
    """One sorted bar chart per run: its risk-weighted differences to the baseline, on one scale."""
    from .compare import p_phrase

    bound = max((values.bound for _, values in rows), default=0.0)
    charts = []
    for risk, values in rows:
        chart = svg.sorted_bars(f"risk-{measure}-{risk.run}", values,
                                y_label=f"{measure} risk-weighted difference",
                                bound=bound, clickable=False)
        charts.append(figure(chart, f"{escape(risk.run)} against {escape(risk.baseline)}: URisk "
                                    f"{risk.urisk:+.4f}, TRisk {risk.trisk:.2f} ({p_phrase(risk.p_value)}), "
                                    f"{risk.wins} wins, {risk.losses} losses, GeoRisk {risk.georisk:.4f}"))
    return '<div class="grid">' + "".join(charts) + "</div>"


def section(systems, figure) -> str:
    """The HTML section of a :class:`~rankproof.pages.model.SystemsSection`; ``figure(chart, caption)``
    wraps a chart as the page does."""
    if systems is None:
        return ""
    advice = f" {escape(systems.recommendation)}" if systems.recommendation else ""
    parts = ['<section id="systems"><h2>All runs together: Tukey HSD and risk</h2>'
             f"<p>Runs sharing a letter are not significantly different ({escape(systems.method)}), on the "
             f"{systems.topics:,} topics every run has.{advice}</p>"
             f"<p>Risk-reward: per topic, each run minus the baseline with losses counted "
             f"{1 + RISK_ALPHA:g} times (alpha {RISK_ALPHA:g}), sorted; TRisk below -2 marks a run significantly "
             "riskier than the baseline (Dincer, Macdonald and Ounis 2014).</p>"]
    for measure in systems.measures:
        parts.append(f"<h3>{escape(measure.measure)}</h3>" + _letters_table(measure))
        if measure.risk:
            parts.append(_risk_figures(measure.measure, measure.risk, figure))
    parts.append("</section>")
    return "".join(parts)
