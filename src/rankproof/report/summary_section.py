"""The HTML report's results sections: the summary table (against a baseline, or every pair) and
the forest of every comparison's interval.

Renderers only (see :mod:`rankproof.report.html`): each function takes the page (its data, runs
and colours) and draws what the page model holds.
"""

from __future__ import annotations

from html import escape

from . import svg
from .cells import baseline_row, figure, fmt, heading, value_cell
from .compare import CORRECTION_NAMES, TEST_NAMES, effect_text, needed_text, p_text, signed

__all__ = ["summary", "pairs", "forest"]


def summary(page) -> str:
    """The summary table: every measure and run, against the baseline where one was given."""
    d, c = page.data, page.data.comparison
    if c is not None and d.baseline is None:
        return pairs(c)
    level = f"{c.confidence:.0%}" if c is not None else "95%"
    with_intervals = bool(d.mean_intervals)
    head = ["measure", "run", "mean"] + ([f"{level} CI of the mean"] if with_intervals else [])
    if c is not None:
        head += [f"difference vs {heading(d.baseline or 'A')}", f"{level} CI of the difference",
                 f"p ({CORRECTION_NAMES[c.correction]})", "wins / ties / losses", "effect size d",
                 "queries needed"]
    parts = [_table_start(head, text_columns=2)]
    measures = [str(m) for m in d.results[0].measures] if d.results else list(c.measures)
    for m in measures:
        for run in page.runs:
            baseline = c is not None and run == d.baseline
            cells = _mean_cells(d, run, m, with_intervals)
            if c is not None:
                cells += _difference_cells(None if baseline
                                           else baseline_row(c, d.baseline, run, m),
                                           run, m, baseline)
            parts.append(f'<tr class="{"baseline" if baseline else ""}">' + "".join(cells)
                         + "</tr>")
    parts.append("</table></div>")
    parts += [f'<p class="note">{n}</p>' for n in _notes(d)]
    parts.append("</section>")
    return "".join(parts)


def _table_start(head: list[str], text_columns: int) -> str:
    """The summary section up to its table's header row (the first columns hold text)."""
    cells = "".join(f'<th class="{"text" if i < text_columns else ""}">{h}</th>'
                    for i, h in enumerate(head))
    return ('<section id="summary"><h2>Summary</h2><div class="scroll"><table class="summary">'
            f"<tr>{cells}</tr>")


def _mean_cells(d, run: str, m: str, with_intervals: bool) -> list[str]:
    """The measure, the run, its mean and the mean's interval."""
    result = next((r for r in d.results if r.run_name == run), None)
    mean = result.mean(m) if result is not None else d.comparison.mean(run, m)
    cells = [f'<td class="text">{escape(m)}</td>', f'<td class="text">{escape(run)}</td>',
             value_cell(fmt(mean), mean, "mean", run, m)]
    interval = (d.mean_intervals or {}).get(run, {}).get(m)
    if interval is not None:
        cells.append(f'<td data-key="mean_ci" data-run="{escape(run)}" data-measure="{escape(m)}" '
                     f'data-low="{interval[0]!r}" data-high="{interval[1]!r}">'
                     f"[{fmt(interval[0])}, {fmt(interval[1])}]</td>")
    elif with_intervals:
        cells.append('<td class="muted">n/a</td>')
    return cells


def _difference_cells(row, run: str, m: str, baseline: bool) -> list[str]:
    """The difference against the baseline, its interval, p, wins, effect size and queries needed."""
    if row is None:
        return [f'<td class="muted" colspan="6">{"baseline" if baseline else "n/a"}</td>']
    mark = "*" if row.significant else ""
    cls = ("sig" if row.difference > 0 else "worse") if row.significant else ""
    where = f'data-run="{escape(run)}" data-measure="{escape(m)}"'
    return [value_cell(signed(row.difference) + mark, row.difference, "difference", run, m, cls),
            f'<td data-key="ci" {where} data-low="{row.ci_low!r}" data-high="{row.ci_high!r}">'
            f"[{signed(row.ci_low)}, {signed(row.ci_high)}]</td>",
            value_cell(p_text(row.p_corrected) + mark, row.p_corrected, "p_corrected", run, m, cls),
            f'<td data-key="wtl" {where} data-value="{row.wins}/{row.ties}/{row.losses}">'
            f"{row.wins}/{row.ties}/{row.losses}</td>",
            value_cell(effect_text(row.effect_size), row.effect_size, "effect_size", run, m),
            value_cell(needed_text(row.queries_needed), row.queries_needed, "queries_needed", run,
                       m)]


def _test_name(c) -> str:
    return TEST_NAMES[c.test] + (f" ({c.n_resamples:,} sign flips, seed {c.seed})"
                                 if c.test == "randomization" else "")


