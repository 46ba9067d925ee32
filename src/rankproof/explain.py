"""Explain one score: the ranking of one query, position by position.

``explain(qrels, run, query, measure)`` returns every number that went into a
query's value (rank, doc, score, tie group, grade, gain, discount,
contribution, cumulative DCG), the ideal list with its DCG, and which policies
changed anything for the query. It replaces the debug prints people add by
hand; renderers in :mod:`rankproof.report` print it.
"""

from __future__ import annotations

import dataclasses
import gc
import typing

import numpy as np

from .data.align import align
from .data.qrels import Qrels
from .data.run import Run
from .errors import InputError
from .evaluate import _as_protocol, evaluate
from .measures.base import Measure, parse_measure
from .measures.compute import discount_table, gains_of
from .protocol import Ideal, Protocol, Ties

__all__ = ["explain", "Explanation", "RankedRow", "IdealRow"]


class RankedRow(typing.NamedTuple):
    """One ranked doc. Under ties=expected, ``discount`` is the mean discount
    of the ranks its tie group spans inside the cutoff, so ``contribution`` is
    the doc's expected share of DCG.

    A named tuple (immutable, fields by name): a query of a million docs
    makes a million rows, and a tuple is built ten times faster than a
    frozen dataclass."""

    rank: int
    doc: str
    score: float | None
    tie_group: int
    tie_size: int
    grade: int | None  # None: unjudged
    relevant: bool
    gain: float
    discount: float
    contribution: float
    cumulative: float
    line: int | None
    in_cutoff: bool  # its group starts inside the cutoff, so it can contribute


@dataclasses.dataclass(frozen=True)
class IdealRow:
    rank: int
    doc: str
    grade: int
    gain: float
    discount: float
    contribution: float
    cumulative: float


@dataclasses.dataclass(frozen=True)
class Explanation:
    query: str
    measure: Measure
    protocol: Protocol
    value: float | None  # None: excluded by zero_ideal='exclude'
    ranking: tuple[RankedRow, ...]
    ideal: tuple[IdealRow, ...]
    dcg: float
    ideal_dcg: float
    policies: tuple[str, ...]  # what the protocol changed for this query


def _rows_of(queries: np.ndarray, offsets: np.ndarray, query: str) -> tuple[int, int] | None:
    """Row range of `query` among sorted `queries`, or None when absent."""
    at = np.searchsorted(queries, query)
    if at >= len(queries) or queries[at] != query:
        return None
    return offsets[at], offsets[at + 1]


def _select_qrels(qrels: Qrels, query: str) -> Qrels | None:
    rows = _rows_of(qrels.queries, qrels.offsets, query)
    if rows is None:
        return None
    lo, hi = rows
    return Qrels(query_codes=np.zeros(hi - lo, np.int64), queries=np.array([query]),
                 doc_codes=qrels.doc_codes[lo:hi], docs=qrels.docs, grades=qrels.grades[lo:hi],
                 lines=qrels.lines[lo:hi], source=qrels.source)


def _select_run(run: Run, query: str) -> Run | None:
    rows = _rows_of(run.queries, run.offsets, query)
    if rows is None:
        return None
    lo, hi = rows
    return Run(query_codes=np.zeros(hi - lo, np.int64), queries=np.array([query]),
               doc_codes=run.doc_codes[lo:hi], docs=run.docs,
               scores=run.scores[lo:hi] if run.has_scores else None,
               lines=run.lines[lo:hi], source=run.source, name=run.name)


def _rows(n, a, scores, tie, tie_size, grades, relevant, gains, discount, contributions, cumulative, lines,
          in_cutoff) -> tuple:
    """The ranked rows, built from whole columns."""
    return tuple(map(RankedRow._make, zip(
        range(1, n + 1), a.docs[a.doc].tolist(), scores, (tie + 1).tolist(), tie_size.tolist(), grades,
        relevant.tolist(), gains.tolist(), discount.tolist(), contributions.tolist(), cumulative.tolist(),
        lines, in_cutoff.tolist())))


