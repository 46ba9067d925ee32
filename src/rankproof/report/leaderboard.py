"""Text of leaderboard uncertainty (:mod:`rankproof.stats.leaderboard`) and of the aggregation over
collections (:mod:`rankproof.stats.across_collections`); renderers only, no computation."""

from __future__ import annotations

import math

__all__ = ["aggregate_lines", "leaderboard_lines", "meta_analysis_lines"]


def _p(value: float) -> str:
    return "" if math.isnan(value) else ("<0.0001" if value < 1e-4 else f"{value:.4f}")


def leaderboard_lines(board, digits: int = 4) -> list[str]:
    """The rank of every system with its bootstrap interval, and the systems not separable from the best."""
    level = f"{board.confidence:.0%}"
    lines = [f"leaderboard by {board.measure} ({board.topics} topics; rank 1 = best; {level} percentile "
             f"bootstrap over topics, {board.resamples} resamples, seed {board.seed}):",
             f"  {'system':<22}{'mean':>10}{'rank':>7}  {level + ' interval':<16}{'first':>7}{'p vs best':>11}"]
    for row in board.rows:
        interval = f"[{row.rank_low:g}, {row.rank_high:g}]"
        lines.append(f"  {row.system:<22}{row.mean:>10.{digits}f}{row.rank:>7g}  {interval:<16}"
                     f"{row.first:>7.3f}{_p(row.p_value):>11}".rstrip())
    lines.append(f"not separable from the best ({board.tied_with_best[0]}; one-sided paired t-tests, Holm, "
                 f"alpha {board.alpha:g}): {', '.join(board.tied_with_best)}")
    return lines


def aggregate_lines(ranking, digits: int = 4) -> list[str]:
    """Each system's mean of collection means and Borda points."""
    collections = list(ranking.per_collection)
    lines = [f"over {len(collections)} collections: mean of the collection means, and Borda points "
             "(n - rank on each collection):",
             f"  {'system':<22}" + "".join(f"{str(c)[:12]:>13}" for c in collections)
             + f"{'mean':>10}{'Borda':>8}"]
    for system in ranking.by_mean:
        lines.append(f"  {system:<22}"
                     + "".join(f"{ranking.per_collection[c][system]:>13.{digits}f}"
                                              for c in collections)
                     + f"{ranking.means[system]:>10.{digits}f}{ranking.borda[system]:>8g}")
    return lines


def meta_analysis_lines(result, digits: int = 4) -> list[str]:
    """The per-collection effects and the random-effects estimate with its heterogeneity."""
    lines = [f"random-effects meta-analysis of {result.system_a} - {result.system_b} (DerSimonian-Laird):"]
    lines += [f"  {str(c):<22}{d:>+10.{digits}f}  se {math.sqrt(v):.{digits}f}"
              for c, d, v in zip(result.collections, result.effects, result.variances)]
    lines.append(f"  pooled {result.effect:+.{digits}f}  {result.confidence:.0%} [{result.low:+.{digits}f}, "
                 f"{result.high:+.{digits}f}]  p {_p(result.p_value)}")
    lines.append(f"  heterogeneity: tau^2 {result.tau2:.{digits + 2}f}  I^2 {result.i2:.1%}  "
                 f"Q {result.q:.3f} (p {_p(result.q_p_value)})")
    return lines
