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

from ..pipeline.alignment import align
from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, RankproofError, literal
from ..io.limits import Limit
from ..evaluation import evaluate, evaluate_alignment, resolve_protocol
from ..measures.base import Measure
from ..measures.parse import parse_measure
from ..measures.compute import discount_table, gains_of
from ..protocol import Ideal, NegativeGrades, Protocol, Ties, Unjudged
from ..measures.working import working
from ..typing import ProtocolLike
from .pools import expanded_pool, pool_ids
from .top import TopRankings, explain_top

__all__ = ["explain", "explain_top", "Explanation", "RankedRow", "IdealRow", "TopRankings",
           "MAX_EXPLAINED_DOCS"]

# explain builds one row of Python numbers per ranked doc (about 1 KB with the
# alignment's columns): a million docs is a gigabyte, so longer rankings are refused first.
MAX_EXPLAINED_DOCS = Limit("explained ranking", "RANKPROOF_MAX_EXPLAINED_DOCS", 1_000_000, "docs")


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
    grade: int | float | None  # None: unjudged; float: a real grade (grades=real)
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
    grade: int | float
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
    policies: tuple[str, ...]  # the policies that changed this value
    # the arithmetic of rank-based measures (R, precisions, first rank)
    working: tuple[str, ...] = ()


def _rows_of(queries: np.ndarray, offsets: np.ndarray, query: str) -> tuple[int, int] | None:
    """Row range of `query` among sorted `queries`, or None when absent."""
    at = np.searchsorted(queries, query)
    if at >= len(queries) or queries[at] != query:
        return None
    return offsets[at], offsets[at + 1]


_Rows = typing.TypeVar("_Rows", Qrels, Run)


def _select(value: _Rows, query: str) -> _Rows | None:
    """`value` (judgments or a run) cut to the rows of `query`, or None when it has none."""
    rows = _rows_of(value.queries, value.offsets, query)
    if rows is None:
        return None
    lo, hi = rows
    common: dict[str, typing.Any] = dict(
        query_codes=np.zeros(hi - lo, np.int64), queries=np.array([query]),
        doc_codes=value.doc_codes[lo:hi],
        docs=value.docs, lines=value.lines[lo:hi], source=value.source)
    if isinstance(value, Run):
        return Run(**common, scores=value.scores[lo:hi] if value.has_scores else None,
                   name=value.name)
    return Qrels(**common, grades=value.grades[lo:hi])


def explain(qrels: Qrels, run: Run, query: str, measure: "str | Measure" = "ndcg@10",
            protocol: ProtocolLike = None) -> Explanation:
    """Every number behind one query's value of one measure.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2, "C": 1, "D": 0}})
    >>> e = explain(qrels, Run.from_dict({"q1": ["E", "B"]}), "q1", "ndcg@2")
    >>> [(row.doc, row.grade, round(row.contribution, 4)) for row in e.ranking]   # 2 / log2(3)
    [('E', None, 0.0), ('B', 2, 1.2619)]
    >>> [row.doc for row in e.ideal], round(e.value, 4)                             # 1.2619 / (3 + 1.2619)
    (['A', 'B'], 0.2961)
    >>> e.policies   # without E (unjudged=condense) B would rank first
    ('1 unjudged doc inside the cutoff scored as non-relevant (unjudged=zero)',)

    Rank-based measures show their arithmetic; the unjudged doc E below the
    first relevant rank changes nothing, so no policy is listed:

    >>> e = explain(qrels, Run.from_dict({"q1": ["B", "E"]}), "q1", "rr")
    >>> e.working
    ('first relevant rank: 1 (B)', 'rr = 1 / 1 = 1.0000')
    >>> e.policies
    ()
    """
    protocol = resolve_protocol(protocol)
    measure = parse_measure(measure)
    query = str(query)
    one_qrels = _select(qrels, query)
    one_run = _select(run, query)
    if one_qrels is None:
        near = ", ".join(qrels.queries[:5].tolist())
        raise InputError(what="{query} " + literal(query) + " is not judged", source=qrels.source,
                         value=query,
                         fix="judged {queries} include " + literal(near))
    if one_run is None or len(one_run) == 0:
        raise InputError(what="{query} " + literal(query) + " has no ranking in this run",
                         source=run.source,
                         value=query, fix="nothing to explain")

    if len(one_run) > MAX_EXPLAINED_DOCS.value():
        raise InputError(what=MAX_EXPLAINED_DOCS.beyond(f"its ranking of {len(one_run):,} docs"),
                         source=run.source, value=len(one_run), query=query,
                         fix="cut the run to its top docs first (explain_top reads only those), or "
                             + MAX_EXPLAINED_DOCS.fix)
    # One alignment: the value and every row shown come from it.
    a = align(one_qrels, one_run, protocol)
    value = evaluate_alignment(a, [measure], protocol, run_name=one_run.name, qrels=one_qrels
                               ).per_query(measure).get(query)
    rel = measure.setting("rel", protocol) if "rel" in measure.spec.params else protocol.rel
    k = measure.cutoff if measure.cutoff is not None else len(a.doc)
    columns = _ranked_columns(a, measure, protocol, k)
    rows = _rows(a, columns, run.has_scores, rel, k)
    ideal_rows = _ideal_rows(a, measure, protocol, k, columns.table)
    ideal_total = ideal_rows[-1].cumulative if ideal_rows else 0.0
    num_rel = int((a.pool_grade >= rel).sum())

    def changes(**alternative) -> bool:
        """Would the value differ under another policy? Only such policies are listed."""
        try:
            other = evaluate(one_qrels, one_run, [measure], protocol.replace(**alternative))
            other_value = other.per_query(measure).get(query)
        except RankproofError:
            return True  # the other policy refuses this query: this one decided its value
        if value is None or other_value is None:
            return value is not other_value
        return abs(other_value - value) > 1e-12

    return Explanation(query=query, measure=measure, protocol=protocol, value=value,
                       ranking=rows, ideal=ideal_rows,
                       dcg=float(sum(columns.contributions.tolist())),
                       ideal_dcg=ideal_total,
                       policies=_policies_touched(a, protocol, measure, k, ideal_total, changes,
                                                  rel),
                       working=working(a, measure, protocol, rel, k, num_rel))


