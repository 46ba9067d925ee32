"""The HTML report: one self-contained page (inline CSS, SVG, data and script).

A renderer only: every number comes from a :class:`~rankproof.pages.model.ReportData`
(made by :func:`rankproof.pages.build.prepare` from the same Results and
Comparison the JSON outputs hold); nothing here evaluates, tests or resamples. The figures are static SVG written here;
the page's small script only shows what a control selects (a query's
rankings and its cumulative DCG) from data embedded once, and computes
nothing. A Content-Security-Policy forbids every network request.

Numbers shown are rounded for reading (4 decimals); each summary cell carries
its full-precision value in ``data-value``.
"""

from __future__ import annotations

import math
from html import escape

from ..io.json_text import json_text
from . import svg
from .page_assets import CSP, CSS, SCRIPT
from .judgments_section import titles as judgment_titles
from .compare import TEST_NAMES, CORRECTION_NAMES, effect_text, needed_text, p_text, signed
from .table import counts_lines, warning_lines

__all__ = ["render", "in_frame", "SECTIONS"]

# Section ids, in page order; "segments" only when segments were given.
SECTIONS = ("header", "summary", "provenance", "counts", "cutoffs", "distribution", "differences", "systems", "judged", "pr",
            "how", "drill", "segments")

# Shown for every run even when nothing was touched (the others only when they are not 0).
_ALWAYS = {
    "queries_missing_from_run": "judged queries missing from the run",
    "queries_missing_from_qrels": "ranked queries missing from the qrels",
    "zero_ideal_queries": "queries with nothing relevant",
    "unjudged_in_cutoff": "unjudged docs inside the cutoff",
    "tied_groups_crossing_cutoff": "tied groups crossing the cutoff",
}


