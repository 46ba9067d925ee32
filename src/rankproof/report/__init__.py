"""Renderers: Results, comparisons, explanations and the page model to text and HTML. Renderers never compute:
nothing here evaluates, tests or resamples; the report's numbers come from :mod:`rankproof.pages`.

The package is also callable: ``rankproof.report(qrels, runs, ...)`` makes
the HTML report (see :func:`make_report`). Calling a package is unusual; it
keeps both ``rankproof.report(...)`` (the issue's entry point) and the
renderer modules ``rankproof.report.table``, ``.data``, ``.compare``,
``.html`` under one name without one hiding the other.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..pages.build import CorrectionName, TestName

__all__ = ["make_report"]


def make_report(qrels, runs, measures=None, protocol=None, *, baseline=None, segments=None,
                output=None,
                test: "TestName" = "randomization", correction: "CorrectionName" = "holm",
                alpha: float = 0.05,
                confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0,
                command: str | None = None,
                inputs=None, drill_depth: int = 20, title: str | None = None,
                resamples: int | None = None,
                fused: str | None = None, beyond: "dict | None" = None, judge=None) -> str:
    """The HTML report of runs against qrels: one self-contained page.

    Parameters
    ----------
    qrels : Qrels
    runs : mapping name -> Run, list of Runs, or one Run
    measures : list of str or Measure, default ``["ndcg@10", "ap", "rr", "p@10"]``
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
    baseline : str, optional
        The run the others are compared with (the first by default).
    segments : mapping query -> segment label, optional
        Adds each segment's means and intervals.
    output : path, optional
        Also write the page there, atomically (temporary file and rename), and
        every query's values beside it (``NAME.per-query.csv.gz``: a row per
        run and query, a column per measure, gzip-compressed CSV).
    test, correction, alpha, confidence, n_resamples, seed
        As :func:`rankproof.compare`.
    command, inputs, drill_depth, title
        See :func:`rankproof.pages.build.prepare`.
    fused : str, optional
        The run that fuses the others (``rankproof fuse``): adds a section
        testing it against each of them (:mod:`rankproof.report.fusion`).
    beyond : dict, optional
        The "beyond accuracy" section's data (:func:`rankproof.recsys.beyond_report.beyond_data`):
        side-data measures and their curves.
    judge : Qrels, optional
        A judge's labels (an LLM's), `qrels` being the humans': adds the judge-bias section
        (:mod:`rankproof.pages.judgments`; the leaderboard section comes with more than two runs).
    resamples : int, optional
        The earlier name of ``n_resamples`` (deprecated).

    Returns
    -------
    str
        The page. Its numbers are those of ``evaluate`` and ``compare`` on
        the same inputs (the JSON outputs of ``rankproof evaluate`` and
        ``rankproof compare --baseline``).

    Examples
    --------
    >>> import rankproof
    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    >>> runs = {"A": Run.from_dict({"q1": ["a"], "q2": ["x", "b"]}), "B": Run.from_dict({"q1": ["x"], "q2": ["b"]})}
    >>> page = rankproof.report(qrels, runs, ["rr"], n_resamples=100)
    >>> page.count('<svg class="figure"') > 5
    True
    """
    import dataclasses

    from ..pages.build import prepare
    from .html import render
    from .output import check_output_path, write_output
    from .per_query import per_query_path, write_per_query

    check_output_path(output)
    if output is not None:
        check_output_path(per_query_path(output))
    data = prepare(qrels, runs, measures, protocol, baseline=baseline, segments=segments, test=test,
                   correction=correction, alpha=alpha, confidence=confidence,
                   n_resamples=n_resamples, seed=seed,
                   command=command, inputs=inputs, drill_depth=drill_depth, title=title,
                   fused=fused,
                   resamples=resamples, judge=judge)
    if beyond is not None:
        data = dataclasses.replace(data, beyond=beyond)
    if output is not None:
        data = dataclasses.replace(data, per_query_file=write_per_query(data.results, output).name)
    page = render(data)
    if output is not None:
        write_output(page, output)
    return page


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`make_report`."""

    def __call__(self, *args, **kwargs) -> str:
        return make_report(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
