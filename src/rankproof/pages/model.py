"""The page model: what each section of the HTML report shows, as values.

:class:`ReportData` is made by :func:`rankproof.pages.build.prepare` (from the
evaluation step's :class:`~rankproof.Results` and the statistics' values) and
read by :func:`rankproof.report.html.render`, which only draws it. Everything
in it is bounded whatever the number of queries: per-query series are thinned
to :class:`SortedValues` (the extremes with their ids and an outline), and the
drill-down keeps a chosen sample of queries; the full per-query table is
written beside the page (:mod:`rankproof.report.per_query`), not into it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from ..protocol import Protocol
from .inputs import InputFile

__all__ = ["ReportData", "SortedValues", "SystemsSection", "SystemsMeasure", "PR_LEVELS",
           "natural_order", "DRILL_DEPTH", "MAX_CUTOFF",
           "HISTOGRAM_BINS", "MAX_DRILL_ROWS", "MIN_DRILL_DEPTH", "MAX_BARS"]

PR_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MAX_CUTOFF = 100
DRILL_DEPTH = 20
HISTOGRAM_BINS = 20
# The drill-down's rows (queries x runs x depth) are kept under this, about 1.5 MB of the page:
# the depth shrinks to 5 first, then the drill-down keeps a chosen sample of the queries.
MAX_DRILL_ROWS = 50_000
MIN_DRILL_DEPTH = 5
# Bars of a sorted per-query chart (half at each end); past it the middle is an outline.
MAX_BARS = 600


def natural_order(queries: Sequence[str]) -> list[str]:
    """Query ids in reading order: numbers by value, then the rest by text.

    >>> natural_order(["10", "2", "b", "1", "a"])
    ['1', '2', '10', 'a', 'b']
    """
    return sorted(queries, key=lambda q: (0, int(q), q) if q.isdigit() else (1, 0, q))


@dataclasses.dataclass(frozen=True)
class SortedValues:
    """One value per query, sorted ascending, kept bounded for a chart.

    ``count`` values in all; ``bars``: ``(position, query, value)`` of every
    value when there are at most ``MAX_BARS`` (600), else of the ``MAX_BARS / 2``
    at each end; ``outline``: ``(position, value)`` of every ``step``-th value
    and the last one (empty when every value has a bar); ``bound``: the
    largest absolute value.
    """

    count: int
    bars: tuple[tuple[int, str, float], ...]
    outline: tuple[tuple[int, float], ...] = ()
    bound: float = 0.0


@dataclasses.dataclass(frozen=True)
class SystemsMeasure:
    """One measure of the many-system section: each run's mean, the pairs found different (indices into
    ``systems``) and, per run against the baseline, its risk row and sorted risk-weighted differences."""

    measure: str
    systems: tuple[str, ...]
    means: tuple[float, ...]
    different: tuple[tuple[int, int], ...]
    risk: tuple[tuple[Any, SortedValues], ...] = ()


@dataclasses.dataclass(frozen=True)
class SystemsSection:
    """Every run together (more than two runs): the method in words, the shared topics, and each measure."""

    method: str
    topics: int
    recommendation: str
    measures: tuple[SystemsMeasure, ...]


@dataclasses.dataclass(frozen=True)
class ReportData:
    """Everything the HTML report shows. Fields a source cannot give are None
    (a :class:`~rankproof.Results` alone has no rankings to drill into), and
    ``missing`` says in words what is left out and why, ``added`` what the page shows that was
    not asked for and why."""

    title: str
    version: str
    command: str | None
    protocol: Protocol
    qrels_digest: str | None
    inputs: tuple[InputFile, ...] = ()
    results: tuple[Any, ...] = ()
    comparison: Any = None
    baseline: str | None = None
    mean_intervals: dict | None = None      # run -> measure -> (low, high)
    interval_note: str = ""
    cutoffs: tuple[int, ...] = ()
    cutoff_curves: dict | None = None       # run -> measure name -> means at each cutoff
    judged_curves: dict | None = None       # run -> judged@k means at each cutoff
    pr_curves: dict | None = None           # run -> mean iprec at each of PR_LEVELS
    pr_note: str = ""
    curve_note: str = ""                    # how the curves were drawn when not from every query
    histograms: dict | None = None          # measure -> {"edges": [...], "counts": {run: [counts]}}
    differences: dict | None = None         # measure -> run -> SortedValues of run - baseline
    gain_discount: dict | None = None
    drill: dict | None = None
    segments: dict | None = None            # run -> Segments
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()             # shown though not asked for, and why
    fused: str | None = None                # the run that fuses the others (report/fusion.py)
    fusion: Any = None                      # its Comparison against each of them
    systems: SystemsSection | None = None   # Tukey HSD letters and risk (report/systems_page.py)
    beyond: dict | None = None              # side-data measures and curves (report/beyond.py)
    # which statistics were used, chosen for the data's size, and why
    method_note: str = ""
    per_query_file: str | None = None       # the full per-query table's file beside the page
    judgments: dict | None = None           # judge bias and leaderboard (pages/judgments.py)