def _notes(d) -> list[str]:
    """The notes under the summary: intervals, the test and correction, the method, the CSV."""
    c = d.comparison
    notes = []
    if d.interval_note:
        notes.append(d.interval_note)
    if c is not None:
        interval = (f"paired bootstrap ({escape(c.bootstrap_method)}, {c.n_resamples:,} resamples, "
                    f"seed {c.seed})"
                    + ("; the normal interval where the methods below say so" if c.method_checks
                       else ""))
        notes.append(f"* significant: p &lt; {c.alpha:g} after {CORRECTION_NAMES[c.correction]} correction over "
                     f"{len(c.rows)} comparisons (runs x measures); two-sided {escape(_test_name(c))}. "
                     f"Difference: run minus baseline (positive: better than the baseline). Its interval: "
                     f"{interval}. d: mean / sd of the per-query differences; queries needed: for a paired "
                     f"t-test to detect d with power {c.power:g} at alpha {c.alpha:g}. Wins/ties/losses: "
                     f"queries where the run is above / equal to / below the baseline.")
    if d.method_note:
        notes.append(escape(d.method_note))
    if d.per_query_file:
        # Named, not linked: the page makes no request, not even for a file beside it.
        notes.append(f'Every query\'s value of every measure and run: <code data-per-query>'
                     f'{escape(d.per_query_file)}</code> (CSV, gzip), in the folder of this page.')
    return notes


def pairs(c) -> str:
    """A comparison of every pair (no baseline): one row per measure and pair."""
    level = f"{c.confidence:.0%}"
    head = ["measure", "A", "B", "mean A", "mean B", "B - A", f"{level} CI",
            f"p ({CORRECTION_NAMES[c.correction]})", "B wins/ties/losses", "effect size d",
            "queries needed"]
    parts = [_table_start(head, text_columns=3)]
    for row in c.rows:
        mark = "*" if row.significant else ""
        cls = ("sig" if row.difference > 0 else "worse") if row.significant else ""
        run, m = f"{row.run_a} vs {row.run_b}", row.measure
        parts.append(
            f'<tr><td class="text">{escape(m)}</td><td class="text">{escape(row.run_a)}</td>'
            f'<td class="text">{escape(row.run_b)}</td>'
            + value_cell(fmt(row.mean_a), row.mean_a, "mean_a", run, m)
            + value_cell(fmt(row.mean_b), row.mean_b, "mean_b", run, m)
            + value_cell(signed(row.difference) + mark, row.difference, "difference", run, m, cls)
            + f"<td>[{signed(row.ci_low)}, {signed(row.ci_high)}]</td>"
            + value_cell(p_text(row.p_corrected) + mark, row.p_corrected, "p_corrected", run, m,
                         cls)
            + f"<td>{row.wins}/{row.ties}/{row.losses}</td>"
            + value_cell(effect_text(row.effect_size), row.effect_size, "effect_size", run, m)
            + value_cell(needed_text(row.queries_needed), row.queries_needed, "queries_needed", run,
                         m)
            + "</tr>")
    parts.append("</table></div>")
    parts.append(f'<p class="note">* significant: p &lt; {c.alpha:g} after {CORRECTION_NAMES[c.correction]} '
                 f"correction over {len(c.rows)} comparisons (pairs x measures); two-sided "
                 f"{escape(_test_name(c))}. CI: paired bootstrap of the mean difference "
                 f"({escape(c.bootstrap_method)}, {c.n_resamples:,} resamples). d: mean / sd of the "
                 f"per-query differences; queries needed: for a paired t-test to detect d with power "
                 f"{c.power:g} at alpha {c.alpha:g}.</p></section>")
    return "".join(parts)


def forest(page) -> str:
    """Every comparison's difference and its interval on one axis, 0 marked: the results at a glance."""
    c = page.data.comparison
    if c is None or not c.rows:
        return ""
    rows = []
    for row in c.rows:
        color = ("#3ca951" if row.difference > 0 else "#ff725c") if row.significant else "#9498a0"
        rows.append((f"{row.measure}: {row.run_b} - {row.run_a}", "difference", color,
                     row.difference,
                     row.ci_low, row.ci_high))
    chart = svg.interval_chart("forest", rows, x_label="difference (B - A) and its interval",
                               zero_line=True, width=720)
    return ('<section id="forest"><h2>Every comparison\'s interval</h2>'
            f"<p>Each difference with its {c.confidence:.0%} paired bootstrap interval; green or red: "
            "significant after correction (better or worse), grey: not. An interval across the line at 0 "
            "cannot tell the runs apart.</p>"
            + figure(chart, "difference and interval per measure and pair") + "</section>")
