"""The dense engine: NDCG, DCG and ideal DCG of a score matrix, by a compiled pass over the top k.

Only the top k of each row matter: :mod:`rankproof._libs.dense` finds them
row by row in C, with the tied group at the cutoff read from the whole row
(see its docstring for the expectation over tied orders). This module turns
a protocol's gain into what the kernel takes and keeps the input arrays as
they are (no copy unless the dtype needs one).

The engine supports only an alignment that offers a ``dense_matrix``
(:class:`~rankproof.pipeline.dense.DenseAlignment`, which
:func:`rankproof.evaluate_scores` builds for dense matrices under
``ties=expected``: non-negative grades, no score of -inf), and the measures
of the DCG family (``MeasureSpec.dcg``); it reads the matrix (``reads_matrix``),
and the planner gives every other measure to the next engine, which reads
the general alignment the dense one builds on first use (``flat()``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import MeasureError, literal
from ..measures.base import Dcg, Measure
from ..measures.compute import Values, discount_table, gains_of, ratio
from ..pipeline.aligned import DenseMatrix
from ..protocol import Gain, GainMap

__all__ = ["DenseEngine", "DenseMatrix", "dense_ndcg_parts"]  # DenseMatrix: pipeline/aligned

_LINEAR, _EXP2, _TABLE = 0, 1, 2
# The grade dtypes the kernel reads: integers of 32 bits or fewer as int32 (exact), wider as int64.
_GRADE_DTYPE = {"i4": np.int32, "i2": np.int32, "i1": np.int32, "u2": np.int32, "u1": np.int32,
                "b1": np.int32,
                "i8": np.int64, "u4": np.int64, "u8": np.int64}


class DenseEngine:
    """ndcg, dcg and ideal_dcg of a :class:`DenseMatrix` alignment (see the module docstring)."""

    name = "dense"
    reads_matrix = True  # the planner gives it the alignment as it is, not its flat arrays

    def supports(self, measure: Measure, alignment=None, protocol=None) -> bool:
        return (measure.spec.dcg is not None and alignment is not None
                and alignment.dense_matrix is not None)

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        refused = [m for m in measures if not self.supports(m, alignment, protocol)]
        if refused:  # the planner asks supports() first
            raise MeasureError(what=f"the dense engine cannot compute {literal(refused[0])} here",
                               fix="it reads score matrices: evaluate them through rankproof.evaluate_scores")
        matrix: DenseMatrix = alignment.dense_matrix
        columns = matrix.score.shape[1]
        parts: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        values: dict[Measure, Values] = {}
        for measure in measures:
            k = min(measure.cutoff if measure.cutoff is not None else columns, columns)
            gain = measure.setting("gain", protocol)
            discount = measure.setting("discount", protocol)
            key = (str(gain), str(discount), k)
            if key not in parts:  # ndcg, dcg and ideal_dcg at one k share one pass
                parts[key] = dense_ndcg_parts(matrix.score, matrix.relevance, gain, k,
                                              discount_table(discount, columns))
            dcg, ideal = parts[key]
            form = measure.spec.dcg
            values[measure] = (Values(ideal) if form is Dcg.IDEAL else Values(dcg)
                               if form is Dcg.SUM
                               else ratio(dcg, ideal, True))
        return values


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
    # compiled; loaded only when a score matrix is evaluated
    from .._libs.dense import dense_dcg_parts

    kind, table = _gain_table(gain)
    # Integer grades 0..63 by gain descending, positive gains only (for counting in the ideal).
    levels = np.arange(64)
    level_gain = gains_of(levels, gain)
    levels_by_gain = levels[np.argsort(-level_gain, kind="stable")]
    levels_by_gain = np.ascontiguousarray(levels_by_gain[level_gain[levels_by_gain] > 0],
                                          dtype=np.int64)
    # float32 and float64 scores, int32, int64 and float64 grades are read as they are (a copy only
    # for another dtype or layout): every float32 is a float64, so the order and the ties are the
    # input's.
    score = np.ascontiguousarray(score,
                                 dtype=np.float32 if score.dtype == np.float32 else np.float64)
    grade = np.ascontiguousarray(grade, dtype=_GRADE_DTYPE.get(grade.dtype.str[1:], np.float64))
    discount = np.ascontiguousarray(discount, dtype=np.float64)
    dcg, ideal, _ = dense_dcg_parts(score, grade, int(k), discount, kind, table, levels_by_gain)
    return dcg, ideal
