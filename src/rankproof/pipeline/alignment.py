""":func:`align`, which builds the aligned ranking table (:class:`~rankproof.pipeline.aligned.Alignment`).

Every front door (``evaluate``, ``evaluate_scores``, ``evaluate_frame``, the
trec_eval drop-in, ``coverage``, ``explain``, streaming, ``compare`` and the
CLI) turns its input into judged rows and ranked rows and hands them here.
:func:`align` applies the protocol's row policies, each by one function in
its own module of the pipeline:

==================  =========================================================
policy              function
==================  =========================================================
ids                 :func:`~rankproof.pipeline.ids.normalised_inputs` (first of all, once: ids as the policy makes them)
chunk_map, chunks   :func:`~rankproof.pipeline.chunks.merge_chunks` (first: chunk ids become doc ids)
missing/extra query :func:`align` (the join of qrels and run)
duplicates          :func:`~rankproof.pipeline.rows.drop_duplicates`
grades              :func:`~rankproof.pipeline.rows.apply_grades`
negative_grades     :func:`~rankproof.pipeline.rows.apply_negative_grades`
unjudged            :func:`~rankproof.pipeline.rows.apply_unjudged`
score_precision     :func:`~rankproof.pipeline.rows.apply_score_precision`
ties (order)        :func:`~rankproof.pipeline.ties.rank_order`
ties (groups)       :func:`~rankproof.pipeline.ties.group_ties`
depth               :func:`~rankproof.pipeline.cuts.truncate`
==================  =========================================================

and returns an :class:`~rankproof.pipeline.aligned.Alignment`: every evaluated query's ranking as flat
arrays in rank order (grade, judged flag, tie group) and its judged pool.
Engines (:mod:`rankproof.engines`) then compute measures from the alignment
alone: they never see ids or policies. The names of those modules are
re-exported here, where they lived before.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._libs.align_scan import count_per_query, mark_rows
from ..data.interning import merge_vocabularies
from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, MissingQueryError, literal
from ..io.lines import take_lines
from ..protocol import ExtraQuery, IdenticalIds, MissingQuery, Protocol, ScorePrecision, Unjudged
from .aligned import Alignment, QueryTable, assume_unjudged, cutoff_counts, query_table
from .chunks import chunk_documents, merge_chunks, resolve_files
from .cuts import top_rows, truncate
from .ids import Inputs, normalised_inputs
from .inplace import rank_in_place, sole_owner
from .subqueries import merge_subqueries
from ..kernels.segments import offsets_of, segment_of
from .rows import (
    Locate, apply_grades, apply_negative_grades, apply_score_precision, apply_unjudged, credit_once,
    drop_duplicates,
    identical_rows, line_at, name_some, precision_ties,
)
from .ties import group_ties, rank_order, rank_order_within, sort_within_queries, tie_groups

__all__ = ["Alignment", "QueryTable", "align", "align_inputs", "assume_unjudged", "cutoff_counts",
           "query_table", "apply_grades",
           "apply_negative_grades", "apply_score_precision", "apply_unjudged", "drop_duplicates",
           "group_ties",
           "merge_chunks", "chunk_documents", "rank_order", "sort_within_queries", "tie_groups",
           "top_rows", "truncate",
           "Locate"]


@dataclasses.dataclass(frozen=True)
class _QueryJoin:
    """The join of the qrels' queries and the run's: which are evaluated."""

    queries: np.ndarray  # the evaluated queries, sorted
    in_run: np.ndarray  # per evaluated query: does the run rank it
    eval_index: np.ndarray  # per query of either side: its index among the evaluated, or -1
    qrels_query_map: np.ndarray  # per qrels query: its index among the queries of either side
    run_query_map: np.ndarray  # per run query: the same


def _refused(run: Run, queries: np.ndarray, what: str, fix: str) -> MissingQueryError:
    """The error for `queries` that only one side holds, refused by their policy: the run
    `what` (some of them named)."""
    return MissingQueryError(what=f"{what}: {literal(name_some(queries))}", source=run.source,
                             value=queries.tolist(), fix=fix)


def _join_queries(qrels: Qrels, run: Run, protocol: Protocol, counts: dict) -> _QueryJoin:
    """The ``missing_query`` and ``extra_query`` policies: the evaluated queries, or an error."""
    all_queries, (qrels_query_map, run_query_map) = merge_vocabularies(qrels.queries, run.queries)
    in_qrels = np.zeros(len(all_queries), dtype=bool)
    in_qrels[qrels_query_map] = True
    # A query the run answers with an empty list is a query the run leaves empty: the missing_query
    # policy decides it (ragas skips it, LlamaIndex refuses it, Haystack scores it 0), and it is
    # counted.
    answered = np.diff(run.offsets) > 0
    in_run = np.zeros(len(all_queries), dtype=bool)
    in_run[run_query_map[answered]] = True
    extra = in_run & ~in_qrels
    missing = in_qrels & ~in_run
    counts["queries_in_qrels"] = int(in_qrels.sum())
    counts["queries_in_run"] = int(in_run.sum())
    empty = np.zeros(len(all_queries), dtype=bool)
    empty[run_query_map[~answered]] = True
    counts["queries_ranked_empty"] = int((empty & in_qrels).sum())
    counts["queries_without_judgments"] = int((np.diff(qrels.offsets) == 0).sum())
    counts["queries_missing_from_run"] = int(missing.sum())
    counts["queries_missing_from_qrels"] = int(extra.sum())
    if extra.any() and protocol.extra_query is ExtraQuery.ERROR:
        raise _refused(run, all_queries[extra],
                       f"ranks queries the qrels {literal(qrels.source)} do not judge",
                       "set the policy extra_query=ignore to skip them")
    if missing.any() and protocol.missing_query is MissingQuery.ERROR:
        raise _refused(run, all_queries[missing],
                       f"has no ranking for queries judged in {literal(qrels.source)}",
                       "set the policy missing_query=zero to score them 0 or missing_query=exclude "
                       "to leave them out")
    evaluated = in_qrels & (in_run | (protocol.missing_query is MissingQuery.ZERO))
    eval_index = np.full(len(all_queries), -1, dtype=np.int64)
    eval_index[evaluated] = np.arange(int(evaluated.sum()))
    counts["queries_evaluated"] = int(evaluated.sum())
    if not evaluated.any():
        raise InputError(what=f"{literal(run.source)} and {literal(qrels.source)} share no {{query}}",
                         fix="check that the {query} ids match")
    return _QueryJoin(queries=all_queries[evaluated], in_run=in_run[evaluated],
                      eval_index=eval_index,
                      qrels_query_map=qrels_query_map, run_query_map=run_query_map)


@dataclasses.dataclass(frozen=True)
class _Pools:
    """The judgments of the evaluated queries, their docs named by run doc code.

    ``ranked_*``: judgments of docs the run ranks somewhere (to look ranked
    rows up in); ``pooled_*``: negative grades read as unjudged (in the pool,
    not judged); ``pool_*``: each query's judged pool, for ideals and R.
    """

    ranked_query: np.ndarray
    ranked_doc: np.ndarray
    ranked_grade: np.ndarray
    pooled_query: np.ndarray
    pooled_doc: np.ndarray
    pool_offsets: np.ndarray
    pool_grade: np.ndarray
    pool_doc: np.ndarray


def _judgments(qrels: Qrels, docs: np.ndarray, join: _QueryJoin, protocol: Protocol,
               counts: dict) -> _Pools:
    """The ``grades`` and ``negative_grades`` policies over the judgments of the evaluated queries.

    Docs keep the run's vocabulary `docs` (sorted, so codes compare like ids
    for ties=docid). Each judged doc is found in it once, by binary search;
    judgments then name docs by run doc code, like rankings.
    """
    run_code_of_qrels_doc = np.searchsorted(docs, qrels.docs)
    ranked_anywhere = np.zeros(len(qrels.docs), dtype=bool)
    inside = run_code_of_qrels_doc < len(docs)
    ranked_anywhere[inside] = docs[run_code_of_qrels_doc[inside]] == qrels.docs[inside]
    qrels_row_query = segment_of(np.diff(qrels.offsets))
    judged_query = join.eval_index[join.qrels_query_map[qrels_row_query]]
    judged_doc = qrels.doc_codes
    counts["negative_grades"] = int((qrels.grades < 0).sum())

    def judgment(i: int) -> dict:
        return {"source": qrels.source, "line": line_at(qrels.lines, i),
                "query": str(qrels.queries[qrels_row_query[i]]),
                "doc": str(qrels.docs[judged_doc[i]])}

    judged_grade = apply_grades(qrels.grades, protocol, judgment)
    judged_grade, pooled_only = apply_negative_grades(judged_grade, protocol, judgment)
    negative = pooled_only if pooled_only is not None else np.zeros(len(judged_grade), dtype=bool)
    keep = judged_query >= 0

    def in_run_codes(selected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # (query, run doc code) of the selected judgments whose doc the run ranks somewhere.
        selected = selected & ranked_anywhere[judged_doc]
        return judged_query[selected], run_code_of_qrels_doc[judged_doc[selected]]

    pooled_query, pooled_doc = in_run_codes(keep & negative)
    keep &= ~negative
    ranked_query, ranked_doc = in_run_codes(keep)
    return _Pools(ranked_query=ranked_query, ranked_doc=ranked_doc,
                  ranked_grade=judged_grade[keep & ranked_anywhere[judged_doc]],
                  pooled_query=pooled_query,
                  pooled_doc=pooled_doc,
                  pool_offsets=offsets_of(judged_query[keep], len(join.queries)),
                  pool_grade=judged_grade[keep], pool_doc=judged_doc[keep])


_NO_QUERY = np.zeros(0, dtype=np.int64)  # the query column once the rows are found by offsets


@dataclasses.dataclass(frozen=True)
class _Rows:
    """The ranked rows of the evaluated queries, one array per column."""

    query: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    pooled: np.ndarray
    line: np.ndarray

    def take(self, index: np.ndarray, *, query: bool = True) -> "_Rows":
        """The rows at `index` (the query column left as it is when `query` is False)."""
        return _Rows(query=self.query[index] if query else self.query, doc=self.doc[index],
                     score=self.score[index], grade=self.grade[index], judged=self.judged[index],
                     pooled=self.pooled[index], line=take_lines(self.line, index))

    def locate(self, queries: np.ndarray, docs: np.ndarray, source: str) -> Locate:
        """Where row i is, as the fields of an error."""
        def row(i: int) -> dict:
            return {"source": source, "line": line_at(self.line, i),
                    "query": str(queries[self.query[i]]),
                    "doc": str(docs[self.doc[i]])}
        return row


def _evaluated_rows(run: Run, join: _QueryJoin) -> tuple[np.ndarray, "slice | np.ndarray"]:
    """The offsets of the evaluated queries' rows (every row of each, in evaluation
    order), and which run rows they are."""
    eval_of_run_query = join.eval_index[join.run_query_map]
    run_lengths = np.diff(run.offsets)
    kept = eval_of_run_query >= 0
    evaluated_lengths = np.zeros(len(join.queries), dtype=np.int64)
    evaluated_lengths[eval_of_run_query[kept]] = run_lengths[kept]
    offsets = np.concatenate([[0], np.cumsum(evaluated_lengths)]).astype(np.int64)
    if kept.all():
        return offsets, slice(None)  # every row is evaluated: avoid copying the columns
    # Run queries are in query-code order and evaluated queries in the same order, so the rows stay
    # grouped.
    return offsets, np.flatnonzero(np.repeat(kept, run_lengths))


def _mark(offsets: np.ndarray, row_doc: np.ndarray, run: Run, pools: _Pools) -> tuple[np.ndarray,
                                                                                      ...]:
    """(repeated, judged, grade, pooled) per row: one pass over the rows, query by query,
    finds repeated docs and looks every doc up among the query's judgments (see _libs/align_scan)."""
    return mark_rows(
        np.ascontiguousarray(offsets, dtype=np.int64),
        np.ascontiguousarray(row_doc, dtype=np.int64),
        max(len(run.docs), 1), pools.ranked_query, pools.ranked_doc,
        np.ascontiguousarray(pools.ranked_grade),
        pools.pooled_query, pools.pooled_doc)


