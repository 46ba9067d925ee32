"""The evaluation step: the one function every front door calls.

A front door converts its input once (files, dicts, DataFrames, score
matrices) to a :class:`~rankproof.Qrels` and a :class:`~rankproof.Run`, or
to an alignment, and calls :func:`evaluate` or :func:`evaluate_alignment`:
resolve the protocol and the measures (:func:`resolve_protocol`,
:func:`resolve_measures`), align the run with the qrels under the protocol,
plan the measures onto the engines and apply the query policies
(:func:`apply_zero_ideal`) in one pass of the planner
(:func:`rankproof.engines.plan.compute_pass`, which also computes the bounds
and the range over tied orders asked for, beside the values), and return
:class:`~rankproof.results.Results`. The step's options come as one value,
:class:`~rankproof.engines.options.EvaluationOptions`, which each front door
builds from its keywords; what a front door wants said or shown (typed query
ids, notes, complete judgments, the run's name) are options or arguments of
the step, not copies of Results patched afterwards.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings as python_warnings
from typing import Callable, Mapping, Sequence

import numpy as np

from .data.layering import with_layers
from .pipeline.aligned import AlignmentLike
from .pipeline.alignment import align_inputs
from .pipeline.chunks import resolve_files
from .pipeline.ids import normalised_inputs
from .pipeline.ties import TIE_ORDERS_LIMIT, tied_orders
from .data.qrels import Qrels
from .data.intents import IntentQrels
from .data.run import Run
from .engines import Engine
from .engines.options import EvaluationOptions
from .engines.plan import Range, compute_pass, ranges_over
from .errors import InputError, RankproofWarning
from .measures.base import Measure
from .measures.resolve import resolve_measures
from .protocol import Aggregation, Protocol, Ties
from .protocol.resolve import as_protocol
from .results import (MIN_COVERAGE, MeasureResult, QueryIds, Results, check_query_coverage,
                      guard_coverage)
from .results.weights import query_weights, weights_wanted
from .results.zero_ideal import apply_zero_ideal, nothing_relevant
from .results.matching import find_mismatch, guard
from .typing import MeasuresLike, ProtocolLike

__all__ = ["evaluate", "evaluate_read", "EvaluationOptions", "evaluate_alignment",
           "resolve_protocol", "resolve_measures", "weights_wanted",
           "query_weights", "apply_zero_ideal", "nothing_relevant", "tie_range", "TIE_ORDERS_LIMIT",
           "MIN_COVERAGE",
           "check_query_coverage", "guard_coverage"]


def resolve_protocol(protocol: ProtocolLike) -> Protocol:
    """A Protocol from what a caller gives (None, a preset name, protocol text or a Protocol:
    :func:`rankproof.protocol.resolve.as_protocol`), with the files its policies name
    read into it (:func:`rankproof.pipeline.chunks.resolve_files`): the join never reads them.

    >>> resolve_protocol("trec_eval") == Protocol.preset("trec_eval")
    True
    """
    return resolve_files(as_protocol(protocol))


def evaluate(
    qrels: Qrels,
    run: Run,
    measures: MeasuresLike,
    protocol: ProtocolLike = None,
    *,
    weights: Mapping[str, float] | None = None,
    engine: "str | Engine | None" = None,
    min_coverage: float = MIN_COVERAGE,
    allow_partial: bool = False,
    bounds: bool = False,
    query_ids: "QueryIds | None" = None,
    notes: Sequence[str] = (),
    complete_judgments: bool = False,
    ties_range: bool = False,
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
    engine : str or Engine, optional
        The engine to prefer: ``"compiled"`` (one fused compiled pass per
        query) or ``"numpy"`` (the reference), or an Engine. It computes
        every measure it supports; the other engines of the registry remain
        as fallbacks, in order (:data:`rankproof.engines.ENGINES`). By
        default the registry's order: compiled, then numpy. Engines give the
        same values; the choice is not part of the protocol.
    min_coverage : float, default 0.5
        The share of judged queries the run must rank. Below it, and always
        when the run ranks none of them (query ids that do not match), a
        :class:`~rankproof.errors.CoverageError` is raised naming the fix.
    allow_partial : bool, default False
        Evaluate anyway; ``results.query_coverage`` and the summary's warning
        (said below `min_coverage`, which ``results.min_coverage`` keeps)
        say how much was covered. Also evaluates ids that the partial-match
        guard (:mod:`rankproof.results.matching`) would refuse, such as
        zero-padded query ids (``001`` against ``1``), as they are written,
        with a warning.
    bounds : bool, default False
        Also evaluate every measure under the optimistic completion of the
        judgments (unjudged docs at the highest grade), so that
        :meth:`Results.bounds` gives each value's interval over what the
        unjudged docs could be.
    query_ids, notes, complete_judgments
        What a front door wants the results to show (see
        :func:`evaluate_alignment`).
    ties_range : bool, default False
        Also each measure's lowest and highest value over the orders of the
        docs of each group of equal scores, under any tie policy, so that
        :meth:`Results.tie_range` gives them per query and for the mean
        (docs/ties.md: two evaluations for the measures with a merit order,
        exact enumeration within a limit for the others).

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
    options = EvaluationOptions(weights=weights, engine=engine, min_coverage=min_coverage,
                                allow_partial=allow_partial, bounds=bounds, query_ids=query_ids,
                                notes=notes, complete_judgments=complete_judgments,
                                ties_range=ties_range)
    return evaluate_read(lambda: (qrels, run), measures, protocol, options=options, stacklevel=3)


def evaluate_read(
    read: "Callable[[], tuple[Qrels | IntentQrels, Run]]",
    measures: MeasuresLike,
    protocol: ProtocolLike = None,
    *,
    options: EvaluationOptions | None = None,
    run_name: str | None = None,
    stacklevel: int = 2,
    side_only: bool = False,
) -> Results:
    """:func:`evaluate` for a front door that reads its inputs itself: ``read()``
    gives ``(qrels, run)``, read once the measures and the protocol are known
    to be good.

    When nothing else holds the run (the front door made it inside `read`
    and kept no reference), its columns are freed as soon as they are
    aligned, before the measures are computed: the alignment has copied what
    it reordered, and a log of millions of rows would otherwise be held
    twice. `options` are :func:`evaluate`'s keywords as one value
    (:class:`~rankproof.engines.options.EvaluationOptions`; the defaults when
    None), built and checked by the front door. `run_name`: the
    run's name in the results (by default the run's own). `stacklevel` is the
    warnings' (2: they name the line that called this function). `side_only`: no
    measure is asked for because side-data measures alone are (the Results
    hold the queries, counts and coverage for them; `rankproof.recsys`).

    >>> from rankproof import Qrels, Run
    >>> read = lambda: (Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["b", "a"]}))
    >>> evaluate_read(read, "rr").mean("rr")
    0.5
    """
    options = EvaluationOptions() if options is None else options
    protocol = resolve_protocol(protocol)
    measure_list = [] if side_only and not measures else resolve_measures(measures, protocol)
    qrels, run = read()
    # Only this function holds the run (the local and getrefcount's argument): the
    # alignment may rank its columns in place instead of holding a ranked copy.
    reuse = sys.getrefcount(run) == 2
    intents = None
    if isinstance(qrels, IntentQrels):
        intents, qrels = qrels, qrels.doc_qrels
    if not isinstance(qrels, Qrels) or not isinstance(run, Run):
        raise InputError(what="evaluate(qrels, run, ...) takes a Qrels (or IntentQrels) and a Run",
                         fix="build them with Qrels.from_dict / Run.from_dict or read_trec")
    protocol = with_layers(protocol, qrels)  # layered qrels: the layering enters the protocol
    inputs = normalised_inputs(qrels, run, protocol)  # the ids, once: the guard and the join read
    del qrels, run
    doubts = _id_warnings(inputs.qrels, inputs.run, protocol, options.allow_partial)
    qrels, run_source = inputs.qrels, inputs.run.source
    run_name = inputs.run.name if run_name is None else run_name
    alignment = align_inputs(inputs, reuse=reuse)
    del inputs  # see the docstring: a run only this function holds is freed here
    if intents is not None:
        from .pipeline.intents import attach_intents

        alignment = attach_intents(alignment, intents)
    results = evaluate_alignment(alignment, measure_list, protocol, run_name=run_name, qrels=qrels,
                                 weights=query_weights(options.weights, alignment.queries,
                                                       protocol),
                                 options=options, warnings=doubts)
    for line in results.warnings:
        python_warnings.warn(line, RankproofWarning, stacklevel=stacklevel)
    guard_coverage(results, allow_partial=options.allow_partial, min_coverage=options.min_coverage,
                   source=f"{run_source} against {qrels.source}", stacklevel=stacklevel + 1)
    return results


def _id_warnings(qrels: Qrels, run: Run, protocol: Protocol, allow_partial: bool) -> tuple[str,
                                                                                           ...]:
    """The partial-match guard: refuse ids that plainly do not match as written (unless
    allow_partial), or say in one line why they half match."""
    return guard(find_mismatch(qrels, run, protocol), f"{run.source} against {qrels.source}",
                 allow_partial)


_TIED_RUN = 10  # rankings that are each one tie, all of them: a run whose scores say nothing


def _tie_warning(alignment: AlignmentLike, protocol: Protocol) -> tuple[str, ...]:
    """Every ranking one tie of equal scores: the order the measures read is not the run's."""
    if protocol.ties not in (Ties.EXPECTED, Ties.DOCID):
        return ()
    tied = alignment.tied_rankings()
    if tied < _TIED_RUN:  # a tie or two on purpose is no run file without scores
        return ()
    how = "average over every order of its docs (ties=expected)" if protocol.ties is Ties.EXPECTED \
        else "read its docs by doc id (ties=docid)"
    return (f"every ranking is one tie ({tied} queries, each with one score for all its docs), so the measures "
            f"{how}; if the run lists each query's docs in rank order (its rank column), set the policy "
            "ties=input (--policy ties=input) to score that order",)


