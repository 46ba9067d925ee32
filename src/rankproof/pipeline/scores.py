"""Score matrices as an :class:`~rankproof.pipeline.Alignment` (the general path of
:func:`rankproof.evaluate_scores`; a dense matrix under ``ties=expected`` takes
:class:`~rankproof.pipeline.dense.DenseAlignment`).

Each row is a query; each candidate of the row is a judged document whose
grade is its relevance; the row's candidates are its whole judged pool, so
``ideal=judged`` and ``ideal=retrieved`` give the same ideal ranking. Every
measure then runs through the same kernels as :func:`rankproof.evaluate`.
"""

from __future__ import annotations

import numpy as np

from ..data.scores import ScoreInput, as_array
from ..errors import InputError, literal
from ..kernels.segments import offsets_of, segment_of
from ..protocol import Protocol
from .aligned import Alignment
from .rows import apply_negative_grades, apply_unjudged
from .ties import group_ties, rank_order

__all__ = ["POOL_NOTE", "score_alignment", "base_counts", "num_relevant_note", "check_num_relevant"]

POOL_NOTE = ("pool: each row's candidates (ideal=judged and ideal=retrieved coincide); if they are a subset of "
             "the catalogue, recall and ideal DCG miss the relevant items outside them: pass num_relevant=")


def num_relevant_note(outside: int, rel: "int | float") -> str:
    return (f"pool: each row's candidates plus its relevant items outside them from num_relevant= "
            f"({outside} in all, each at grade {rel}, the protocol's rel)")


def base_counts(scores: ScoreInput) -> dict:
    """The counts every alignment of a score matrix has, whatever the path."""
    rows = scores.num_rows
    return {
        "queries_in_qrels": rows, "queries_in_run": rows, "queries_missing_from_run": 0,
        "queries_missing_from_qrels": 0, "queries_evaluated": rows,
        "negative_grades": scores.negative,
        "duplicates_dropped": 0, "unjudged_retrieved": 0, "unjudged_dropped": 0,
        "masked_entries": scores.masked,
        **({} if scores.precision_ties is None
           else {"tied_groups_from_precision": scores.precision_ties}),
    }


def _grades(relevance: np.ndarray) -> np.ndarray:
    # Integer grades stay integers; real-valued relevance (scikit-learn allows it) stays float64.
    if relevance.dtype.kind in "iu":
        return relevance.astype(np.int64, copy=False)
    return relevance


def check_num_relevant(num_relevant, scores: ScoreInput) -> np.ndarray:
    """``num_relevant`` as int64, one per row, checked: whole, non-negative numbers."""
    array = as_array(num_relevant, "num_relevant").ravel()
    if len(array) != scores.num_rows:
        raise InputError(what=f"num_relevant has {len(array)} values for {scores.num_rows} rows",
                         fix="give one per row (the number of relevant items of that user in the whole catalogue)")
    bad = np.flatnonzero(~np.isfinite(array.astype(np.float64)) | (array < 0)
                         | (array != np.round(array)))
    if len(bad):
        r = int(bad[0])
        raise InputError(what=f"row {r} ({{query}} {literal(scores.queries[r])}) has {array[r]}",
                         source="num_relevant",
                         fix="give a whole number >= 0 of relevant items", value=array[r])
    return array.astype(np.int64)


def _pool_with_outside(row, judged, grade, rows: int, num_relevant: np.ndarray, rel: "int | float",
                       queries):
    """Each row's judged pool plus ``num_relevant - relevant candidates`` items at grade `rel`."""
    pool_row, pool_grade = row[judged], grade[judged]
    relevant_inside = np.bincount(pool_row[pool_grade >= rel], minlength=rows)
    short = np.flatnonzero(num_relevant < relevant_inside)
    if len(short):
        r = int(short[0])
        raise InputError(what=f"row {r} ({{query}} {literal(queries[r])}) says {num_relevant[r]} relevant items, "
                         f"but {relevant_inside[r]} of its candidates have a {{grade}} >= rel={rel}",
                         source="num_relevant",
                         fix="give the count over the whole catalogue, candidates included",
                         value=int(num_relevant[r]))
    outside = num_relevant - relevant_inside
    rows_all = np.concatenate([pool_row, np.repeat(np.arange(rows, dtype=np.int64), outside)])
    # A real rel (grades=real) makes the pool real: an integer pool would cut it.
    kind = np.result_type(pool_grade.dtype, np.asarray(rel).dtype)
    grades_all = np.concatenate([pool_grade.astype(kind),
                                 np.full(int(outside.sum()), rel, dtype=kind)])
    order = np.argsort(rows_all, kind="stable")
    return offsets_of(rows_all, rows), grades_all[order], int(outside.sum())


