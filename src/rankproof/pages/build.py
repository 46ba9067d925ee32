"""The report's page model from qrels and runs: evaluate once, run the statistics, keep what the page shows.

:func:`prepare` calls the evaluation step once per run (:mod:`.curves`: the
page's measures, the curves over k, judged@k and iprec together), the
statistics chosen for the data's size (:mod:`.statistics`), and
:func:`~rankproof.explain.explanation.explain_top` for the drill-down's
rankings (:mod:`.drill`), and returns a :class:`~rankproof.pages.model.ReportData`
that :func:`rankproof.report.html.render` draws without computing:

- the :class:`~rankproof.Results` of each run under the page's measures (the
  very objects ``rankproof evaluate --format json`` writes) and the
  :class:`~rankproof.Comparison` of every run against the baseline;
- each cutoff measure at every k = 1 .. min(100, the longest ranking), and
  judged@k, per run;
- interpolated precision at the recall levels 0, 0.1, ..., 1 (trec_eval's
  ``iprec_at_recall``);
- the top rows of the drill-down's queries, each ranking and its ideal list.

Examples
--------
>>> from rankproof import Qrels, Run
>>> qrels = Qrels.from_dict({"q1": {"a": 2, "b": 1}, "q2": {"c": 1}})
>>> runs = {"A": Run.from_dict({"q1": ["a", "x"], "q2": ["c"]}),
...         "B": Run.from_dict({"q1": ["x", "b"], "q2": ["y", "c"]})}
>>> data = prepare(qrels, runs, ["ndcg@2", "rr"], n_resamples=100)
>>> data.baseline, [r.run_name for r in data.results]
('A', ['A', 'B'])
>>> [round(v, 4) for v in data.cutoff_curves["B"]["rr"]]   # rr@1, rr@2 of B: (0 + 0) / 2, (1/2 + 1/2) / 2
[0.0, 0.5]
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..errors import InputError, literal
from ..measures.parse import parse_measures
from ..protocol import Aggregation
from ..stats.keywords import CorrectionName, TestName
from . import statistics
from .curves import evaluate_page
from .drill import drill_plan, drill_rows, with_measures
from .inputs import InputFile, input_file
from .judgments import with_judgments
from .model import DRILL_DEPTH, ReportData
from .subset import only_queries
from .summaries import differences, gain_discount, histograms
from ..typing import ProtocolLike

__all__ = ["prepare", "named_runs", "chosen_baseline", "version", "TestName", "CorrectionName"]

Step = Callable[[str], None]


def version() -> str:
    from importlib.metadata import version as installed

    return installed("rankproof")


def named_runs(runs) -> list[tuple[str, Any]]:
    """``(name, run)`` pairs from a mapping, a list of named runs or one run; names must differ."""
    if isinstance(runs, Mapping):
        items = [(str(name), run) for name, run in runs.items()]
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        items = [(str(run.name), run) for run in runs]
    else:
        items = [(str(runs.name), runs)]
    names = [name for name, _ in items]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(what=literal(f"run name {repeated[0]} is given twice"), value=repeated[0],
                         fix="give each run a distinct name (pass a mapping {{name: run}}, or --label NAME=RUN)")
    if not items:
        raise InputError(what="give at least one run")
    return items


def chosen_baseline(baseline: str | None, names: list[str]) -> str:
    """The run the others are compared with: the first by default."""
    if baseline is None:
        return names[0]
    if baseline not in names:
        import difflib

        near = difflib.get_close_matches(baseline, names, n=1)
        raise InputError(what=literal(f"baseline {baseline!r} is not one of the runs"),
                         value=baseline,
                         fix=literal((f"did you mean {near[0]}? " if near else "")
                                     + f"choose one of {', '.join(names)}"))
    return baseline


def _drill(doc_qrels, named, curves, results, page_measures, protocol, baseline, depth,
           step: Step) -> dict:
    """The drill-down: the chosen queries' rows (explain_top on those queries' rankings only)."""
    from ..explain.explanation import explain_top

    shown_depth, keep, note = drill_plan(curves.drill_values, baseline, depth)
    if keep is not None:   # explain the kept queries only, not every user again
        doc_qrels = only_queries(doc_qrels, keep)
        named = [(name, only_queries(run, keep)) for name, run in named]
    tops = {}
    for name, run in named:
        tops[name] = explain_top(doc_qrels, run, curves.drill_measure, protocol, depth=shown_depth)
        step(f"drill-down rows of {name}")
    rows = drill_rows(tops, curves.drill_measure, protocol, curves.drill_values, shown_depth, keep,
                      note)
    return with_measures(rows, results, page_measures, curves.drill_measure, protocol)


def prepare(qrels, runs, measures=None, protocol: ProtocolLike = None, *,
            baseline: str | None = None,
            segments: Mapping[str, str] | None = None, test: TestName = "randomization",
            correction: CorrectionName = "holm",
            alpha: float = 0.05, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0,
            command: str | None = None, inputs: Sequence[InputFile] | None = None,
            drill_depth: int = DRILL_DEPTH, title: str | None = None, resamples: int | None = None,
            fused: str | None = None, progress: Step | None = None, judge=None,
            coverage: dict | None = None) -> ReportData:
    """Evaluate, compare and explain the runs for the report (see the module's docstring).

    Parameters
    ----------
    qrels : Qrels
    runs : mapping name -> Run, a list of Runs (named by ``Run.name``), or one Run
    measures : list of str or Measure, default ``ndcg@10 ap rr p@10``
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
    baseline : str, optional
        The run every other run is compared with; the first by default.
    segments : mapping query -> segment label, optional
    test, correction, alpha, confidence, n_resamples, seed
        As :func:`rankproof.compare`, with ``method='auto'``: from 1,000
        queries a row takes the paired t-test and the normal interval when
        the statistics' checks allow, and the page says which.
    command : str, optional
        The command that made the report, shown in its header.
    inputs : list of InputFile, optional
        The input files; by default the qrels' and runs' sources when they are files.
    drill_depth : int
        Rows of each ranking kept for the drill-down (20).
    resamples : int, optional
        The earlier name of ``n_resamples`` (deprecated).
    fused : str, optional
        The run that is the fusion of the others: adds the section comparing it with each of them.
    progress : callable, optional
        Called with a label as each stage ends (the command line's progress display).
    judge : Qrels, optional
        A judge's labels (an LLM's): adds the judge-bias section, `qrels` being the humans'
        (:mod:`rankproof.pages.judgments`; the leaderboard section comes with more than two runs).
    coverage : dict, optional
        ``allow_partial`` and ``min_coverage`` of :func:`rankproof.evaluate`, for every run
        (by default a run ranking fewer than half of the judged queries is refused).
    """
    from ..evaluation import resolve_protocol
    from ..stats.keywords import renamed_keyword

    step = progress or (lambda label: None)
    n_resamples = renamed_keyword(n_resamples, resamples, new="n_resamples", old="resamples",
                                  default=10_000,
                                  where="report")
    protocol = resolve_protocol(protocol)
    page_measures = list(dict.fromkeys(parse_measures(measures or ["ndcg@10", "ap", "rr", "p@10"])))
    named = named_runs(runs)
    names = [name for name, _ in named]
    baseline = chosen_baseline(baseline, names)
    if inputs is None:
        inputs = _input_files(qrels, named)
    results, curves = evaluate_page(qrels, named, page_measures, protocol, step, coverage)
    missing: list[str] = []
    stats = _statistics(results, page_measures, baseline, fused, names, protocol, missing, step,
                        test=test,
                        correction=correction, alpha=alpha, confidence=confidence,
                        n_resamples=n_resamples,
                        seed=seed)
    doc_qrels = getattr(qrels, "doc_qrels", qrels)
    if doc_qrels is not qrels:
        missing.append("judgments per intent: the curves over k, precision-recall and the drill-down's gains use "
                       "each document's highest grade over the intents")
    if curves.pr_curves is None:
        missing.append(curves.pr_note)

    segment_tables = statistics.segment_tables(results, segments, confidence, n_resamples, seed,
                                               missing)
    drill = _drill(doc_qrels, named, curves, results, page_measures, protocol, baseline,
                   drill_depth, step)
    data = ReportData(
        title=title or f"rankproof report: {', '.join(names)}",
        version=version(), command=command, protocol=protocol, qrels_digest=results[0].qrels_digest,
        inputs=tuple(inputs), results=tuple(results), baseline=baseline, cutoffs=curves.cutoffs,
        cutoff_curves=curves.cutoff_curves, judged_curves=curves.judged_curves,
        pr_curves=curves.pr_curves,
        pr_note=curves.pr_note, curve_note=curves.sample_note,
        histograms=histograms(results, page_measures),
        differences=differences(results, baseline, page_measures) if len(results) > 1 else None,
        gain_discount=gain_discount(doc_qrels, curves.drill_measure, protocol,
                                    max(drill_depth, 10)),
        drill=drill, segments=segment_tables, fused=fused,
        missing=tuple(missing) + (() if len(results) > 1 else (
            "per-query differences: one run only, nothing to compare with",)), **stats)
    data = with_judgments(data, qrels, dict(named), page_measures, judge=judge, protocol=protocol,
                          confidence=confidence, alpha=alpha, seed=seed)
    step("figures")
    return data


def _input_files(qrels, named) -> list:
    """The input files (role, path, digest) the qrels and the runs were read from."""
    found = [input_file("qrels", qrels.source)]
    found += [input_file(f"run {name}", run.source) for name, run in named]
    return [f for f in found if f is not None]


def _statistics(results, page_measures, baseline, fused, names, protocol, missing: list, step: Step,
                *, test,
                correction, alpha, confidence, n_resamples, seed) -> dict:
    """The page model's fields that come from the statistics, chosen for the data's size."""
    out: dict[str, Any] = {}
    intervals, out["interval_note"] = statistics.mean_intervals(results, confidence, n_resamples,
                                                                seed)
    out["mean_intervals"] = intervals
    step("intervals of the means")
    if len(results) > 1 and protocol.aggregation is not Aggregation.MACRO:
        missing.append(f"significance against the baseline: paired tests compare per-query values, whose mean is "
                       f"the macro mean, and this protocol aggregates {protocol.aggregation}")
        return out
    if len(results) < 2:
        return out
    options = dict(test=test, correction=correction, alpha=alpha, confidence=confidence,
                   n_resamples=n_resamples,
                   seed=seed)
    out["comparison"], out["method_note"] = statistics.baseline_comparison(results, page_measures,
                                                                           baseline,
                                                                           **options)
    step("comparison with the baseline")
    if fused is not None:
        out["fusion"], _ = statistics.baseline_comparison(results, list(results[0].measures),
                                                          chosen_baseline(fused, names), **options)
        step("the fused run against its components")
    systems, note = statistics.systems_analysis(results, page_measures, baseline, alpha=alpha,
                                                n_resamples=n_resamples, seed=seed, missing=missing)
    out["systems"] = systems
    if note:
        out["method_note"] += " Tukey HSD: " + note
    if systems is not None:
        step("Tukey HSD and risk")
    return out
