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

from html import escape

from . import drill_section, summary_section, svg
from .cells import baseline_row, figure, fmt, heading, json_script, value_cell
from .page_assets import CSP, CSS, SCRIPT
from .judgments_section import titles as judgment_titles
from .table import counts_lines, warning_lines

__all__ = ["render", "in_frame", "SECTIONS"]

# Section ids, in page order; "segments" only when segments were given.
SECTIONS = ("header", "summary", "provenance", "counts", "cutoffs", "distribution", "differences",
            "systems", "judged", "pr",
            "how", "drill", "segments")

# Shown for every run even when nothing was touched (the others only when they are not 0).
_ALWAYS = {
    "queries_missing_from_run": "judged queries missing from the run",
    "queries_missing_from_qrels": "ranked queries missing from the qrels",
    "zero_ideal_queries": "queries with nothing relevant",
    "unjudged_in_cutoff": "unjudged docs inside the cutoff",
    "tied_groups_crossing_cutoff": "tied groups crossing the cutoff",
}
# The sections linked from the header when the page model holds their data: (field, id, title),
# before and after the judgments' sections.
_OPTIONAL_BEFORE = (("cutoff_curves", "cutoffs", "over k"),
                    ("histograms", "distribution", "distribution"),
                    ("differences", "differences", "differences"))
