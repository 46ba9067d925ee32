"""The page's statistics, chosen for the size of the data by :mod:`rankproof.stats`, and the sentences that
state the choice.

- Against the baseline: :func:`rankproof.compare` with ``method='auto'``: rows of fewer than 1,000 paired
  queries resample (the test asked for, randomization by default, and the bootstrap: their numbers are
  those of before); larger rows take the paired t-test and the normal interval where stats' checks
  (``rankproof.stats.asymptotic``: a Berry-Esseen bound and the skewness shift of the interval's ends,
  within the Monte Carlo error) show resampling could not tell them apart. ``Comparison.method_checks``
  are printed under the summary, with the Monte Carlo error of the resampled p-values.
- Each mean's interval and the segments: :meth:`Results.by <rankproof.Results.by>` (``interval='auto'``).
- Every run together (Tukey HSD letters and risk): only with more than two runs (with two, the paired
  test says the same), by ``analyse_matrices(method='auto')``.
"""

from __future__ import annotations

import math

import numpy as np

from .groups import ArrayLabels
from .ids import count_of, ids_of
from .summaries import sorted_values

__all__ = ["baseline_comparison", "mean_intervals", "systems_analysis", "segment_tables",
           "LARGE_QUERIES",
           "RISK_ALPHA", "RISK_BARS", "analyse", "fused_comparison"]

# From this many queries the page's matrices skip matching ids as text (the runs share one order).
LARGE_QUERIES = 5_000
MIN_RESAMPLES = 200
# Bootstrap intervals of each mean and of segments: at most this many resamples.
INTERVAL_RESAMPLES = 2000
RISK_ALPHA = 1.0
# Bars per risk-reward plot before the middle becomes an outline: the page repeats these topics'
# bars from the differences section, so this plot stays lighter.
RISK_BARS = 200


def _mc_error(resamples: int) -> str:
    return f"Monte Carlo standard error of a resampled p-value at most 0.5 / sqrt({resamples:,}) = " \
        f"{0.5 / math.sqrt(resamples):.4f}"


def baseline_comparison(results, measures, baseline: str, *, test, correction, alpha: float,
                        confidence: float,
                        n_resamples: int, seed: int):
    """(Comparison of every run against `baseline`, the sentence saying which methods and why)."""
    from ..stats import compare

    comparison = compare(None, {r.run_name: r for r in results}, measures, test=test,
                         correction=correction,
                         alpha=alpha, baseline=baseline, confidence=confidence,
                         n_resamples=n_resamples, seed=seed,
                         method="auto")
    queries = max(count_of(r) for r in results)
    checks = " ".join(line.rstrip(".") + "." for line in comparison.method_checks)
    return comparison, (f"Methods chosen for {queries:,} queries (method auto). {checks} "
                        f"{_mc_error(n_resamples)}.").replace("  ", " ")


def mean_intervals(results, confidence: float, n_resamples: int, seed: int) -> tuple[dict, str]:
    """Each run's interval of each mean (:meth:`Results.by <rankproof.Results.by>` with one segment), and its note.

    >>> from rankproof import Qrels, Run, evaluate
    >>> r = evaluate(Qrels.from_dict({"a": {"x": 1}, "b": {"x": 1}}), Run.from_dict({"a": ["x"], "b": ["y"]}), "rr")
    >>> intervals, note = mean_intervals([r], 0.95, 1000, 0)
    >>> intervals[r.run_name]["rr"], note   # resamples of (1, 0): means 0, 0.5 or 1
    ((0.0, 1.0), '95% interval of each mean: percentile bootstrap over queries (1,000 resamples, seed 0).')
    """
    used = min(n_resamples, INTERVAL_RESAMPLES)
    intervals, normal = {}, ""
    for r in results:
        queries = ids_of(r)
        table = r.by(ArrayLabels(queries, np.full(queries.size, "all")), confidence=confidence,
                     n_resamples=used,
                     seed=seed)
        intervals[r.run_name] = {row.measure: (row.low, row.high) for row in table}
        if table.normal_rows:
            normal = table.method_check
    if normal:
        return intervals, f"{confidence:.0%} interval of each mean, {normal}."
    return intervals, (f"{confidence:.0%} interval of each mean: percentile bootstrap over queries "
                       f"({used:,} resamples, seed {seed}).")


