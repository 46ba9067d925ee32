"""Page models from evaluated :class:`~rankproof.Results` or a :class:`~rankproof.Comparison` alone.

The page :func:`rankproof.report` draws needs the rankings for its curves
over k, precision-recall and the drill-down; nugget scores of answers
(:func:`rankproof.evaluate_nuggets`) and saved results have none. What
per-query values give is drawn as for rankings: the means with their
intervals, each measure's distribution and, with two runs or more, the
comparison of :func:`rankproof.compare` and each query's difference from the
baseline.
"""

from __future__ import annotations

from typing import Sequence

from ..stats.keywords import CorrectionName, TestName
from .build import version
from .inputs import InputFile
from .model import ReportData
from .statistics import mean_intervals
from .summaries import differences, histograms

__all__ = ["from_results", "from_comparison", "results_page"]


def from_results(results, *, command: str | None = None, comparison=None,
                 inputs: Sequence[InputFile] = (),
                 title: str | None = None, missing: Sequence[str] | None = None) -> ReportData:
    """What a page can show from evaluated results alone (no rankings: no curves, no drill-down);
    with their ``comparison`` (:func:`rankproof.compare` of them), its table and each query's difference
    from its baseline (the first run when it has none)."""
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    first = results[0]
    intervals, interval_note = mean_intervals(results, 0.95, 2000, 0)
    measures = first.measures
    baseline = None if comparison is None else comparison.baseline or comparison.runs[0]
    return ReportData(
        title=title or f"rankproof results: {', '.join(r.run_name for r in results)}",
        version=version(),
        command=command, protocol=first.protocol, qrels_digest=first.qrels_digest,
        inputs=tuple(inputs),
        results=tuple(results), comparison=comparison, baseline=baseline,
        mean_intervals=intervals, interval_note=interval_note,
        histograms=histograms(results, measures),
        differences=None if baseline is None else differences(results, baseline, measures),
        missing=tuple(missing) if missing is not None else (
            "measures over cutoffs, judged@k, precision-recall curves, the drill-down and how the numbers are "
            "made need the rankings: use rankproof.report(qrels, runs) or the rankproof report command",
            "significance against a baseline: use rankproof.report with two or more runs"),
    )


def from_comparison(comparison, *, command: str | None = None) -> ReportData:
    """What a page can show from a comparison alone: its table, settings and protocol."""
    return ReportData(
        title=f"rankproof comparison: {', '.join(comparison.runs)}", version=version(),
        command=command,
        protocol=comparison.protocol, qrels_digest=comparison.qrels_digest, comparison=comparison,
        baseline=comparison.baseline,
        missing=("per-query values, curves and the drill-down are not kept in a Comparison: use "
                 "rankproof.report(qrels, runs) or the rankproof report command",),
    )


def results_page(results: Sequence, *, baseline: str | None = None,
                 test: TestName = "randomization",
                 correction: CorrectionName = "holm", alpha: float = 0.05, confidence: float = 0.95,
                 n_resamples: int = 10_000, seed: int = 0, allow_mismatch: bool = False,
                 command: str | None = None,
                 inputs: Sequence[InputFile] = (), title: str | None = None,
                 missing: Sequence[str] | None = None) -> ReportData:
    """The page's data for ``results`` (one per run, named by ``run_name``); with two runs or more,
    compared by :func:`rankproof.compare` against ``baseline`` (the first run by default)."""
    from ..stats import compare

    results = list(results)
    comparison = None
    if len(results) > 1:
        comparison = compare(None, {r.run_name: r for r in results}, None, test=test,
                             correction=correction,
                             alpha=alpha, baseline=baseline or results[0].run_name,
                             confidence=confidence,
                             n_resamples=n_resamples, seed=seed, allow_mismatch=allow_mismatch)
    return from_results(results, command=command, comparison=comparison, inputs=inputs, title=title,
                        missing=missing)
