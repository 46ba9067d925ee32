"""The pipeline: the one place where row policies are applied.

Every front door (``evaluate``, ``evaluate_scores``, ``evaluate_frame``, the
trec_eval drop-in, ``coverage``, ``explain``, streaming, ``compare`` and the
CLI) turns its input into judged rows and ranked rows and hands them here.
This module applies the protocol's row policies, each by one function:

==================  =========================================================
policy              function
==================  =========================================================
chunk_map, chunks   :func:`merge_chunks` (first: chunk ids become doc ids)
missing/extra query :func:`align` (the join of qrels and run)
duplicates          :func:`drop_duplicates`
grades              :func:`apply_grades`
negative_grades     :func:`apply_negative_grades`
unjudged            :func:`apply_unjudged`
score_precision     :func:`apply_score_precision`
ties (order)        :func:`rank_order`
ties (groups)       :func:`group_ties`
==================  =========================================================

and returns an :class:`Alignment`: every evaluated query's ranking as flat
arrays in rank order (grade, judged flag, tie group) and its judged pool.
Engines (:mod:`rankproof.engines`) then compute measures from the alignment
alone: they never see ids or policies.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from ..errors import (
    DuplicateError, InputError, MissingQueryError, TieError, UnjudgedError, where,
)
from ..protocol import (
    file_digest, ChunkMap, Chunks, Duplicates, ExtraQuery, Grades, MissingQuery, NegativeGrades, Protocol, ScorePrecision,
    Ties, Unjudged,
)
from .._libs.align_scan import count_per_query, cutoff_counts as _count_cutoffs, mark_rows, sort_segments, tie_runs
from ..data.interning import merge_vocabularies
from ..io.lines import take_lines
from ..data.qrels import Qrels
from ..data.run import Run

__all__ = ["Alignment", "QueryTable", "align", "assume_unjudged", "cutoff_counts", "query_table", "apply_grades",
           "apply_negative_grades", "apply_score_precision", "apply_unjudged", "drop_duplicates", "group_ties",
           "merge_chunks", "chunk_documents", "rank_order", "sort_within_queries", "tie_groups", "top_rows", "truncate"]


@dataclasses.dataclass(frozen=True)
class Alignment:
    """Rankings and pools of every evaluated query, as flat arrays.

    Attributes
    ----------
    queries : str array, the evaluated queries (sorted)
    in_run : bool array, per query: does the run rank it
    offsets : int64 array, ranking positions of each query (len = queries + 1)
    doc, grade, line : int64 arrays, per position in rank order
        (``grade`` is 0 for unjudged docs; ``doc`` indexes ``docs``)
    judged : bool array, per position
    pooled : bool array, per position: the doc appears in the qrels at all,
        including negative grades read as unjudged (trec_eval's "in the pool
        but unjudged", which infAP tells apart from docs never pooled)
    score : float64 array, per position
    group_offsets : int64 array
        Groups whose internal order the measures average over (``ties=expected``);
        under every other tie policy each position is its own group.
    tie_offsets : int64 array
        Groups of equal scores, whatever the tie policy (for counting).
    pool_offsets, pool_grade : the judged grades of each query
    pool_doc, pool_docs : the judged doc of each pool entry, as a code into
        ``pool_docs`` (the qrels' doc vocabulary); None when the input has no doc ids
    counts : dict of int, what the policies touched
    notes : tuple of str, facts about the input that the printed results state
        (e.g. where the ideal pool of a score matrix comes from)
    """

    queries: np.ndarray
    in_run: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    pooled: np.ndarray
    score: np.ndarray
    line: np.ndarray
    group_offsets: np.ndarray
    tie_offsets: np.ndarray
    pool_offsets: np.ndarray
    pool_grade: np.ndarray
    counts: dict
    run_source: str
    qrels_source: str
    notes: tuple = ()
    pool_doc: np.ndarray | None = None
    pool_docs: np.ndarray | None = None

    @property
    def num_queries(self) -> int:
        return len(self.queries)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def query_table(self) -> "QueryTable":
        """What results keep: the per-query facts (see :func:`query_table`)."""
        return query_table(self)


@dataclasses.dataclass(frozen=True)
class QueryTable:
    """What results keep of an alignment: one entry per evaluated query, no positions.

    Attributes
    ----------
    queries : str array, the evaluated queries
    in_run : bool array, does the run rank the query
    retrieved : int64 array, docs in the query's ranking (after the row policies)
    unjudged_retrieved : int64 array, unjudged docs among them
    qrels_source, run_source : str, for messages
    notes : tuple of str, facts the printed results state
    grade_range : (lowest, highest) judged grade of the pools, None when unknown
    judged_queries, missing_queries : int, queries judged, and those of them the run does not rank
    """

    queries: np.ndarray
    in_run: np.ndarray
    retrieved: np.ndarray
    unjudged_retrieved: np.ndarray
    qrels_source: str
    run_source: str
    notes: tuple = ()
    grade_range: tuple | None = None
    judged_queries: int = 0
    missing_queries: int = 0


def query_table(a: Alignment) -> QueryTable:
    """The per-query facts of an alignment."""
    lengths = a.lengths
    if a.counts.get("unjudged_retrieved", 0):
        unjudged = count_per_query(np.ascontiguousarray(a.offsets, dtype=np.int64),
                                   np.ascontiguousarray(~a.judged).view(np.uint8))
    else:
        unjudged = np.zeros(a.num_queries, dtype=np.int64)
    grade_range = (a.pool_grade.min(), a.pool_grade.max()) if len(a.pool_grade) else None
    return QueryTable(queries=a.queries, in_run=a.in_run, retrieved=lengths, unjudged_retrieved=unjudged,
                      qrels_source=a.qrels_source, run_source=a.run_source, notes=tuple(a.notes),
                      grade_range=grade_range, judged_queries=a.counts.get("queries_in_qrels", 0),
                      missing_queries=a.counts.get("queries_missing_from_run", 0))


def cutoff_counts(a: Alignment, measures) -> dict[str, dict[str, int]]:
    """Per measure: unjudged docs that can land within its cutoff, and tied
    groups crossing it (``unjudged_in_cutoff``, ``tied_groups_crossing_cutoff``).

    A doc whose group of averaged ties starts inside the cutoff can land
    inside it; a tie group crosses cutoff k when it holds ranks k and k + 1.
    One compiled walk over the queries serves every cutoff.
    """
    counts: dict[str, dict[str, int]] = {"unjudged_in_cutoff": {}, "tied_groups_crossing_cutoff": {}}
    cutoffs = sorted({measure.cutoff for measure in measures if measure.cutoff is not None})
    if cutoffs:
        unjudged, crossing = _count_cutoffs(
            np.ascontiguousarray(a.offsets, dtype=np.int64), np.ascontiguousarray(a.group_offsets, dtype=np.int64),
            np.ascontiguousarray(a.tie_offsets, dtype=np.int64), np.ascontiguousarray(a.judged).view(np.uint8),
            np.array(cutoffs, dtype=np.int64))
        at_cutoff = {k: (int(u), int(c)) for k, u, c in zip(cutoffs, unjudged, crossing)}
    unjudged_in_all = None
    for measure in measures:
        if measure.cutoff is None:
            if measure.spec.cutoff:  # a measure that takes a cutoff, given none: the whole ranking
                if unjudged_in_all is None:
                    unjudged_in_all = int(len(a.judged) - np.count_nonzero(a.judged))
                counts["unjudged_in_cutoff"][str(measure)] = unjudged_in_all
            continue
        unjudged_in, crossing_at = at_cutoff[measure.cutoff]
        counts["unjudged_in_cutoff"][str(measure)] = unjudged_in
        counts["tied_groups_crossing_cutoff"][str(measure)] = crossing_at
    return counts


def _segments(lengths: np.ndarray) -> np.ndarray:
    """Segment index of every element, for segments of the given lengths."""
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def _offsets(segment_of_row: np.ndarray, num_segments: int) -> np.ndarray:
    counts = np.bincount(segment_of_row, minlength=num_segments)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _name_some(values, limit: int = 3) -> str:
    values = list(values)
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _line(lines: np.ndarray, i: int) -> int | None:
    return int(lines[i]) if lines[i] >= 0 else None


def sort_within_queries(row_query: np.ndarray, num_queries: int, key: np.ndarray,
                        tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Stable order of rows grouped by query (ascending), then by `key`
    ascending, then by `tiebreak` ascending: ``np.lexsort((tiebreak, key, row_query))``.

    When `row_query` is grouped (each query's rows contiguous, in query
    order, as the rows of a :class:`~rankproof.data.run.Run` are), each
    query's rows are sorted on their own by a compiled stable sort
    (:func:`rankproof._libs.align_scan.sort_segments`); otherwise, or for integer
    keys beyond float64's exact range, by ``np.lexsort``.

    >>> sort_within_queries(np.array([0, 0, 0, 1, 1]), 2, np.array([3., 1., 2., 5., 4.])).tolist()
    [1, 2, 0, 4, 3]
    """
    n = len(row_query)
    grouped = n == 0 or bool((row_query[1:] >= row_query[:-1]).all())
    exact_key = key.dtype.kind == "f" or (key.dtype.kind in "iu" and (n == 0 or np.abs(key).max() <= 2**53))
    if not grouped or not exact_key:
        keys = (key, row_query) if tiebreak is None else (tiebreak, key, row_query)
        return np.lexsort(keys)
    # Rankings are short (tens of docs per user in recommender logs): one
    # compiled pass sorts each query's rows in place (insertion, or a merge
    # sort for long rankings), where a lexsort would sort every row at once.
    offsets = _offsets(np.asarray(row_query, dtype=np.int64), num_queries)
    return sort_segments(offsets, np.ascontiguousarray(key, dtype=np.float64),
                         None if tiebreak is None else np.ascontiguousarray(tiebreak, dtype=np.int64))


def tie_groups(row_query: np.ndarray, row_score: np.ndarray | None, counts: dict) -> np.ndarray:
    """Offsets of the runs of equal scores within each query of rows in rank
    order; one run per row when there are no scores. Records ``tied_groups``
    and ``tied_docs`` (runs of two rows or more, and their rows) in `counts`."""
    n = len(row_query)
    if row_score is None or n == 0:
        counts["tied_groups"] = counts["tied_docs"] = 0
        return np.arange(n + 1, dtype=np.int64)
    tie_offsets, counts["tied_groups"], counts["tied_docs"] = tie_runs(
        np.ascontiguousarray(row_query, dtype=np.int64), np.ascontiguousarray(row_score, dtype=np.float64))
    return tie_offsets


# -- row policies ---------------------------------------------------------------
# Each takes flat per-row arrays and a `locate(i)` that names row i as the
# fields of an error ({"source": "run.txt", "line": 7, "query": "q1", "doc":
# "d3"} for a TREC run, {"source": "y_true row 0 (query 0), column 1"} for a
# score matrix), so one policy gives one behaviour whatever the front door,
# and the error says where in the words of that front door (errors.render).
Locate = Callable[[int], dict]


def _literal(text: object) -> str:
    """User text inside an error template (``what``), its braces kept as braces."""
    return str(text).replace("{", "{{").replace("}", "}}")


def apply_grades(grade: np.ndarray, protocol: Protocol, locate: Locate) -> np.ndarray:
    """The ``grades`` policy over judged grades: under ``integer``, real-valued
    grades (qrels read with ``grades='real'``) must all be whole numbers, and
    become int64; under ``real`` they are used as they are.

    >>> apply_grades(np.array([2.0, 0.0]), Protocol(), dict).dtype
    dtype('int64')
    >>> apply_grades(np.array([1.5]), Protocol(grades="real"), dict).tolist()
    [1.5]
    """
    if grade.dtype.kind != "f" or protocol.grades is Grades.REAL:
        return grade
    fractional = grade != np.round(grade)
    if fractional.any():
        i = int(np.flatnonzero(fractional)[0])
        raise InputError(
            what=f"grade {_literal(grade[i].item())} is not an integer", value=grade[i].item(), **locate(i),
            fix="set the policy grades=real to evaluate real-valued grades, or map them to integers")
    return grade.astype(np.int64)


def apply_negative_grades(grade: np.ndarray, protocol: Protocol, locate: Locate,
                          noun: str = "{grade}") -> tuple[np.ndarray, np.ndarray | None]:
    """The ``negative_grades`` policy: (grades to use, rows to read as unjudged or None).

    ``error`` refuses the first negative grade; ``zero`` reads it as judged
    non-relevant; ``unjudged`` (trec_eval) keeps the row in the pool but
    returns it in the mask, for the caller to treat as unjudged.

    >>> apply_negative_grades(np.array([2, -1]), Protocol(negative_grades="zero"), dict)[0].tolist()
    [2, 0]
    >>> apply_negative_grades(np.array([2, -1]), Protocol(negative_grades="unjudged"), dict)[1].tolist()
    [False, True]
    """
    negative = grade < 0
    if not negative.any():
        return grade, None
    if protocol.negative_grades is NegativeGrades.ERROR:
        i = int(np.flatnonzero(negative)[0])
        raise InputError(
            what=f"negative {noun} {_literal(grade[i])}", value=grade[i].item(), **locate(i),
            fix="set the policy negative_grades=zero to read it as judged non-relevant, or "
                "negative_grades=unjudged to treat it as unjudged (trec_eval)")
    if protocol.negative_grades is NegativeGrades.ZERO:
        return np.where(negative, 0, grade), None
    return grade, negative


def apply_unjudged(judged: np.ndarray, protocol: Protocol, locate: Locate, source: str,
                   counts: dict) -> np.ndarray | None:
    """The ``unjudged`` policy over ranked rows: the rows to keep, or None to keep all.

    Records ``unjudged_retrieved`` and ``unjudged_dropped`` in `counts`.
    ``error`` refuses the first unjudged row; ``condense`` drops unjudged
    rows (Sakai's condensed list); ``zero`` keeps them with gain 0.
    """
    unjudged = ~judged
    counts["unjudged_retrieved"] = int(unjudged.sum())
    counts["unjudged_dropped"] = 0
    if not counts["unjudged_retrieved"]:
        return None
    if protocol.unjudged is Unjudged.ERROR:
        raise UnjudgedError(
            what=f"the {{doc}} has no judgment in {_literal(source)}", **locate(int(np.flatnonzero(unjudged)[0])),
            fix="set the policy unjudged=zero to count it non-relevant, or unjudged=condense to drop "
                "unjudged {docs}")
    if protocol.unjudged is Unjudged.CONDENSE:
        counts["unjudged_dropped"] = counts["unjudged_retrieved"]
        return judged
    return None


def drop_duplicates(repeated: np.ndarray, protocol: Protocol, locate: Locate, counts: dict) -> np.ndarray:
    """The ``duplicates`` policy, given which rows repeat an earlier (query, doc)
    of the same ranking: the rows to keep (``first``) or an error (``error``).
    Records ``duplicates_dropped``."""
    counts["duplicates_dropped"] = int(repeated.sum())
    if counts["duplicates_dropped"] and protocol.duplicates is Duplicates.ERROR:
        raise DuplicateError(
            what="the {doc} is listed twice for this {query}", **locate(int(np.flatnonzero(repeated)[0])),
            fix="set the policy duplicates=first to keep the first")
    return ~repeated


def apply_score_precision(score: np.ndarray, protocol: Protocol) -> np.ndarray:
    """The ``score_precision`` policy: scores as float64, held as the protocol says.

    ``float32`` rounds them as trec_eval 9 and pytrec_eval hold them, so
    scores closer than float32 can tell apart tie. Under ``float64``, integer
    scores beyond 2^53 (nanosecond timestamps as recency scores), which
    float64 cannot tell apart, are replaced by their rank among all the
    scores: only their order matters to a ranking, and ranks keep every order
    and every tie exactly.

    >>> apply_score_precision(np.array([1.0, 1.0 + 1e-9]), Protocol(score_precision="float32")).tolist()
    [1.0, 1.0]
    >>> apply_score_precision(np.array([2**62 + 1, 2**62, 5]), Protocol()).tolist()
    [2.0, 1.0, 0.0]
    """
    score = np.asarray(score)
    if protocol.score_precision is ScorePrecision.FLOAT32:
        return np.asarray(score, dtype=np.float64).astype(np.float32).astype(np.float64)
    if (score.dtype.kind in "iu" and score.size
            and (int(score.max()) > 2**53 or int(score.min()) < -(2**53))):
        _, rank = np.unique(score.ravel(), return_inverse=True)
        return np.ascontiguousarray(rank.reshape(score.shape), dtype=np.float64)
    return np.ascontiguousarray(score, dtype=np.float64)


def rank_order(row_query: np.ndarray, num_queries: int, score: np.ndarray | None, doc: np.ndarray,
               protocol: Protocol) -> np.ndarray | None:
    """The order of rows within each query that the tie policy gives; None
    when the rows are already in it (most runs list docs by score descending).

    Score descending; tied rows in input order (``expected``, ``input``,
    ``error``: a stable sort), or by doc code descending (``docid``:
    trec_eval's strcmp order, as codes compare like ids). Without scores the
    rows are already ranked. Rows must be grouped by query.
    """
    if score is None:
        return None
    same_query = row_query[1:] == row_query[:-1]
    if protocol.ties is Ties.DOCID:
        in_order = ~same_query | (score[1:] < score[:-1]) | ((score[1:] == score[:-1]) & (doc[1:] < doc[:-1]))
        if in_order.all():
            return None
        return sort_within_queries(row_query, num_queries, -score, -doc)
    if (~same_query | (score[1:] <= score[:-1])).all():
        return None
    return sort_within_queries(row_query, num_queries, -score)


def group_ties(row_query: np.ndarray, score: np.ndarray | None, protocol: Protocol, counts: dict,
               describe_tie: Callable[[int, int], str]) -> tuple[np.ndarray, np.ndarray]:
    """The ``ties`` policy's groups: (group offsets, tie offsets) of rows in rank order.

    Tie offsets delimit runs of equal scores whatever the policy (for
    counting); group offsets delimit what the measures average over: the tie
    runs under ``ties=expected``, one row each otherwise. ``ties=error``
    refuses the first tie, named by ``describe_tie(lo, hi)``.
    """
    n = len(row_query)
    tie_offsets = tie_groups(row_query, score, counts)
    if protocol.ties is Ties.ERROR and counts["tied_groups"]:
        g = int(np.flatnonzero(np.diff(tie_offsets) > 1)[0])
        lo, hi = int(tie_offsets[g]), int(tie_offsets[g + 1])
        raise TieError(
            f"{describe_tie(lo, hi)} ({counts['tied_groups']} tied groups in all); set the policy "
            "ties=expected for the exact mean over their orders, or ties=docid for trec_eval's order"
        )
    if (protocol.ties is Ties.EXPECTED and score is not None) or not counts["tied_groups"]:
        return tie_offsets, tie_offsets  # without ties, one group per position either way
    return np.arange(n + 1, dtype=np.int64), tie_offsets


def chunk_documents(chunks: np.ndarray, chunk_map: ChunkMap, locate: Callable[[int], dict]) -> np.ndarray:
    """The document id of each chunk id, as the ``chunk_map`` policy says.

    `locate(i)` names where chunk ``chunks[i]`` is ranked, for errors.

    >>> chunk_documents(np.array(["d1#c2", "d1#x#c1", "d2"]), ChunkMap("sep", "#"), None).tolist()
    ['d1', 'd1#x', 'd2']
    >>> chunk_documents(np.array(["d1_p3", "d22_p0"]), ChunkMap("regex", "^(.+)_p[0-9]+$"), None).tolist()
    ['d1', 'd22']
    """
    ids = chunks.tolist()
    if chunk_map.kind == "sep":
        # Split at the last separator: doc ids may hold the separator themselves.
        parts = [chunk.rpartition(chunk_map.spec) for chunk in ids]
        docs = [head if sep else tail for head, sep, tail in parts]
        empty = [i for i, (head, sep, _) in enumerate(parts) if sep and not head]
        if empty:
            raise InputError(f"{where(**locate(empty[0]))}chunk id {ids[empty[0]]!r} has nothing before the "
                             f"separator {chunk_map.spec!r}, so it names no document ({len(empty)} such ids); "
                             "fix the ids or choose another chunk_map")
        return np.array(docs, dtype=object)
    if chunk_map.kind == "regex":
        import re

        pattern = re.compile(chunk_map.spec)
        found = [pattern.search(chunk) for chunk in ids]
        docs = [m.group(1) if m is not None else None for m in found]
        bad = [i for i, doc in enumerate(docs) if not doc]
        if bad:
            raise InputError(f"{where(**locate(bad[0]))}chunk id {ids[bad[0]]!r} does not match chunk_map=regex:"
                             f"{chunk_map.spec} or its group is empty ({len(bad)} such ids); give a pattern whose "
                             "one group matches the document id of every ranked chunk")
        return np.array(docs, dtype=object)
    from ..io.chunk_map import read_chunk_map

    if file_digest(chunk_map.spec, "chunk map") != chunk_map.digest:
        raise InputError(f"{chunk_map.spec}: the chunk map file changed since the protocol was made "
                         f"(digest {chunk_map.digest} expected); build the protocol again")
    mapped_chunks, mapped_docs = read_chunk_map(chunk_map.spec)
    at = np.minimum(np.searchsorted(mapped_chunks, chunks), len(mapped_chunks) - 1)
    missing = np.flatnonzero(mapped_chunks[at] != chunks)
    if missing.size:
        i = int(missing[0])
        raise InputError(f"{where(**locate(i))}chunk {ids[i]!r} is not in the chunk map {chunk_map.spec} "
                         f"({missing.size} ranked chunks are not); add a line '{ids[i]} DOC' for each")
    return mapped_docs[at].astype(object)


def merge_chunks(run: Run, protocol: Protocol, counts: dict) -> Run:
    """The ``chunk_map`` and ``chunks`` policies: a run of chunk ids becomes a
    run of document ids in which each document ranks once.

    Each chunk id is mapped to its document (:func:`chunk_documents`, once per
    distinct id, not per row). Of a document's chunks within one query, one
    stands for it: the first listed (``chunks=first``) or the highest-scored,
    the first listed among equal scores (``chunks=max``); the rows of its
    other chunks leave the ranking, so the documents below them move up, and
    are counted as ``chunks_merged``. Rows of the chosen chunk itself stay,
    so a chunk listed twice still meets the ``duplicates`` policy. Applied
    before every other row policy; qrels are judged at document level and
    are not touched.

    >>> run = Run.from_dict({"q": {"d1#0": 0.2, "d2#0": 0.9, "d1#1": 0.8, "d3#4": 0.5}})
    >>> counts = {}
    >>> merged = merge_chunks(run, Protocol(chunk_map="sep:#", chunks="max"), counts)
    >>> merged.docs[merged.doc_codes].tolist(), merged.scores.tolist(), counts
    (['d2', 'd1', 'd3'], [0.9, 0.8, 0.5], {'chunks_merged': 1})
    >>> merged = merge_chunks(run, Protocol(chunk_map="sep:#"), {})   # chunks=first: d1 at 0.2
    >>> merged.docs[merged.doc_codes].tolist(), merged.scores.tolist()
    (['d1', 'd2', 'd3'], [0.2, 0.9, 0.5])
    """
    if protocol.chunk_map.kind == "none":
        return run
    lengths = np.diff(run.offsets)
    row_query = np.repeat(np.arange(run.num_queries, dtype=np.int64), lengths)
    first_row_of_chunk = np.full(len(run.docs), -1, dtype=np.int64)
    first_row_of_chunk[run.doc_codes[::-1]] = np.arange(len(run.doc_codes) - 1, -1, -1)

    def chunk_row(i: int) -> dict:
        row = int(first_row_of_chunk[i])
        return {"source": run.source, "line": _line(run.lines, row), "query": str(run.queries[row_query[row]]),
                "doc": str(run.docs[i])}

    doc_of_chunk = chunk_documents(run.docs, protocol.chunk_map, chunk_row)
    docs, doc_code_of_chunk = np.unique(doc_of_chunk.astype(str), return_inverse=True)
    row_doc = doc_code_of_chunk[run.doc_codes]
    n = len(row_doc)
    rows = np.arange(n, dtype=np.int64)
    key = row_query * max(len(docs), 1) + row_doc
    if protocol.chunks is Chunks.MAX:
        order = np.lexsort((rows, -run.scores, key))
    else:
        order = np.lexsort((rows, key))
    sorted_key = key[order]
    starts = np.concatenate([[True], sorted_key[1:] != sorted_key[:-1]]) if n else np.zeros(0, dtype=bool)
    # The chunk standing for each (query, doc), spread back to its rows.
    winner_chunk = run.doc_codes[order[starts]]
    key_index = np.cumsum(starts) - 1
    chosen = np.empty(n, dtype=np.int64)
    chosen[order] = winner_chunk[key_index]
    keep = np.flatnonzero(run.doc_codes == chosen)
    counts["chunks_merged"] = int(n - len(keep))
    return Run(query_codes=row_query[keep], queries=run.queries, doc_codes=row_doc[keep], docs=docs,
               scores=run.scores[keep] if run.has_scores else None, lines=take_lines(run.lines, keep),
               source=run.source, name=run.name)


def align(qrels: Qrels, run: Run, protocol: Protocol) -> Alignment:
    """Apply the protocol's query, document and tie policies.

    Raises the errors the protocol asks for (missing or extra queries,
    duplicates, unjudged docs, ties, negative grades), each naming where.
    """
    if len(run) == 0:
        raise InputError(
            f"{run.source}: the run ranks no documents; give at least one query with a ranked doc"
        )

    counts: dict[str, int] = {}
    run = merge_chunks(run, protocol, counts)  # chunk ids -> doc ids, before every other row policy
    # -- queries -----------------------------------------------------------
    all_queries, (qrels_query_map, run_query_map) = merge_vocabularies(qrels.queries, run.queries)
    in_qrels = np.zeros(len(all_queries), dtype=bool)
    in_qrels[qrels_query_map] = True
    in_run = np.zeros(len(all_queries), dtype=bool)
    in_run[run_query_map] = True
    extra = in_run & ~in_qrels
    missing = in_qrels & ~in_run
    counts["queries_in_qrels"] = int(in_qrels.sum())
    counts["queries_in_run"] = int(in_run.sum())
    counts["queries_missing_from_run"] = int(missing.sum())
    counts["queries_missing_from_qrels"] = int(extra.sum())
    if extra.any() and protocol.extra_query is ExtraQuery.ERROR:
        raise MissingQueryError(
            f"{run.source}: ranks queries the qrels {qrels.source} do not judge: "
            f"{_name_some(all_queries[extra])}; set the policy extra_query=ignore to skip them"
        )
    if missing.any() and protocol.missing_query is MissingQuery.ERROR:
        raise MissingQueryError(
            f"{run.source}: has no ranking for queries judged in {qrels.source}: "
            f"{_name_some(all_queries[missing])}; set the policy missing_query=zero to score them 0 "
            "or missing_query=exclude to leave them out"
        )
    evaluated = in_qrels & (in_run | (protocol.missing_query is MissingQuery.ZERO))
    eval_index = np.full(len(all_queries), -1, dtype=np.int64)
    eval_index[evaluated] = np.arange(int(evaluated.sum()))
    queries = all_queries[evaluated]
    num_queries = len(queries)
    counts["queries_evaluated"] = num_queries
    if num_queries == 0:
        raise InputError(what=f"{_literal(run.source)} and {_literal(qrels.source)} share no {{query}}",
                         fix="check that the {query} ids match")

    # -- judgments -------------------------------------------------------------
    # Docs keep the run's vocabulary (sorted, so codes compare like ids for
    # ties=docid). Each judged doc is found in it once, by binary search;
    # judgments then name docs by run doc code, like rankings.
    docs = run.docs
    num_docs = max(len(docs), 1)
    run_code_of_qrels_doc = np.searchsorted(docs, qrels.docs)
    ranked_anywhere = np.zeros(len(qrels.docs), dtype=bool)
    inside = run_code_of_qrels_doc < len(docs)
    ranked_anywhere[inside] = docs[run_code_of_qrels_doc[inside]] == qrels.docs[inside]
    qrels_row_query = _segments(np.diff(qrels.offsets))
    judged_query = eval_index[qrels_query_map[qrels_row_query]]
    judged_doc = qrels.doc_codes
    judged_grade = qrels.grades
    counts["negative_grades"] = int((judged_grade < 0).sum())

    def judgment(i: int) -> dict:
        return {"source": qrels.source, "line": _line(qrels.lines, i),
                "query": str(qrels.queries[qrels_row_query[i]]), "doc": str(qrels.docs[judged_doc[i]])}

    judged_grade = apply_grades(judged_grade, protocol, judgment)
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
    ranked_grade = judged_grade[keep & ranked_anywhere[judged_doc]]
    judged_query, judged_grade, pool_doc = judged_query[keep], judged_grade[keep], judged_doc[keep]
    pool_offsets = _offsets(judged_query, num_queries)

    # -- rankings ----------------------------------------------------------
    run_lengths = np.diff(run.offsets)
    eval_of_run_query = eval_index[run_query_map]
    row_query = np.repeat(eval_of_run_query, run_lengths)
    if (eval_of_run_query >= 0).all():
        rows: slice | np.ndarray = slice(None)  # every row is evaluated: avoid copying the columns
    else:
        rows = np.flatnonzero(row_query >= 0)
    row_query = row_query[rows]
    row_doc = run.doc_codes[rows]
    row_score = run.scores[rows]
    row_score = apply_score_precision(row_score, protocol)
    row_line = take_lines(run.lines, rows)

    def run_row(i: int) -> dict:
        # Location of row i of the (current) run arrays, for messages.
        return {"source": run.source, "line": _line(row_line, i),
                "query": str(queries[row_query[i]]), "doc": str(docs[row_doc[i]])}

    # One pass over the rows, query by query, finds repeated docs and looks
    # every doc up among the query's judgments (see _align_scan).
    repeated, row_judged, row_grade, row_pooled = mark_rows(
        np.ascontiguousarray(row_query, dtype=np.int64), np.ascontiguousarray(row_doc, dtype=np.int64),
        num_docs, ranked_query, ranked_doc, np.ascontiguousarray(ranked_grade), pooled_query, pooled_doc)
    counts["duplicates_dropped"] = 0
    if repeated.any():
        kept = drop_duplicates(repeated, protocol, run_row, counts)
        row_query, row_doc, row_score, row_grade, row_pooled, row_judged = (
            a[kept] for a in (row_query, row_doc, row_score, row_grade, row_pooled, row_judged))
        row_line = take_lines(row_line, kept)
    del repeated
    judged_rows = apply_unjudged(row_judged, protocol, run_row, qrels.source, counts)
    if judged_rows is not None:
        row_line = take_lines(row_line, judged_rows)
        row_query, row_doc, row_score, row_grade, row_pooled, row_judged = (
            a[judged_rows] for a in (row_query, row_doc, row_score, row_grade, row_pooled, row_judged))

    # -- order and tie groups -----------------------------------------------
    # Rows are grouped by query in input order. Most runs already list each
    # query's docs by score descending: the order is then None and no sort runs.
    order = rank_order(row_query, num_queries, row_score if run.has_scores else None, row_doc, protocol)
    if order is not None:
        # Run rows are grouped by query, so the order only moves rows within
        # their query and row_query stays as it is.
        if not (row_query[1:] >= row_query[:-1]).all():  # pragma: no cover - Run groups its rows
            row_query = row_query[order]
        row_doc, row_score, row_grade, row_judged, row_pooled = (
            a[order] for a in (row_doc, row_score, row_grade, row_judged, row_pooled))
        row_line = take_lines(row_line, order)
    if counts["duplicates_dropped"] or counts["unjudged_dropped"]:
        offsets = _offsets(row_query, num_queries)
    else:
        # Rows are grouped by query in evaluation order, none dropped: each
        # evaluated query keeps its whole ranking.
        ranked = eval_of_run_query >= 0
        evaluated_lengths = np.zeros(num_queries, dtype=np.int64)
        evaluated_lengths[eval_of_run_query[ranked]] = run_lengths[ranked]
        offsets = np.concatenate([[0], np.cumsum(evaluated_lengths)])

    def tie(lo: int, hi: int) -> str:
        loc = where(source=run.source, query=str(queries[row_query[lo]]))
        return f"{loc}docs {_name_some(docs[row_doc[lo:hi]], 5)} tie at score {row_score[lo].item()!r}"

    group_offsets, tie_offsets = group_ties(row_query, row_score if run.has_scores else None, protocol,
                                            counts, tie)

    in_run_evaluated = in_run[evaluated]
    return Alignment(
        queries=queries, in_run=in_run_evaluated, offsets=offsets, docs=docs,
        doc=row_doc, grade=row_grade, judged=row_judged, pooled=row_pooled, score=row_score,
        line=row_line, group_offsets=group_offsets, tie_offsets=tie_offsets,
        pool_offsets=pool_offsets, pool_grade=judged_grade, counts=counts,
        run_source=run.source, qrels_source=qrels.source, pool_doc=pool_doc, pool_docs=qrels.docs,
    )


def assume_unjudged(a: Alignment, grade: "int | float", cutoff: int | None = None) -> Alignment:
    """The alignment with every unjudged ranked doc that can land in the top
    `cutoff` (its tie group starts there; every one without a cutoff) judged
    at `grade`, and added to its query's judged pool, so that ideals and R
    count it: the optimistic completion of the judgments (see
    :meth:`rankproof.Results.bounds`).

    >>> from rankproof import Qrels, Run
    >>> a = align(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["x", "a", "y"]}), Protocol())
    >>> b = assume_unjudged(a, 2, cutoff=2)
    >>> b.grade.tolist(), b.judged.tolist(), sorted(b.pool_grade.tolist())
    ([2, 1, 0], [True, True, False], [1, 2])
    """
    lengths = np.diff(a.offsets)
    position = np.arange(len(a.judged), dtype=np.int64)
    query = np.repeat(np.arange(a.num_queries, dtype=np.int64), lengths)
    group_start = a.group_offsets[np.searchsorted(a.group_offsets, position, side="right") - 1]
    change = ~a.judged
    if cutoff is not None:
        change &= group_start - a.offsets[query] < cutoff
    if not change.any():
        return a
    kind = np.result_type(a.grade.dtype, a.pool_grade.dtype, np.asarray(grade).dtype)
    new_grade = np.where(change, grade, a.grade).astype(kind)
    pool_query = np.repeat(np.arange(a.num_queries, dtype=np.int64), np.diff(a.pool_offsets))
    all_query = np.concatenate([pool_query, query[change]])
    order = np.argsort(all_query, kind="stable")
    pool_grade = np.concatenate([a.pool_grade.astype(kind), np.full(int(change.sum()), grade, dtype=kind)])[order]
    return dataclasses.replace(a, grade=new_grade, judged=a.judged | change, pooled=a.pooled | change,
                               pool_offsets=_offsets(all_query, a.num_queries), pool_grade=pool_grade,
                               counts=dict(a.counts))


def top_rows(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """Rows of the run ranked within each query's top k, under the tie policy.

    For set measures of the top k (catalogue coverage): the set is defined
    only when no group of tied scores crosses rank k, so under
    ``ties=expected`` and ``ties=error`` such a tie is refused; ``docid`` and
    ``input`` order the tied docs as for every other measure.

    >>> run = Run.from_dict({"u": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> run.docs[run.doc_codes[top_rows(run, 2, Protocol())]].tolist()
    ['a', 'b']
    """
    lengths = np.diff(run.offsets)
    row_query = np.repeat(np.arange(run.num_queries, dtype=np.int64), lengths)
    score = apply_score_precision(run.scores, protocol) if run.has_scores else None
    order = rank_order(row_query, run.num_queries, score, run.doc_codes, protocol)
    if order is None:
        order = np.arange(len(row_query))
    rank = np.arange(len(order)) - np.repeat(run.offsets[:-1], lengths)
    if score is not None and protocol.ties in (Ties.EXPECTED, Ties.ERROR):
        ordered = score[order]
        # A tie crossing the cutoff: 0-based ranks k - 1 and k hold equal scores.
        at_k = np.flatnonzero((rank[1:] == k) & (ordered[1:] == ordered[:-1]))
        if at_k.size:
            query = run.queries[row_query[at_k[0]]]
            raise TieError(
                f"{where(source=run.source, query=str(query))}docs tie at score {ordered[at_k[0]]!r} across "
                f"rank {k} ({at_k.size} queries), so the top {k} is not determined; set the policy "
                "ties=input (the given order) or ties=docid"
            )
    return order[rank < k]


def truncate(run: Run, depth: int, protocol: Protocol) -> Run:
    """The depth policy: keep each query's top ``depth`` docs in trec_eval's
    order (score descending, then doc id descending), as trec_eval's -M does
    before anything else, with scores held as the protocol's score_precision
    says (trec_eval 9 compares float32)."""
    lengths = np.diff(run.offsets)
    if len(lengths) == 0 or lengths.max() <= depth:
        return run
    query = np.repeat(np.arange(run.num_queries, dtype=np.int64), lengths)
    order = np.lexsort((-run.doc_codes, -apply_score_precision(run.scores, protocol), query))
    rank = np.arange(len(order), dtype=np.int64) - run.offsets[query]
    keep = order[rank < depth]
    return Run(query_codes=query[keep], queries=run.queries, doc_codes=run.doc_codes[keep], docs=run.docs,
               scores=run.scores[keep], lines=run.lines[keep], source=run.source, name=run.name)