def _held_scores(run: Run, rows: "slice | np.ndarray", offsets: np.ndarray, protocol: Protocol,
                 counts: dict) -> np.ndarray:
    """The rows' scores under the ``score_precision`` policy; below float64, the tied
    groups it made are counted (``tied_groups_from_precision``)."""
    held = apply_score_precision(run.scores[rows], protocol)
    if protocol.score_precision is not ScorePrecision.FLOAT64 and run.has_scores:
        counts["tied_groups_from_precision"] = precision_ties(segment_of(np.diff(offsets)),
                                                              run.scores[rows], held)
    return held


def _ranked_rows(run: Run, join: _QueryJoin, pools: _Pools, protocol: Protocol, counts: dict,
                 qrels_source: str) -> _Rows:
    """The run's rows of the evaluated queries in input order, each looked up among its query's
    judgments, under the ``score_precision``, ``duplicates`` and ``unjudged`` policies."""
    offsets, rows = _evaluated_rows(run, join)
    row_doc = run.doc_codes[rows]
    repeated, row_judged, row_grade, row_pooled = _mark(offsets, row_doc, run, pools)
    row_query = segment_of(np.diff(offsets))
    ranked = _Rows(query=row_query, doc=row_doc,
                   score=_held_scores(run, rows, offsets, protocol, counts),
                   grade=row_grade, judged=row_judged, pooled=row_pooled,
                   line=take_lines(run.lines, rows))
    counts["duplicates_dropped"] = 0
    if repeated.any():
        grade, judged = credit_once(repeated, ranked.grade, ranked.judged, protocol)
        ranked = dataclasses.replace(ranked, grade=grade, judged=judged)
        ranked = ranked.take(drop_duplicates(repeated, protocol,
                                             ranked.locate(join.queries, run.docs, run.source),
                                             counts))
    if protocol.identical_ids is IdenticalIds.DROP:
        own = identical_rows(join.queries, run.docs, ranked.query, ranked.doc)
        counts["identical_ids_dropped"] = int(own.sum())
        ranked = ranked.take(~own)
    judged_rows = apply_unjudged(ranked.judged, protocol,
                                 ranked.locate(join.queries, run.docs, run.source),
                                 qrels_source, counts)
    return ranked if judged_rows is None else ranked.take(judged_rows)


