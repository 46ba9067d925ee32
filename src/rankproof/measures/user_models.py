"""User-model measures: expected reciprocal rank (ERR).

ERR (Chapelle, Metzler, Zhang & Grinspan, "Expected Reciprocal Rank for
Graded Relevance", CIKM 2009) models a user who reads down the ranking and
stops at rank i, satisfied, with probability

    R_i = (2^{g_i} - 1) / 2^{g_max}

(g_i: the grade of the doc at rank i; unjudged docs have R = 0), so

    ERR@k = sum_{i=1}^{k} (1 / i) * R_i * prod_{j<i} (1 - R_j).

This is gdeval's definition (the TREC Web track's ``err``), whose g_max is a
fixed 4. Here g_max is the measure's ``max_grade`` parameter; by default it is
the highest grade judged for the evaluated queries (after the negative-grade
policy), so the best grade of the collection stops the user with chance
(2^g_max - 1) / 2^g_max. Write ``err(max_grade=4)@20`` for gdeval's scale. A
judged grade above ``max_grade`` is an error (R would exceed 1). Real grades
(``grades=real``) enter the same formula.

Rank-biased precision and its residual, the other user-model measures, are
``rbp(p=...)`` and ``rbp_resid(p=...)`` (:mod:`rankproof.measures.trec_gains`).

Tied scores (``ties=expected``): the exact mean over every order of each tied
group. A group G of n docs after s ranked docs, m = min(s + n, k) - s of its
slots inside the cutoff, is reached with the survival S = prod (1 - R) of all
earlier docs, which no order of earlier groups changes. With a_x = 1 - R_x and
E_t the mean, over the t-subsets of G, of prod a_x (so E_t = e_t(a) / C(n, t),
e_t the elementary symmetric polynomial), the chance that the user is still
reading at the group's t-th slot is S * E_{t-1} in expectation, and stops
there with S * (E_{t-1} - E_t). Hence G adds

    S * sum_{t=1}^{m} (E_{t-1} - E_t) / (s + t)

and the survival after a whole group is S * E_n = S * prod a_x. E_t comes from
the recurrence over the group's docs i = 1..n (each step a convex
combination, so it stays in [0, 1]):

    E_t^{(i)} = ((i - t) / i) * E_t^{(i-1)} + (t / i) * a_i * E_{t-1}^{(i-1)}.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import MeasureError, ProtocolError
from ..errors import literal
from .base import (GradeTable, Measure, MeasureSpec, Param, TieSupport, parse_float, register,
                   register_param)
from .compute import Context, Values
from .extremes import by_grade

__all__ = ["USER_MODELS", "err_max_grade", "err_stop_chance", "tied_err"]

# 2^996 is near the largest exp2 gain (rankproof.protocol.LARGEST_GAIN).
_LARGEST_MAX_GRADE = 996


def _parse_max_grade(value) -> "int | float":
    """ERR's g_max: a finite number >= 0, held as int when integral."""
    try:
        number = parse_float(value)
    except ProtocolError:
        raise MeasureError(what=f"max_grade must be a number >= 0, e.g. max_grade=4; got {literal(repr(value))}",
                           value=value) from None
    if not 0 <= number <= _LARGEST_MAX_GRADE:
        raise MeasureError(what=f"max_grade must be a number in [0, {_LARGEST_MAX_GRADE}], e.g. max_grade=4; "
                           f"got {number!r}", value=value)
    return int(number) if number.is_integer() else number


register_param(Param(
    "max_grade", _parse_max_grade,
    "ERR's g_max: R = (2^g - 1) / 2^max_grade (default: the highest judged grade of the evaluated queries)",
    policy=False))


def err_max_grade(alignment, measure: Measure) -> float:
    """ERR's g_max for this evaluation: the measure's ``max_grade``, or the
    highest judged grade of the evaluated queries (0 when none is positive).

    Raises MeasureError when a judged grade exceeds the given ``max_grade``.
    """
    highest = float(max(np.max(alignment.pool_grade, initial=0), 0))
    given = dict(measure.params).get("max_grade")
    if given is None:
        if highest > _LARGEST_MAX_GRADE:
            raise MeasureError(what=f"{literal(measure)}: the highest {{grade}} {highest:g} gives 2^{highest:g}, "
                               "beyond float64", value=highest,
                               fix="{do[grade_map]}")
        return highest
    if highest > given:
        raise MeasureError(what=f"{literal(measure)}: a judged {{grade}} {highest:g} is above max_grade={given}, so "
                           "its stopping chance (2^g - 1) / 2^max_grade would exceed 1",
                           value=highest,
                           fix=f"set max_grade >= {highest:g}")
    return float(given)


