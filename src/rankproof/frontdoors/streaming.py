"""A streaming accumulator for training loops: ``update`` batches, ``compute`` once.

Like torchmetrics' retrieval metrics, each element of a batch is one
candidate: its score (``preds``), its relevance (``target``) and the query it
belongs to (``indexes``); a query's candidates may arrive over several
batches. Batches may be numpy arrays or tensors (torch, or anything with
``.detach().cpu().numpy()``): torch is never imported here.

``compute`` concatenates the stored chunks, groups them by query with one
stable argsort (a query's candidates keep their arrival order, which
``ties=input`` uses), and evaluates the ragged rows with
:func:`rankproof.evaluate_scores`: no Python loop over queries.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..measures.parse import parse_measures
from ..results import Results
from ..typing import MeasuresLike, ProtocolLike
from .scores import evaluate_scores
from .scores._input import as_array

__all__ = ["StreamingEvaluator"]


class StreamingEvaluator:
    """Accumulate (score, relevance, query) batches; evaluate them all at once.

    Parameters
    ----------
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "rr@10"]`` (checked now, not at ``compute``).
    protocol : Protocol or preset name, optional
        ``Protocol()`` by default, which is also torchmetrics'
        ``RetrievalNormalizedDCG`` (ties averaged, queries without a relevant
        candidate scored 0, its ``empty_target_action='neg'``).

    Examples
    --------
    >>> import numpy as np
    >>> from rankproof.streaming import StreamingEvaluator
    >>> evaluator = StreamingEvaluator("ndcg@2")
    >>> evaluator.update(np.array([0.9, 0.1, 0.8]), np.array([0, 1, 1]), indexes=np.array([7, 7, 3]))
    >>> evaluator.update(np.array([0.5]), np.array([1]), indexes=np.array([3]))
    >>> results = evaluator.compute()
    >>> results.queries, results.values("ndcg@2").round(4).tolist()
    (['3', '7'], [1.0, 0.6309])
    >>> evaluator.reset()
    """

    def __init__(self, measures: MeasuresLike,
                 protocol: ProtocolLike = None) -> None:
        self.measures = list(dict.fromkeys(parse_measures(measures)))
        self.protocol = protocol
        self._preds: list[np.ndarray] = []
        self._target: list[np.ndarray] = []
        self._indexes: list[np.ndarray] = []

    def update(self, preds, target, indexes) -> None:
        """Store one batch (any shape; the three must have the same shape).

        The batch is copied, so later changes to the caller's buffers do not
        reach the stored values.
        """
        preds = as_array(preds, "preds")
        target = as_array(target, "target")
        indexes = as_array(indexes, "indexes")
        if not (preds.shape == target.shape == indexes.shape):
            raise InputError(what=f"preds {preds.shape}, target {target.shape} and indexes {indexes.shape} must have "
                             "the same shape: one score, one relevance and one {query} index per candidate")
        if indexes.dtype.kind not in "iu":
            raise InputError(what=f"indexes must be integers (the {{query}} of each candidate); got {indexes.dtype}")
        self._preds.append(np.array(preds, dtype=np.float64).ravel())
        self._target.append(np.array(target).ravel())
        self._indexes.append(np.array(indexes, dtype=np.int64).ravel())

    def compute(self) -> Results:
        """Evaluate every query seen since the last reset; queries are named by their index."""
        if not self._preds:
            raise InputError(what="nothing to compute: call update(preds, target, indexes) first")
        preds = np.concatenate(self._preds)
        target = np.concatenate(self._target)
        indexes = np.concatenate(self._indexes)
        # A stable sort keeps each query's candidates in arrival order.
        order = np.argsort(indexes, kind="stable")
        indexes = indexes[order]
        starts = np.flatnonzero(np.r_[True, indexes[1:] != indexes[:-1]])
        offsets = np.append(starts, len(indexes))
        return evaluate_scores(target[order], preds[order], self.measures, self.protocol,
                               offsets=offsets, queries=indexes[starts].astype(str))

    def reset(self) -> None:
        """Forget every stored batch."""
        self._preds.clear()
        self._target.clear()
        self._indexes.clear()