def _owned_columns(run: Run, rows: "slice | np.ndarray",
                   protocol: Protocol) -> "tuple[np.ndarray, ...] | None":
    """The run's own writable doc, score and line buffers, when every row is evaluated, the
    scores are held as given and nothing else refers to them (see pipeline/inplace)."""
    if (not isinstance(rows, slice) or protocol.score_precision is not ScorePrecision.FLOAT64
            or protocol.identical_ids is IdenticalIds.DROP or run.scores.dtype != np.float64):
        return None
    doc, score = sole_owner(run.doc_codes), sole_owner(run.scores)
    line = run.lines if run.lines.strides[0] == 0 else sole_owner(run.lines)
    if doc is None or score is None or line is None or doc is score:
        return None
    return doc, score, line


def _ranked_first(run: Run, join: _QueryJoin, pools: _Pools, protocol: Protocol, counts: dict,
                  qrels_source: str, reuse: bool = False) -> tuple[_Rows, np.ndarray] | None:
    """The rows of :func:`_ranked_rows`, already in rank order, and each query's offsets:
    ranked first, looked up after.

    The same rows in the same order, with less memory: only the doc, score
    and line columns are reordered, the judgment columns are made in rank
    order (a row's judgment depends on its query and doc, not on where it
    stands), and rows are found by the queries' offsets, never by a query
    column as long as the rows. Dropping rows and a stable sort commute, so
    unjudged rows dropped after the sort leave the order :func:`_in_rank_order`
    gives. None when the input order decides something: which of a repeated
    doc's rows is the first (``duplicates``), or which unjudged row an
    ``unjudged=error`` names; :func:`_ranked_rows` then takes over.
    """
    offsets, rows = _evaluated_rows(run, join)
    owned = _owned_columns(run, rows, protocol) if reuse else None
    if owned is not None:
        # The run is rankproof's own: judged in input order, then every column ranked in
        # place (each held once), only once no repeated doc sends the rows to _ranked_rows.
        doc, score, line = owned
        repeated, judged, grade, pooled = _mark(offsets, doc, run, pools)
        if repeated.any() or (protocol.unjudged is Unjudged.ERROR and not judged.all()):
            return None
        del repeated
        rank_in_place(offsets, score, doc,
                      [grade, judged, pooled] + ([line] if line.strides[0] else []), protocol)
    else:
        doc, score = run.doc_codes[rows], _held_scores(run, rows, offsets, protocol, counts)
        line = take_lines(run.lines, rows)
        order = rank_order_within(offsets, score, doc, protocol)
        if order is not None:
            doc, score, line = doc[order], score[order], take_lines(line, order)
            del order  # freed before the judgment columns are made
        repeated, judged, grade, pooled = _mark(offsets, doc, run, pools)
        if (repeated.any() or (protocol.unjudged is Unjudged.ERROR and not judged.all())
                or protocol.identical_ids is IdenticalIds.DROP):
            return None
    ranked = _Rows(query=_NO_QUERY, doc=doc, score=score, grade=grade, judged=judged, pooled=pooled,
                   line=line)
    counts["duplicates_dropped"] = 0

    def locate(i: int) -> dict:
        query = int(np.searchsorted(offsets, i, side="right")) - 1
        return {"source": run.source, "line": line_at(line, i), "query": str(join.queries[query]),
                "doc": str(run.docs[doc[i]])}

    judged_rows = apply_unjudged(judged, protocol, locate, qrels_source, counts)
    if judged_rows is None:
        return ranked, offsets
    kept_per_query = count_per_query(offsets, judged_rows.view(np.uint8))
    return (ranked.take(judged_rows, query=False),
            np.concatenate([[0], np.cumsum(kept_per_query)]).astype(np.int64))