def segment_tables(results, segments, confidence: float, n_resamples: int, seed: int,
                   missing: list[str]) -> dict | None:
    """Each run's table by segment (stats chooses bootstrap or normal intervals by the segment's size)."""
    if segments is None:
        return None
    used = min(n_resamples, INTERVAL_RESAMPLES)
    return {r.run_name: r.by(segments, confidence=confidence, n_resamples=used, seed=seed,
                             unlabelled="group")
            for r in results}


def _matrices(results, measures) -> tuple[np.ndarray, dict]:
    """(topic ids, measure -> topics x runs matrix) on the topics every run has a value for."""
    from ..stats.matrix import score_matrix

    first = ids_of(results[0])
    # Many topics in one order (the usual case): the columns as they are, without matching ids as
    # text.
    if (first.size >= LARGE_QUERIES and all(count_of(r) == first.size
                                            and bool(np.all(ids_of(r) == first))
                                            for r in results[1:])):
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


def _section(matrices: dict, names: list, *, alpha: float, n_resamples: int, seed: int) -> tuple:
    """Tukey HSD (stats.systems, method auto): per measure (means, different pairs), method, advice."""
    from ..stats.systems import analyse_matrices

    analysis = analyse_matrices(matrices, names, alpha=alpha, n_resamples=n_resamples, seed=seed,
                                method="auto")
    first = analysis.measures[0].tests
    draws = ("every permutation" if first.exact
             else f"{first.n_resamples:,} permutations, seed {first.seed}")
    index = {name: i for i, name in enumerate(names)}
    per_measure = [(tuple(m.tests.means),
                    tuple((index[p.system_a], index[p.system_b]) for p in m.tests.significant))
                   for m in analysis.measures]
    method = first.method or (f"randomised Tukey HSD over all pairs, {draws}, family-wise alpha {first.alpha:g}; "
                              "Carterette 2012")
    return per_measure, method, f"{analysis.recommendation}."


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
        per_measure, method, advice = _section(matrices, names, alpha=alpha,
                                               n_resamples=n_resamples, seed=seed)
    except InputError as error:
        missing.append(f"Tukey HSD and risk: {error}")
        return None, ""
    section = SystemsSection(method=method, topics=int(topics.size), recommendation=advice,
                             measures=tuple(
        SystemsMeasure(measure=name, systems=tuple(names), means=means, different=pairs,
                       risk=_risk(topics, matrices[name], names, baseline))
        for name, (means, pairs) in zip(matrices, per_measure)))
    return section, ""

def analyse(results, measures, baseline: str, *, alpha: float, n_resamples: int, seed: int,
            missing: list):
    """The :class:`~rankproof.stats.systems.SystemsAnalysis` of the runs, or None (the earlier
    ``rankproof.report.systems_page.analyse``)."""
    from ..stats.matrix import score_matrix
    from ..stats.systems import analyse_matrices

    del missing
    matrices = {str(m): score_matrix(results, m)[1] for m in measures}
    return analyse_matrices(matrices, [r.run_name for r in results], baselines=[baseline],
                            alpha=alpha,
                            n_resamples=n_resamples, seed=seed, risk_alpha=RISK_ALPHA)


def fused_comparison(results, fused: str, *, test, correction, alpha: float, confidence: float,
                     n_resamples: int, seed: int):
    """The fused run's Results against every other run's (the earlier
    ``rankproof.report.fusion.fused_comparison``)."""
    return baseline_comparison(results, list(results[0].measures), fused, test=test,
                               correction=correction,
                               alpha=alpha, confidence=confidence, n_resamples=n_resamples,
                               seed=seed)[0]
