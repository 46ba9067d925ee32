"""A score matrix as rankproof holds it once read (:class:`ScoreInput`): the rows of
scores and relevance that :func:`rankproof.evaluate_scores` validated
(``frontdoors/scores/_input.read_scores``) and the pipeline aligns
(:mod:`rankproof.pipeline.scores`, :mod:`rankproof.pipeline.dense`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import InputError, literal
from ..kernels.segments import ranks_within

__all__ = ["ScoreInput", "as_array"]


def as_array(value, name: str) -> np.ndarray:
    """A numpy array from numpy input, lists, or tensors (torch and the like,
    duck-typed: ``.detach().cpu().numpy()``), without importing their library."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        value = value.detach().cpu().numpy()
    elif hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        value = value.to_numpy()
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(what=f"{name} cannot be read as a numeric array ({literal(exc)})",
                         fix="give a numpy array, a list of arrays, or flat arrays with offsets=") from None
    if array.dtype == bool:
        return array.astype(np.int8)
    if array.dtype.kind not in "iuf":
        raise InputError(what=f"{name} holds {array.dtype} values",
                         fix="give numbers (relevance {grades}, scores)")
    return array


@dataclasses.dataclass(frozen=True)
class ScoreInput:
    """Validated scores and relevance of every row.

    Dense: ``relevance`` and ``score`` are 2-D (``offsets`` is None), with
    NaN scores marking entries that are not candidates (``masked`` counts
    them); ``score`` is float64, or float32 when given so. Ragged: both
    are 1-D, row ``i`` being ``offsets[i]:offsets[i + 1]``.
    """

    queries: np.ndarray
    relevance: np.ndarray
    score: np.ndarray
    offsets: np.ndarray | None
    masked: int
    negative: int
    form: str
    # Groups of equal scores within a row that score_precision made (None at float64).
    precision_ties: int | None = None

    @property
    def dense(self) -> bool:
        return self.offsets is None

    @property
    def num_rows(self) -> int:
        return len(self.queries)

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(relevance, score, position in the row, offsets) of the candidates, row by row."""
        if self.offsets is not None:  # ragged
            position = ranks_within(np.diff(self.offsets))
            return self.relevance, self.score, position, self.offsets
        rows, columns = self.score.shape
        score = self.score.astype(np.float64, copy=False)  # a float32 matrix is kept as given
        if self.masked:
            candidate = ~np.isnan(score)
            lengths = np.count_nonzero(candidate, axis=1)
            position = np.nonzero(candidate)[1]
            relevance, score = self.relevance[candidate], score[candidate]
        else:
            lengths = np.full(rows, columns)
            position = np.tile(np.arange(columns), rows)
            relevance, score = self.relevance.ravel(), score.ravel()
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return relevance, score, position, offsets
