"""The numbers behind the HTML report's figures, made by the library's own functions.

The renderer (:mod:`rankproof.report.html`) only draws; everything it shows
is prepared here, by calling :func:`~rankproof.evaluate`,
:func:`~rankproof.compare`, :func:`~rankproof.explain.explanation.explain_top` and
:meth:`Results.by <rankproof.Results.by>`:

- the :class:`~rankproof.Results` of each run under the page's measures (the
  very objects ``rankproof evaluate --format json`` writes) and the
  :class:`~rankproof.Comparison` of every run against the baseline (what
  ``rankproof compare --format json`` writes);
- each measure at every cutoff k = 1 .. min(100, the longest ranking), and
  judged@k, per run, from one more evaluation per run;
- interpolated precision at the recall levels 0, 0.1, ..., 1 (trec_eval's
  ``iprec_at_recall``);
- the top rows of every query's ranking and ideal list (the drill-down).

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

import dataclasses
import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError, TieError, literal
from ..measures.base import Measure
from ..measures.parse import parse_measure, parse_measures
from ..protocol import Aggregation, Protocol, Ties
from ..stats.keywords import CorrectionName, TestName
from .inputs import InputFile, input_file, read_segments

__all__ = ["ReportData", "InputFile", "prepare", "input_file", "read_segments", "PR_LEVELS", "natural_order"]

PR_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MAX_CUTOFF = 100
DRILL_DEPTH = 20
HISTOGRAM_BINS = 20
# The drill-down's rows (queries x runs x depth) are kept under this, about 1.5 MB of the page:
# the depth shrinks to 5 first, then the drill-down keeps the queries that matter most.
MAX_DRILL_ROWS = 50_000
MIN_DRILL_DEPTH = 5
# A bootstrap of a mean holds resamples x queries numbers at once: kept under this
# (160 MB), with fewer resamples for many queries, and none below MIN_RESAMPLES.
MAX_BOOTSTRAP_CELLS = 20_000_000
MIN_RESAMPLES = 200


def natural_order(queries: Sequence[str]) -> list[str]:
    """Query ids in reading order: numbers by value, then the rest by text.

    >>> natural_order(["10", "2", "b", "1", "a"])
    ['1', '2', '10', 'a', 'b']
    """
    return sorted(queries, key=lambda q: (0, int(q), q) if q.isdigit() else (1, 0, q))


@dataclasses.dataclass(frozen=True)
class ReportData:
    """Everything the HTML report shows. Fields a source cannot give are None
    (a :class:`~rankproof.Results` alone has no rankings to drill into), and
    ``missing`` says in words what is left out and why."""

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
    histograms: dict | None = None          # measure -> {"edges": [...], run: [counts]}
    differences: dict | None = None         # measure -> run -> [(query, difference)] sorted
    gain_discount: dict | None = None
    drill: dict | None = None
    segments: dict | None = None            # run -> Segments
    missing: tuple[str, ...] = ()
    fused: str | None = None                # the run that fuses the others (report/fusion.py)
    fusion: Any = None                      # its Comparison against each of them
    systems: Any = None                     # SystemsAnalysis: Tukey HSD letters and risk (report/systems_page.py)
    beyond: dict | None = None              # side-data measures and curves (report/beyond.py)


def _version() -> str:
    from importlib.metadata import version

    return version("rankproof")


def _resamples_for(queries: int, n_resamples: int) -> int:
    """Resamples for a bootstrap over `queries` values that stays under MAX_BOOTSTRAP_CELLS."""
    return min(n_resamples, MAX_BOOTSTRAP_CELLS // max(queries, 1))


def _mean_intervals(results, confidence: float, n_resamples: int, seed: int) -> tuple[dict, str]:
    """Each run's bootstrap interval of each mean (:meth:`Results.by` with one segment), and its note.

    >>> from rankproof import Qrels, Run, evaluate
    >>> r = evaluate(Qrels.from_dict({"a": {"x": 1}, "b": {"x": 1}}), Run.from_dict({"a": ["x"], "b": ["y"]}), "rr")
    >>> intervals, note = _mean_intervals([r], 0.95, 1000, 0)
    >>> intervals[r.run_name]["rr"], note   # resamples of (1, 0): means 0, 0.5 or 1
    ((0.0, 1.0), '95% interval of each mean: percentile bootstrap over queries (1,000 resamples, seed 0).')
    """
    queries = max(len(r.queries) for r in results)
    used = _resamples_for(queries, n_resamples)
    if used < MIN_RESAMPLES:
        return {}, (f"No interval of each mean: with {queries:,} queries a bootstrap of {MIN_RESAMPLES} resamples "
                    f"would hold more than {MAX_BOOTSTRAP_CELLS:,} numbers at once.")
    intervals = {}
    for r in results:
        table = r.by({q: "all" for q in r.queries}, confidence=confidence, n_resamples=used, seed=seed)
        intervals[r.run_name] = {row.measure: (row.low, row.high) for row in table}
    return intervals, (f"{confidence:.0%} interval of each mean: percentile bootstrap over queries "
                       f"({used:,} resamples, seed {seed}).")


def _named_runs(runs) -> list[tuple[str, Any]]:
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


def _cutoff_family(measures: Sequence[Measure]) -> list[Measure]:
    """The page's measures that take a cutoff, once each whatever their cutoff."""
    seen: dict[Measure, Measure] = {}
    for m in measures:
        if m.spec.cutoff:
            seen.setdefault(Measure(m.name, None, m.params), m)
    return list(seen)


