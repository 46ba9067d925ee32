"""The row policies: one function each, over flat per-row arrays.

==================  ==================================
policy              function
==================  ==================================
grades              :func:`apply_grades`
negative_grades     :func:`apply_negative_grades`
unjudged            :func:`apply_unjudged`
duplicates          :func:`drop_duplicates`
score_precision     :func:`apply_score_precision`
==================  ==================================

Each takes a `locate(i)` that names row i as the fields of an error
({"source": "run.txt", "line": 7, "query": "q1", "doc": "d3"} for a TREC
run, {"source": "y_true row 0 (query 0), column 1"} for a score matrix), so
one policy gives one behaviour whatever the front door, and the error says
where in the words of that front door (:func:`rankproof.errors.render`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import DuplicateError, InputError, UnjudgedError, literal
from ..protocol import (LARGEST_GAIN, Duplicates, Grades, NegativeGrades, Protocol, ScorePrecision,
                        Unjudged)

__all__ = ["Locate", "name_some", "line_at", "apply_grades", "apply_negative_grades",
           "apply_unjudged",
           "drop_duplicates", "credit_once", "identical_rows", "apply_score_precision",
           "round_bfloat16", "precision_ties"]

Locate = Callable[[int], dict]


def name_some(values, limit: int = 3) -> str:
    """The first `limit` values, and how many more.

    >>> name_some(["a", "b", "c", "d", "e"])
    'a, b, c and 2 more'
    """
    values = list(values)
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def line_at(lines: np.ndarray, i: int) -> int | None:
    """Input line of row i, None when unknown (negative)."""
    return int(lines[i]) if lines[i] >= 0 else None


def apply_grades(grade: np.ndarray, protocol: Protocol, locate: Locate) -> np.ndarray:
    """The ``grades`` policy over judged grades: under ``integer``, real-valued
    grades (qrels read with ``grades='real'``) must all be whole numbers, and
    become int64; under ``real`` they are used as they are. Either way a
    grade beyond ``LARGEST_GAIN`` (1e300) in magnitude is refused: its gains
    would sum to infinity.

    >>> apply_grades(np.array([2.0, 0.0]), Protocol(), dict).dtype
    dtype('int64')
    >>> apply_grades(np.array([1.5]), Protocol(grades="real"), dict).tolist()
    [1.5]
    """
    if grade.dtype.kind != "f":
        return grade
    # Sums of gains must stay finite, as for a gain map (LARGEST_GAIN): 1.5e308 + 1.5e308 is inf.
    huge = np.abs(grade) > LARGEST_GAIN
    if huge.any():
        i = int(np.flatnonzero(huge)[0])
        raise InputError(
            what=f"grade {grade[i].item():g} is beyond {LARGEST_GAIN:g} in magnitude, so sums of gains would "
                 f"overflow float64", value=grade[i].item(), **locate(i),
            fix="{do[grade_map]}, or rescale them")
    if protocol.grades is Grades.REAL:
        return grade
    fractional = grade != np.round(grade)
    if fractional.any():
        i = int(np.flatnonzero(fractional)[0])
        raise InputError(
            what=f"grade {literal(grade[i].item())} is not an integer", value=grade[i].item(),
            **locate(i),
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
            what=f"negative {noun} {literal(grade[i])}", value=grade[i].item(), **locate(i),
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
            what=f"the {{doc}} has no judgment in {literal(source)}",
            **locate(int(np.flatnonzero(unjudged)[0])),
            fix="set the policy unjudged=zero to count it non-relevant, or unjudged=condense to drop "
                "unjudged {docs}")
    if protocol.unjudged is Unjudged.CONDENSE:
        counts["unjudged_dropped"] = counts["unjudged_retrieved"]
        return judged
    return None


def drop_duplicates(repeated: np.ndarray, protocol: Protocol, locate: Locate,
                    counts: dict) -> np.ndarray:
    """The ``duplicates`` policy, given which rows repeat an earlier (query, doc)
    of the same ranking: the rows to keep (``first``; every row under
    ``count`` and ``once``, see :func:`credit_once`) or an error (``error``).
    Records ``duplicates_dropped``."""
    if protocol.duplicates in (Duplicates.COUNT, Duplicates.ONCE):
        counts["duplicates_dropped"] = 0
        return np.ones(len(repeated), dtype=bool)
    counts["duplicates_dropped"] = int(repeated.sum())
    if counts["duplicates_dropped"] and protocol.duplicates is Duplicates.ERROR:
        raise DuplicateError(
            what="the {doc} is listed twice for this {query}",
            **locate(int(np.flatnonzero(repeated)[0])),
            fix="set the policy duplicates=first to keep the first")
    return ~repeated



def credit_once(repeated: np.ndarray, grade: np.ndarray, judged: np.ndarray,
                protocol: Protocol) -> tuple[np.ndarray, np.ndarray]:
    """(grade, judged) of rows under ``duplicates=once``: a copy after the
    first keeps its rank but is judged non-relevant (grade 0), so its doc is
    credited once; under any other policy the columns as they are.

    >>> g, j = credit_once(np.array([False, True]), np.array([2, 2]), np.array([True, True]),
    ...                    Protocol(duplicates="once"))
    >>> g.tolist(), j.tolist()
    ([2, 0], [True, True])
    """
    if protocol.duplicates is not Duplicates.ONCE or not repeated.any():
        return grade, judged
    return np.where(repeated, 0, grade).astype(grade.dtype), judged | repeated


def identical_rows(query_names: np.ndarray, doc_names: np.ndarray, row_query: np.ndarray,
                   row_doc: np.ndarray) -> np.ndarray:
    """Which rows rank a doc whose id is its query's id (``identical_ids``):
    ids compared as text.

    >>> identical_rows(np.array(["q1", "q2"]), np.array(["q1", "d", "q2"]), np.array([0, 0, 1]),
    ...                np.array([0, 1, 0])).tolist()
    [True, False, False]
    """
    doc_text = {str(name): code for code, name in enumerate(doc_names)}
    own = np.array([doc_text.get(str(name), -1) for name in query_names], dtype=np.int64)
    if not len(row_query) or not (own >= 0).any():
        return np.zeros(len(row_query), dtype=bool)
    return own[row_query] == row_doc


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
    if protocol.score_precision is ScorePrecision.BFLOAT16:
        return round_bfloat16(score)
    if protocol.score_precision is ScorePrecision.FLOAT16:
        with np.errstate(over="ignore"):  # beyond 65504: infinity, as the format holds it
            return np.asarray(score, dtype=np.float64).astype(np.float16).astype(np.float64)
    if (score.dtype.kind in "iu" and score.size
            and (int(score.max()) > 2**53 or int(score.min()) < -(2**53))):
        _, rank = np.unique(score.ravel(), return_inverse=True)
        return np.ascontiguousarray(rank.reshape(score.shape), dtype=np.float64)
    return np.ascontiguousarray(score, dtype=np.float64)



def round_bfloat16(score: np.ndarray) -> np.ndarray:
    """Scores rounded to bfloat16 (as float64): to float32 first, then to the
    nearest bfloat16 with ties to even, as hardware and torch convert.

    bfloat16 is float32 with only the upper 16 bits kept: the sign, the 8
    exponent bits and 7 mantissa bits. Rounding adds 0x7FFF plus the lowest
    kept bit to the float32 bits and clears the lower 16 (a carry into the
    exponent is the right rounding, up to infinity); NaN stays NaN (quiet).

    >>> round_bfloat16(np.array([1.0, 1.00390625, 1.01171875, 3.14159, -0.1])).tolist()
    [1.0, 1.0, 1.015625, 3.140625, -0.10009765625]
    """
    with np.errstate(over="ignore"):
        bits = np.asarray(score,
                          dtype=np.float64).astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    nan = (bits & 0x7F800000) == 0x7F800000
    nan &= (bits & 0x007FFFFF) != 0
    rounded[nan] = ((bits[nan] | 0x00400000) & 0xFFFF0000).astype(np.uint32)
    return rounded.view(np.float32).astype(np.float64)


def precision_ties(row_query: np.ndarray, score: np.ndarray, held: np.ndarray) -> int:
    """How many groups of equal scores within a query the ``score_precision``
    policy made: groups of equal `held` scores that hold two distinct `score`
    values or more (ties that were not there at full precision).

    >>> precision_ties(np.array([0, 0, 0, 1, 1]), np.array([1.0, 1.001, 2.0, 5.0, 5.0]),
    ...                np.array([1.0, 1.0, 2.0, 5.0, 5.0]))
    1
    """
    if len(row_query) < 2:
        return 0
    score = np.asarray(score, dtype=np.float64)
    order = np.lexsort((score, held, row_query))
    query, held, score = row_query[order], held[order], score[order]
    same_group = (query[1:] == query[:-1]) & ((held[1:] == held[:-1])
                                              | (np.isnan(held[1:]) & np.isnan(held[:-1])))
    changed = same_group & (score[1:] != score[:-1]) & ~(np.isnan(score[1:]) & np.isnan(score[:-1]))
    # A group made by the precision holds a changed pair; count each group once (at its first such
    # pair).
    group = np.cumsum(np.concatenate([[True], ~same_group]))[1:]
    return int(len(np.unique(group[changed])))