_OPTIONAL_AFTER = (("judged_curves", "judged", "judged@k"), ("pr_curves", "pr", "precision-recall"),
                   ("gain_discount", "how", "how the numbers are made"),
                   ("drill", "drill", "drill-down"),
                   ("segments", "segments", "segments"))


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
        missing = "".join(f'<div class="missing">Not in this page: {escape(m)}.</div>'
                          for m in d.missing)
        missing += "".join(f'<div class="missing" data-added>Added to this page: {escape(a)}.</div>'
                           for a in d.added)
        nav = ("<nav>" + "".join(f'<a href="#{sid}">{title}</a>'
                                 for sid, title in self.present_titles()) + "</nav>")
        # Doubts about the inputs (ids that half match) go above the numbers they put in question.
        doubts = "".join(f'<div class="warn" data-doubt>{escape(r.run_name)}: warning: {escape(line)}</div>'
                         for r in d.results for line in r.warnings)
        return f'<header id="header"><h1>{escape(d.title)}</h1>{nav}{missing}{doubts}</header>'

    def provenance(self) -> str:
        """Protocol, fingerprint, digests, version, command and input files: after the results."""
        d = self.data
        rows = [("protocol", f"<code>{escape(str(d.protocol))}</code>"),
                ("fingerprint", f"<code>{escape(d.protocol.fingerprint)}</code>"),
                ("qrels digest",
                 f"<code>{escape(str(d.qrels_digest))}</code> (content of the judgments)"),
                ("rankproof", escape(d.version)),
                ("command", f"<code>{escape(d.command)}</code>" if d.command else
                 '<span class="muted">not given (made from Python)</span>')]
        if d.baseline:
            rows.append(("baseline", escape(d.baseline)))
        meta = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
        files = ""
        if d.inputs:
            files = ("<h3>Input files</h3><table><tr><th class=text>role</th><th class=text>path</th>"
                     "<th class=text>SHA-256 (first 16 hex)</th><th>lines</th><th>bytes</th></tr>"
                     + "".join(
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
        titles += [(sid, title) for field, sid, title in _OPTIONAL_BEFORE if getattr(d, field)]
        titles += judgment_titles(d.judgments)
        titles += [(sid, title) for field, sid, title in _OPTIONAL_AFTER if getattr(d, field)]
        return titles

    # the sections drawn in their own modules (plain functions of the page, so methods here)
    summary, forest = summary_section.summary, summary_section.forest
    how, drill = drill_section.how, drill_section.drill

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
                # the policies people ask about first, even when 0
                for key, label in _ALWAYS.items():
                    value = c.get(key, 0)
                    if isinstance(value, dict):
                        touched = [f"{m} {v:,}" for m, v in value.items() if v]
                        value = ", ".join(touched) if touched else "0"
                    rows.setdefault(label, {})[r.run_name] = (f"{value:,}" if isinstance(value, int)
                                                              else value)
                for line in counts_lines(r):
                    label, _, value = line.partition(": ")
                    if label != "queries evaluated" and label not in _ALWAYS.values():
                        rows.setdefault(label, {})[r.run_name] = (f"{int(value):,}"
                                                                  if value.isdigit() else value)
            parts.append('<table class="counts"><tr><th class="text">what</th>' + "".join(
                f'<th class="text">{heading(r.run_name)}</th>' for r in d.results) + "</tr>"
                         + "".join(
                f'<tr><td class="text">{escape(label)}</td>' + "".join(
                    f'<td class="text">{escape(values.get(r.run_name, "0"))}</td>'
                    for r in d.results) + "</tr>"
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
            series = [(run, self.colors[run], list(d.cutoffs), d.cutoff_curves[run][label])
                      for run in self.runs]
            k = page_cutoffs.get(label)
            twins = "".join(f"; {escape(run)} (dashed) is identical to {escape(same)}"
                            for run, same in svg.identical_series(series).items())
            figures.append(figure(svg.line_chart(
                f"cutoff-{label}", series, x_label="cutoff k", y_label=f"mean {label}@k",
                vline=k, vline_label=f"k = {k}" if k else ""),
                f"mean {escape(label)}@k for k = 1 .. {len(d.cutoffs)}"
                                        + (f"; the page's cutoff is {k}" if k else "")
                + twins))
        return ('<section id="cutoffs"><h2>Measures against the cutoff k</h2>'
                f"<p>Each measure's mean over queries at every cutoff from 1 to {len(d.cutoffs)} (the longest "
                "ranking, at most 100). A point's hover gives its value.</p>" + self._curve_note()
                + self._legend() + '<div class="grid">' + "".join(figures) + "</div></section>")

    def distribution(self) -> str:
        d = self.data
        if not d.histograms:
            return ""
        parts = ['<section id="distribution"><h2>Per-query distribution</h2>'
                 "<p>How many queries reach each value, every run overlaid on one axis per measure (bins of "
                 "width 1/20 of the range; hover a run's outline for its counts).</p>"
                 + self._legend()
                 + '<div class="grid">']
        for measure, h in d.histograms.items():
            runs = [(run, self.colors[run], h["counts"][run]) for run in self.runs
                    if run in h["counts"]]
            parts.append(figure(svg.overlaid_histogram(f"hist-{measure}", h["edges"], runs,
                                                             x_label=measure),
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
                row = baseline_row(self.data.comparison, self.data.baseline, run, measure)
                tally = (f": {row.wins} above, {row.ties} equal, {row.losses} below"
                         if row is not None else "")
                if values.outline:
                    tally += f"; hover ids on the {len(values.bars) // 2} lowest and highest"
                charts.append(figure(svg.sorted_bars(f"diff-{measure}-{run}", values,
                                                           y_label=f"{measure} difference",
                                                           bound=bound),
                                           f"{escape(run)} minus {escape(d.baseline)}, {escape(measure)}{tally}"))
            parts.append(f"<h3>{escape(measure)}</h3><div class=\"grid\">" + "".join(charts)
                         + "</div>")
        parts.append("</section>")
        return "".join(parts)

    def systems(self) -> str:
        from .systems_page import section

        return section(self.data.systems, figure)

    def judged(self) -> str:
        d = self.data
        if not d.judged_curves:
            return ""
        series = [(run, self.colors[run], list(d.cutoffs), d.judged_curves[run])
                  for run in self.runs]
        chart = svg.line_chart("judged", series, x_label="cutoff k", y_label="mean judged@k",
                               y_range=(0, 1))
        at10 = "; ".join(f"{escape(run)} {d.judged_curves[run][min(10, len(d.cutoffs)) - 1]:.1%}"
                         for run in self.runs)
        return ('<section id="judged"><h2>Judged@k: how much of the top k was ever judged</h2>'
                "<p>The share of each run's top k that has a judgment. Unjudged documents count as non-relevant "
                f"under unjudged=zero: where this falls, the measures above are lower bounds. At k = "
                f"{min(10, len(d.cutoffs))}: {at10}.</p>" + self._curve_note() + self._legend()
                + figure(chart, "mean judged@k for every cutoff") + "</section>")

    def pr(self) -> str:
        d = self.data
        if not d.pr_curves:
            return ""
        from ..pages.model import PR_LEVELS

        series = [(run, self.colors[run], list(PR_LEVELS), d.pr_curves[run]) for run in self.runs]
        chart = svg.line_chart("pr", series, x_label="recall", y_label="interpolated precision",
                               y_range=(0, 1))
        note = f'<p class="note">{escape(d.pr_note)}</p>' if d.pr_note else ""
        return ('<section id="pr"><h2>Interpolated precision-recall curves</h2>'
                "<p>Mean interpolated precision at recall 0, 0.1, ..., 1 (the measures "
                "<code>iprec(recall=x)</code>, trec_eval's <code>iprec_at_recall</code>).</p>"
                + note + self._curve_note() + self._legend()
                + figure(chart, "mean iprec at 11 recall levels") + "</section>")

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
            f"<th>{heading(m)}</th>" for m in measures) + "<th>queries</th></tr>"
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
                    cells.append(value_cell(f"{fmt(row.mean)} [{fmt(row.low)}, {fmt(row.high)}]",
                                            row.mean,
                                             "segment_mean", run, f"{m}|{segment}"))
                rows.append(f"<tr><td class=text>{escape(str(segment))}</td><td class=text>{escape(run)}</td>"
                            + "".join(cells) + f"<td>{count}</td></tr>")
        parts.append("<table>" + head + "".join(rows) + "</table>")
        charts = []
        for m in measures:
            chart_rows = [(segment, run, self.colors[run], d.segments[run].get(segment, m).mean,
                           d.segments[run].get(segment, m).low,
                           d.segments[run].get(segment, m).high)
                          for segment in segments for run in self.runs]
            charts.append(figure(svg.interval_chart(f"segments-{m}", chart_rows,
                                                          x_label=f"mean {m}"),
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
            self.header, self.summary, self.forest, self.beyond, self.provenance, self.counts,
            self.cutoffs, self.distribution, self.differences,
            self.systems, self.judgments, self.fusion, self.judged, self.pr, self.how, self.drill,
            self.segments))
        script = ""
        if d.drill:
            script = json_script("run-colors", self.colors) + f"<script>{SCRIPT}</script>"
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