def _label(m: Measure) -> str:
    """A measure's text without its cutoff: the name of its curve over k."""
    return str(Measure(m.name, None, m.params))


def _histograms(results, measures) -> dict:
    out = {}
    for m in measures:
        columns = [r.values(m) for r in results]
        finite = np.concatenate([c[np.isfinite(c)] for c in columns]) if columns else np.array([])
        # A bounded measure is drawn over its whole range (the declared one), others over the data's.
        low, high = m.spec.value_range if np.isfinite(m.spec.value_range).all() else (
            float(finite.min(initial=0.0)), float(finite.max(initial=1.0)))
        if high <= low:
            high = low + 1.0
        edges = np.linspace(low, high, HISTOGRAM_BINS + 1)
        out[str(m)] = {"edges": edges.tolist(),
                       "counts": {r.run_name: np.histogram(c[np.isfinite(c)], bins=edges)[0].tolist()
                                  for r, c in zip(results, columns)}}
    return out


def _differences(results, baseline: str, measures) -> dict:
    """Per measure and run, (query, value - baseline's value), sorted ascending."""
    base = next(r for r in results if r.run_name == baseline)
    out: dict[str, dict[str, list]] = {}
    for m in measures:
        base_values = dict(zip(base.queries, base.values(m).tolist()))
        per_run = {}
        for r in results:
            if r.run_name == baseline:
                continue
            pairs = [(q, v - base_values[q]) for q, v in zip(r.queries, r.values(m).tolist())
                     if q in base_values and v == v and base_values[q] == base_values[q]]
            pairs.sort(key=lambda pair: (pair[1], pair[0]))
            per_run[r.run_name] = pairs
        out[str(m)] = per_run
    return out


def _gain_discount(qrels, measure: Measure, protocol: Protocol, depth: int) -> dict:
    """The protocol's gain and discount beside the usual alternatives."""
    from ..measures.compute import discount_table, gains_of
    from ..protocol import Discount, Gain

    gain = measure.setting("gain", protocol)
    discount = measure.setting("discount", protocol)
    top = int(max(qrels.grades.max(initial=1), 1))
    grades = np.arange(0, top + 1)
    gains = {str(g): gains_of(grades, g).tolist() for g in (Gain.LINEAR, Gain.EXP2)}
    gains.setdefault(str(gain), gains_of(grades, gain).tolist())
    discounts = {str(d): discount_table(d, depth).tolist() for d in (Discount.LOG2, Discount.RECIPROCAL)}
    discounts.setdefault(str(discount), discount_table(discount, depth).tolist())
    return {"grades": grades.tolist(), "gains": gains, "gain": str(gain),
            "ranks": list(range(1, depth + 1)), "discounts": discounts, "discount": str(discount)}


def _compact(values: np.ndarray) -> list:
    """Numbers for reading in the drill-down: 4 decimals; whole numbers without a point
    when every value is whole (gains of integer grades).

    >>> _compact(np.array([1.0, 2.0])), _compact(np.array([0.63092975, 0.0]))
    ([1, 2], [0.6309, 0.0])
    """
    rounded = np.round(np.asarray(values, dtype=np.float64), 4)
    if np.all(rounded == np.round(rounded)):
        return rounded.astype(np.int64).tolist()
    return rounded.tolist()