def evaluate_alignment(alignment: AlignmentLike, measures: MeasuresLike, protocol: ProtocolLike, *,
                       run_name: str, qrels=None, weights: np.ndarray | None = None,
                       options: EvaluationOptions | None = None,
                       warnings: Sequence[str] = ()) -> Results:
    """Every measure over an alignment, with the query policies applied: the
    step after a front door's conversion.

    Parameters
    ----------
    alignment
        What :func:`rankproof.pipeline.align` (or a front door's own
        alignment, such as a score matrix's) made of the inputs.
    measures, protocol
        As :func:`evaluate` takes them (resolved by :func:`resolve_measures`
        and :func:`resolve_protocol`, which keep resolved ones as they are).
    run_name : str
        The run's name in results.
    qrels : Qrels, optional
        The judgments (for the results' digest).
    weights : numpy.ndarray, optional
        Per query, aligned with ``alignment.queries`` (:func:`query_weights`
        made them of the options' weights, which this step does not read).
    options : EvaluationOptions, optional
        What else the caller asked for
        (:class:`~rankproof.engines.options.EvaluationOptions`): the engine to
        prefer, the bounds under the unjudged docs (:meth:`Results.bounds`),
        the range over tied orders (:meth:`Results.tie_range`), the query ids
        to show, the notes to state, complete judgments (unjudged docs inside
        a cutoff raise no warning). The defaults when None.
    warnings : sequence of str
        What the front door found doubtful about the input (ids that half
        match); the step adds its own (every ranking one tie).
    """
    options = EvaluationOptions() if options is None else options
    protocol = resolve_protocol(protocol)
    # An empty list was resolved already: side-data measures alone (evaluate_read's side_only).
    measures = ([] if isinstance(measures, list) and not measures
                else resolve_measures(measures, protocol))
    dropped = nothing_relevant(alignment, protocol)

    def finish(values, measure: Measure) -> MeasureResult:  # the query policies, on every pass
        return apply_zero_ideal(values, measure, protocol, alignment.queries, dropped)

    ranges = {}
    if options.bounds:
        ranges["bounds"] = Range(_completions(alignment, protocol, measures), with_plain=True)
    if options.ties_range:
        ranges["tie_range"] = Range(tied_orders(alignment.flat(), protocol, measures))
    # One pass of the planner: the values, and beside them the alignments of each range.
    results, found = compute_pass(alignment, measures, protocol, options.engine, finish=finish,
                                  ranges=ranges)
    counts = alignment.step_counts(results, qrels)  # a function where counting costs a pass
    table = alignment.query_table()
    if options.notes:
        table = dataclasses.replace(table, notes=(*table.notes, *options.notes))
    doubts = (*warnings, *_tie_warning(alignment, protocol))
    if doubts:
        table = dataclasses.replace(table, warnings=(*table.warnings, *doubts))
    ranged = {name: {m: found[name][m] for m in measures} for name in found}  # measures' order
    return Results(table=table, counts=counts, protocol=protocol, measures=results, weights=weights,
                   run_name=run_name, qrels=qrels, query_ids=options.query_ids,
                   complete_judgments=options.complete_judgments,
                   bounds=ranged.get("bounds"), tie_range=ranged.get("tie_range"),
                   min_coverage=options.min_coverage)