def _in_rank_order(ranked: _Rows, run: Run, join: _QueryJoin, protocol: Protocol,
                   counts: dict) -> _Rows:
    """The rows in rank order (the ``ties`` policy's order)."""
    # Rows are grouped by query in input order. Most runs already list each
    # query's docs by score descending: the order is then None and no sort runs.
    order = rank_order(ranked.query, len(join.queries), ranked.score if run.has_scores else None,
                       ranked.doc,
                       protocol)
    if order is None:
        return ranked
    # Run rows are grouped by query, so the order only moves rows within
    # their query and the query column stays as it is.
    grouped = bool((ranked.query[1:] >= ranked.query[:-1]).all())
    return ranked.take(order, query=not grouped)


def _query_offsets(ranked: _Rows, run: Run, join: _QueryJoin, counts: dict,
                   protocol: Protocol) -> np.ndarray:
    """Each evaluated query's offsets into the ranked rows."""
    num_queries = len(join.queries)
    if (counts["duplicates_dropped"] or counts["unjudged_dropped"]
        or protocol.identical_ids is IdenticalIds.DROP):
        return offsets_of(ranked.query, num_queries)
    # Rows are grouped by query in evaluation order, none dropped: each
    # evaluated query keeps its whole ranking.
    eval_of_run_query = join.eval_index[join.run_query_map]
    run_lengths = np.diff(run.offsets)
    kept = eval_of_run_query >= 0
    evaluated_lengths = np.zeros(num_queries, dtype=np.int64)
    evaluated_lengths[eval_of_run_query[kept]] = run_lengths[kept]
    return np.concatenate([[0], np.cumsum(evaluated_lengths)])