def _fmt(value, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def _value_cell(text: str, value, key: str, run: str, measure: str, cls: str = "") -> str:
    """A table cell showing `text`, carrying the full-precision value for checks."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        data = "null"
    else:
        data = repr(value)
    return (f'<td class="num{" " + cls if cls else ""}" data-key="{key}" data-run="{escape(run)}" '
            f'data-measure="{escape(measure)}" data-value="{escape(data)}">{escape(text)}</td>')


def _json_script(element_id: str, value) -> str:
    text = json_text(value, ensure_ascii=False, separators=(",", ":"))
    # "</" could close the script element early and "<!--" open a comment; "\\u003c" is
    # JSON's own escape of "<" (so the text stays valid JSON, as "<\\!--" was not), and
    # U+2028/U+2029 are escaped too, which some script parsers take for line ends.
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


class _Page:
    def __init__(self, data):
        self.data = data
        names = [r.run_name for r in data.results] or list(getattr(data.comparison, "runs", ()))
        self.colors = {name: svg.PALETTE[i % len(svg.PALETTE)] for i, name in enumerate(names)}
        self.runs = names

    # -- sections -------------------------------------------------------------------
    def header(self) -> str:
        """The title and the section links: the results come right after, provenance below them."""
        d = self.data
        missing = "".join(f'<div class="missing">Not in this page: {escape(m)}.</div>' for m in d.missing)
        nav = "<nav>" + "".join(f'<a href="#{sid}">{title}</a>' for sid, title in self.present_titles()) + "</nav>"
        # Doubts about the inputs (ids that half match) go above the numbers they put in question.
        doubts = "".join(f'<div class="warn" data-doubt>{escape(r.run_name)}: warning: {escape(line)}</div>'
                         for r in d.results for line in r.warnings)
        return f'<header id="header"><h1>{escape(d.title)}</h1>{nav}{missing}{doubts}</header>'

    def provenance(self) -> str:
        """Protocol, fingerprint, digests, version, command and input files: after the results."""
        d = self.data
        rows = [("protocol", f"<code>{escape(str(d.protocol))}</code>"),
                ("fingerprint", f"<code>{escape(d.protocol.fingerprint)}</code>"),
                ("qrels digest", f"<code>{escape(str(d.qrels_digest))}</code> (content of the judgments)"),
                ("rankproof", escape(d.version)),
                ("command", f"<code>{escape(d.command)}</code>" if d.command else
                 '<span class="muted">not given (made from Python)</span>')]
        if d.baseline:
            rows.append(("baseline", escape(d.baseline)))
        meta = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
        files = ""
        if d.inputs:
            files = ("<h3>Input files</h3><table><tr><th class=text>role</th><th class=text>path</th>"
                     "<th class=text>SHA-256 (first 16 hex)</th><th>lines</th><th>bytes</th></tr>" + "".join(
                         f'<tr><td class=text>{escape(f.role)}</td><td class="text mono">{escape(f.path)}</td>'
                         f'<td class="text mono">{f.sha256}</td><td>{f.lines:,}</td><td>{f.size:,}</td></tr>'
                         for f in d.inputs) + "</table>")
        return (f'<section id="provenance"><h2>Provenance</h2><table class="meta">{meta}</table>{files}'
                "</section>")

    def present_titles(self):
        d = self.data
        titles = [("summary", "summary")]
        if d.comparison is not None and d.comparison.rows:
            titles.append(("forest", "intervals"))
        if d.beyond:
            from .beyond import TITLE
            titles.append(TITLE)
        titles += [("provenance", "provenance"), ("counts", "counts")]
        if d.cutoff_curves:
            titles.append(("cutoffs", "over k"))
        if d.histograms:
            titles.append(("distribution", "distribution"))
        if d.differences:
            titles.append(("differences", "differences"))
        titles += judgment_titles(d.judgments)
        if d.judged_curves:
            titles.append(("judged", "judged@k"))
        if d.pr_curves:
            titles.append(("pr", "precision-recall"))
        if d.gain_discount:
            titles.append(("how", "how the numbers are made"))
        if d.drill:
            titles.append(("drill", "drill-down"))
        if d.segments:
            titles.append(("segments", "segments"))
        return titles

    def counts(self) -> str:
        d = self.data
        parts = ['<section id="counts"><h2>Counts and warnings</h2>',
                 "<p>Every case a policy of the protocol touched, per run (other counts that are 0 for every run "
                 "are left out).</p>"]
        if d.results:
            rows: dict[str, dict[str, str]] = {}
            for r in d.results:
                c = r.counts
                rows.setdefault("queries evaluated", {})[r.run_name] = (
                    f"{c.get('queries_evaluated', 0):,} (qrels {c.get('queries_in_qrels', 0):,}, "
                    f"run {c.get('queries_in_run', 0):,})")
                for key, label in _ALWAYS.items():  # the policies people ask about first, even when 0
                    value = c.get(key, 0)
                    if isinstance(value, dict):
                        touched = [f"{m} {v:,}" for m, v in value.items() if v]
                        value = ", ".join(touched) if touched else "0"
                    rows.setdefault(label, {})[r.run_name] = f"{value:,}" if isinstance(value, int) else value
                for line in counts_lines(r):
                    label, _, value = line.partition(": ")
                    if label != "queries evaluated" and label not in _ALWAYS.values():
                        rows.setdefault(label, {})[r.run_name] = f"{int(value):,}" if value.isdigit() else value
            parts.append('<table class="counts"><tr><th class="text">what</th>' + "".join(
                f'<th class="text">{escape(r.run_name)}</th>' for r in d.results) + "</tr>" + "".join(
                f'<tr><td class="text">{escape(label)}</td>' + "".join(
                    f'<td class="text">{escape(values.get(r.run_name, "0"))}</td>' for r in d.results) + "</tr>"
                for label, values in rows.items()) + "</table>")
            for r in d.results:
                prefix = f"{r.run_name}: " if len(d.results) > 1 else ""
                parts += [f'<div class="warn">{escape(prefix + w)}</div>' for w in warning_lines(r)]
        if d.comparison is not None:
            parts += [f'<div class="warn">compared despite a mismatch: {escape(m)}</div>'
                      for m in d.comparison.mismatches]
        if not d.results:
            parts.append('<p class="muted">A comparison keeps no counts; see the runs\' results.</p>')
        parts.append("</section>")
        return "".join(parts)

    def summary(self) -> str:
        d = self.data
        c = d.comparison
        if c is not None and d.baseline is None:
            return self._pairs()
        level = f"{c.confidence:.0%}" if c is not None else "95%"
        with_intervals = bool(d.mean_intervals)
        head = ["measure", "run", "mean"] + ([f"{level} CI of the mean"] if with_intervals else [])
        if c is not None:
            head += [f"difference vs {escape(d.baseline or 'A')}", f"{level} CI of the difference",
                     f"p ({CORRECTION_NAMES[c.correction]})", "wins / ties / losses", "effect size d", "queries needed"]
        parts = ['<section id="summary"><h2>Summary</h2><div class="scroll"><table class="summary"><tr>'
                 + "".join(f'<th class="{"text" if i < 2 else ""}">{h}</th>' for i, h in enumerate(head)) + "</tr>"]
        measures = [str(m) for m in d.results[0].measures] if d.results else list(c.measures)
        runs = self.runs
        for m in measures:
            for run in runs:
                result = next((r for r in d.results if r.run_name == run), None)
                mean = result.mean(m) if result is not None else c.mean(run, m)
                baseline_row = c is not None and (run == d.baseline)
                cells = [f'<td class="text">{escape(m)}</td>', f'<td class="text">{escape(run)}</td>',
                         _value_cell(_fmt(mean), mean, "mean", run, m)]
                interval = (d.mean_intervals or {}).get(run, {}).get(m)
                if interval is not None:
                    cells.append(f'<td data-key="mean_ci" data-run="{escape(run)}" data-measure="{escape(m)}" '
                                 f'data-low="{interval[0]!r}" data-high="{interval[1]!r}">'
                                 f"[{_fmt(interval[0])}, {_fmt(interval[1])}]</td>")
                elif with_intervals:
                    cells.append('<td class="muted">n/a</td>')
                if c is not None:
                    row = None if baseline_row else self._row(run, m)
                    if row is None:
                        cells.append(f'<td class="muted" colspan="6">{"baseline" if baseline_row else "n/a"}</td>')
                    else:
                        mark = "*" if row.significant else ""
                        cls = ("sig" if row.difference > 0 else "worse") if row.significant else ""
                        cells += [_value_cell(signed(row.difference) + mark, row.difference, "difference", run, m,
                                              cls),
                                  f'<td data-key="ci" data-run="{escape(run)}" data-measure="{escape(m)}" '
                                  f'data-low="{row.ci_low!r}" data-high="{row.ci_high!r}">'
                                  f"[{signed(row.ci_low)}, {signed(row.ci_high)}]</td>",
                                  _value_cell(p_text(row.p_corrected) + mark, row.p_corrected, "p_corrected", run, m, cls),
                                  f'<td data-key="wtl" data-run="{escape(run)}" data-measure="{escape(m)}" '
                                  f'data-value="{row.wins}/{row.ties}/{row.losses}">'
                                  f"{row.wins}/{row.ties}/{row.losses}</td>",
                                  _value_cell(effect_text(row.effect_size), row.effect_size, "effect_size", run, m),
                                  _value_cell(needed_text(row.queries_needed), row.queries_needed, "queries_needed",
                                              run, m)]
                parts.append(f'<tr class="{"baseline" if baseline_row else ""}">' + "".join(cells) + "</tr>")
        parts.append("</table></div>")
        notes = []
        if d.interval_note:
            notes.append(d.interval_note)
        if c is not None:
            test = TEST_NAMES[c.test] + (f" ({c.n_resamples:,} sign flips, seed {c.seed})"
                                     if c.test == "randomization" else "")
            interval = (f"paired bootstrap ({escape(c.bootstrap_method)}, {c.n_resamples:,} resamples, seed {c.seed})"
                        + ("; the normal interval where the methods below say so" if c.method_checks else ""))
            notes.append(f"* significant: p &lt; {c.alpha:g} after {CORRECTION_NAMES[c.correction]} correction over "
                         f"{len(c.rows)} comparisons (runs x measures); two-sided {escape(test)}. Difference: run "
                         f"minus baseline (positive: better than the baseline). Its interval: {interval}. d: mean / sd "
                         f"of the per-query differences; queries needed: for a paired t-test to detect d with "
                         f"power {c.power:g} at alpha {c.alpha:g}. Wins/ties/losses: queries where the run is "
                         f"above / equal to / below the baseline.")
        if d.method_note:
            notes.append(escape(d.method_note))
        if d.per_query_file:
            # Named, not linked: the page makes no request, not even for a file beside it.
            notes.append(f'Every query\'s value of every measure and run: <code data-per-query>'
                         f'{escape(d.per_query_file)}</code> (CSV, gzip), in the folder of this page.')
        parts += [f'<p class="note">{n}</p>' for n in notes]
        parts.append("</section>")
        return "".join(parts)

    def _pairs(self) -> str:
        """A comparison of every pair (no baseline): one row per measure and pair."""
        c = self.data.comparison
        level = f"{c.confidence:.0%}"
        head = ["measure", "A", "B", "mean A", "mean B", "B - A", f"{level} CI", f"p ({CORRECTION_NAMES[c.correction]})",
                "B wins/ties/losses", "effect size d", "queries needed"]
        parts = ['<section id="summary"><h2>Summary</h2><div class="scroll"><table class="summary"><tr>'
                 + "".join(f'<th class="{"text" if i < 3 else ""}">{h}</th>' for i, h in enumerate(head)) + "</tr>"]
        for row in c.rows:
            mark = "*" if row.significant else ""
            cls = ("sig" if row.difference > 0 else "worse") if row.significant else ""
            run, m = f"{row.run_a} vs {row.run_b}", row.measure
            parts.append(
                f'<tr><td class="text">{escape(m)}</td><td class="text">{escape(row.run_a)}</td>'
                f'<td class="text">{escape(row.run_b)}</td>'
                + _value_cell(_fmt(row.mean_a), row.mean_a, "mean_a", run, m)
                + _value_cell(_fmt(row.mean_b), row.mean_b, "mean_b", run, m)
                + _value_cell(signed(row.difference) + mark, row.difference, "difference", run, m, cls)
                + f"<td>[{signed(row.ci_low)}, {signed(row.ci_high)}]</td>"
                + _value_cell(p_text(row.p_corrected) + mark, row.p_corrected, "p_corrected", run, m, cls)
                + f"<td>{row.wins}/{row.ties}/{row.losses}</td>"
                + _value_cell(effect_text(row.effect_size), row.effect_size, "effect_size", run, m)
                + _value_cell(needed_text(row.queries_needed), row.queries_needed, "queries_needed", run, m) + "</tr>")
        parts.append("</table></div>")
        test = TEST_NAMES[c.test] + (f" ({c.n_resamples:,} sign flips, seed {c.seed})" if c.test == "randomization" else "")
        parts.append(f'<p class="note">* significant: p &lt; {c.alpha:g} after {CORRECTION_NAMES[c.correction]} '
                     f"correction over {len(c.rows)} comparisons (pairs x measures); two-sided {escape(test)}. "
                     f"CI: paired bootstrap of the mean difference ({escape(c.bootstrap_method)}, "
                     f"{c.n_resamples:,} resamples). d: mean / sd of the per-query differences; queries needed: "
                     f"for a paired t-test to detect d with power {c.power:g} at alpha {c.alpha:g}.</p></section>")
        return "".join(parts)

    def forest(self) -> str:
        """Every comparison's difference and its interval on one axis, 0 marked: the results at a glance."""
        c = self.data.comparison
        if c is None or not c.rows:
            return ""
        rows = []
        for row in c.rows:
            color = ("#3ca951" if row.difference > 0 else "#ff725c") if row.significant else "#9498a0"
            rows.append((f"{row.measure}: {row.run_b} - {row.run_a}", "difference", color, row.difference,
                         row.ci_low, row.ci_high))
        chart = svg.interval_chart("forest", rows, x_label="difference (B - A) and its interval", zero_line=True,
                                   width=720)
        return ('<section id="forest"><h2>Every comparison\'s interval</h2>'
                f"<p>Each difference with its {c.confidence:.0%} paired bootstrap interval; green or red: significant "
                "after correction (better or worse), grey: not. An interval across the line at 0 cannot tell the "
                "runs apart.</p>" + self._figure(chart, "difference and interval per measure and pair") + "</section>")

    def _row(self, run: str, measure: str):
        if self.data.comparison is None:
            return None
        for row in self.data.comparison.rows:
            if row.measure == measure and row.run_b == run and row.run_a == self.data.baseline:
                return row
        return None

    def _curve_note(self) -> str:
        note = self.data.curve_note
        return f'<p class="note" data-curve-note>{escape(note)}</p>' if note else ""

    def _legend(self) -> str:
        return svg.legend([(run, self.colors[run]) for run in self.runs])

    def cutoffs(self) -> str:
        d = self.data
        if not d.cutoff_curves:
            return ""
        first = next(iter(d.cutoff_curves.values()))
        figures = []
        page_cutoffs: dict[str, int | None] = {}
        for m in d.results[0].measures:
            if m.spec.cutoff:
                page_cutoffs.setdefault(str(type(m)(m.name, None, m.params)), m.cutoff)
        for label in first:
            series = [(run, self.colors[run], list(d.cutoffs), d.cutoff_curves[run][label]) for run in self.runs]
            k = page_cutoffs.get(label)
            twins = "".join(f"; {escape(run)} (dashed) is identical to {escape(same)}"
                            for run, same in svg.identical_series(series).items())
            figures.append(self._figure(svg.line_chart(
                f"cutoff-{label}", series, x_label="cutoff k", y_label=f"mean {label}@k",
                vline=k, vline_label=f"k = {k}" if k else ""),
                f"mean {escape(label)}@k for k = 1 .. {len(d.cutoffs)}" + (f"; the page's cutoff is {k}" if k else "")
                + twins))
        return ('<section id="cutoffs"><h2>Measures against the cutoff k</h2>'
                f"<p>Each measure's mean over queries at every cutoff from 1 to {len(d.cutoffs)} (the longest "
                "ranking, at most 100). A point's hover gives its value.</p>" + self._curve_note()
                + self._legend() + '<div class="grid">' + "".join(figures) + "</div></section>")

    @staticmethod
    def _figure(chart: str, caption: str) -> str:
        return f"<figure>{chart}<figcaption>{caption}</figcaption></figure>"

    def distribution(self) -> str:
        d = self.data
        if not d.histograms:
            return ""
        parts = ['<section id="distribution"><h2>Per-query distribution</h2>'
                 "<p>How many queries reach each value, every run overlaid on one axis per measure (bins of "
                 "width 1/20 of the range; hover a run's outline for its counts).</p>" + self._legend()
                 + '<div class="grid">']
        for measure, h in d.histograms.items():
            runs = [(run, self.colors[run], h["counts"][run]) for run in self.runs if run in h["counts"]]
            parts.append(self._figure(svg.overlaid_histogram(f"hist-{measure}", h["edges"], runs, x_label=measure),
                                      f"queries per value of {escape(measure)}, every run"))
        parts.append("</div></section>")
        return "".join(parts)

    def differences(self) -> str:
        d = self.data
        if not d.differences:
            return ""
        parts = ['<section id="differences"><h2>Per-query differences against the baseline</h2>'
                 f"<p>Each run minus {escape(d.baseline)}, one bar per query, sorted (the per-topic plot of TREC "
                 "overviews). Hover a bar for the query id; click it to open the query in the drill-down.</p>"]
        for measure, per_run in d.differences.items():
            charts = []
            # One scale for the runs of a measure, so bars compare across charts.
            bound = max((values.bound for values in per_run.values()), default=0.0)
            for run, values in per_run.items():
                row = self._row(run, measure)
                tally = f": {row.wins} above, {row.ties} equal, {row.losses} below" if row is not None else ""
                if values.outline:
                    tally += f"; hover ids on the {len(values.bars) // 2} lowest and highest"
                charts.append(self._figure(svg.sorted_bars(f"diff-{measure}-{run}", values,
                                                           y_label=f"{measure} difference", bound=bound),
                                           f"{escape(run)} minus {escape(d.baseline)}, {escape(measure)}{tally}"))
            parts.append(f"<h3>{escape(measure)}</h3><div class=\"grid\">" + "".join(charts) + "</div>")
        parts.append("</section>")
        return "".join(parts)

    def systems(self) -> str:
        from .systems_page import section

        return section(self.data.systems, self._figure)

    def judged(self) -> str:
        d = self.data
        if not d.judged_curves:
            return ""
        series = [(run, self.colors[run], list(d.cutoffs), d.judged_curves[run]) for run in self.runs]
        chart = svg.line_chart("judged", series, x_label="cutoff k", y_label="mean judged@k", y_range=(0, 1))
        at10 = "; ".join(f"{escape(run)} {d.judged_curves[run][min(10, len(d.cutoffs)) - 1]:.1%}" for run in self.runs)
        return ('<section id="judged"><h2>Judged@k: how much of the top k was ever judged</h2>'
                "<p>The share of each run's top k that has a judgment. Unjudged documents count as non-relevant "
                f"under unjudged=zero: where this falls, the measures above are lower bounds. At k = "
                f"{min(10, len(d.cutoffs))}: {at10}.</p>" + self._curve_note() + self._legend()
                + self._figure(chart, "mean judged@k for every cutoff") + "</section>")

    def pr(self) -> str:
        d = self.data
        if not d.pr_curves:
            return ""
        from ..pages.model import PR_LEVELS

        series = [(run, self.colors[run], list(PR_LEVELS), d.pr_curves[run]) for run in self.runs]
        chart = svg.line_chart("pr", series, x_label="recall", y_label="interpolated precision", y_range=(0, 1))
        note = f'<p class="note">{escape(d.pr_note)}</p>' if d.pr_note else ""
        return ('<section id="pr"><h2>Interpolated precision-recall curves</h2>'
                "<p>Mean interpolated precision at recall 0, 0.1, ..., 1 (the measures "
                "<code>iprec(recall=x)</code>, trec_eval's <code>iprec_at_recall</code>).</p>"
                + note + self._curve_note() + self._legend()
                + self._figure(chart, "mean iprec at 11 recall levels") + "</section>")

    def how(self) -> str:
        d = self.data
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
                + self._figure(gain_legend + gain_chart, "gain of each grade: linear g, exp2 2<sup>g</sup> - 1"
                               + ("" if g["gain"] in ("linear", "exp2") else f", this protocol's {escape(g['gain'])}"))
                + self._figure(discount_legend + discount_chart,
                               "discount of each rank: log2 1 / log2(i + 1), reciprocal 1 / i"
                               + ("" if g["discount"] in ("log2", "reciprocal")
                                  else f", this protocol's {escape(g['discount'])}"))
                + "</div>"
                + (f'<h3>Cumulative DCG of each run against the ideal, position by position</h3>'
                   f'<div class="controls"><label>query <select class="query" aria-label="query"></select></label>'
                   f'<span class="muted">{escape(self._curve_reading(drill["measure"], drill.get("normalised", True)))} The same query is shown '
                   f'in the drill-down below.</span></div>'
                   + svg.legend([(run, self.colors[run]) for run in self.runs] + [("ideal (dashed)", "#1d2330")]) +
                   '<svg class="figure" id="cumulative" data-figure="cumulative" viewBox="0 0 560 300" width="560" '
                   'height="300" role="img" aria-label="cumulative DCG of the chosen query"></svg>'
                   if drill else "")
                + "</section>")

    @staticmethod
    def _curve_reading(measure: str, normalised: bool) -> str:
        """How to read the cumulative DCG chart for the drill-down's measure."""
        if normalised:
            return f"{measure} is the run's curve divided by the ideal's, at k."
        return f"{measure} is the run's curve at k; the ideal's is its best possible value."

    def drill(self) -> str:
        d = self.data
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
                + _json_script("drill-data", {**d.drill, "first": d.drill["queries"][0] if d.drill["queries"] else ""})
                + "</section>")

    def segments(self) -> str:
        d = self.data
        if not d.segments:
            return ""
        first = next(iter(d.segments.values()))
        measures = list(dict.fromkeys(row.measure for row in first))
        parts = ['<section id="segments"><h2>Segments</h2>'
                 f"<p>Each segment's mean, query count and {first.confidence:.0%} interval ({escape(first.bootstrap_method)} "
                 f"bootstrap, {first.n_resamples:,} resamples, seed {first.seed}).</p>"]
        head = "<tr><th class=text>segment</th><th class=text>run</th>" + "".join(
            f"<th>{escape(m)}</th>" for m in measures) + "<th>queries</th></tr>"
        rows = []
        segments = list(dict.fromkeys(row.segment for row in first))
        for segment in segments:
            for run in self.runs:
                table = d.segments[run]
                cells = []
                count = ""
                for m in measures:
                    row = table.get(segment, m)
                    count = row.count
                    cells.append(_value_cell(f"{_fmt(row.mean)} [{_fmt(row.low)}, {_fmt(row.high)}]", row.mean,
                                             "segment_mean", run, f"{m}|{segment}"))
                rows.append(f"<tr><td class=text>{escape(str(segment))}</td><td class=text>{escape(run)}</td>"
                            + "".join(cells) + f"<td>{count}</td></tr>")
        parts.append("<table>" + head + "".join(rows) + "</table>")
        charts = []
        for m in measures:
            chart_rows = [(segment, run, self.colors[run], d.segments[run].get(segment, m).mean,
                           d.segments[run].get(segment, m).low, d.segments[run].get(segment, m).high)
                          for segment in segments for run in self.runs]
            charts.append(self._figure(svg.interval_chart(f"segments-{m}", chart_rows, x_label=f"mean {m}"),
                                       f"mean {escape(m)} and its interval per segment and run"))
        parts.append(self._legend() + '<div class="grid">' + "".join(charts) + "</div></section>")
        return "".join(parts)

    def fusion(self) -> str:
        from .fusion import section

        return section(self.data.fusion, self.data.fused) if self.data.fusion is not None else ""

    def judgments(self) -> str:
        from .judgments_section import section

        return section(self.data.judgments)

    def beyond(self) -> str:
        from .beyond import section

        return section(self.data.beyond, self.runs, self.colors)

    def page(self) -> str:
        d = self.data
        body = "".join(section() for section in (
            self.header, self.summary, self.forest, self.beyond, self.provenance, self.counts, self.cutoffs, self.distribution, self.differences,
            self.systems, self.judgments, self.fusion, self.judged, self.pr, self.how, self.drill, self.segments))
        script = ""
        if d.drill:
            script = _json_script("run-colors", self.colors) + f"<script>{SCRIPT}</script>"
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f'<meta name="generator" content="rankproof {escape(d.version)}">'
                f"<title>{escape(d.title)}</title><style>{CSS}</style></head><body><main>{body}"
                f'<footer class="note"><p>Made by rankproof {escape(d.version)}. The page is self-contained: '
                "styles, figures (inline SVG), data and script are in this file, and it makes no network request."
                f"</p></footer></main>{script}</body></html>\n")


def render(data) -> str:
    """The page for a :class:`~rankproof.pages.model.ReportData`, as text.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> from rankproof.pages.build import prepare
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    >>> runs = {"A": Run.from_dict({"q1": ["a"], "q2": ["x", "b"]}), "B": Run.from_dict({"q1": ["x"], "q2": ["b"]})}
    >>> page = render(prepare(qrels, runs, ["rr"], n_resamples=100))
    >>> page.startswith("<!DOCTYPE html>"), 'id="drill"' in page, "http://" in page.replace("http://www.w3.org", "")
    (True, True, False)
    """
    return _Page(data).page()


def in_frame(page: str, height: int = 640) -> str:
    """A page inside an ``<iframe srcdoc>``: how a notebook shows it (``_repr_html_``)
    with its styles and script kept apart from the notebook's.

    >>> in_frame("<p>a & b</p>")[:60]
    '<iframe style="width:100%;height:640px;border:1px solid #d9d'
    """
    return (f'<iframe style="width:100%;height:{height}px;border:1px solid #d9dde3" '
            f'srcdoc="{escape(page, quote=True)}"></iframe>')
