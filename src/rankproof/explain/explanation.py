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
from ..kernels.segments import offsets_of
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

__all__ = ["explain", "explain_top", "Explanation", "RankedRow", "IdealRow", "TopRankings", "MAX_EXPLAINED_DOCS"]

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
    working: tuple[str, ...] = ()  # the arithmetic of rank-based measures (R, precisions, first rank)


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


def _pool_ids(a) -> np.ndarray:
    """The doc id of every pool entry of an alignment."""
    if a.pool_doc is None or a.pool_docs is None:
        raise InputError(what="this alignment keeps no doc ids of the judged pool", fix="explain needs Qrels and a Run")
    return a.pool_docs[a.pool_doc]


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
    one_qrels = _select_qrels(qrels, query)
    one_run = _select_run(run, query)
    if one_qrels is None:
        near = ", ".join(qrels.queries[:5].tolist())
        raise InputError(what="{query} " + literal(query) + " is not judged", source=qrels.source, value=query,
                         fix="judged {queries} include " + literal(near))
    if one_run is None or len(one_run) == 0:
        raise InputError(what="{query} " + literal(query) + " has no ranking in this run", source=run.source,
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
                       ranking=rows, ideal=ideal_rows, dcg=float(sum(columns.contributions.tolist())),
                       ideal_dcg=ideal_total,
                       policies=_policies_touched(a, protocol, measure, k, ideal_total, changes, rel),
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
    gain_policy = measure.setting("gain", protocol) if "gain" in measure.spec.params else protocol.gain
    discount_policy = measure.setting("discount", protocol) if "discount" in measure.spec.params else protocol.discount
    n = len(a.doc)
    table = discount_table(discount_policy, max(n, len(a.pool_grade), 1))
    cumulative_table = np.concatenate([[0.0], np.cumsum(table)])
    gains = np.where(a.judged, gains_of(a.grade, gain_policy), 0.0)
    position = np.arange(n)
    group = np.searchsorted(a.group_offsets[:-1], position, side="right") - 1
    lo, hi = a.group_offsets[:-1], a.group_offsets[1:]
    size = hi - lo
    mean_discount = (cumulative_table[np.minimum(hi, k)] - cumulative_table[np.minimum(lo, k)]) / np.maximum(size, 1)
    tie = np.searchsorted(a.tie_offsets[:-1], position, side="right") - 1
    # Under ties=expected every doc of a group receives, in expectation,
    # the group's mean discount (its own gain, not the mean gain).
    own_discount = np.where(position < k, table[:n], 0.0)
    discount = np.where(size[group] > 1, mean_discount[group], own_discount)
    contributions = gains * discount
    return _Columns(table=table, gains=gains, discount=discount, contributions=contributions,
                    cumulative=np.cumsum(contributions), tie=tie, tie_size=np.diff(a.tie_offsets)[tie],
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
            range(1, n + 1), a.docs[a.doc].tolist(), scores, (c.tie + 1).tolist(), c.tie_size.tolist(), grades,
            relevant.tolist(), c.gains.tolist(), c.discount.tolist(), c.contributions.tolist(),
            c.cumulative.tolist(), lines, c.in_cutoff.tolist())))
    finally:
        if collecting:
            gc.enable()


