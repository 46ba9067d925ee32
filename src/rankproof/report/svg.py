"""Small static SVG charts for the HTML report: lines, histograms, sorted bars, intervals.

Renderers only: every number drawn is given; these functions map numbers to
pixels and write elements. Each chart is an ``<svg class="figure"
data-figure=NAME>``; every drawn data element (line, point, bar, interval)
carries ``class="mark"`` so a test can count what was drawn, and a
``<title>`` child so a browser shows its value on hover.

>>> svg = line_chart("demo", [("run a", "#4269d0", [1, 2, 3], [0.5, 0.25, 0.125])], x_label="k", y_label="p")
>>> svg.count('class="mark'), svg.startswith('<svg class="figure" data-figure="demo"')
(4, True)
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

__all__ = ["PALETTE", "TICK_CHAR", "line_chart", "identical_series", "overlaid_histogram",
           "histogram", "sorted_bars", "interval_chart", "nice_ticks", "legend", "fitted"]

# Observable's 10 categorical colours: distinct for the common forms of colour blindness.
PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5",
           "#9c6b4e",
           "#9498a0")
MARGIN = (14, 16, 42, 52)  # top, right, bottom, left
TICK_CHAR = 7.0  # px: an upper bound of one character of a tick label at 11 px
Y_TITLE_CLEAR = 6 + 11 + 6 + 6  # tick gap, the rotated title's line (x = 11 +- 6), and a gap: 29 px


def _num(value: float) -> str:
    """A coordinate with one decimal: enough for a screen, short in the file."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high].

    >>> nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(1, 50)
    [10.0, 20.0, 30.0, 40.0, 50.0]
    """
    if high <= low:
        return [low]
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-6:
        ticks.append(float(round(value, 10)))
        value += step
    return ticks


class _Frame:
    """A plot area with linear x and y scales, its axes and grid."""

    def __init__(self, width: int, height: int, x_range, y_range, margin=MARGIN):
        self.width, self.height = width, height
        self.top, self.right, self.bottom, self.left = margin
        self.x0, self.x1 = x_range
        self.y0, self.y1 = y_range
        if self.x1 == self.x0:
            self.x1 = self.x0 + 1
        if self.y1 == self.y0:
            self.y1 = self.y0 + 1

    def x(self, value: float) -> float:
        span = self.width - self.left - self.right
        return self.left + (value - self.x0) / (self.x1 - self.x0) * span

    def y(self, value: float) -> float:
        span = self.height - self.top - self.bottom
        return self.height - self.bottom - (value - self.y0) / (self.y1 - self.y0) * span

    def axes(self, x_label: str, y_label: str, x_ticks=None, y_ticks=None, x_format=None,
             y_format=None,
             x_axis: bool = True) -> str:
        x_ticks = nice_ticks(self.x0, self.x1) if x_ticks is None else x_ticks
        y_ticks = nice_ticks(self.y0, self.y1) if y_ticks is None else y_ticks
        fx = x_format or (lambda v: f"{v:g}")
        fy = y_format or (lambda v: f"{v:g}")
        if y_label:
            # The rotated y title sits at x = 11: the left margin grows until the longest tick label
            # (right-aligned at left - 6) ends clear of it (4-5 digit counts would otherwise overlap
            # it).
            self.left = max(self.left,
                            math.ceil(Y_TITLE_CLEAR + TICK_CHAR * max((len(fy(t)) for t in y_ticks),
                                                                                 default=0)))
        bottom, left, right = self.height - self.bottom, self.left, self.width - self.right
        parts = ['<g class="axes">']
        for t in y_ticks:
            y = _num(self.y(t))
            parts.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>'
                         f'<text x="{left - 6}" y="{y}" dy="0.32em" text-anchor="end">{escape(fy(t))}</text>')
        for t in x_ticks:
            x = _num(self.x(t))
            parts.append(f'<line class="tick" x1="{x}" x2="{x}" y1="{bottom}" y2="{bottom + 4}"/>'
                         f'<text x="{x}" y="{bottom + 16}" text-anchor="middle">{escape(fx(t))}</text>')
        if x_axis:
            parts.append(f'<line class="axis" x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}"/>')
        parts.append(f'<text class="label" x="{(left + right) / 2:.0f}" y="{self.height - 6}" '
                     f'text-anchor="middle">{escape(x_label)}</text>')
        parts.append(f'<text class="label" transform="translate(11,{(self.top + bottom) / 2:.0f}) rotate(-90)" '
                     f'text-anchor="middle">{escape(y_label)}</text>')
        parts.append("</g>")
        return "".join(parts)


def _open(name: str, width: int, height: int, label: str) -> str:
    return (f'<svg class="figure" data-figure="{escape(name)}" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{escape(label)}">')


def legend(entries: Sequence[tuple[str, str]]) -> str:
    """An HTML legend: a coloured swatch and a name per entry."""
    return '<div class="legend">' + "".join(
        f'<span><i style="background:{color}"></i>{escape(name)}</span>'
        for name, color in entries) + "</div>"


def line_chart(name: str, series, *, x_label: str, y_label: str, width: int = 560,
               height: int = 300,
               y_range=None, x_ticks=None, points: bool = True, vline: float | None = None,
               vline_label: str = "", value_format: str = ".4f", dashed: Sequence[str] = ()) -> str:
    """Lines, one per ``(name, colour, xs, ys)``; NaN values break nothing (they are left out).

    ``points`` adds a dot per value with its value as hover title; ``vline``
    marks an x position (a cutoff); series named in ``dashed`` are dashed.
    """
    twins = identical_series(series)
    dashed = (*dashed, *twins)
    xs_all = [x for _, _, xs, _ in series for x in xs]
    ys_all = [y for _, _, _, ys in series for y in ys if y == y]
    x_range = (min(xs_all, default=0), max(xs_all, default=1))
    if y_range is None:
        y_range = (min(0.0, min(ys_all, default=0.0)), max(ys_all, default=1.0) or 1.0)
    frame = _Frame(width, height, x_range, y_range)
    parts = [_open(name, width, height, f"{y_label} against {x_label}"),
             frame.axes(x_label, y_label, x_ticks)]
    if vline is not None:
        x = _num(frame.x(vline))
        parts.append(f'<line class="cutoff" x1="{x}" x2="{x}" y1="{frame.top}" y2="{height - frame.bottom}"/>'
                     f'<text class="cutoff-label" x="{x}" y="{frame.top + 10}" dx="4">{escape(vline_label)}</text>')
    for label, color, xs, ys in series:
        kept = [(x, y) for x, y in zip(xs, ys) if y == y]
        if not kept:
            continue
        path = " ".join(f"{_num(frame.x(x))},{_num(frame.y(y))}" for x, y in kept)
        dash = ' stroke-dasharray="5 4"' if label in dashed else ""
        twin = f" (identical to {twins[label]})" if label in twins else ""
        parts.append(f'<polyline class="mark line" points="{path}" stroke="{color}"{dash}'
                     + (f' data-identical-to="{escape(twins[label])}"' if twin else "")
                     + f'><title>{escape(label + twin)}</title></polyline>')
        if points:
            parts.append(f'<g fill="{color}">' + "".join(
                f'<circle class="mark point" cx="{_num(frame.x(x))}" cy="{_num(frame.y(y))}" r="2.6">'
                f'<title>{escape(label)}: {x_label} {x:g}, {y_label} {y:{value_format}}</title></circle>'
                for x, y in kept) + "</g>")
    parts.append("</svg>")
    return "".join(parts)


def identical_series(series) -> dict[str, str]:
    """Series drawn exactly over an earlier one: ``{name: the earlier series' name}``.

    They are dashed (the earlier one shows through the gaps) and named in the hover title,
    so that two runs with the same curve do not look like one.

    >>> identical_series([("a", "red", [1, 2], [0.5, 0.4]), ("b", "blue", [1, 2], [0.5, 0.4]),
    ...                   ("c", "green", [1, 2], [0.5, 0.3])])
    {'b': 'a'}
    """
    first: dict[tuple, str] = {}
    twins: dict[str, str] = {}
    for label, _, xs, ys in series:
        key = (tuple(xs), tuple(round(y, 12) if y == y else None for y in ys))
        if key in first:
            twins[label] = first[key]
        else:
            first[key] = label
    return twins


def histogram(name: str, edges: Sequence[float], counts: Sequence[int], color: str, *, x_label: str,
              width: int = 300, height: int = 170, y_max: int | None = None) -> str:
    """Bars of query counts per bin; hover gives the bin and its count."""
    top = max(y_max or 0, max(counts, default=0), 1)
    frame = _Frame(width, height, (edges[0], edges[-1]), (0, top), margin=(10, 10, 36, 40))
    y_ticks = [t for t in nice_ticks(0, top, 3) if t == int(t)]
    parts = [_open(name, width, height, f"distribution of {x_label}"),
             frame.axes(x_label, "queries", nice_ticks(edges[0], edges[-1], 4), y_ticks,
                        y_format=lambda v: f"{v:.0f}")]
    parts.append(f'<g fill="{color}">')
    for lo, hi, count in zip(edges[:-1], edges[1:], counts):
        if not count:
            continue
        x, x_end, y = frame.x(lo), frame.x(hi), frame.y(count)
        parts.append(f'<rect class="mark bar" x="{_num(x + 0.5)}" y="{_num(y)}" width="{_num(max(x_end - x - 1, 1))}" '
                     f'height="{_num(frame.y(0) - y)}"><title>{x_label} in [{lo:.2f}, {hi:.2f}'
                     f'{"]" if hi == edges[-1] else ")"}: {count} queries</title></rect>')
    parts.append("</g></svg>")
    return "".join(parts)


def overlaid_histogram(name: str, edges: Sequence[float],
                       runs: Sequence[tuple[str, str, Sequence[int]]], *,
                       x_label: str, width: int = 560, height: int = 240) -> str:
    """Every run's histogram on one axis: a step outline per ``(run, colour, counts)``, lightly filled,
    so that the runs' distributions are compared in place rather than side by side.

    >>> chart = overlaid_histogram("h", [0, 0.5, 1], [("a", "#111", [3, 1]), ("b", "#222", [1, 3])], x_label="rr")
    >>> chart.count('class="mark step"')
    2
    """
    top = max((max(counts, default=0) for _, _, counts in runs), default=0) or 1
    frame = _Frame(width, height, (edges[0], edges[-1]), (0, top), margin=(10, 12, 36, 40))
    y_ticks = [t for t in nice_ticks(0, top, 4) if t == int(t)]
    parts = [_open(name, width, height, f"distribution of {x_label}, every run"),
             frame.axes(x_label, "queries", nice_ticks(edges[0], edges[-1], 5), y_ticks,
                        y_format=lambda v: f"{v:.0f}")]
    for run, color, counts in runs:
        base = _num(frame.y(0))
        steps = [f"M{_num(frame.x(edges[0]))},{base}"]
        for lo, hi, count in zip(edges[:-1], edges[1:], counts):
            y = _num(frame.y(count))
            steps.append(f"L{_num(frame.x(lo))},{y} L{_num(frame.x(hi))},{y}")
        steps.append(f"L{_num(frame.x(edges[-1]))},{base}")
        described = ", ".join(f"[{lo:.2f}, {hi:.2f}{']' if hi == edges[-1] else ')'}: {c}"
                              for lo, hi, c in zip(edges[:-1], edges[1:], counts) if c)
        parts.append(f'<path class="mark step" d="{" ".join(steps)}" stroke="{color}" fill="{color}" '
                     f'fill-opacity="0.12" stroke-width="1.6"><title>{escape(run)}: {escape(described)}</title></path>')
    parts.append("</svg>")
    return "".join(parts)


def sorted_bars(name: str, values, *, y_label: str, width: int = 560,
                height: int = 220, positive: str = "#3ca951", negative: str = "#ff725c",
                bound: float | None = None, clickable: bool = True) -> str:
    """One bar per query, sorted by value (the per-topic plot of TREC overviews).

    ``values`` is a :class:`~rankproof.pages.model.SortedValues`: its bars (with
    their query ids) and, when it has more values than bars, the outline of
    all of them, drawn as one shape under the bars of the extremes. A bar's
    hover title names the query and its value; ``data-query`` lets the page's
    script open the query in the drill-down on a click. ``bound`` sets the y
    range to [-bound, bound] (charts side by side share it).
    ``clickable=False`` leaves ``data-query`` out (a second plot of the same
    queries, which the drill-down need not answer twice).

    >>> import numpy as np
    >>> from rankproof.pages.summaries import sorted_values
    >>> many = sorted_values(np.arange(1000).astype(str), (np.arange(1000) - 500) / 1000, max_bars=100)
    >>> chart = sorted_bars("d", many, y_label="difference")
    >>> chart.count("<rect"), chart.count("<path")   # 50 at each end (the query at 0 draws nothing)
    (100, 1)
    """
    count = values.count
    bound = max(values.bound if bound is None else bound, 1e-9)
    frame = _Frame(width, height, (0, max(count, 1)), (-bound, bound), margin=(10, 10, 24, 62))
    parts = [_open(name, width, height, f"{y_label} per query, sorted"),
             frame.axes("queries, sorted by difference", y_label, [], nice_ticks(-bound, bound, 4),
                        y_format=lambda v: f"{v:+.2f}" if v else "0", x_axis=False)]
    zero = frame.y(0)
    step = frame.x(1) - frame.x(0)
    if values.outline:
        # Too many queries for a bar each: the sorted values as one outline,
        # and bars (with their query ids) for the extremes at either end.
        outline = " ".join(f"L{_num(frame.x(i))},{_num(frame.y(v))}" for i, v in values.outline)
        parts.append(f'<path class="mark area" d="M{_num(frame.x(0))},{_num(zero)} {outline} '
                     f'L{_num(frame.x(count))},{_num(zero)} Z" fill="#c9ced6"><title>{count} queries, '
                     f'sorted by {escape(y_label)}</title></path>')
    for i, query, value in values.bars:
        if value == 0:
            continue
        y = frame.y(value)
        top, size = (y, zero - y) if value > 0 else (zero, y - zero)
        color = positive if value > 0 else negative
        link = f'data-query="{escape(query)}" ' if clickable else ""
        parts.append(f'<rect class="mark bar" {link}x="{_num(frame.x(i))}" y="{_num(top)}" '
                     f'width="{_num(max(step - 0.3, 0.6))}" height="{_num(max(size, 0.5))}" fill="{color}">'
                     f'<title>query {escape(query)}: {value:+.4f}</title></rect>')
    parts.append(f'<line class="axis" x1="{frame.left}" x2="{width - frame.right}" y1="{_num(zero)}" '
                 f'y2="{_num(zero)}"/></svg>')
    return "".join(parts)


def interval_chart(name: str, rows: Sequence[tuple[str, str, str, float, float, float]], *,
                   x_label: str,
                   width: int = 560, row_height: int = 18, zero_line: bool = False) -> str:
    """A dot and its interval per ``(group, series, colour, value, low, high)`` row, groups stacked.

    The x range is padded by a twentieth of its span on each side (no interval touches the frame), the
    left margin fits the longest group name, and ``zero_line`` draws x = 0 (a forest plot of differences).
    """
    height = 30 + row_height * len(rows) + 20
    values = [v for row in rows for v in row[3:] if v == v]
    low_end, high_end = min(0.0, min(values, default=0.0)), max(0.0, max(values, default=1.0))
    if high_end == low_end:
        high_end = low_end + 1.0
    pad = (high_end - low_end) / 20
    label_width = max((len(str(row[0])) for row in rows), default=0) * TICK_CHAR
    left = int(min(max(150, label_width + 16), width / 2))
    fits = int((left - 16) / TICK_CHAR)   # characters of a group name the left margin holds
    frame = _Frame(width, height, (low_end - pad, high_end + pad), (0, len(rows)),
                   margin=(10, 16, 36, left))
    parts = [_open(name, width, height, f"{x_label} per row"),
             frame.axes(x_label, "", nice_ticks(low_end - pad, high_end + pad), [],
                        y_format=lambda v: "")]
    if zero_line:
        x = _num(frame.x(0))
        parts.append(f'<line class="cutoff" x1="{x}" x2="{x}" y1="{frame.top}" y2="{height - frame.bottom}"/>')
    previous = None
    for i, (group, series, color, value, low, high) in enumerate(rows):
        y = frame.top + row_height * (i + 0.5)
        # a name longer than the margin is shortened in its middle, whole in its title
        if group != previous:
            parts.append(f'<text x="{frame.left - 8}" y="{_num(y)}" dy="0.32em" text-anchor="end">'
                         f'<title>{escape(str(group))}</title>{escape(fitted(str(group), fits))}</text>')
            previous = group
        if low == low and high == high:
            parts.append(f'<line class="mark interval" x1="{_num(frame.x(low))}" x2="{_num(frame.x(high))}" '
                         f'y1="{_num(y)}" y2="{_num(y)}" stroke="{color}"><title>{escape(series)}, '
                         f'{escape(str(group))}: [{low:.4f}, {high:.4f}]</title></line>')
        if value == value:
            parts.append(f'<circle class="mark point" cx="{_num(frame.x(value))}" cy="{_num(y)}" r="4" fill="{color}">'
                         f'<title>{escape(series)}, {escape(str(group))}: {value:.4f}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def fitted(text: str, characters: int) -> str:
    """`text` in at most `characters` characters: its start and end kept, its middle an ellipsis.

    >>> fitted("ndcg@10: a_very_long_run_name.run - baseline.run", 24)
    'ndcg@10: a_…baseline.run'
    >>> fitted("short", 24)
    'short'
    """
    if len(text) <= characters:
        return text
    head = max((characters - 1) // 2, 1)
    tail = max(characters - 1 - head, 1)
    return f"{text[:head]}…{text[-tail:]}"
