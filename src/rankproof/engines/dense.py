"""The dense fast path: DCG@k and ideal DCG@k of a score matrix, by the compiled kernel.

Only the top k of each row matter: :mod:`._dense_kernel` finds them row by
row in C, with the tied group at the cutoff read from the whole row (see
its docstring for the expectation over tied orders). This module turns a
protocol's gain into what the kernel takes and keeps the input arrays as
they are (no copy unless the dtype needs one).
"""

from __future__ import annotations

import numpy as np

from ..measures.compute import gains_of as _gains_of
from ..protocol import Gain, GainMap
from .._libs.dense import dense_dcg_parts

__all__ = ["dense_ndcg_parts"]

_LINEAR, _EXP2, _TABLE = 0, 1, 2


def _gain_table(gain: "Gain | GainMap") -> tuple[int, np.ndarray]:
    """(kind, table) for the kernel; a gain map becomes a table indexed by grade."""
    if gain is Gain.LINEAR:
        return _LINEAR, np.zeros(0)
    if gain is Gain.EXP2:
        return _EXP2, np.zeros(0)
    grades = [g for g, _ in gain.gains]
    table = np.zeros(max(max(grades), -1) + 1)
    for grade, value in gain.gains:
        if grade >= 0:  # the fast path never sees negative grades
            table[grade] = value
    return _TABLE, table


def dense_ndcg_parts(score: np.ndarray, grade: np.ndarray, gain: "Gain | GainMap", k: int,
                     discount: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(expected DCG@k, ideal DCG@k) of every row under ties=expected.

    ``score`` holds NaN for entries that are not candidates; ``discount[i]``
    is the discount of rank i + 1, at least min(k, columns) long.

    >>> score = np.array([[1.0, 0.0, 0.0, 0.0, 1.0]])
    >>> grade = np.array([[10, 0, 0, 1, 5]])
    >>> dcg, ideal = dense_ndcg_parts(score, grade, Gain.LINEAR, 1, np.array([1.0]))
    >>> dcg.tolist(), ideal.tolist()   # the top two tie: (10 + 5) / 2
    ([7.5], [10.0])
    """
    kind, table = _gain_table(gain)
    # Integer grades 0..63 by gain descending, positive gains only (for counting in the ideal).
    levels = np.arange(64)
    level_gain = _gains_of(levels, gain)
    levels_by_gain = levels[np.argsort(-level_gain, kind="stable")]
    levels_by_gain = np.ascontiguousarray(levels_by_gain[level_gain[levels_by_gain] > 0], dtype=np.int64)
    score = np.ascontiguousarray(score, dtype=np.float64)
    if grade.dtype.kind in "iub":
        grade = np.ascontiguousarray(grade, dtype=np.int64)
    else:
        grade = np.ascontiguousarray(grade, dtype=np.float64)
    discount = np.ascontiguousarray(discount, dtype=np.float64)
    dcg, ideal, _ = dense_dcg_parts(score, grade, int(k), discount, kind, table, levels_by_gain)
    return dcg, ideal