def err_stop_chance(grades: np.ndarray, max_grade: float) -> np.ndarray:
    """R = (2^g - 1) / 2^g_max, the chance that a doc of grade g stops the user.

    >>> err_stop_chance(np.array([0, 1, 2, 4]), 4).tolist()
    [0.0, 0.0625, 0.1875, 0.9375]
    """
    return (np.exp2(np.asarray(grades, dtype=np.float64)) - 1.0) / math.pow(2.0, max_grade)


def tied_err(stop: np.ndarray, before: int, slots: int) -> tuple[float, float]:
    """A tied group's expected ERR terms per unit of survival, and E_n.

    `stop` holds R of the group's docs in rank order, `before` = s (docs ranked
    above), `slots` = m (its slots inside the cutoff). Returns
    (sum_{t=1}^{m} (E_{t-1} - E_t) / (s + t), E_m): E_m is the survival
    factor of the group when m = n.

    >>> tied_err(np.array([1.0, 0.0]), 0, 2)   # the stopping doc first or second: (1 + 1/2) / 2
    (0.75, 0.0)
    """
    f = np.zeros(slots + 1)
    f[0] = 1.0
    for i in range(1, len(stop) + 1):
        top = min(i, slots)
        t = np.arange(1, top + 1, dtype=np.float64)
        # Right-hand side first: every E_t^{(i)} from the E^{(i-1)}.
        f[1:top + 1] = ((i - t) / i) * f[1:top + 1] + (t / i) * (1.0 - stop[i - 1]) * f[:top]
    total = 0.0
    for q in range(1, slots + 1):
        total += float(f[q - 1] - f[q]) / (before + q)
    return total, float(f[slots])


def _err(ctx: Context, m: Measure) -> Values:
    """ERR@k of every query, tied groups in closed form (see the module docstring).

    Hand-computed (g_max = 2, so R = 0, 1/4, 3/4 for grades 0, 1, 2): the
    ranking 1, 2, 0 gives 1/4 + (3/4)(3/4)/2 = 0.53125; the order 2, 1 gives
    3/4 + (1/4)(1/4)/2 = 0.78125.

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 2, "c": 0}})
    >>> evaluate(qrels, Run.from_dict({"q": ["a", "b", "c"]}), "err").mean("err")
    0.53125
    >>> evaluate(qrels, Run.from_dict({"q": ["b", "a"]}), "err@2").mean("err@2")
    0.78125
    """
    a, ranked = ctx.alignment, ctx.ranked
    stop = np.where(a.judged, err_stop_chance(np.where(a.judged, a.grade, 0), err_max_grade(a, m)),
                    0.0)
    k = ctx.k(m)
    total = np.zeros(a.num_queries)
    survival = np.ones(a.num_queries)
    if ranked.num_groups == 0:
        return Values(total)
    group_query = ranked.query
    start = ranked.start
    size = ranked.size
    # Groups starting inside the cutoff, taken step by step: the first group of
    # every query, then the second, ... (in rank order, as the kernel sums).
    inside = np.flatnonzero(start < k[group_query])
    first_group = np.searchsorted(group_query[inside], np.arange(a.num_queries))
    ordinal = np.arange(len(inside)) - first_group[group_query[inside]]
    order = np.argsort(ordinal, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(ordinal, minlength=1))])
    for step in range(len(bounds) - 1):
        groups = inside[order[bounds[step]:bounds[step + 1]]]
        query, s, n = group_query[groups], start[groups], size[groups]
        single = n == 1
        if single.any():
            q1 = query[single]
            r = stop[ranked.group_offsets[groups[single]]]
            total[q1] += survival[q1] * r / (s[single] + 1)
            survival[q1] *= 1.0 - r
        for group in groups[~single].tolist():
            q = int(group_query[group])
            lo, hi = int(ranked.group_offsets[group]), int(ranked.group_offsets[group + 1])
            slots = min(int(start[group]) + hi - lo, int(k[q])) - int(start[group])
            contribution, factor = tied_err(stop[lo:hi], int(start[group]), slots)
            total[q] += survival[q] * contribution
            survival[q] *= factor  # only read again when the group lies wholly inside the cutoff
    return Values(total)


USER_MODELS = [
    MeasureSpec(
        "err",
        "expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan 2009; gdeval's err): "
        "sum_{i<=k} (1/i) R_i "
        "prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^max_grade (max_grade: default the highest judged grade; "
        "gdeval uses 4); unjudged docs R = 0. Tied scores: exact expectation under ties=expected "
        "(elementary symmetric means of 1 - R over each tied group).",
        ("max_grade",), _err, ties=TieSupport.EXACT, defaults=(("max_grade", None),), family="user",
        kernel="err",
        grade_table=GradeTable.STOP_CHANCE, ideal_is_best=False, tie_merit=by_grade),
]
register(*USER_MODELS)
