"""The small pieces every section of the HTML report is built of: numbers, cells, figures, data.

Renderers only (see :mod:`rankproof.report.html`): a rounded number for reading, a table cell
carrying its full-precision value for checks, a figure with its caption, a JSON data block the
page's script reads, and the comparison row of a run against the baseline.
"""

from __future__ import annotations

import math
import re
from html import escape

from ..io.json_text import json_text

__all__ = ["fmt", "heading", "value_cell", "json_script", "figure", "baseline_row"]


def fmt(value, digits: int = 4) -> str:
    """``value`` rounded for reading; "n/a" for none or NaN.

    >>> fmt(0.123456), fmt(float("nan")), fmt(2, 1)
    ('0.1235', 'n/a', '2.0')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def heading(text: str) -> str:
    """`text` (a measure's or a run's name) escaped for a table header, with a line-break
    opportunity between a measure and its cutoff and after ``_ / , (``: a narrow column wraps
    there, never inside a word (the style sheet forbids breaking words; a word longer than its
    column widens it).

    >>> heading("ndcg(gain=exp2)@10"), heading("two_tower.run")
    ('ndcg(<wbr>gain=exp2)<wbr>@10', 'two_<wbr>tower.run')
    """
    return re.sub(r"(?=@)|(?<=[_/,(])", "<wbr>", escape(text))


def value_cell(text: str, value, key: str, run: str, measure: str, cls: str = "") -> str:
    """A table cell showing `text`, carrying the full-precision value for checks.

    >>> value_cell("0.5", 0.5, "mean", "A", "ndcg")
    '<td class="num" data-key="mean" data-run="A" data-measure="ndcg" data-value="0.5">0.5</td>'
    """
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        data = "null"
    else:
        data = repr(value)
    return (f'<td class="num{" " + cls if cls else ""}" data-key="{key}" data-run="{escape(run)}" '
            f'data-measure="{escape(measure)}" data-value="{escape(data)}">{escape(text)}</td>')


def json_script(element_id: str, value) -> str:
    """``value`` as a JSON data block the page's script reads (never executed).

    >>> json_script("d", {"a": "</script>"})
    '<script type="application/json" id="d">{"a":"\\\\u003c/script>"}</script>'
    """
    text = json_text(value, ensure_ascii=False, separators=(",", ":"))
    # "</" could close the script element early and "<!--" open a comment; "\\u003c" is
    # JSON's own escape of "<" (so the text stays valid JSON, as "<\\!--" was not), and
    # U+2028/U+2029 are escaped too, which some script parsers take for line ends.
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def figure(chart: str, caption: str) -> str:
    """A chart with its caption.

    >>> figure("<svg></svg>", "a caption")
    '<figure><svg></svg><figcaption>a caption</figcaption></figure>'
    """
    return f"<figure>{chart}<figcaption>{caption}</figcaption></figure>"


def baseline_row(comparison, baseline: str | None, run: str, measure: str):
    """The comparison's row of ``run`` against ``baseline`` for ``measure``, or None."""
    if comparison is None:
        return None
    for row in comparison.rows:
        if row.measure == measure and row.run_b == run and row.run_a == baseline:
            return row
    return None
