"""``evaluate(qrels, run, measures, protocol)``: the one entry point.

Validate the request, align the run with the qrels under the protocol, call
each measure's vectorised kernel, apply the query policies, and return
:class:`~rankproof.results.Results`.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np

from .data.align import align
from .data.qrels import Qrels
from .data.run import Run
from .errors import InputError, TieError, ZeroIdealError
from .measures.base import Measure, parse_measures
from .measures.compute import Context
from .protocol import Aggregation, Protocol, ZeroIdeal
from .results import MeasureResult, Results

__all__ = ["evaluate"]


def _as_protocol(protocol: "Protocol | str | None") -> Protocol:
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
    if not _weights_wanted(weights, protocol):
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
) -> Results:
    """Evaluate one run against the qrels under an explicit protocol.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    run : Run
        The system's rankings.
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "ap", "p(rel=2)@5"]``. Unknown names are all
        reported at once, with the nearest valid names.
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
        Every convention; see :class:`rankproof.Protocol`.
    weights : mapping query -> weight, optional
        Needed when the protocol says ``aggregation='weighted'``.

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
    protocol = _as_protocol(protocol)
    measure_list = _measure_list(measures, protocol)
    if not isinstance(qrels, Qrels) or not isinstance(run, Run):
        raise InputError("evaluate(qrels, run, ...) takes a Qrels and a Run; build them with "
                         "Qrels.from_dict / Run.from_dict or read_trec")

    alignment = align(qrels, run, protocol)
    weight_array = _query_weights(weights, alignment.queries, protocol)
    return _measure_alignment(alignment, protocol, measure_list, weight_array, run.name, qrels)


def _measure_list(measures, protocol: Protocol) -> list[Measure]:
    """Parse the measures asked for, once each, and check them against the protocol."""
    measure_list = parse_measures(measures)
    # One result per distinct measure, in the order first asked for.
    measure_list = list(dict.fromkeys(measure_list))
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
                       compute=None) -> Results:
    """Every measure over an alignment, with the query policies applied.

    Shared by :func:`evaluate` and :func:`rankproof.evaluate_scores`.
    ``compute(measure)`` may give a measure's values by a faster route (it
    returns None to fall back to the measure's own function over the alignment).
    """
    context = None
    results: dict[Measure, MeasureResult] = {}
    tied_groups = None
    for measure in measure_list:
        values = compute(measure) if compute is not None else None
        if values is None:
            if tied_groups is None:
                tied_groups = int((np.diff(alignment.group_offsets) > 1).sum())
            if measure.spec.ties == "ordered" and tied_groups:
                raise TieError(
                    f"{measure} has no closed form for the expectation over tied orders, and "
                    f"{alignment.run_source} has {tied_groups} tied groups; set the policy ties=docid "
                    "(trec_eval's order) or ties=input"
                )
            if context is None:
                context = Context(alignment, protocol)
            values = measure.spec.compute(context, measure)
        results[measure] = _apply_zero_ideal(values, measure, protocol, alignment.queries)
    return Results(alignment=alignment, protocol=protocol, measures=results, weights=weight_array,
                   run_name=run_name, qrels=qrels)


def _apply_zero_ideal(values, measure: Measure, protocol: Protocol, queries: np.ndarray) -> MeasureResult:
    value = values.value.astype(np.float64, copy=True)
    included = np.ones(len(value), dtype=bool)
    undefined = values.undefined if (values.undefined is not None and measure.spec.normalised) else None
    zero_ideal = int(undefined.sum()) if undefined is not None else 0
    if zero_ideal:
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

