"""The report's many-system section: letters of the randomised Tukey HSD and the risk-reward plot.

:func:`analyse` runs when the report's data are prepared (it calls
:mod:`rankproof.stats`); :func:`section` only renders what it returned:
per measure, the runs' means with their compact letter display (runs that
share a letter are not significantly different under the randomised Tukey
HSD over all runs) and, per run against the baseline, the risk-reward plot:
one bar per topic, the difference to the baseline with each loss weighted
1 + alpha (Dincer, Macdonald and Ounis 2014), sorted, with URisk and TRisk.
"""

from __future__ import annotations

from html import escape

from . import svg
from .letters import compact_letters

__all__ = ["analyse", "section", "RISK_ALPHA"]

RISK_ALPHA = 1.0
# Bars per risk-reward plot before the middle becomes an outline: the page repeats these topics' bars
# from the differences section, so this plot stays lighter.
RISK_BARS = 200


def analyse(results, measures, baseline: str, *, alpha: float, n_resamples: int, seed: int, missing: list):
    """The :class:`~rankproof.stats.systems.SystemsAnalysis` of the report's runs, or None (with a note
    in ``missing``) when they share fewer than 3 topics."""
    from ..errors import InputError
    from ..stats.matrix import score_matrix
    from ..stats.systems import analyse_matrices

    matrices, topics = {}, None
    for measure in measures:
        topics, matrices[str(measure)] = score_matrix(results, measure)
    try:
        return analyse_matrices(matrices, [r.run_name for r in results], baselines=[baseline], alpha=alpha,
                                n_resamples=n_resamples, seed=seed, risk_alpha=RISK_ALPHA,
                                topic_ids=[str(t) for t in (topics if topics is not None else [])])
    except InputError as error:
        missing.append(f"Tukey HSD and risk: {error}")
        return None


def _letters_table(measure) -> str:
    tests = measure.tests
    index = {name: i for i, name in enumerate(tests.systems)}
    letters = compact_letters(tests.means, [(index[p.system_a], index[p.system_b]) for p in tests.significant])
    order = sorted(range(len(tests.systems)), key=lambda i: (-tests.means[i], i))
    rows = "".join(f'<tr><td class="text">{escape(tests.systems[i])}</td><td class="num">{tests.means[i]:.4f}</td>'
                   f'<td class="text">{escape(letters[i])}</td></tr>' for i in order)
    return ('<table class="summary"><tr><th class="text">run</th><th>mean</th><th class="text">group</th></tr>'
            f"{rows}</table>")


def _risk_figures(measure, figure) -> str:
    base_column = measure.tests.systems.index(measure.risk[0].baseline)
    charts = []
    bound = 0.0
    series = []
    for risk in measure.risk:
        column = measure.tests.systems.index(risk.run)
        deltas = []
        for topic, scores in zip(measure.topics, measure.scores):
            delta = scores[column] - scores[base_column]
            deltas.append((topic, delta if delta >= 0 else (1 + risk.alpha) * delta))
        deltas.sort(key=lambda pair: (pair[1], pair[0]))
        bound = max([bound, *(abs(v) for _, v in deltas)])
        series.append((risk, deltas))
    for risk, deltas in series:
        chart = svg.sorted_bars(f"risk-{measure.measure}-{risk.run}", deltas,
                                y_label=f"{measure.measure} risk-weighted difference", bound=bound,
                                max_bars=RISK_BARS, clickable=False)
        charts.append(figure(chart, f"{escape(risk.run)} against {escape(risk.baseline)}: URisk "
                                    f"{risk.urisk:+.4f}, TRisk {risk.trisk:.2f} (p {risk.p_value:.4f}), "
                                    f"{risk.wins} wins, {risk.losses} losses, GeoRisk {risk.georisk:.4f}"))
    return '<div class="grid">' + "".join(charts) + "</div>"


def section(analysis, figure) -> str:
    """The HTML section; ``figure(chart, caption)`` wraps a chart as the page does."""
    if analysis is None:
        return ""
    first = analysis.measures[0].tests
    draws = "every permutation" if first.exact else f"{first.n_resamples:,} permutations, seed {first.seed}"
    parts = ['<section id="systems"><h2>All runs together: Tukey HSD and risk</h2>'
             f"<p>Runs sharing a letter are not significantly different (randomised Tukey HSD over all pairs, "
             f"{draws}, family-wise alpha {first.alpha:g}; Carterette 2012), on the {analysis.topics} topics every "
             f"run has. {escape(str(analysis.recommendation))}.</p>"
             f"<p>Risk-reward: per topic, each run minus the baseline with losses counted "
             f"{1 + RISK_ALPHA:g} times (alpha {RISK_ALPHA:g}), sorted; TRisk below -2 marks a run significantly "
             "riskier than the baseline (Dincer, Macdonald and Ounis 2014).</p>"]
    for measure in analysis.measures:
        parts.append(f"<h3>{escape(measure.measure)}</h3>" + _letters_table(measure))
        if measure.risk:
            parts.append(_risk_figures(measure, figure))
    parts.append("</section>")
    return "".join(parts)
