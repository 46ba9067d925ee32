"""The report's judgment sections as values: the judge's bias per run and the leaderboard's rank intervals.

Both are computed here, outside the renderer, by the statistics of issue 38,
and handed to :mod:`rankproof.report.judgments_section` as plain data:

- ``judge_bias``: with a judge's qrels (``rankproof report ... --judge
  QRELS``), per page measure :func:`rankproof.stats.judge_bias.judge_bias_data`
  of the runs on the pairs both the report's (human) qrels and the judge
  labelled: each run's mean difference judge - human with its t interval,
  the test of an equal bias across runs and Kendall's tau between the two
  system orders;
- ``leaderboard``: with more than two runs, per page measure
  :func:`rankproof.stats.leaderboard.leaderboard_data` of the per-query
  values already evaluated (no second evaluation): each run's rank with a
  bootstrap interval over topics, its share of first places and the runs
  not separable from the best.

The page holds one row per run and measure (ranks, means, intervals): no
per-topic value, whatever the number of topics.

Examples
--------
>>> from rankproof import Qrels, Run, evaluate
>>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}})
>>> runs = {"A": Run.from_dict({"q1": ["a"], "q2": ["b"], "q3": ["c"]}),
...         "B": Run.from_dict({"q1": ["x", "a"], "q2": ["b"], "q3": ["c"]}),
...         "C": Run.from_dict({"q1": ["x"], "q2": ["x"], "q3": ["c"]})}
>>> results = [evaluate(qrels, run, ["rr"]).replace(run_name=name) for name, run in runs.items()]
>>> board = judgments_page(qrels, runs, results, ["rr"], resamples=200)["leaderboard"][0]
>>> [(row["system"], row["rank"]) for row in board["rows"]]
[('A', 1.0), ('B', 2.0), ('C', 3.0)]
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

__all__ = ["judgments_page", "with_judgments", "LEADERBOARD_RESAMPLES", "LEADERBOARD_MAX_TOPICS"]

# The leaderboard's bootstrap samples (as `rankproof leaderboard`): ranks are a coarse statistic,
# 1,000 draws place their percentile ends to within a rank step.
LEADERBOARD_RESAMPLES = 1000
# Each resample draws a count per topic: at 200,000 topics 1,000 resamples take ~40 s per measure (2
# loaded cores), for intervals that are a single rank by then. Past this many topics the page leaves
# the leaderboard out and says so (`rankproof leaderboard` computes it on request).
LEADERBOARD_MAX_TOPICS = 20_000


def judgments_page(qrels, runs: Mapping[str, Any], results: Sequence[Any], measures: Sequence[Any],
                   *,
                   judge=None, protocol=None, confidence: float = 0.95, alpha: float = 0.05,
                   resamples: int = LEADERBOARD_RESAMPLES, seed: int = 0) -> dict | None:
    """``{"judge_bias": [...], "leaderboard": [...], "missing": [...]}`` (one entry per measure), or None
    when neither applies (no judge's qrels and two runs or fewer).

    `qrels` are the human judgments (the report's), `judge` the judge's
    :class:`rankproof.Qrels`; `results` the runs' :class:`rankproof.Results`
    under `measures`, in the order of `runs`.
    """
    from ..stats.judge_bias import judge_bias, judge_bias_data
    from ..stats.leaderboard import leaderboard, leaderboard_data
    from ..stats.matrix import score_matrix

    out: dict[str, list] = {"judge_bias": [], "leaderboard": [], "missing": []}
    if judge is not None and len(runs) < 2:
        out["missing"].append("the judge's bias: it compares two or more runs, the report has one")
    elif judge is not None:
        out["judge_bias"] = [judge_bias_data(judge_bias(qrels, judge, runs, str(m),
                                                        protocol=protocol,
                                                        confidence=confidence, resamples=resamples,
                                                        seed=seed))
                             for m in measures]
    if len(results) > 2:
        for m in measures:
            _, matrix = score_matrix(results, m)
            if matrix.shape[0] < 2:
                out["missing"].append(f"the leaderboard of {m}: the runs share fewer than 2 queries")
                continue
            if matrix.shape[0] > LEADERBOARD_MAX_TOPICS:
                out["missing"].append(f"the leaderboard of {m}: {matrix.shape[0]:,} shared queries, past the "
                                      f"page's {LEADERBOARD_MAX_TOPICS:,} (run rankproof leaderboard for it)")
                continue
            out["leaderboard"].append(leaderboard_data(leaderboard(
                matrix, [r.run_name for r in results], str(m), resamples=resamples, seed=seed,
                confidence=confidence, alpha=alpha)))
    return out if any(out.values()) else None


def with_judgments(data, qrels, runs: Mapping[str, Any], measures: Sequence[Any], *, judge=None,
                   protocol=None,
                   confidence: float = 0.95, alpha: float = 0.05, seed: int = 0):
    """`data` (a :class:`~rankproof.pages.model.ReportData`) with its ``judgments`` field, and what is left
    out (and why) added to its ``missing``."""
    import dataclasses

    from ..protocol import Aggregation

    if protocol is not None and protocol.aggregation is not Aggregation.MACRO:
        if judge is None and len(data.results) < 3:
            return data
        return dataclasses.replace(data, missing=data.missing + (
            f"the judge's bias and the leaderboard: both compare per-query values, whose mean is the macro "
            f"mean, and this protocol aggregates {protocol.aggregation}",))
    found = judgments_page(qrels, runs, data.results, measures, judge=judge, protocol=protocol,
                           confidence=confidence, alpha=alpha, seed=seed)
    if found is None:
        return data
    return dataclasses.replace(data, judgments=found,
                               missing=data.missing + tuple(found["missing"]))