def _pool(row, judged, grade, rows: int, num_relevant: np.ndarray | None, protocol: Protocol,
          scores: ScoreInput, counts: dict) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Each row's pool (offsets and grades, the row's judged candidates, with `num_relevant`
    its relevant items outside them too) and the note that says which."""
    if num_relevant is None:
        pool_grade = grade[judged] if not judged.all() else grade
        return offsets_of(row[judged], rows), pool_grade, (POOL_NOTE,)
    offsets, pool_grade, outside = _pool_with_outside(row, judged, grade, rows, num_relevant,
                                                      protocol.rel, scores.queries)
    counts["relevant_outside_candidates"] = outside
    return offsets, pool_grade, (num_relevant_note(outside, protocol.rel),)


def score_alignment(scores: ScoreInput, protocol: Protocol,
                    num_relevant: np.ndarray | None = None) -> Alignment:
    """Order every row by score under the tie policy and build the flat alignment.

    The row policies are the pipeline's (:mod:`rankproof.pipeline`), applied
    as to a run: a negative relevance read as unjudged is an unjudged
    candidate, so ``unjudged=error`` refuses it and ``unjudged=condense``
    drops it, exactly as for a qrels file. With `num_relevant` (checked by
    :func:`check_num_relevant`), each row's pool also holds the relevant
    items that are not among its candidates, at grade ``protocol.rel``, so
    recall and ideal DCG count them.
    """
    relevance, score, position, offsets = scores.flat()
    rows = scores.num_rows
    counts = base_counts(scores)
    row = segment_of(np.diff(offsets))

    def entry(i: int) -> dict:
        r = int(row[i])
        where = "column" if scores.dense else "position"
        return {"source": f"y_true row {r} (query {scores.queries[r]}), {where} {int(position[i])}"}

    grade, unjudged = apply_negative_grades(_grades(relevance), protocol, entry, noun="relevance")
    # Every candidate is in the row's pool; one with a negative relevance read
    # as unjudged stays pooled but unjudged, as a negative grade in a qrels file.
    judged = np.ones(len(score), dtype=bool)
    if unjudged is not None:
        judged = ~unjudged
        grade = np.where(unjudged, 0, grade)
    kept = apply_unjudged(judged, protocol, entry, "y_true", counts)
    if kept is not None:
        grade, score, position, row, judged = (grade[kept], score[kept], position[kept], row[kept],
                                               judged[kept])
        offsets = offsets_of(row, rows)
    pooled = np.ones(len(score), dtype=bool)

    # Order: score descending; among ties, the input (column) order, or for
    # ties=docid the doc id descending, the doc id being the column index.
    order = rank_order(row, rows, score, position, protocol)
    if order is not None:
        grade, score, position, judged = grade[order], score[order], position[order], judged[order]

    def tie(lo: int, hi: int) -> str:
        r = int(row[lo])
        where = "columns" if scores.dense else "positions"
        return (f"row {r} (query {scores.queries[r]}): {where} {', '.join(str(p) for p in position[lo:hi][:5])} "
                f"tie at score {score[lo]!r}")

    group_offsets, tie_offsets = group_ties(offsets, score, protocol, counts, tie)
    n = len(score)
    pool_offsets, pool_grade, notes = _pool(row, judged, grade, rows, num_relevant, protocol,
                                            scores, counts)
    width = int(position.max(initial=-1)) + 1
    return Alignment(
        queries=scores.queries, in_run=np.ones(rows, dtype=bool), offsets=offsets,
        docs=np.arange(width).astype(str), doc=position.astype(np.int64), grade=grade,
        judged=judged,
        pooled=pooled, score=score,
        line=np.broadcast_to(np.int64(-1), (n,)),  # no file lines: a read-only view, no memory
        group_offsets=group_offsets,
        tie_offsets=tie_offsets, pool_offsets=pool_offsets, pool_grade=pool_grade, counts=counts,
        run_source="y_score", qrels_source="y_true", notes=notes,
    )
