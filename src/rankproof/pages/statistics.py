"""The page's statistics, chosen for the size of the data, and the sentence that states the choice.

- Against the baseline: with fewer than :data:`LARGE_QUERIES` queries, the
  test asked for (randomization by default) and a bootstrap interval, from
  :func:`rankproof.compare`, with the resamples asked for (the Monte Carlo
  standard error of a p-value is at most 0.5 / sqrt(R): 0.005 at 10,000).
  From :data:`LARGE_QUERIES` on, the paired t-test and the t interval
  (:func:`rankproof.stats.normal.normal_comparison`) when the Berry-Esseen
  bound of every row is at most :data:`NORMAL_BOUND`: the sign-flip and
  bootstrap distributions are then that close to the normal. Otherwise the
  resampling methods, with as many resamples as :data:`RESAMPLE_CELLS` allows.
- Each mean's interval: a percentile bootstrap over queries for small data,
  the t interval for large.
- Every run together (Tukey HSD letters and risk): only with more than two
  runs; with two, the paired test above says the same.
"""

from __future__ import annotations

import math

import numpy as np

from .ids import count_of, ids_of
from .summaries import sorted_values

__all__ = ["baseline_comparison", "mean_intervals", "systems_analysis", "segment_tables", "LARGE_QUERIES",
           "NORMAL_BOUND", "RESAMPLE_CELLS", "RISK_ALPHA", "RISK_BARS", "analyse", "fused_comparison"]

LARGE_QUERIES = 5_000
NORMAL_BOUND = 0.02
# Resampled values one statistic may draw (queries x resamples), about 2 s of numpy.
RESAMPLE_CELLS = 200_000_000
MIN_RESAMPLES = 200
# Bootstrap intervals of each mean and of segments: at most this many resamples.
INTERVAL_RESAMPLES = 2000
RISK_ALPHA = 1.0
# Bars per risk-reward plot before the middle becomes an outline: the page repeats these topics' bars
# from the differences section, so this plot stays lighter.
RISK_BARS = 200