def explain(qrels: Qrels, run: Run, query: str, measure: "str | Measure" = "ndcg@10",
            protocol: "Protocol | str | None" = None) -> Explanation:
    """Every number behind one query's value of one measure.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2, "C": 1, "D": 0}})
    >>> e = explain(qrels, Run.from_dict({"q1": ["B", "E"]}), "q1", "ndcg@2")
    >>> [(row.doc, row.grade, round(row.contribution, 4)) for row in e.ranking]
    [('B', 2, 2.0), ('E', None, 0.0)]
    >>> [row.doc for row in e.ideal], round(e.value, 4)
    (['A', 'B'], 0.4693)
    >>> e.policies
    ('1 unjudged doc inside the cutoff scored as non-relevant (unjudged=zero)',)
    """
    protocol = _as_protocol(protocol)
    measure = parse_measure(measure)
    query = str(query)
    one_qrels = _select_qrels(qrels, query)
    one_run = _select_run(run, query)
    if one_qrels is None:
        near = ", ".join(qrels.queries[:5].tolist())
        raise InputError(f"{qrels.source}: query {query} is not judged; judged queries include {near}")
    if one_run is None or len(one_run) == 0:
        raise InputError(f"{run.source}: query {query} has no ranking in this run; nothing to explain")

    value = evaluate(one_qrels, one_run, [measure], protocol).per_query(measure).get(query)
    a = align(one_qrels, one_run, protocol)
    gain_policy = measure.setting("gain", protocol) if "gain" in measure.spec.params else protocol.gain
    discount_policy = measure.setting("discount", protocol) if "discount" in measure.spec.params else protocol.discount
    rel = measure.setting("rel", protocol) if "rel" in measure.spec.params else protocol.rel
    n = len(a.doc)
    k = measure.cutoff if measure.cutoff is not None else n
    table = discount_table(discount_policy, max(n, len(a.pool_grade), 1))
    cumulative_table = np.concatenate([[0.0], np.cumsum(table)])
    gains = np.where(a.judged, gains_of(a.grade, gain_policy), 0.0)

    # Every column at once (no Python work per doc but building the rows).
    position = np.arange(n)
    group = np.searchsorted(a.group_offsets[:-1], position, side="right") - 1
    lo, hi = a.group_offsets[:-1], a.group_offsets[1:]
    size = hi - lo
    mean_discount = (cumulative_table[np.minimum(hi, k)] - cumulative_table[np.minimum(lo, k)]) / np.maximum(size, 1)
    tie = np.searchsorted(a.tie_offsets[:-1], position, side="right") - 1
    tie_size = np.diff(a.tie_offsets)[tie]
    # Under ties=expected every doc of a group receives, in expectation,
    # the group's mean discount (its own gain, not the mean gain).
    own_discount = np.where(position < k, table[:n], 0.0)
    discount = np.where(size[group] > 1, mean_discount[group], own_discount)
    contributions = gains * discount
    cumulative = np.cumsum(contributions)
    relevant = a.judged & (a.grade >= rel)
    scores = a.score.tolist() if run.has_scores else [None] * n
    grades = [int(g) if j else None for g, j in zip(a.grade.tolist(), a.judged.tolist())]
    lines = [line if line >= 0 else None for line in a.line.tolist()]
    # A million new tuples would each trigger Python's cycle collector,
    # whose passes over the growing heap cost more than building the rows
    # (tuples of numbers and strings hold no cycles).
    collecting = gc.isenabled()
    gc.disable()
    try:
        rows = _rows(n, a, scores, tie, tie_size, grades, relevant, gains, discount, contributions, cumulative,
                     lines, lo[group] < k)
    finally:
        if collecting:
            gc.enable()

    ideal_policy = measure.setting("ideal", protocol) if "ideal" in measure.spec.params else protocol.ideal
    if ideal_policy is Ideal.JUDGED:
        lo, hi = one_qrels.offsets[0], one_qrels.offsets[1]
        pool_docs = one_qrels.docs[one_qrels.doc_codes[lo:hi]]
        pool_grades = one_qrels.grades[lo:hi]
        keep = pool_grades >= 0 if protocol.negative_grades.value == "unjudged" else np.ones(len(pool_grades), bool)
        pool_docs, pool_grades = pool_docs[keep], np.maximum(pool_grades[keep], 0)
    else:
        pool_docs, pool_grades = a.docs[a.doc][a.judged], a.grade[a.judged]
    pool_gains = np.maximum(gains_of(pool_grades, gain_policy), 0.0)
    order = np.lexsort((pool_docs, -pool_gains))
    ideal_rows = []
    running = 0.0
    for rank, j in enumerate(order[: min(k, len(order))] if measure.cutoff is not None else order, 1):
        if pool_gains[j] <= 0:
            break
        contribution = pool_gains[j] * table[rank - 1]
        running += contribution
        ideal_rows.append(IdealRow(rank=rank, doc=str(pool_docs[j]), grade=int(pool_grades[j]),
                                   gain=float(pool_gains[j]), discount=float(table[rank - 1]),
                                   contribution=float(contribution), cumulative=float(running)))

    dcg_total = float(sum(contributions.tolist()))
    ideal_total = float(running)
    return Explanation(query=query, measure=measure, protocol=protocol, value=value,
                       ranking=tuple(rows), ideal=tuple(ideal_rows), dcg=dcg_total,
                       ideal_dcg=ideal_total, policies=_policies_touched(a, protocol, measure, k, ideal_total))