def tie_range(alignment, protocol: Protocol, measure_list: list[Measure],
              engine: "str | Engine | None" = None,
              limit: int = TIE_ORDERS_LIMIT) -> dict[Measure, tuple[np.ndarray, np.ndarray]]:
    """Each measure's per-query (min, max) over the orders of the docs of each
    group of equal scores (see :meth:`Results.tie_range`), whatever the tie
    policy, alone: :func:`evaluate_alignment` computes them in its pass, beside the values
    (``ties_range=True``). The orders are the pipeline's
    (:func:`rankproof.pipeline.ties.tied_orders`: two per merit order, else every distinct
    order within `limit`), computed by the same planner
    (:func:`rankproof.engines.plan.ranges_over`)."""
    dropped = nothing_relevant(alignment, protocol)

    def finish(values, measure: Measure) -> MeasureResult:
        return apply_zero_ideal(values, measure, protocol, alignment.queries, dropped)

    found = ranges_over(Range(tied_orders(alignment.flat(), protocol, measure_list, limit)),
                        protocol, engine, finish)
    return {m: found[m] for m in measure_list}


def _completions(alignment, protocol: Protocol, measure_list: list[Measure]):
    """The completions of the judgments the bounds are taken over (see :meth:`Results.bounds`),
    beside the plain values (unjudged docs gain 0, the value itself under unjudged=zero): per
    cutoff of the measures, ``(alignment, its measures)`` with the unjudged docs that can land
    within the cutoff judged at the highest grade (the highest judged grade, and at least the
    protocol's rel), the ideal and R counting them. Made by the pipeline
    (:func:`rankproof.pipeline.assume_unjudged`) as the planner asks for them: no kernel of
    their own."""
    from .pipeline.alignment import assume_unjudged

    if protocol.aggregation is Aggregation.MICRO:
        raise InputError(what="bounds are averaged per {query} (aggregation=macro or weighted); "
                              "aggregation=micro has no per-{query} bounds",
                         fix="set aggregation=macro")
    alignment = alignment.flat()  # the completion is of flat positions
    highest = max(float(np.max(alignment.pool_grade, initial=0)), float(protocol.rel))
    if (highest.is_integer() and alignment.grade.dtype.kind != "f"
        and alignment.pool_grade.dtype.kind != "f"):
        highest = int(highest)  # integer grades stay integers (the compiled engine reads them so)
    by_cutoff: dict = {}
    for measure in measure_list:
        by_cutoff.setdefault(measure.cutoff, []).append(measure)
    return ((assume_unjudged(alignment, highest, cutoff), measures)
            for cutoff, measures in by_cutoff.items())