def _ideal_rows(a, measure: Measure, protocol: Protocol, k: int, table: np.ndarray) -> tuple[IdealRow, ...]:
    """One query's ideal list: its pool by gain descending, then doc id, down to the first gain of 0."""
    gain_policy = measure.setting("gain", protocol) if "gain" in measure.spec.params else protocol.gain
    ideal_policy = measure.setting("ideal", protocol) if "ideal" in measure.spec.params else protocol.ideal
    limit = len(a.doc) if ideal_policy is Ideal.EXPANDED else None  # that ideal is cut at the list's length
    if ideal_policy is Ideal.JUDGED:
        # The query's pool as the pipeline read it (negative grades per the policy).
        lo, hi = a.pool_offsets[0], a.pool_offsets[1]
        pool_docs, pool_grades = _pool_ids(a)[lo:hi], a.pool_grade[lo:hi]
    elif ideal_policy is Ideal.EXPANDED:
        _, pool_docs, pool_grades = _expanded_pool(a, np.array([k]))
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
        ideal_rows.append(IdealRow(rank=rank, doc=str(pool_docs[j]), grade=_as_grade(pool_grades[j]),
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
        how = {Ties.EXPECTED: "averaged over their orders", Ties.DOCID: "ordered by doc id descending",
               Ties.INPUT: "kept in input order", Ties.ERROR: ""}[protocol.ties]
        notes.append(f"{int((sizes > 1).sum())} tied groups {how} (ties={protocol.ties})"
                     + (f", {crossing} crossing the cutoff {k}" if crossing else ""))
    if measure.spec.normalised and ideal_dcg == 0 and measure.spec.dcg_parts:
        notes.append(f"ideal DCG is 0: nothing relevant (zero_ideal={protocol.zero_ideal})")
    if not a.in_run.all():
        notes.append(f"query missing from the run, scored as an empty ranking (missing_query={protocol.missing_query})")
    return tuple(notes)


@dataclasses.dataclass(frozen=True)
class TopRankings:
    """The top rows of every query's ranking and ideal list, as flat arrays.

    What :func:`explain` gives for one query, for every evaluated query at
    once, cut at ``depth`` rows. Query ``i``'s ranked rows are
    ``offsets[i]:offsets[i + 1]`` of ``doc``, ``judged``, ``grade``, ``gain``,
    ``discount``, ``contribution`` and ``cumulative``; its ideal rows are
    ``ideal_offsets[i]:ideal_offsets[i + 1]`` of the ``ideal_*`` arrays.
    ``grade`` is 0 where ``judged`` is False.
    """

    queries: list
    measure: Measure
    depth: int
    offsets: np.ndarray
    doc: np.ndarray
    judged: np.ndarray
    grade: np.ndarray
    gain: np.ndarray
    discount: np.ndarray
    contribution: np.ndarray
    cumulative: np.ndarray
    ideal_offsets: np.ndarray
    ideal_doc: np.ndarray
    ideal_grade: np.ndarray
    ideal_gain: np.ndarray
    ideal_cumulative: np.ndarray


def _expanded_pool(a, cutoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query, doc id, grade) of each query's judged pool plus one entry per
    repeated copy of a judged doc ranked within its query's cutoff
    (``ideal=expanded``, as :meth:`rankproof.measures.compute.Context.ideal_dcg`)."""
    lengths = np.diff(a.offsets)
    query = np.repeat(np.arange(a.num_queries), lengths)
    rank0 = np.arange(len(a.doc), dtype=np.int64) - a.offsets[query]
    key = query * max(len(a.docs), 1) + a.doc
    first = np.zeros(len(key), dtype=bool)
    first[np.unique(key, return_index=True)[1]] = True
    copies = ~first & a.judged & (rank0 < cutoffs[query])
    pool_query = np.repeat(np.arange(a.num_queries), np.diff(a.pool_offsets))
    return (np.concatenate([pool_query, query[copies]]), np.concatenate([_pool_ids(a), a.docs[a.doc[copies]]]),
            np.concatenate([a.pool_grade, a.grade[copies]]))


def _as_grade(grade) -> "int | float":
    """A grade as shown: an int when whole (real grades under grades=real stay real)."""
    value = float(grade)
    return int(value) if value.is_integer() else value


def _segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sum of `values` restarting at each of `offsets`."""
    total = np.cumsum(values)
    before = np.concatenate([[0.0], total])[offsets[:-1]]
    return total - np.repeat(before, np.diff(offsets))


def _first_rows(offsets: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the first `depth` rows of each segment, and the new offsets."""
    lengths = np.minimum(np.diff(offsets), depth)
    kept = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    within = np.arange(kept[-1], dtype=np.int64) - np.repeat(kept[:-1], lengths)
    return np.repeat(offsets[:-1], lengths) + within, kept


def explain_top(qrels: Qrels, run: Run, measure: "str | Measure" = "ndcg@10",
                protocol: ProtocolLike = None, *, depth: int = 20) -> TopRankings:
    """:func:`explain` for every query at once, cut at `depth` rows: the numbers
    behind a DCG-family measure, vectorised (one alignment for the whole run).

    The rows equal what ``explain(qrels, run, query, measure, protocol)``
    gives for the query (its first `depth` ranked rows and ideal rows); a
    judged query the run does not rank has no ranked rows.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2}, "q2": {"C": 1}})
    >>> top = explain_top(qrels, Run.from_dict({"q1": ["B", "E"], "q2": ["C"]}), "ndcg@2")
    >>> top.queries, top.offsets.tolist(), top.doc.tolist()
    (['q1', 'q2'], [0, 2, 3], ['B', 'E', 'C'])
    >>> top.contribution.round(4).tolist()   # 2 / log2(2), 0 (unjudged), 1 / log2(2)
    [2.0, 0.0, 1.0]
    >>> top.ideal_doc.tolist(), top.ideal_cumulative.round(4).tolist()   # 3, 3 + 2 / log2(3)
    (['A', 'B', 'C'], [3.0, 4.2619, 1.0])
    """
    protocol = resolve_protocol(protocol)
    measure = parse_measure(measure)
    if depth < 1:
        raise InputError(what=f"depth must be at least 1; got {depth}", value=depth)
    a = align(qrels, run, protocol)
    gain_policy = measure.setting("gain", protocol) if "gain" in measure.spec.params else protocol.gain
    discount_policy = measure.setting("discount", protocol) if "discount" in measure.spec.params else protocol.discount
    lengths = np.diff(a.offsets)
    longest = int(max(lengths.max(initial=0), np.diff(a.pool_offsets).max(initial=0), 1))
    table = discount_table(discount_policy, longest)
    cumulative_table = np.concatenate([[0.0], np.cumsum(table)])

    # Per position: its rank within the query and the span of its group.
    position_query = np.repeat(np.arange(a.num_queries), lengths)
    start = a.offsets[position_query]
    rank0 = np.arange(len(a.doc), dtype=np.int64) - start
    k = (np.full(len(a.doc), measure.cutoff, dtype=np.int64) if measure.cutoff is not None
         else lengths[position_query])
    group = np.searchsorted(a.group_offsets, np.arange(len(a.doc)), side="right") - 1
    group_lo = a.group_offsets[group] - start
    group_hi = a.group_offsets[group + 1] - start
    size = group_hi - group_lo
    # As explain: a tied group (ties=expected) shares the mean discount of the
    # ranks it spans inside the cutoff; a lone doc gets its rank's discount.
    mean_discount = (cumulative_table[np.minimum(group_hi, k)] - cumulative_table[np.minimum(group_lo, k)]) / size
    own = np.where(rank0 < k, table[np.minimum(rank0, len(table) - 1)], 0.0)
    discount = np.where(size > 1, mean_discount, own)
    gains = np.where(a.judged, gains_of(a.grade, gain_policy), 0.0)
    contribution = gains * discount
    cumulative = _segment_cumsum(contribution, a.offsets)
    rows, offsets = _first_rows(a.offsets, depth)

    # The ideal list: the pool sorted by gain descending, then doc id.
    ideal_policy = measure.setting("ideal", protocol) if "ideal" in measure.spec.params else protocol.ideal
    if ideal_policy is Ideal.JUDGED:
        # Every query's pool as the pipeline read it (negative grades per the policy).
        pool_query = np.repeat(np.arange(a.num_queries), np.diff(a.pool_offsets))
        pool_docs, pool_grades = _pool_ids(a).astype(str), a.pool_grade
    elif ideal_policy is Ideal.EXPANDED:
        cutoffs = np.full(a.num_queries, measure.cutoff, dtype=np.int64) if measure.cutoff is not None else lengths
        pool_query, pool_docs, pool_grades = _expanded_pool(a, cutoffs)
        pool_docs = pool_docs.astype(str)
    else:
        pool_query, pool_docs, pool_grades = (position_query[a.judged], a.docs[a.doc][a.judged].astype(str),
                                              a.grade[a.judged])
    pool_gains = np.maximum(gains_of(pool_grades, gain_policy), 0.0)
    order = np.lexsort((pool_docs, -pool_gains, pool_query))
    pool_query, pool_docs, pool_grades, pool_gains = (pool_query[order], pool_docs[order], pool_grades[order],
                                                      pool_gains[order])
    positive = pool_gains > 0  # explain stops at the first gain of 0
    pool_query, pool_docs, pool_grades, pool_gains = (pool_query[positive], pool_docs[positive],
                                                      pool_grades[positive], pool_gains[positive])
    pool_offsets = offsets_of(pool_query, a.num_queries)
    ideal_rank0 = np.arange(len(pool_query), dtype=np.int64) - pool_offsets[pool_query]
    if measure.cutoff is not None or ideal_policy is Ideal.EXPANDED:
        cut = np.full(a.num_queries, measure.cutoff if measure.cutoff is not None else np.iinfo(np.int64).max)
        if ideal_policy is Ideal.EXPANDED:  # that ideal is cut at the list's length
            cut = np.minimum(cut, lengths)
        inside = ideal_rank0 < cut[pool_query]
        pool_query, pool_docs, pool_grades, pool_gains, ideal_rank0 = (
            pool_query[inside], pool_docs[inside], pool_grades[inside], pool_gains[inside], ideal_rank0[inside])
        pool_offsets = offsets_of(pool_query, a.num_queries)
    ideal_cumulative = _segment_cumsum(pool_gains * table[ideal_rank0], pool_offsets)
    ideal_rows, ideal_offsets = _first_rows(pool_offsets, depth)

    return TopRankings(
        queries=a.queries.tolist(), measure=measure, depth=depth, offsets=offsets,
        doc=a.docs[a.doc[rows]].astype(str), judged=a.judged[rows], grade=np.where(a.judged[rows], a.grade[rows], 0),
        gain=gains[rows], discount=discount[rows], contribution=contribution[rows], cumulative=cumulative[rows],
        ideal_offsets=ideal_offsets, ideal_doc=pool_docs[ideal_rows], ideal_grade=pool_grades[ideal_rows],
        ideal_gain=pool_gains[ideal_rows], ideal_cumulative=ideal_cumulative[ideal_rows])
