"""The page's evaluation: one pass per run for the page's measures, its curves over k, judged@k and iprec.

Each run is evaluated once, with every measure the page draws: the page's
own, each cutoff measure at k = 1 .. min(100, the longest ranking), judged@k,
the drill-down's measure and interpolated precision at the 11 recall levels.
The page's :class:`~rankproof.Results` are that evaluation's, narrowed to the
page's measures (:meth:`Results.select <rankproof.Results.select>`), so the
curves and the summary come from the same numbers. Three cases need a second
pass: judgments per intent (the curves use each doc's highest grade); iprec
under ties=expected on a run with ties (iprec takes a maximum over ranks,
which has no closed-form expectation over tied orders: drawn under
ties=docid, and the page says so); and more than :data:`CURVE_QUERIES`
judged queries, where the ~70 curve measures of every query would hold
gigabytes at once: the page's measures are evaluated on every query, the
curves on a seeded random sample of :data:`CURVE_QUERIES` of them (a mean of
200,000 values in [0, 1] is within 0.0023 of the full mean with 95%
probability, under a pixel of the charts), and the page says so.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from ..errors import TieError
from ..measures.base import Measure
from ..measures.parse import parse_measure
from ..protocol import Aggregation, Protocol, Ties
from .ids import ids_of
from .model import MAX_CUTOFF, PR_LEVELS
from .subset import only_queries

__all__ = ["Curves", "evaluate_page", "cutoff_family", "CURVE_QUERIES"]

IPREC = tuple(parse_measure(f"iprec(recall={level:g})") for level in PR_LEVELS)
# Past this many judged queries the curves come from a seeded sample of this many (see above).
CURVE_QUERIES = 200_000


@dataclasses.dataclass(frozen=True)
class Curves:
    """Means over cutoffs, judged@k, iprec, and the drill-down measure's per-query values, per run."""

    cutoffs: tuple[int, ...]
    cutoff_curves: dict[str, dict[str, list[float]]]    # run -> curve label -> mean at each cutoff
    judged_curves: dict[str, list[float]]               # run -> judged@k mean at each cutoff
    drill_measure: Measure
    drill_values: dict[str, tuple[np.ndarray, np.ndarray]]  # run -> (query ids, values; NaN: out)
    pr_curves: dict[str, list[float]] | None            # run -> mean iprec at each recall level
    pr_note: str
    sample_note: str = ""


def cutoff_family(measures) -> list[Measure]:
    """The page's measures that take a cutoff, once each whatever their cutoff."""
    seen: dict[Measure, Measure] = {}
    for m in measures:
        if m.spec.cutoff:
            seen.setdefault(Measure(m.name, None, m.params), m)
    return list(seen)


def _label(m: Measure) -> str:
    """A measure's text without its cutoff: the name of its curve over k."""
    return str(Measure(m.name, None, m.params))


def _pr_note(protocol: Protocol) -> str:
    return (f"Interpolated precision takes a maximum over ranks, which has no closed-form expectation over tied "
            f"orders, and the runs have tied scores: these curves order ties by doc id descending (ties=docid, "
            f"fingerprint {protocol.fingerprint}) instead of averaging them.")