@dataclasses.dataclass(frozen=True)
class _Columns:
    """Per ranked position of one query: gain, discount, contribution and groups."""

    table: np.ndarray  # the discount at each rank
    gains: np.ndarray
    discount: np.ndarray
    contributions: np.ndarray
    cumulative: np.ndarray
    tie: np.ndarray  # the position's tie group (equal scores)
    tie_size: np.ndarray
    in_cutoff: np.ndarray  # its averaged group starts inside the cutoff


def _ranked_columns(a, measure: Measure, protocol: Protocol, k: int) -> _Columns:
    """Every column of one query's ranking at once (no Python work per doc)."""
    gain_policy = (measure.setting("gain", protocol) if "gain" in measure.spec.params
                   else protocol.gain)
    discount_policy = (measure.setting("discount", protocol) if "discount" in measure.spec.params
                       else protocol.discount)
    n = len(a.doc)
    table = discount_table(discount_policy, max(n, len(a.pool_grade), 1))
    cumulative_table = np.concatenate([[0.0], np.cumsum(table)])
    gains = np.where(a.judged, gains_of(a.grade, gain_policy), 0.0)
    position = np.arange(n)
    group = np.searchsorted(a.group_offsets[:-1], position, side="right") - 1
    lo, hi = a.group_offsets[:-1], a.group_offsets[1:]
    size = hi - lo
    mean_discount = (cumulative_table[np.minimum(hi, k)]
                     - cumulative_table[np.minimum(lo, k)]) / np.maximum(size, 1)
    tie = np.searchsorted(a.tie_offsets[:-1], position, side="right") - 1
    # Under ties=expected every doc of a group receives, in expectation,
    # the group's mean discount (its own gain, not the mean gain).
    own_discount = np.where(position < k, table[:n], 0.0)
    discount = np.where(size[group] > 1, mean_discount[group], own_discount)
    contributions = gains * discount
    return _Columns(table=table, gains=gains, discount=discount, contributions=contributions,
                    cumulative=np.cumsum(contributions), tie=tie,
                    tie_size=np.diff(a.tie_offsets)[tie],
                    in_cutoff=lo[group] < k)


def _rows(a, c: _Columns, has_scores: bool, rel: "int | float", k: int) -> tuple[RankedRow, ...]:
    """The ranked rows, built from whole columns."""
    n = len(a.doc)
    relevant = a.judged & (a.grade >= rel)
    scores = a.score.tolist() if has_scores else [None] * n
    grades = [_as_grade(g) if j else None for g, j in zip(a.grade.tolist(), a.judged.tolist())]
    lines = [line if line >= 0 else None for line in a.line.tolist()]
    # A million new tuples would each trigger Python's cycle collector,
    # whose passes over the growing heap cost more than building the rows
    # (tuples of numbers and strings hold no cycles).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return tuple(map(RankedRow._make, zip(
            range(1, n + 1), a.docs[a.doc].tolist(), scores, (c.tie + 1).tolist(),
            c.tie_size.tolist(), grades,
            relevant.tolist(), c.gains.tolist(), c.discount.tolist(), c.contributions.tolist(),
            c.cumulative.tolist(), lines, c.in_cutoff.tolist())))
    finally:
        if collecting:
            gc.enable()


