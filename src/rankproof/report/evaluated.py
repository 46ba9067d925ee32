"""A report page from evaluated :class:`~rankproof.Results` alone: nugget scores, or any results without rankings.

The page :func:`rankproof.report` draws needs the rankings for its curves
over k, precision-recall and the drill-down; nugget scores of answers
(:func:`rankproof.evaluate_nuggets`) have no ranking. What per-query values
give is drawn as for rankings: the means with their intervals, each
measure's distribution and, with two runs or more, the comparison of
:func:`rankproof.compare` (the same tests and corrections) and each query's
difference from the baseline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .figures import ReportData, from_results
from .inputs import InputFile

if TYPE_CHECKING:
    from ..stats.keywords import CorrectionName, TestName

__all__ = ["results_page"]


def results_page(results: Sequence, *, baseline: str | None = None, test: "TestName" = "randomization",
                 correction: "CorrectionName" = "holm", alpha: float = 0.05, confidence: float = 0.95, n_resamples: int = 10_000,
                 seed: int = 0, allow_mismatch: bool = False, command: str | None = None,
                 inputs: Sequence[InputFile] = (), title: str | None = None,
                 missing: Sequence[str] | None = None) -> ReportData:
    """The page's data for ``results`` (one per run, named by ``run_name``); with two runs or more,
    compared by :func:`rankproof.compare` against ``baseline`` (the first run by default)."""
    from ..stats import compare

    results = list(results)
    comparison = None
    if len(results) > 1:
        comparison = compare(None, {r.run_name: r for r in results}, None, test=test, correction=correction,
                             alpha=alpha, baseline=baseline or results[0].run_name, confidence=confidence,
                             n_resamples=n_resamples, seed=seed, allow_mismatch=allow_mismatch)
    return from_results(results, command=command, comparison=comparison, inputs=inputs, title=title,
                        missing=missing)