def align(qrels: Qrels, run: Run, protocol: Protocol, *, reuse: bool = False) -> Alignment:
    """Apply the protocol's query, document and tie policies.

    Raises the errors the protocol asks for (missing or extra queries,
    duplicates, unjudged docs, ties, negative grades), each naming where.
    `reuse`: the caller holds the only reference to `run` and drops it after;
    its columns may then be ranked in place (:mod:`rankproof.pipeline.inplace`).
    The ids policy is applied here (:func:`align_inputs` takes inputs it was
    applied to already, as the evaluation step gives them).
    """
    return align_inputs(normalised_inputs(qrels, run, resolve_files(protocol)), reuse=reuse)


def align_inputs(inputs: Inputs, *, reuse: bool = False) -> Alignment:
    """:func:`align` of qrels and a run whose ids ``inputs.protocol.ids`` has made
    (:func:`~rankproof.pipeline.ids.normalised_inputs`): the ids are not normalised again."""
    qrels, run, protocol = inputs.qrels, inputs.run, resolve_files(inputs.protocol)
    normalised = inputs.ids_normalised
    if len(run) == 0:
        raise InputError(what="the run ranks no documents", source=run.source,
                         fix="give at least one {query} with a ranked {doc}")
    counts: dict[str, int] = {}
    if normalised is not None:
        counts["ids_normalised"] = normalised
    qrels, run = merge_subqueries(qrels, run, protocol, counts)
    run = merge_chunks(run, protocol, counts)  # chunk ids -> doc ids, before every other row policy
    join = _join_queries(qrels, run, protocol, counts)
    pools = _judgments(qrels, run.docs, join, protocol, counts)
    found = (_ranked_first(run, join, pools, protocol, counts, qrels.source, reuse)
             if run.has_scores else None)
    if found is None:
        ranked = _in_rank_order(_ranked_rows(run, join, pools, protocol, counts, qrels.source), run,
                                join,
                                protocol, counts)
        offsets = _query_offsets(ranked, run, join, counts, protocol)
    else:
        ranked, offsets = found
        del found
    # From here on rows are found by the offsets: the query column (as long as
    # the rows) and the lookup tables of the judgments go before the tie offsets come.
    ranked = dataclasses.replace(ranked, query=_NO_QUERY)
    pool_offsets, pool_grade, pool_doc = pools.pool_offsets, pools.pool_grade, pools.pool_doc
    del pools
    queries, docs = join.queries, run.docs

    def tie(lo: int, hi: int) -> dict:
        query = int(np.searchsorted(offsets, lo, side="right")) - 1
        return {"what": f"{{docs}} {literal(name_some(docs[ranked.doc[lo:hi]], 5))} tie at score "
                        f"{ranked.score[lo].item()!r}",
                "source": run.source, "query": str(queries[query]),
                "value": ranked.score[lo].item()}

    group_offsets, tie_offsets = group_ties(offsets, ranked.score if run.has_scores else None,
                                            protocol,
                                            counts, tie)
    return Alignment(
        queries=queries, in_run=join.in_run, offsets=offsets, docs=docs,
        doc=ranked.doc, grade=ranked.grade, judged=ranked.judged, pooled=ranked.pooled,
        score=ranked.score,
        line=ranked.line, group_offsets=group_offsets, tie_offsets=tie_offsets,
        pool_offsets=pool_offsets, pool_grade=pool_grade, counts=counts,
        run_source=run.source, qrels_source=qrels.source, pool_doc=pool_doc, pool_docs=qrels.docs,
    )