def _drill_plan(values: dict, baseline: str, depth: int) -> tuple[int, list[str] | None, str]:
    """The drill-down's depth and queries (None: all), and a note when it keeps less.

    Under :data:`MAX_DRILL_ROWS` rows everything is kept. Past it, the depth
    goes down to :data:`MIN_DRILL_DEPTH`; past that too, only the queries with
    the largest difference from the baseline (with one run: the lowest values)
    are kept, in as many as fit.

    >>> _drill_plan({"a": {"1": 0.5, "2": 0.1}}, "a", 20)
    (20, None, '')
    """
    runs = len(values)
    queries = sorted(set().union(*(v.keys() for v in values.values())))
    if len(queries) * runs * depth <= MAX_DRILL_ROWS:
        return depth, None, ""
    fitted = max(MIN_DRILL_DEPTH, MAX_DRILL_ROWS // max(1, len(queries) * runs))
    if len(queries) * runs * fitted <= MAX_DRILL_ROWS:
        return fitted, None, (f"Each ranking's top {fitted} is kept (not {depth}) so that the page stays light "
                              f"with {len(queries):,} queries.")
    room = MAX_DRILL_ROWS // (runs * MIN_DRILL_DEPTH)
    base = values[baseline]
    if runs > 1:
        def key(q):
            spread = [abs(v[q] - base[q]) for name, v in values.items()
                      if name != baseline and q in v and q in base and v[q] == v[q] and base[q] == base[q]]
            return -max(spread, default=0.0)
        how = "the largest difference from the baseline"
    else:
        def key(q):
            value = base.get(q, math.nan)
            return value if value == value else math.inf
        how = "the lowest values"
    chosen = sorted(queries, key=lambda q: (key(q), q))[:room]
    return MIN_DRILL_DEPTH, chosen, (f"The drill-down keeps the {room:,} of {len(queries):,} queries with {how} "
                                     f"(each ranking's top {MIN_DRILL_DEPTH}) so that the page stays light.")


def _drill(qrels, named_runs, measure: Measure, protocol: Protocol, values: dict, depth: int,
           keep: list[str] | None = None, note: str = "") -> dict:
    """Each run's top rows of every query, and the ideal list, as compact lists.

    A ranked row is ``[doc, grade or None (unjudged), gain, contribution,
    cumulative]``, with the discount appended when it is not the rank's own
    (a tied group shares its mean discount); an ideal row is ``[doc, grade,
    gain, cumulative]``. The discount of each rank is given once.
    """
    from ..explain.explanation import explain_top
    from ..measures.compute import discount_table
    from ..protocol import Ideal

    rank_discount = discount_table(measure.setting("discount", protocol), depth)
    k = measure.cutoff
    tops = {name: explain_top(qrels, run, measure, protocol, depth=depth) for name, run in named_runs}
    first = next(iter(tops.values()))
    kept = None if keep is None else set(keep)
    queries = natural_order(first.queries if kept is None else [q for q in first.queries if q in kept])
    rankings: dict[str, list] = {}
    for name, top in tops.items():
        # Every row once, as a list; then each query's slice of them.
        gain, contribution, cumulative = _compact(top.gain), _compact(top.contribution), _compact(top.cumulative)
        rows = [[doc, grade if judged else None, g, c, total] for doc, grade, judged, g, c, total in zip(
            top.doc.tolist(), top.grade.tolist(), top.judged.tolist(), gain, contribution, cumulative)]
        rank = np.arange(len(rows)) - np.repeat(top.offsets[:-1], np.diff(top.offsets))
        own = np.where(rank < (k if k is not None else depth), rank_discount[np.minimum(rank, depth - 1)], 0.0)
        shown_discount = _compact(top.discount)
        for j in np.flatnonzero(np.abs(top.discount - own) > 1e-12).tolist():
            rows[j].append(shown_discount[j])  # a tied doc's share of its group's discounts
        index = {q: i for i, q in enumerate(top.queries)}
        offsets = top.offsets.tolist()
        rankings[name] = [rows[offsets[index[q]]:offsets[index[q] + 1]] if q in index else [] for q in queries]

    def ideal_lists(top) -> list:
        index = {q: i for i, q in enumerate(top.queries)}
        doc, grade = top.ideal_doc.tolist(), top.ideal_grade.tolist()
        gain, cumulative = _compact(top.ideal_gain), _compact(top.ideal_cumulative)
        out = []
        for q in queries:
            i = index.get(q)
            lo, hi = (int(top.ideal_offsets[i]), int(top.ideal_offsets[i + 1])) if i is not None else (0, 0)
            out.append([[doc[j], grade[j], gain[j], cumulative[j]] for j in range(lo, hi)])
        return out

    ideal_setting = measure.setting("ideal", protocol) if "ideal" in measure.spec.params else protocol.ideal
    per_run_ideal = ideal_setting is not Ideal.JUDGED
    return {
        "measure": str(measure), "normalised": measure.spec.normalised, "depth": depth, "k": k, "runs": [name for name, _ in named_runs], "note": note,
        "queries": queries, "discount": _compact(rank_discount),
        "rankings": rankings,
        # Under ideal=judged the ideal list is the qrels', the same for every run: given once.
        "ideal": ({name: ideal_lists(top) for name, top in tops.items()} if per_run_ideal
                  else ideal_lists(first)),
        "ideal_per_run": per_run_ideal,
        "values": {name: [None if values[name].get(q) is None else round(values[name][q], 4) for q in queries]
                   for name, _ in named_runs},
    }


def _with_measures(drill: dict, results, page_measures, gain_measure: Measure, protocol: Protocol) -> dict:
    """The drill-down's measure selector: every page measure with each run's value per query, its cutoff and
    its relevance level (the ranked rows are the same for every measure; only the DCG family has gains)."""
    choices = [{"measure": drill["measure"], "k": drill["k"], "gain_based": True, "values": drill["values"],
                "rel": protocol.rel}]
    for m in page_measures:
        if str(m) == drill["measure"]:
            continue
        values = {}
        for r in results:
            per_query = r.per_query(m)
            values[r.run_name] = [None if per_query.get(q) is None or per_query[q] != per_query[q]
                                  else round(float(per_query[q]), 4) for q in drill["queries"]]
        rel = m.setting("rel", protocol) if "rel" in m.spec.params else protocol.rel
        choices.append({"measure": str(m), "k": m.cutoff, "gain_based": m.spec.dcg is not None and m == gain_measure,
                        "values": values, "rel": rel})
    return {**drill, "measures": choices}


def _pr_curves(qrels, named_runs, protocol: Protocol) -> tuple[dict | None, str]:
    """Mean interpolated precision at each recall level, per run.

    iprec takes a max over ranks, which has no closed-form expectation over
    tied orders: where the protocol averages ties (ties=expected) and a run
    has ties, the curve is drawn under ties=docid (trec_eval's order), and
    the page says so.
    """
    from ..evaluation import evaluate

    measures = [f"iprec(recall={level:g})" for level in PR_LEVELS]
    if protocol.aggregation is Aggregation.MICRO:
        return None, ("iprec is not a ratio of sums, so it has no micro mean: no precision-recall curves under "
                      "aggregation=micro")

    def curves(under: Protocol) -> dict:
        out = {}
        for name, run in named_runs:
            result = evaluate(qrels, run, measures, under)
            out[name] = [result.mean(m) for m in measures]
        return out

    try:
        return curves(protocol), ""
    except TieError:
        if protocol.ties is not Ties.EXPECTED:
            raise
    ordered = protocol.replace(ties="docid")
    return curves(ordered), (
        f"Interpolated precision takes a maximum over ranks, which has no closed-form expectation over tied "
        f"orders, and the runs have tied scores: these curves order ties by doc id descending (ties=docid, "
        f"fingerprint {ordered.fingerprint}) instead of averaging them.")


def prepare(qrels, runs, measures=None, protocol: "Protocol | str | None" = None, *, baseline: str | None = None,
            segments: Mapping[str, str] | None = None, test: TestName = "randomization",
            correction: CorrectionName = "holm",
            alpha: float = 0.05, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0,
            command: str | None = None, inputs: Sequence[InputFile] | None = None,
            drill_depth: int = DRILL_DEPTH, title: str | None = None, resamples: int | None = None,
            fused: str | None = None) -> ReportData:
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
        As :func:`rankproof.compare`.
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
    """
    from ..evaluation import evaluate, resolve_protocol
    from ..stats import compare
    from ..stats.keywords import renamed_keyword

    n_resamples = renamed_keyword(n_resamples, resamples, new="n_resamples", old="resamples", default=10_000,
                                  where="report")
    protocol = resolve_protocol(protocol)
    page_measures = list(dict.fromkeys(parse_measures(measures or ["ndcg@10", "ap", "rr", "p@10"])))
    named = _named_runs(runs)
    names = [name for name, _ in named]
    baseline = _baseline(baseline, names)
    if inputs is None:
        found = [input_file("qrels", qrels.source)] + [input_file(f"run {name}", run.source) for name, run in named]
        inputs = [f for f in found if f is not None]

    results = []
    for name, run in named:
        result = evaluate(qrels, run, page_measures, protocol)
        result.run_name = name
        results.append(result)
    comparison = None
    missing = []
    if len(results) > 1 and protocol.aggregation is not Aggregation.MACRO:
        missing.append(f"significance against the baseline: paired tests compare per-query values, whose mean is "
                       f"the macro mean, and this protocol aggregates {protocol.aggregation}")
    elif len(results) > 1:
        comparison = compare(None, {r.run_name: r for r in results}, page_measures, test=test,
                             correction=correction, alpha=alpha, baseline=baseline, confidence=confidence,
                             n_resamples=n_resamples, seed=seed)

    # Each mean's own interval: a bootstrap over queries (Results.by with one segment).
    interval_resamples = min(n_resamples, 2000)
    mean_intervals, interval_note = _mean_intervals(results, confidence, interval_resamples, seed)
    # Judgments per intent (--intents): the means, tests and distributions are the diversity measures'; the
    # figures of rankings (curves over k, precision-recall, the drill-down) use each doc's highest grade.
    doc_qrels = getattr(qrels, "doc_qrels", qrels)
    if doc_qrels is not qrels:
        missing.append("judgments per intent: the curves over k, precision-recall and the drill-down's gains use "
                       "each document's highest grade over the intents")
    curves = _curves(doc_qrels, named, [m for m in page_measures if not m.spec.needs_intents], protocol)
    pr_curves, pr_note = _pr_curves(doc_qrels, named, protocol)
    if pr_curves is None:
        missing.append(pr_note)
    segment_tables = _segment_tables(results, segments, confidence, interval_resamples, seed, missing)
    fusion = None
    if fused is not None and comparison is not None:
        from .fusion import fused_comparison

        fusion = fused_comparison(results, _baseline(fused, names), test=test, correction=correction, alpha=alpha,
                                  confidence=confidence, n_resamples=n_resamples, seed=seed)
    systems = None
    if comparison is not None:
        from .systems_page import analyse

        systems = analyse(results, page_measures, baseline, alpha=alpha, n_resamples=n_resamples, seed=seed,
                          missing=missing)
    return ReportData(
        title=title or f"rankproof report: {', '.join(names)}",
        version=_version(), command=command, protocol=protocol, qrels_digest=results[0].qrels_digest,
        inputs=tuple(inputs), results=tuple(results), comparison=comparison, baseline=baseline,
        mean_intervals=mean_intervals, interval_note=interval_note, cutoffs=curves.cutoffs,
        cutoff_curves=curves.cutoff_curves, judged_curves=curves.judged_curves, pr_curves=pr_curves, pr_note=pr_note,
        histograms=_histograms(results, page_measures),
        differences=_differences(results, baseline, page_measures) if len(results) > 1 else None,
        gain_discount=_gain_discount(doc_qrels, curves.drill_measure, protocol, max(drill_depth, 10)),
        drill=_with_measures(_drill(doc_qrels, named, curves.drill_measure, protocol, curves.drill_values,
                                    *_drill_plan(curves.drill_values, baseline, drill_depth)),
                             results, page_measures, curves.drill_measure, protocol),
        segments=segment_tables, fused=fused, fusion=fusion, systems=systems,
        missing=tuple(missing) + (() if len(results) > 1 else (
            "per-query differences: one run only, nothing to compare with",)),
    )


def _baseline(baseline: str | None, names: list[str]) -> str:
    """The run the others are compared with: the first by default."""
    if baseline is None:
        return names[0]
    if baseline not in names:
        import difflib

        near = difflib.get_close_matches(baseline, names, n=1)
        raise InputError(what=literal(f"baseline {baseline!r} is not one of the runs"), value=baseline,
                         fix=literal((f"did you mean {near[0]}? " if near else "") + f"choose one of {', '.join(names)}"))
    return baseline


@dataclasses.dataclass(frozen=True)
class _Curves:
    """Means over cutoffs, judged@k, and the drill-down measure's per-query values, per run."""

    cutoffs: tuple[int, ...]
    cutoff_curves: dict
    judged_curves: dict
    drill_measure: Measure
    drill_values: dict


def _curves(qrels, named, page_measures: list[Measure], protocol: Protocol) -> _Curves:
    """Curves over k, judged@k and the drill-down measure: one more evaluation per run."""
    from ..evaluation import evaluate

    depth = int(max(int(np.diff(run.offsets).max(initial=0)) for _, run in named))
    top_k = max(1, min(MAX_CUTOFF, depth))
    cutoffs = tuple(range(1, top_k + 1))
    family = _cutoff_family(page_measures)
    drill_measure = next((m for m in page_measures if m.spec.dcg is not None), parse_measure("ndcg@10"))
    curve_measures = [m @ k for m in family for k in cutoffs] + [parse_measure(f"judged@{k}") for k in cutoffs]
    curve_measures = list(dict.fromkeys(curve_measures + [drill_measure]))
    cutoff_curves, judged_curves, drill_values = {}, {}, {}
    for name, run in named:
        curve = evaluate(qrels, run, curve_measures, protocol)
        cutoff_curves[name] = {_label(m): [curve.mean(m @ k) for k in cutoffs] for m in family}
        judged_curves[name] = [curve.mean(f"judged@{k}") for k in cutoffs]
        drill_values[name] = curve.per_query(drill_measure)
    return _Curves(cutoffs=cutoffs, cutoff_curves=cutoff_curves, judged_curves=judged_curves,
                   drill_measure=drill_measure, drill_values=drill_values)


def _segment_tables(results, segments, confidence: float, n_resamples: int, seed: int,
                    missing: list[str]) -> dict | None:
    """Each run's table by segment, or None (and why in `missing` when the bootstrap would be too big)."""
    if segments is None:
        return None
    segment_resamples = _resamples_for(len(results[0].queries), n_resamples)
    if segment_resamples < MIN_RESAMPLES:
        missing.append(f"segments: with {len(results[0].queries):,} queries their bootstrap intervals would hold "
                       f"more than {MAX_BOOTSTRAP_CELLS:,} numbers at once")
        return None
    return {r.run_name: r.by(segments, confidence=confidence, n_resamples=segment_resamples, seed=seed,
                             unlabelled="group") for r in results}


def from_results(results, *, command: str | None = None, comparison=None, inputs: Sequence[InputFile] = (),
                 title: str | None = None, missing: Sequence[str] | None = None) -> ReportData:
    """What a page can show from evaluated results alone (no rankings: no curves, no drill-down);
    with their ``comparison`` (:func:`rankproof.compare` of them), its table and each query's difference
    from its baseline (the first run when it has none)."""
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    first = results[0]
    mean_intervals, interval_note = _mean_intervals(results, 0.95, 2000, 0)
    measures = first.measures
    baseline = None if comparison is None else comparison.baseline or comparison.runs[0]
    return ReportData(
        title=title or f"rankproof results: {', '.join(r.run_name for r in results)}", version=_version(),
        command=command, protocol=first.protocol, qrels_digest=first.qrels_digest, inputs=tuple(inputs),
        results=tuple(results), comparison=comparison, baseline=baseline,
        mean_intervals=mean_intervals, interval_note=interval_note,
        histograms=_histograms(results, measures),
        differences=None if baseline is None else _differences(results, baseline, measures),
        missing=tuple(missing) if missing is not None else (
            "measures over cutoffs, judged@k, precision-recall curves, the drill-down and how the numbers are "
            "made need the rankings: use rankproof.report(qrels, runs) or the rankproof report command",
            "significance against a baseline: use rankproof.report with two or more runs"),
    )


def from_comparison(comparison, *, command: str | None = None) -> ReportData:
    """What a page can show from a comparison alone: its table, settings and protocol."""
    return ReportData(
        title=f"rankproof comparison: {', '.join(comparison.runs)}", version=_version(), command=command,
        protocol=comparison.protocol, qrels_digest=comparison.qrels_digest, comparison=comparison,
        baseline=comparison.baseline,
        missing=("per-query values, curves and the drill-down are not kept in a Comparison: use "
                 "rankproof.report(qrels, runs) or the rankproof report command",),
    )