def evaluate_page(qrels, named, page_measures: list, protocol: Protocol,
                  step: Callable[[str], None] = lambda label: None, coverage: dict | None = None
                  ) -> tuple[list, Curves]:
    """Each run's page :class:`~rankproof.Results` and the curves, from one evaluation per run
    (``step(label)`` is called as each run is done: the progress display; ``coverage`` holds
    :func:`rankproof.evaluate`'s ``allow_partial`` and ``min_coverage``, for every evaluation here)."""
    from ..engines.options import EvaluationOptions
    from ..evaluation import evaluate_read

    options = EvaluationOptions.of(None, **(coverage or {}))

    def evaluate(qrels, run, measures, protocol, name=None):
        # Named as the page shows the run from the start (Results are read-only).
        return evaluate_read(lambda: (qrels, run), measures, protocol, options=options,
                             run_name=name)

    depth = int(max(int(np.diff(run.offsets).max(initial=0)) for _, run in named))
    cutoffs = tuple(range(1, max(1, min(MAX_CUTOFF, depth)) + 1))
    # judgments per intent: the curves use the highest grade
    doc_qrels = getattr(qrels, "doc_qrels", qrels)
    family, drill_measure, judged, curve = _curve_measures(page_measures, cutoffs)
    with_pr = protocol.aggregation is not Aggregation.MICRO
    pr_note = "" if with_pr else _NO_MICRO_PR
    results: list = []
    cutoff_curves: dict[str, dict[str, list[float]]] = {}
    judged_curves: dict[str, list[float]] = {}
    drill_values: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    pr_curves: dict[str, list[float]] = {}
    docid = protocol.replace(ties="docid")
    sample, sample_note = _sample(qrels)
    curve_qrels = doc_qrels if sample is None else only_queries(doc_qrels, sample)
    together = doc_qrels is qrels and sample is None
    for name, run in named:
        asked = list(dict.fromkeys(page_measures + curve)) if together else curve
        curve_run = run if sample is None else only_queries(run, sample)
        iprec = list(IPREC) if with_pr and not pr_note else []
        try:
            full = evaluate(curve_qrels, curve_run, asked + iprec, protocol, name)
        except TieError:
            if not iprec or protocol.ties is not Ties.EXPECTED:
                raise
            full = evaluate(curve_qrels, curve_run, asked, protocol, name)
            pr_note = _pr_note(docid)
        page, drill_values[name] = _page_and_drill(
            evaluate, qrels, (name, run), full, page_measures=page_measures,
            drill_measure=drill_measure, protocol=protocol, sample=sample)
        results.append(page)
        cutoff_curves[name] = {_label(m): [full.mean(m @ k) for k in cutoffs] for m in family}
        judged_curves[name] = [full.mean(m) for m in judged]
        if with_pr and not pr_note:
            pr_curves[name] = [full.mean(m) for m in IPREC]
        del full
        step(f"evaluated {name}")
    if with_pr and pr_note:   # every run's precision-recall curve drawn one way: under ties=docid
        pr_curves = _pr_curves(evaluate, curve_qrels, named, sample, docid)
    return results, Curves(cutoffs=cutoffs, cutoff_curves=cutoff_curves,
                           judged_curves=judged_curves,
                           drill_measure=drill_measure, drill_values=drill_values,
                           pr_curves=pr_curves if with_pr else None, pr_note=pr_note,
                           sample_note=sample_note)


def _page_and_drill(evaluate, qrels, named_run: tuple, full, *, page_measures: list,
                    drill_measure: Measure, protocol: Protocol,
                    sample) -> tuple[object, tuple[np.ndarray, np.ndarray]]:
    """One run's page Results and the drill-down measure's (query ids, values), taken from the
    curves' evaluation `full` where it holds them (plain judgments, every query), else evaluated
    again: under judgments per intent the page keeps their own means while the drill-down reads
    the highest grades (``doc_qrels``)."""
    name, run = named_run
    doc_qrels = getattr(qrels, "doc_qrels", qrels)
    plain = doc_qrels is qrels
    with_drill = list(dict.fromkeys(page_measures + [drill_measure])) if plain else page_measures
    if plain and sample is None:
        page = full.select(with_drill)
    else:
        page = evaluate(qrels, run, with_drill, protocol, name)
    if plain:
        source = page
    else:
        source = full if sample is None else evaluate(doc_qrels, run, [drill_measure], protocol)
    drill = (ids_of(source), source.values(drill_measure))
    return (page.select(page_measures) if len(with_drill) > len(page_measures) else page), drill


def _curve_measures(page_measures: list, cutoffs: tuple[int, ...]):
    """The measures the curves need: the page's cutoff family, the drill-down's measure (the first
    DCG-family one, else ndcg@10), judged@k at every cutoff, and all of them at every cutoff."""
    drawn = [m for m in page_measures if not m.spec.needs_intents]
    family = cutoff_family(drawn)
    drill_measure = next((m for m in drawn if m.spec.dcg is not None), parse_measure("ndcg@10"))
    judged = [parse_measure(f"judged@{k}") for k in cutoffs]
    curve = list(dict.fromkeys([m @ k for m in family for k in cutoffs] + judged + [drill_measure]))
    return family, drill_measure, judged, curve


_NO_MICRO_PR = ("iprec is not a ratio of sums, so it has no micro mean: no precision-recall "
                "curves under aggregation=micro")


def _pr_curves(evaluate, curve_qrels, named, sample, protocol) -> dict[str, list]:
    """Every run's precision-recall curve under ``protocol`` (on the sampled queries, if any)."""
    curves = {}
    for name, run in named:
        ordered = evaluate(curve_qrels, run if sample is None else only_queries(run, sample),
                           list(IPREC),
                           protocol)
        curves[name] = [ordered.mean(m) for m in IPREC]
    return curves


def _sample(qrels) -> tuple[np.ndarray | None, str]:
    """The judged queries the curves are drawn from when there are too many (None: all), and the note."""
    count = len(qrels.queries)
    if count <= CURVE_QUERIES:
        return None, ""
    chosen = np.sort(np.random.default_rng(0).choice(count, CURVE_QUERIES, replace=False))
    return np.asarray(qrels.queries)[chosen], (
        f"The curves over k, judged@k and precision-recall are means over a seeded random sample of "
        f"{CURVE_QUERIES:,} of the {count:,} judged queries (a mean of values in [0, 1] within 0.0023 of the "
        "full mean with 95% probability); every other number on the page is over every query.")
