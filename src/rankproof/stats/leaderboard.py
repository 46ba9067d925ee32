"""Leaderboard uncertainty: each system's rank with a bootstrap interval, and who cannot be told from the best.

A leaderboard orders systems by their mean over topics; with another
sample of topics it would order them differently. Here:

- each system's rank (1 = best mean; tied means share the average rank)
  with a percentile bootstrap interval over topics (topics drawn with
  replacement, the same draw for every system, seeded), and the share of
  resamples in which it ranks first;
- the systems not separable from the best: the best is the highest mean;
  each other system is tested against it by a one-sided paired t-test
  (H0: the best is not better), the p-values Holm-corrected over the
  systems; a system whose corrected p-value exceeds alpha cannot be told
  apart from the best, and stays in the set.

:func:`leaderboard_data` gives the same as plain data (lists, dicts,
floats) for the report.

References
----------
- B. Efron and R. Tibshirani, An Introduction to the Bootstrap, 1993.
- S. Holm, "A simple sequentially rejective multiple test procedure",
  Scandinavian Journal of Statistics 6(2), 1979.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import rankdata, ttest_rel

from rankproof.errors import InputError
from rankproof.stats.corrections import correct
from rankproof.stats.topic_bootstrap import topic_counts

__all__ = ["Leaderboard", "LeaderboardRow", "bootstrap_ranks", "leaderboard", "leaderboard_data",
           "leaderboard_of"]


@dataclass(frozen=True)
class LeaderboardRow:
    """One system: its mean, rank (1 = best), rank interval, share of resamples ranked first, and
    the Holm-corrected p-value of the best being better (NaN for the best)."""

    system: str
    mean: float
    rank: float
    rank_low: float
    rank_high: float
    first: float
    p_value: float
    separable: bool


@dataclass(frozen=True)
class Leaderboard:
    """The rows by rank; ``tied_with_best`` names the best and every system not separable from it."""

    measure: str
    rows: tuple[LeaderboardRow, ...]
    tied_with_best: tuple[str, ...]
    topics: int
    resamples: int
    seed: int
    confidence: float
    alpha: float


def bootstrap_ranks(matrix: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, systems) ranks of the systems' means over topics drawn with replacement (1 = best)."""
    topics = matrix.shape[0]
    return np.vstack([rankdata(-(counts @ matrix / topics), axis=1, method="average")
                      for counts in topic_counts(topics, resamples, seed)])


def leaderboard(matrix, systems: Sequence[str], measure: str = "", *, resamples: int = 1000,
                seed: int = 0,
                confidence: float = 0.95, alpha: float = 0.05) -> Leaderboard:
    """The leaderboard of a topics x systems score matrix (see the module docstring).

    Examples
    --------
    >>> scores = np.array([[0.9, 0.5, 0.4], [0.8, 0.6, 0.5], [0.7, 0.7, 0.3], [0.9, 0.4, 0.2]])
    >>> board = leaderboard(scores, ["a", "b", "c"], "p@5", resamples=200)
    >>> [(row.system, row.rank) for row in board.rows]
    [('a', 1.0), ('b', 2.0), ('c', 3.0)]
    """
    matrix = np.asarray(matrix, dtype=float)
    if (matrix.ndim != 2 or matrix.shape[1] != len(systems) or matrix.shape[1] < 2
        or matrix.shape[0] < 2):
        raise InputError(what="a leaderboard needs a topics x systems matrix of 2 or more of each, one name "
                              "per system column",
                         value=f"shape {matrix.shape}, {len(systems)} names")
    if not np.isfinite(matrix).all():
        raise InputError(what="the score matrix holds NaN or infinite values",
                         fix="evaluate every system on the same topics")
    if resamples < 1 or not 0 < confidence < 1 or not 0 < alpha < 1:
        raise InputError(what="resamples >= 1, confidence and alpha in (0, 1)",
                         value=f"{resamples}, {confidence}, {alpha}")
    means = matrix.mean(axis=0)
    ranks = rankdata(-means, method="average")
    draws = bootstrap_ranks(matrix, resamples, seed)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    best = int(np.argmax(means))
    others = [s for s in range(len(systems)) if s != best]
    raw = []
    for s in others:
        difference = matrix[:, best] - matrix[:, s]
        raw.append(1.0 if not difference.any() else
                   float(ttest_rel(matrix[:, best], matrix[:, s], alternative="greater").pvalue))
    adjusted = dict(zip(others, correct(np.array(raw), "holm").tolist()))
    rows = [LeaderboardRow(system=str(systems[s]), mean=float(means[s]), rank=float(ranks[s]),
                           rank_low=float(low[s]), rank_high=float(high[s]),
                           first=float(np.mean(draws[:, s] <= 1.0)),
                           p_value=adjusted.get(s, float("nan")),
                           separable=adjusted.get(s, 0.0) <= alpha
                           and s != best)
            for s in sorted(range(len(systems)), key=lambda s: (ranks[s], str(systems[s])))]
    tied = tuple(row.system for row in rows if not row.separable)
    return Leaderboard(measure=str(measure), rows=tuple(rows), tied_with_best=tied,
                       topics=matrix.shape[0],
                       resamples=resamples, seed=seed, confidence=confidence, alpha=alpha)


def leaderboard_data(board: Leaderboard) -> dict[str, Any]:
    """The leaderboard as plain data (JSON-ready) for the report: settings, rows, the set tied with the best."""
    return {"measure": board.measure, "topics": board.topics, "resamples": board.resamples,
            "seed": board.seed,
            "confidence": board.confidence, "alpha": board.alpha,
            "tied_with_best": list(board.tied_with_best),
            "rows": [{"system": r.system, "mean": r.mean, "rank": r.rank, "rank_low": r.rank_low,
                      "rank_high": r.rank_high, "first": r.first,
                      "p_value": None if np.isnan(r.p_value) else r.p_value,
                      "separable": r.separable}
                     for r in board.rows]}


def leaderboard_of(qrels, runs, measure: str, protocol=None, **options) -> Leaderboard:
    """:func:`leaderboard` of ``runs`` (``{name: Run}``) evaluated on the topics every run has."""
    from rankproof.evaluation import evaluate
    from rankproof.stats.matrix import score_matrix

    names = [str(name) for name in runs]
    evaluated = [evaluate(qrels, run, [measure], protocol) for run in runs.values()]
    _, matrix = score_matrix(evaluated, measure)
    return leaderboard(matrix, names, measure, **options)