def _ideal_rows(a, measure: Measure, protocol: Protocol, k: int,
                table: np.ndarray) -> tuple[IdealRow, ...]:
    """One query's ideal list: its pool by gain descending, then doc id, down to the first gain of 0."""
    gain_policy = (measure.setting("gain", protocol) if "gain" in measure.spec.params
                   else protocol.gain)
    ideal_policy = (measure.setting("ideal", protocol) if "ideal" in measure.spec.params
                    else protocol.ideal)
    # that ideal is cut at the list's length
    limit = len(a.doc) if ideal_policy is Ideal.EXPANDED else None
    if ideal_policy is Ideal.JUDGED:
        # The query's pool as the pipeline read it (negative grades per the policy).
        lo, hi = a.pool_offsets[0], a.pool_offsets[1]
        pool_docs, pool_grades = pool_ids(a)[lo:hi], a.pool_grade[lo:hi]
    elif ideal_policy is Ideal.EXPANDED:
        _, pool_docs, pool_grades = expanded_pool(a, np.array([k]))
    else:
        pool_docs, pool_grades = a.docs[a.doc][a.judged], a.grade[a.judged]
    pool_gains = np.maximum(gains_of(pool_grades, gain_policy), 0.0)
    order = np.lexsort((pool_docs, -pool_gains))
    if measure.cutoff is not None or limit is not None:
        order = order[: min(k if measure.cutoff is not None else len(order), len(order),
                            limit if limit is not None else len(order))]
    ideal_rows = []
    running = 0.0
    for rank, j in enumerate(order, 1):
        if pool_gains[j] <= 0:
            break
        contribution = pool_gains[j] * table[rank - 1]
        running += contribution
        ideal_rows.append(IdealRow(rank=rank, doc=str(pool_docs[j]),
                                   grade=_as_grade(pool_grades[j]),
                                   gain=float(pool_gains[j]), discount=float(table[rank - 1]),
                                   contribution=float(contribution), cumulative=float(running)))
    return tuple(ideal_rows)


def _policies_touched(a, protocol: Protocol, measure: Measure, k: int, ideal_dcg: float,
                      changes, rel: "int | float") -> tuple[str, ...]:
    """The policies that touched the query and changed its value (`changes(**other policy)`)."""
    notes = []
    c = a.counts
    # As in Results.counts: a doc whose (averaged) group starts inside the
    # cutoff can land inside it, whatever order the docs were given in.
    group_start = np.repeat(a.group_offsets[:-1], np.diff(a.group_offsets))
    where = "inside the cutoff"
    if measure.spec.first_relevant_only:
        # Only the docs that can rank above the first relevant one decide these.
        relevant = np.flatnonzero(a.judged & (a.grade >= rel))
        if len(relevant) and group_start[relevant[0]] < k:
            # Up to the end of the first relevant doc's group (tied docs can land above it).
            k = int(a.group_offsets[np.searchsorted(a.group_offsets, relevant[0], side="right")])
            where = "above the first relevant doc"
    unjudged_inside = int((~a.judged & (group_start < k)).sum())
    if unjudged_inside and changes(unjudged=Unjudged.CONDENSE):
        plural = "doc" if unjudged_inside == 1 else "docs"
        notes.append(f"{unjudged_inside} unjudged {plural} {where} scored as non-relevant (unjudged=zero)")
    if c.get("unjudged_dropped") and changes(unjudged=Unjudged.ZERO):
        notes.append(f"{c['unjudged_dropped']} unjudged docs dropped before ranking (unjudged=condense)")
    if c.get("chunks_merged"):
        chosen = "first-listed" if protocol.chunks.value == "first" else "highest-scored"
        notes.append(f"{c['chunks_merged']} chunks merged into their documents (chunk_map={protocol.chunk_map}, "
                     f"chunks={protocol.chunks}): each document ranks once, at its {chosen} chunk")
    if c.get("duplicates_dropped"):
        notes.append(f"{c['duplicates_dropped']} repeated docs dropped (duplicates=first)")
    # Negative grades read as non-relevant (zero) or as pooled but unjudged: only
    # bpref-like measures and the ideal pool tell the two apart.
    other_reading = (NegativeGrades.UNJUDGED if protocol.negative_grades is NegativeGrades.ZERO
                     else NegativeGrades.ZERO)
    if c.get("negative_grades") and changes(negative_grades=other_reading):
        notes.append(f"{c['negative_grades']} negative grades read as negative_grades={protocol.negative_grades}")
    sizes = np.diff(a.tie_offsets)
    starts = a.tie_offsets[:-1]
    others = [t for t in (Ties.EXPECTED, Ties.DOCID, Ties.INPUT) if t is not protocol.ties]
    if (sizes > 1).any() and any(changes(ties=t) for t in others):
        crossing = int(((sizes > 1) & (starts < k) & (starts + sizes > k)).sum())
        how = {Ties.EXPECTED: "averaged over their orders",
               Ties.DOCID: "ordered by doc id descending",
               Ties.INPUT: "kept in input order", Ties.ERROR: ""}[protocol.ties]
        notes.append(f"{int((sizes > 1).sum())} tied groups {how} (ties={protocol.ties})"
                     + (f", {crossing} crossing the cutoff {k}" if crossing else ""))
    if measure.spec.normalised and ideal_dcg == 0 and measure.spec.dcg_parts:
        notes.append(f"ideal DCG is 0: nothing relevant (zero_ideal={protocol.zero_ideal})")
    if not a.in_run.all():
        notes.append(f"query missing from the run, scored as an empty ranking (missing_query={protocol.missing_query})")
    return tuple(notes)


def _as_grade(grade) -> "int | float":
    """A grade as shown: an int when whole (real grades under grades=real stay real)."""
    value = float(grade)
    return int(value) if value.is_integer() else value
