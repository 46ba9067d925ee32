"""The report's judgment sections: the judge's bias per run and the leaderboard's rank intervals.

A renderer only: the values are made by
:func:`rankproof.pages.judgments.judgments_page` (plain data) and drawn
here with :mod:`.judgments_figures`. Two sections:

- ``judge-bias`` (with ``--judge``): per measure, a table of each run's mean
  under the human and the judge's labels and the difference with its
  interval, the forest plot of the differences, and in words the test of an
  equal bias and Kendall's tau between the two orders of the runs;
- ``leaderboard`` (more than two runs): per measure, each run's rank with its
  bootstrap interval, share of first places and the Holm-corrected p of the
  best being better, and the plot of the rank intervals.

>>> html = judge_bias_section([{"measure": "ap", "pairs": 9, "topics": 3, "confidence": 0.95,
...     "runs": [{"run": "a", "human": 0.5, "judge": 0.6, "difference": 0.1, "low": 0.0, "high": 0.2}],
...     "equal_bias": {"f": 1.0, "p": 0.5, "df": [1, 2]}, "tau_b": 1.0, "tau_ap": 1.0,
...     "tau_b_interval": [1.0, 1.0], "tau_ap_interval": [1.0, 1.0]}])
>>> 'id="judge-bias"' in html, 'data-figure="judge-bias"' in html
(True, True)
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Mapping, Sequence

from .cells import figure
from .judgments_figures import judge_bias_figure, leaderboard_figure

__all__ = ["judge_bias_section", "leaderboard_section", "section", "titles", "TITLES"]

TITLES = (("judge-bias", "judge bias"), ("leaderboard", "leaderboard"))


def _num(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return '<span class="muted">-</span>'
    return f"{value:.{digits}f}"


def _cell(value: Any, key: str, row: str, measure: str, digits: int = 4) -> str:
    data = ("null" if value is None or (isinstance(value, float) and not math.isfinite(value))
            else repr(float(value)))
    return (f'<td class="num" data-key="{key}" data-run="{escape(row)}" data-measure="{escape(measure)}" '
            f'data-value="{escape(data)}">{_num(value, digits)}</td>')


def _block(m: str, kind: str, table: str, words: str, chart: str, caption: str) -> str:
    """One measure's part of a section: its table, what it says, and its figure."""
    return (f'<h3>{escape(m)}</h3><table class="summary {kind}" data-measure="{escape(m)}">{table}'
            f"</table>{words}{figure(chart, caption)}")


def _bias_measure(data: dict[str, Any]) -> str:
    m = data["measure"]
    level = f"{data['confidence']:.0%}"
    head = ("<tr><th class=text>run</th><th>human</th><th>judge</th><th>judge - human</th>"
            f"<th>{level} low</th><th>{level} high</th></tr>")
    rows = "".join(f"<tr><td class=text>{escape(r['run'])}</td>" + "".join(
        _cell(r[key], f"bias_{key}", r["run"], m)
        for key in ("human", "judge", "difference", "low", "high"))
        + "</tr>" for r in data["runs"])
    equal = data["equal_bias"]
    df = equal["df"]
    words = (f"Equal bias across runs (two-way ANOVA of the per-topic differences, topics x runs): "
             f"F({df[0]}, {df[1]}) = {_num(equal['f'], 3)}, p = {_num(equal['p'], 4)}. Order of the runs, "
             f"judge against human: Kendall tau-b {_num(data['tau_b'], 3)} "
             f"[{_num(data['tau_b_interval'][0], 3)}, {_num(data['tau_b_interval'][1], 3)}], tau_AP "
             f"{_num(data['tau_ap'], 3)} [{_num(data['tau_ap_interval'][0], 3)}, "
             f"{_num(data['tau_ap_interval'][1], 3)}].")
    caption = (f"{escape(m)}: each run's mean difference judge - human over {data['topics']:,} topics, with its "
               f"{level} t interval; a dot right of 0: the judge scores the run higher than the humans")
    return _block(m, "judge-bias", head + rows, f"<p>{escape(words)}</p>", judge_bias_figure(data),
                  caption)


def judge_bias_section(data: Sequence[dict[str, Any]]) -> str:
    """The judge-bias section for :func:`rankproof.pages.judgments.judgments_page`'s ``judge_bias`` list."""
    if not data:
        return ""
    first = data[0]
    intro = (f"<p>The runs evaluated twice on the {first['pairs']:,} (query, doc) pairs both the report's qrels "
             "(the humans) and the judge labelled, so that a run's two values differ only by who labelled. "
             "A judge that shifts every run alike keeps the runs' order; one that favours some runs does not.</p>")
    return (f'<section id="judge-bias"><h2>Judge bias</h2>{intro}'
            + "".join(_bias_measure(d) for d in data) + "</section>")


def _board_measure(data: dict[str, Any]) -> str:
    m = data["measure"]
    level = f"{data['confidence']:.0%}"
    head = (f"<tr><th class=text>run</th><th>mean</th><th>rank</th><th>{level} low</th><th>{level} high</th>"
            "<th>first</th><th>p (Holm)</th><th class=text>tied with the best</th></tr>")
    tied = set(data["tied_with_best"])
    rows = "".join(
        f"<tr><td class=text>{escape(r['system'])}</td>"
        + _cell(r["mean"], "board_mean", r["system"], m)
        + "".join(_cell(r[key], f"board_{key}", r["system"], m, 1)
                  for key in ("rank", "rank_low", "rank_high"))
        + _cell(r["first"], "board_first", r["system"], m, 3)
        + _cell(r["p_value"], "board_p", r["system"], m)
        + f"<td class=text>{'yes' if r['system'] in tied else 'no'}</td></tr>"
        for r in data["rows"])
    caption = (f"rank by {escape(m)} (1 = best) with its {level} percentile interval over {data['resamples']:,} "
               f"bootstrap samples of the {data['topics']:,} topics (seed {data['seed']}); in colour: the runs "
               f"not separable from the best (one-sided paired t-tests, Holm, alpha {data['alpha']})")
    return _block(m, "leaderboard", head + rows, "", leaderboard_figure(data), caption)


def leaderboard_section(data: Sequence[dict[str, Any]]) -> str:
    """The leaderboard section for :func:`rankproof.pages.judgments.judgments_page`'s ``leaderboard`` list."""
    if not data:
        return ""
    intro = ("<p>How sure is the order of the runs? With another sample of topics it could differ: each run's "
             "rank with its bootstrap interval, the share of samples in which it ranks first, and whether it "
             "can be told apart from the best.</p>")
    return (f'<section id="leaderboard"><h2>Leaderboard</h2>{intro}'
            + "".join(_board_measure(d) for d in data) + "</section>")


def titles(data: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The section links of the page's header for the sections `data` gives."""
    data = data or {}
    return [title for title, key in zip(TITLES, ("judge_bias", "leaderboard")) if data.get(key)]


def section(data: Mapping[str, Any] | None) -> str:
    """Both sections (each only when its data is there), in page order."""
    data = data or {}
    return (judge_bias_section(data.get("judge_bias", ()))
            + leaderboard_section(data.get("leaderboard", ())))
