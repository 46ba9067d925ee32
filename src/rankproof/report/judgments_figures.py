"""Figures of the judgment analyses, drawn from their plain data (renderers only, no computation).

- :func:`judge_bias_figure`: a forest plot of each run's judge - human
  difference with its interval (the data of
  :func:`rankproof.stats.judge_bias.judge_bias_data`);
- :func:`leaderboard_figure`: each system's rank with its bootstrap
  interval (the data of :func:`rankproof.stats.leaderboard.leaderboard_data`).

Each returns an inline ``<svg>`` for the HTML report; :func:`standalone`
makes one a file a browser opens on its own.

>>> svg = judge_bias_figure({"measure": "ap", "runs": [{"run": "a", "difference": 0.02, "low": 0.0, "high": 0.04}]})
>>> svg.count('class="mark'), 'data-figure="judge-bias"' in svg
(2, True)
"""

from __future__ import annotations

from typing import Any

from .svg import PALETTE, interval_chart

__all__ = ["judge_bias_figure", "leaderboard_figure", "standalone"]


def judge_bias_figure(data: dict[str, Any]) -> str:
    """Each run's judge - human difference of the measure, with its interval, around a line at 0."""
    rows = [(row["run"], "judge - human", PALETTE[0], row["difference"], row["low"], row["high"])
            for row in data["runs"]]
    return interval_chart("judge-bias", rows, x_label=f"{data['measure']}: judge - human",
                          zero_line=True)


def leaderboard_figure(data: dict[str, Any]) -> str:
    """Each system's rank (1 = best) with its bootstrap interval; the systems tied with the best in colour."""
    tied = set(data["tied_with_best"])
    rows = [(row["system"], "rank", PALETTE[0] if row["system"] in tied else PALETTE[9],
             row["rank"],
             row["rank_low"], row["rank_high"]) for row in data["rows"]]
    return interval_chart("leaderboard-ranks", rows,
                          x_label=f"rank by {data['measure']} (1 = best)")


def standalone(svg: str) -> str:
    """The figure as an SVG file (with its namespace)."""
    return svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1) + "\n"