def _resamples(queries: int, asked: int) -> int:
    return max(MIN_RESAMPLES, min(asked, RESAMPLE_CELLS // max(queries, 1)))


def _mc_error(resamples: int) -> str:
    return f"Monte Carlo standard error of each p-value at most 0.5 / sqrt({resamples:,}) = {0.5 / math.sqrt(resamples):.4f}"


def baseline_comparison(results, measures, baseline: str, *, test, correction, alpha: float, confidence: float,
                        n_resamples: int, seed: int):
    """(Comparison of every run against `baseline`, the sentence saying which methods and why)."""
    from ..stats import compare
    from ..stats.normal import normal_comparison

    queries = max(count_of(r) for r in results)
    if queries >= LARGE_QUERIES:
        comparison, bounds = normal_comparison(results, measures, baseline, correction=correction, alpha=alpha,
                                               confidence=confidence)
        worst = max(bounds.values(), default=0.0)
        if worst <= NORMAL_BOUND:
            return comparison, (
                f"Methods chosen for {queries:,} queries: the paired t-test and the t interval of each difference. "
                f"Check: the sign-flip (randomization) and bootstrap distributions of every mean difference are "
                f"within {worst:.4f} of the normal (Berry-Esseen bound, largest over the rows; the switch needs at "
                f"most {NORMAL_BOUND:g}), so resampling would give the same p-values and intervals to that error.")
        used = _resamples(queries, n_resamples)
        note = (f"The per-query differences are too skewed for the normal approximation (Berry-Esseen bound "
                f"{worst:.4f} > {NORMAL_BOUND:g}): {test} test and bootstrap interval, {used:,} resamples; "
                f"{_mc_error(used)}.")
    else:
        used = n_resamples
        note = (f"Methods for {queries:,} queries: the {test} test and a bootstrap interval, {used:,} resamples"
                + (f"; {_mc_error(used)}." if test == "randomization" else "."))
    named = {r.run_name: r for r in results}
    return compare(None, named, measures, test=test, correction=correction, alpha=alpha, baseline=baseline,
                   confidence=confidence, n_resamples=used, seed=seed), note


def mean_intervals(results, confidence: float, n_resamples: int, seed: int) -> tuple[dict, str]:
    """Each run's interval of each mean, and its note.

    >>> from rankproof import Qrels, Run, evaluate
    >>> r = evaluate(Qrels.from_dict({"a": {"x": 1}, "b": {"x": 1}}), Run.from_dict({"a": ["x"], "b": ["y"]}), "rr")
    >>> intervals, note = mean_intervals([r], 0.95, 1000, 0)
    >>> intervals[r.run_name]["rr"], note   # resamples of (1, 0): means 0, 0.5 or 1
    ((0.0, 1.0), '95% interval of each mean: percentile bootstrap over queries (1,000 resamples, seed 0).')
    """
    from ..stats.normal import normal_interval

    queries = max(count_of(r) for r in results)
    if queries >= LARGE_QUERIES:
        intervals = {r.run_name: {str(m): normal_interval(r.values(m), confidence) for m in r.measures}
                     for r in results}
        return intervals, (f"{confidence:.0%} interval of each mean: the t interval (mean +- t s / sqrt(n)), chosen "
                           f"for {queries:,} queries, where the bootstrap's percentiles equal it to within its "
                           "Monte Carlo error.")
    used = min(n_resamples, INTERVAL_RESAMPLES)
    intervals = {}
    for r in results:
        table = r.by({q: "all" for q in r.queries}, confidence=confidence, n_resamples=used, seed=seed)
        intervals[r.run_name] = {row.measure: (row.low, row.high) for row in table}
    return intervals, (f"{confidence:.0%} interval of each mean: percentile bootstrap over queries "
                       f"({used:,} resamples, seed {seed}).")


def segment_tables(results, segments, confidence: float, n_resamples: int, seed: int,
                   missing: list[str]) -> dict | None:
    """Each run's table by segment, or None (and why in `missing` when the bootstrap would be too big)."""
    if segments is None:
        return None
    queries = count_of(results[0])
    used = min(n_resamples, INTERVAL_RESAMPLES, RESAMPLE_CELLS // max(queries, 1))
    if used < MIN_RESAMPLES:
        missing.append(f"segments: with {queries:,} queries their bootstrap intervals would draw more than "
                       f"{RESAMPLE_CELLS:,} values")
        return None
    return {r.run_name: r.by(segments, confidence=confidence, n_resamples=used, seed=seed, unlabelled="group")
            for r in results}


def _matrices(results, measures) -> tuple[np.ndarray, dict]:
    """(topic ids, measure -> topics x runs matrix) on the topics every run has a value for."""
    from ..stats.matrix import score_matrix

    first = ids_of(results[0])
    # Many topics in one order (the usual case): the columns as they are, without matching ids as text.
    if first.size >= LARGE_QUERIES and all(count_of(r) == first.size and bool(np.all(ids_of(r) == first)) for r in results[1:]):
        matrices = {str(m): np.column_stack([r.values(m) for r in results]) for m in measures}
        finite = np.all([np.isfinite(x).all(axis=1) for x in matrices.values()], axis=0)
        return first[finite].astype(str), {name: x[finite] for name, x in matrices.items()}
    topics: np.ndarray = np.array([])
    matrices = {}
    for m in measures:
        topics, matrices[str(m)] = score_matrix(results, m)
    return np.asarray(topics).astype(str), matrices


def _risk(topics: np.ndarray, matrix: np.ndarray, names: list, baseline: str) -> tuple:
    """Each run's risk row against the baseline and its sorted risk-weighted differences."""
    from ..stats.risk import risk_table

    base = matrix[:, names.index(baseline)]
    rows = []
    for risk in risk_table(matrix, names, baselines=[baseline], alpha=RISK_ALPHA):
        delta = matrix[:, names.index(risk.run)] - base
        weighted = np.where(delta >= 0, delta, (1 + risk.alpha) * delta)
        rows.append((risk, sorted_values(topics, weighted, max_bars=RISK_BARS)))
    return tuple(rows)


def _resampled_section(matrices: dict, names: list, *, alpha: float, n_resamples: int, seed: int,
                       topics: int) -> tuple[list, str, str, str]:
    """Randomised Tukey HSD (stats.systems): per measure (means, different pairs), method, advice, note."""
    from ..stats.systems import analyse_matrices

    used = max(100, min(n_resamples, RESAMPLE_CELLS // max(topics * len(names), 1)))
    analysis = analyse_matrices(matrices, names, alpha=alpha, n_resamples=used, seed=seed)
    first = analysis.measures[0].tests
    draws = "every permutation" if first.exact else f"{first.n_resamples:,} permutations, seed {first.seed}"
    index = {name: i for i, name in enumerate(names)}
    per_measure = [(tuple(m.tests.means), tuple((index[p.system_a], index[p.system_b]) for p in m.tests.significant))
                   for m in analysis.measures]
    note = "" if used == n_resamples else (f"{used:,} permutations (not {n_resamples:,}) for {topics:,} topics: "
                                           f"{_mc_error(used)}.")
    return (per_measure, f"randomised Tukey HSD over all pairs, {draws}, family-wise alpha {first.alpha:g}; "
            "Carterette 2012", f"{analysis.recommendation}.", note)


def _normal_section(matrices: dict, *, alpha: float, topics: int) -> tuple[list, str, str, str] | None:
    """Tukey HSD from the studentized range (stats.normal.tukey_normal), or None when the check fails."""
    from ..stats.normal import tukey_normal

    per_measure, worst, df = [], 0.0, 0
    for matrix in matrices.values():
        p, bound, df = tukey_normal(matrix)
        worst = max(worst, bound)
        k = matrix.shape[1]
        pairs = tuple((i, j) for i in range(k) for j in range(i + 1, k) if p[i, j] < alpha)
        per_measure.append((tuple(matrix.mean(axis=0).tolist()), pairs))
    if worst > NORMAL_BOUND:
        return None
    return (per_measure, f"Tukey HSD over all pairs from the studentized range with the residual variance of the "
            f"two-way analysis of variance ({df:,} degrees of freedom), family-wise alpha {alpha:g}, chosen for "
            f"{topics:,} topics; check: every pairwise per-topic difference's sign-flip distribution is within "
            f"{worst:.4f} of the normal (Berry-Esseen)", "", "")


def systems_analysis(results, measures, baseline: str, *, alpha: float, n_resamples: int, seed: int,
                     missing: list) -> tuple:
    """(SystemsSection or None, note): Tukey HSD letters and risk of every run together, with more than
    two runs (two runs: the paired test says the same)."""
    if len(results) < 3:
        return None, ""
    from ..errors import InputError
    from .model import SystemsMeasure, SystemsSection

    names = [r.run_name for r in results]
    topics, matrices = _matrices(results, measures)
    if topics.size < 3:
        missing.append(f"Tukey HSD and risk: the runs share {topics.size} topics with a value; at least 3 needed")
        return None, ""
    try:
        made = _normal_section(matrices, alpha=alpha, topics=topics.size) if topics.size >= LARGE_QUERIES else None
        if made is None:
            made = _resampled_section(matrices, names, alpha=alpha, n_resamples=n_resamples, seed=seed,
                                      topics=topics.size)
    except InputError as error:
        missing.append(f"Tukey HSD and risk: {error}")
        return None, ""
    per_measure, method, advice, note = made
    section = SystemsSection(method=method, topics=int(topics.size), recommendation=advice, measures=tuple(
        SystemsMeasure(measure=name, systems=tuple(names), means=means, different=pairs,
                       risk=_risk(topics, matrices[name], names, baseline))
        for name, (means, pairs) in zip(matrices, per_measure)))
    return section, note

def analyse(results, measures, baseline: str, *, alpha: float, n_resamples: int, seed: int, missing: list):
    """The :class:`~rankproof.stats.systems.SystemsAnalysis` of the runs, or None (the earlier
    ``rankproof.report.systems_page.analyse``)."""
    from ..stats.matrix import score_matrix
    from ..stats.systems import analyse_matrices

    del missing
    matrices = {str(m): score_matrix(results, m)[1] for m in measures}
    return analyse_matrices(matrices, [r.run_name for r in results], baselines=[baseline], alpha=alpha,
                            n_resamples=n_resamples, seed=seed, risk_alpha=RISK_ALPHA)


def fused_comparison(results, fused: str, *, test, correction, alpha: float, confidence: float,
                     n_resamples: int, seed: int):
    """The fused run's Results against every other run's (the earlier
    ``rankproof.report.fusion.fused_comparison``)."""
    return baseline_comparison(results, list(results[0].measures), fused, test=test, correction=correction,
                               alpha=alpha, confidence=confidence, n_resamples=n_resamples, seed=seed)[0]
