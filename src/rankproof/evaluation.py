"""``evaluate(qrels, run, measures, protocol)``: the one entry point.

Validate the request, align the run with the qrels under the protocol, call
each measure's vectorised kernel, apply the query policies, and return
:class:`~rankproof.results.Results`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .pipeline.alignment import align, cutoff_counts
from .data.qrels import Qrels
from .data.intents import IntentQrels
from .data.run import Run
from .engines import DEFAULT_ENGINE, Engine, get_engine
from .errors import InputError, ZeroIdealError
from .measures.base import Measure
from .measures.parse import parse_measures
from .protocol import Aggregation, Grades, Protocol, ZeroIdeal
from .results import MIN_COVERAGE, MeasureResult, Results, check_query_coverage

__all__ = ["evaluate", "MIN_COVERAGE", "check_query_coverage"]



def resolve_protocol(protocol: "Protocol | str | None") -> Protocol:
    """A protocol from a Protocol, a preset name, protocol text, or None (the default protocol)."""
    if protocol is None:
        return Protocol()
    if isinstance(protocol, str):
        return Protocol.preset(protocol) if "=" not in protocol else Protocol.from_text(protocol)
    if not isinstance(protocol, Protocol):
        raise InputError(f"protocol must be a Protocol, a preset name or protocol text; got {type(protocol).__name__}")
    return protocol


def _weights_wanted(weights, protocol: Protocol, how: str = "pass weights={query: weight}") -> bool:
    """Do the protocol and the weights agree that the mean is weighted? Refuse when they disagree."""
    if protocol.aggregation is not Aggregation.WEIGHTED:
        if weights is not None:
            raise InputError("weights were given but the protocol says aggregation="
                             f"{protocol.aggregation}; set the policy aggregation=weighted to use them")
        return False
    if weights is None:
        raise InputError(f"aggregation='weighted' needs weights: {how}")
    return True


def _query_weights(weights: Mapping[str, float] | None, queries: np.ndarray, protocol: Protocol) -> np.ndarray | None:
    if not _weights_wanted(weights, protocol) or weights is None:
        return None
    missing = [q for q in queries.tolist() if q not in weights]
    if missing:
        raise InputError(
            f"no weight for queries {', '.join(missing[:3])}{' and more' if len(missing) > 3 else ''}; "
            "give every evaluated query a weight"
        )
    bad = [q for q in queries.tolist()
           if isinstance(weights[q], bool) or not isinstance(weights[q], (int, float, np.integer, np.floating))]
    if bad:
        raise InputError(f"the weight of query {bad[0]} is {str(weights[bad[0]])[:40]!r}, not a number; "
                         "give every evaluated query a numeric weight")
    try:
        array = np.array([float(weights[q]) for q in queries.tolist()])
    except OverflowError:
        raise InputError("a query weight is beyond float64; give finite weights") from None
    if not np.all(np.isfinite(array)) or (array < 0).any() or array.sum() == 0:
        raise InputError("query weights must be finite, non-negative and not all zero")
    return array


def evaluate(
    qrels: Qrels,
    run: Run,
    measures: "Iterable[str | Measure] | str | Measure",
    protocol: "Protocol | str | None" = None,
    *,
    weights: Mapping[str, float] | None = None,
    engine: "str | Engine" = DEFAULT_ENGINE,
    min_coverage: float = MIN_COVERAGE,
    allow_partial: bool = False,
    bounds: bool = False,
) -> Results:
    """Evaluate one run against the qrels under an explicit protocol.

    Parameters
    ----------
    qrels : Qrels or IntentQrels
        The judgments; judgments per intent (:class:`~rankproof.IntentQrels`)
        for the diversity measures (alpha_ndcg, err_ia, ndcg_ia, p_ia,
        s_recall), the other measures then read each doc's highest grade.
    run : Run
        The system's rankings.
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "ap", "p(rel=2)@5"]``. Unknown names are all
        reported at once, with the nearest valid names.
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
        Every convention; see :class:`rankproof.Protocol`.
    weights : mapping query -> weight, optional
        Needed when the protocol says ``aggregation='weighted'``.
    engine : str or Engine, default ``"compiled"``
        What computes the measures: ``"compiled"`` (one fused compiled pass
        per query) or ``"numpy"`` (the reference). Engines give the same
        values; the choice is not part of the protocol.
    min_coverage : float, default 0.5
        The share of judged queries the run must rank. Below it, and always
        when the run ranks none of them (query ids that do not match), a
        :class:`~rankproof.errors.CoverageError` is raised naming the fix.
    allow_partial : bool, default False
        Evaluate anyway; ``results.query_coverage`` and the summary's warning
        say how much was covered.
    bounds : bool, default False
        Also evaluate every measure under the optimistic completion of the
        judgments (unjudged docs at the highest grade), so that
        :meth:`Results.bounds` gives each value's interval over what the
        unjudged docs could be.

    Returns
    -------
    Results
        Per-query values, means, the protocol and the count of every case a
        policy touched.

    Examples
    --------
    Judged pool {A: 3, B: 2, C: 1, D: 0}; the run returns B then C.
    DCG@2 = 2 + 1/log2(3) = 2.6309; the ideal A, B gives 3 + 2/log2(3) = 4.2619:

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2, "C": 1, "D": 0}})
    >>> run = Run.from_dict({"q1": ["B", "C"]})
    >>> round(evaluate(qrels, run, "ndcg@2").mean("ndcg@2"), 6)
    0.61732

    Taking the ideal from the retrieved docs instead (reranking NDCG):

    >>> evaluate(qrels, run, "ndcg@2", Protocol(ideal="retrieved")).mean("ndcg@2")
    1.0
    """
    protocol = resolve_protocol(protocol)
    measure_list = _measure_list(measures, protocol)
    intents = None
    if isinstance(qrels, IntentQrels):
        intents, qrels = qrels, qrels.doc_qrels
    if not isinstance(qrels, Qrels) or not isinstance(run, Run):
        raise InputError("evaluate(qrels, run, ...) takes a Qrels (or IntentQrels) and a Run; build them with "
                         "Qrels.from_dict / Run.from_dict or read_trec")

    engine = get_engine(engine)  # an unknown engine fails before the work
    alignment = align(qrels, run, protocol)
    if intents is not None:
        from .pipeline.intents import attach_intents

        alignment = attach_intents(alignment, intents)
    weight_array = _query_weights(weights, alignment.queries, protocol)
    results = _measure_alignment(alignment, protocol, measure_list, weight_array, run.name, qrels,
                                 engine=engine)
    if bounds:
        results = _with_bounds(results, alignment, protocol, measure_list, engine)
    if not allow_partial:
        check_query_coverage(results, min_coverage, source=f"{run.source} against {qrels.source}")
    return results


def evaluate_alignment(alignment, measures: "Iterable[str | Measure] | str | Measure",
                       protocol: "Protocol | str | None", *, weights: np.ndarray | None = None, run_name: str,
                       qrels=None) -> Results:
    """:func:`evaluate` over an alignment already made (no coverage check): for
    callers that also read the alignment, as explain does, so it is made once."""
    protocol = resolve_protocol(protocol)
    return _measure_alignment(alignment, protocol, _measure_list(measures, protocol), weights, run_name, qrels)


# The earlier private name, for importers not yet moved to resolve_protocol.
_as_protocol = resolve_protocol


def _measure_list(measures, protocol: Protocol) -> list[Measure]:
    """Parse the measures asked for, once each, and check them against the protocol."""
    measure_list = parse_measures(measures)
    # One result per distinct measure, in the order first asked for.
    measure_list = list(dict.fromkeys(measure_list))
    if protocol.grades is not Grades.REAL:
        real_rel = [str(m) for m in measure_list if "rel" in m.spec.params
                    and isinstance(m.setting("rel", protocol), float)]
        if real_rel:
            raise InputError(f"{real_rel[0]} sets a real-valued rel, but the protocol says grades=integer; "
                             "set the policy grades=real, or give an integer rel")
    if protocol.aggregation is Aggregation.MICRO:
        not_ratio = [str(m) for m in measure_list if not m.spec.ratio]
        if not_ratio:
            raise InputError(
                f"aggregation='micro' (sum of numerators / sum of denominators) applies to ratio "
                f"measures (ndcg, p, r, rprec, judged); not to {', '.join(not_ratio)}. "
                "Use aggregation='macro' for them"
            )
    return measure_list


def _measure_alignment(alignment, protocol: Protocol, measure_list: list[Measure],
                       weight_array: np.ndarray | None, run_name: str, qrels=None,
                       compute=None, engine: "str | Engine" = DEFAULT_ENGINE) -> Results:
    """Every measure over an alignment, with the query policies applied.

    Shared by :func:`evaluate` and :func:`rankproof.evaluate_scores`.
    ``compute(measure)`` may give a measure's values by a faster route (it
    returns None to leave the measure to the engine).
    """
    values = {}
    for measure in measure_list:
        given = compute(measure) if compute is not None else None
        if given is not None:
            values[measure] = given
    rest = [measure for measure in measure_list if measure not in values]
    if rest:
        values.update(get_engine(engine).evaluate(alignment, rest, protocol))
    results: dict[Measure, MeasureResult] = {
        measure: _apply_zero_ideal(values[measure], measure, protocol, alignment.queries)
        for measure in measure_list
    }
    counts: dict[str, Any] | Callable[[], dict[str, Any]]
    if hasattr(alignment, "cutoff_counts"):
        # A fast path that counts by itself, on first use (a sort of the whole input).
        def counts() -> dict:
            return {**alignment.counts, **alignment.cutoff_counts(results)}
    else:
        counts = {**alignment.counts, **cutoff_counts(alignment, results)}
    return Results(table=alignment.query_table(), counts=counts, protocol=protocol, measures=results,
                   weights=weight_array, run_name=run_name, qrels=qrels)


def _with_bounds(results: Results, alignment, protocol: Protocol, measure_list: list[Measure],
                 engine: "str | Engine") -> Results:
    """The results, holding each measure's per-query interval over the two
    completions of the judgments (see :meth:`Results.bounds`): unjudged docs
    gain 0 (the value itself, under unjudged=zero), or are judged at the
    highest grade (the highest judged grade, and at least the protocol's rel)
    when they can land within the measure's cutoff, the ideal and R counting
    them. Computed by the pipeline (:func:`rankproof.pipeline.assume_unjudged`)
    and the same engine: no kernel of its own."""
    import copy

    from .pipeline.alignment import assume_unjudged

    if protocol.aggregation is Aggregation.MICRO:
        raise InputError("bounds are averaged per query (aggregation=macro or weighted); "
                         "aggregation=micro has no per-query bounds, so set aggregation=macro")
    highest = max(float(np.max(alignment.pool_grade, initial=0)), float(protocol.rel))
    if highest.is_integer() and alignment.grade.dtype.kind != "f" and alignment.pool_grade.dtype.kind != "f":
        highest = int(highest)  # integer grades stay integers (the compiled engine reads them so)
    by_cutoff: dict = {}
    for measure in measure_list:
        by_cutoff.setdefault(measure.cutoff, []).append(measure)
    found: dict[Measure, tuple[np.ndarray, np.ndarray]] = {}
    for cutoff, measures in by_cutoff.items():
        optimistic = assume_unjudged(alignment, highest, cutoff)
        values = get_engine(engine).evaluate(optimistic, measures, protocol)
        for measure in measures:
            low = results._measures[measure].value
            high = _apply_zero_ideal(values[measure], measure, protocol, alignment.queries).value
            with np.errstate(invalid="ignore"):
                found[measure] = (np.fmin(low, high), np.fmax(low, high))
    bounded = copy.copy(results)
    bounded._bounds = found
    return bounded


def _apply_zero_ideal(values, measure: Measure, protocol: Protocol, queries: np.ndarray) -> MeasureResult:
    value = values.value.astype(np.float64, copy=True)
    included = np.ones(len(value), dtype=bool)
    undefined = values.undefined if (values.undefined is not None and measure.spec.normalised) else None
    zero_ideal = int(undefined.sum()) if undefined is not None else 0
    if undefined is not None and zero_ideal:
        policy = protocol.zero_ideal
        if policy is ZeroIdeal.ERROR:
            first = queries[np.flatnonzero(undefined)[0]]
            raise ZeroIdealError(
                f"query {first}: nothing relevant, so {measure} is undefined ({zero_ideal} such queries); "
                "set the policy zero_ideal=zero to score them 0 (counted), zero_ideal=exclude to leave them out, "
                "or zero_ideal=one"
            )
        if policy is ZeroIdeal.ONE:
            value[undefined] = 1.0
        elif policy is ZeroIdeal.ZERO:
            value[undefined] = 0.0
        else:
            value[undefined] = np.nan
            included &= ~undefined
    return MeasureResult(
        measure=measure, value=value, included=included,
        numerator=values.numerator, denominator=values.denominator,
        zero_ideal=undefined if undefined is not None else np.zeros(len(value), dtype=bool),
    )

