"""The report's "beyond accuracy" section: side-data measures beside accuracy, and their curves.

Its data (:func:`rankproof.recsys.beyond_report.beyond_data`, a plain dict)
is computed before rendering; this module only lays it out: a table of the
side-data measures per run, coverage against the cutoff, popularity against
the rank, exposure by item category, and the per-list measures per user group.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Mapping, Sequence

from . import svg
from .cells import figure, heading

__all__ = ["section", "TITLE"]

TITLE = ("beyond", "beyond accuracy")


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<span class="muted">-</span>'
    return f"{value:.{digits}f}"


def _values(data: Mapping, runs: Sequence[str]) -> str:
    if not data["measures"]:
        return ""
    head = "<tr><th class=text>run</th>" + "".join(
        f'<th title="{escape(m["display"])} ({escape(m["kind"])})">{heading(text)}</th>'
        for text, m in data["measures"].items()) + "</tr>"
    rows = "".join(f'<tr><td class=text>{escape(run)}</td>' + "".join(
        f'<td data-run="{escape(run)}" data-measure="{escape(text)}">{_fmt(m["runs"].get(run))}</td>'
        for text, m in data["measures"].items()) + "</tr>" for run in runs)
    return f'<table class="beyond-values">{head}{rows}</table>'


def _curves(data: Mapping, runs: Sequence[str], colors: Mapping[str, str]) -> str:
    k = data["k"]
    ks = list(range(1, k + 1))
    figures = []
    if data.get("coverage_curve"):
        series = [(run, colors[run], ks, data["coverage_curve"][run]) for run in runs
                  if run in data["coverage_curve"]]
        figures.append(figure(svg.line_chart("beyond-coverage", series, x_label="cutoff k",
                                              y_label="coverage@k",
                                              y_range=(0.0, 1.0)),
                               f"catalogue coverage@k for k = 1 .. {k}: the share of the catalogue in some top-k list"))
    if data.get("popularity_curve"):
        series = [(run, colors[run], ks, data["popularity_curve"][run]) for run in runs
                  if run in data["popularity_curve"]]
        figures.append(figure(svg.line_chart("beyond-popularity", series, x_label="rank",
                                              y_label="popularity percentile", y_range=(0.0, 100.0),
                                              value_format=".1f"),
                               "mean training-popularity percentile of the items at each rank (100: the most "
                               "popular item; never trained on: 0)"))
    return '<div class="grid">' + "".join(figures) + "</div>" if figures else ""


def _exposure(data: Mapping, runs: Sequence[str]) -> str:
    exposure = data.get("exposure")
    if not exposure:
        return ""
    groups = exposure["groups"]
    head = ("<tr><th class=text>category</th>" + "".join(f"<th>{heading(run)}</th>" for run in runs)
            + "</tr>")
    rows = "".join(f"<tr><td class=text>{escape(group)}</td>" + "".join(
        f"<td>{100 * exposure[run][i]:.1f}%</td>" if run in exposure else "<td>-</td>"
        for run in runs) + "</tr>"
        for i, group in enumerate(groups)
                   if any(run in exposure and exposure[run][i] > 0 for run in runs))
    return (f"<h3>Exposure by item category</h3><p>Each category's share of the exposure of the top {data['k']} "
            "(exposure 1/log2(rank + 1), split evenly among an item's categories).</p>"
            f'<table class="beyond-exposure">{head}{rows}</table>')


def _by_group(data: Mapping, runs: Sequence[str]) -> str:
    by_group = data.get("by_group")
    if not by_group:
        return ""
    measures = list(dict.fromkeys(m for run in runs for m in by_group.get(run, {})))
    if not measures:
        return ""
    groups = sorted({g for run in runs for m in measures for g in by_group.get(run, {}).get(m, {})})
    spread = data.get("disparity") or {}
    head = ("<tr><th class=text>measure</th><th class=text>user group</th>"
            + "".join(f"<th>{heading(run)}</th>" for run in runs) + "</tr>")
    rows = "".join(f"<tr><td class=text>{escape(m)}</td><td class=text>{escape(g)}</td>" + "".join(
        f"<td>{_fmt(by_group.get(run, {}).get(m, {}).get(g))}</td>" for run in runs) + "</tr>"
        + ("" if g != groups[-1] or not any(m in spread.get(run, {}) for run in runs) else
           f"<tr class=disparity><td class=text>{escape(m)}</td><td class=text>max - min</td>"
           + "".join(f"<td>{_disparity(spread.get(run, {}).get(m))}</td>" for run in runs)
           + "</tr>")
        for m in measures for g in groups)
    methods = sorted({e["method"] for run in runs for e in spread.get(run, {}).values()})
    how = (" The disparity (max - min) is the highest group mean minus the lowest, with its 95% interval "
           f"({', '.join(methods)}: a group of fewer than 1000 users resampled within itself, a larger one's mean "
           "drawn from its normal approximation).") if methods else ""
    return ("<h3>Per user group</h3><p>Each accuracy and per-list measure's mean over the users of each group "
            f"(calibration per user group when calibration is asked for).{how}</p>"
            f'<table class="beyond-groups">{head}{rows}</table>')


def _disparity(entry: "Mapping | None") -> str:
    if not entry:
        return "-"
    return f"{_fmt(entry['value'])} [{_fmt(entry['low'])}, {_fmt(entry['high'])}]"


def section(data: "Mapping | None", runs: Sequence[str], colors: Mapping[str, str]) -> str:
    """The section's HTML ("" without data)."""
    if not data:
        return ""
    return (f'<section id="{TITLE[0]}"><h2>Beyond accuracy</h2>'
            "<p>Measures of the recommended lists that read side data (catalogue, training popularity, item "
            "categories, user groups), beside the accuracy measures above, under the same protocol.</p>"
            + _values(data, runs) + svg.legend([(run, colors[run]) for run in runs])
            + _curves(data, runs, colors) + _exposure(data, runs) + _by_group(data, runs)
            + "</section>")