def _policies_touched(a, protocol: Protocol, measure: Measure, k: int, ideal_dcg: float) -> tuple[str, ...]:
    notes = []
    c = a.counts
    # As in Results.counts: a doc whose (averaged) group starts inside the
    # cutoff can land inside it, whatever order the docs were given in.
    group_start = np.repeat(a.group_offsets[:-1], np.diff(a.group_offsets))
    unjudged_inside = int((~a.judged & (group_start < k)).sum())
    if unjudged_inside:
        plural = "doc" if unjudged_inside == 1 else "docs"
        notes.append(f"{unjudged_inside} unjudged {plural} inside the cutoff scored as non-relevant (unjudged=zero)")
    if c.get("unjudged_dropped"):
        notes.append(f"{c['unjudged_dropped']} unjudged docs dropped before ranking (unjudged=condense)")
    if c.get("duplicates_dropped"):
        notes.append(f"{c['duplicates_dropped']} repeated docs dropped (duplicates=first)")
    if c.get("negative_grades"):
        notes.append(f"{c['negative_grades']} negative grades read as negative_grades={protocol.negative_grades}")
    sizes = np.diff(a.tie_offsets)
    starts = a.tie_offsets[:-1]
    if (sizes > 1).any():
        crossing = int(((sizes > 1) & (starts < k) & (starts + sizes > k)).sum())
        how = {Ties.EXPECTED: "averaged over their orders", Ties.DOCID: "ordered by doc id descending",
               Ties.INPUT: "kept in input order", Ties.ERROR: ""}[protocol.ties]
        notes.append(f"{int((sizes > 1).sum())} tied groups {how} (ties={protocol.ties})"
                     + (f", {crossing} crossing the cutoff {k}" if crossing else ""))
    if measure.spec.normalised and ideal_dcg == 0 and measure.name in ("ndcg", "ideal_dcg"):
        notes.append(f"ideal DCG is 0: nothing relevant (zero_ideal={protocol.zero_ideal})")
    if not a.in_run.all():
        notes.append(f"query missing from the run, scored as an empty ranking (missing_query={protocol.missing_query})")
    return tuple(notes)
