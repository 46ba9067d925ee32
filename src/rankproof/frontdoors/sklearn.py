"""scikit-learn scorers: rankproof measures in ``cross_val_score`` and ``GridSearchCV``.

Two kinds of rankers:

* multi-output rankers: ``y`` is a relevance matrix (one row per query or
  user, one column per candidate) and ``estimator.predict(X)`` gives a score
  matrix of the same shape;
* per-document rankers (LightGBM's ``LGBMRanker``, XGBoost's ``XGBRanker``):
  one row of ``X`` per (query, document), ``y`` the relevance of each row,
  ``predict(X)`` one score per row; ``scorer(..., qid=...)`` groups the rows
  by query id, taken from a column of ``X`` (``qid="qid"`` or a column index)
  or routed by scikit-learn as the ``qid`` metadata (``qid=True``).

Imported only when used: ``import rankproof`` does not load scikit-learn.

>>> from rankproof.sklearn import ndcg_scorer
>>> scorer = ndcg_scorer(k=10)  # what make_scorer(ndcg_score, k=10) computes
"""

from __future__ import annotations

from ..measures.parse import parse_measure
from ..protocol import Protocol
from ..typing import ProtocolLike

__all__ = ["scorer", "ndcg_scorer", "grouped_scores"]


def _mean_measure(y_true, y_score, *, measure: str, protocol: str) -> float:
    # Module level, with text arguments, so the scorer pickles (n_jobs > 1).
    from .scores import evaluate_scores

    return evaluate_scores(y_true, y_score, measure, Protocol.from_text(protocol)).mean(measure)


def grouped_scores(y_true, y_score, qid):
    """Per-row relevance and scores grouped by query id: ``(y_true, y_score, offsets)``
    for :func:`rankproof.evaluate_scores`.

    Queries come in the order of their first row; within a query the rows
    keep their order (so ``ties=input`` takes tied rows in input order, as
    LightGBM's stable sort does). The rows of a query need not be contiguous.

    Examples
    --------
    >>> true, score, offsets = grouped_scores([1, 0, 2], [0.5, 0.1, 0.3], ["b", "a", "b"])
    >>> true.tolist(), score.tolist(), offsets.tolist()
    ([1, 2, 0], [0.5, 0.3, 0.1], [0, 2, 3])
    """
    import numpy as np

    from ..errors import InputError
    from .scores._input import as_array

    y_true = as_array(y_true, "y_true").ravel()
    y_score = as_array(y_score, "y_score").ravel()
    qid = np.asarray(qid.to_numpy() if hasattr(qid, "to_numpy") else qid).ravel()
    if not len(y_true) == len(y_score) == len(qid):
        raise InputError(what=f"y_true has {len(y_true)} rows, the scores {len(y_score)} and qid {len(qid)}",
                         fix="give one {query} id per row")
    if len(qid) == 0:
        raise InputError(what="there are no rows to score",
                         fix="give at least one ({query}, {doc}) row")
    _, first, codes = np.unique(qid, return_index=True, return_inverse=True)
    rank_of_code = np.empty(len(first), dtype=np.int64)
    rank_of_code[np.argsort(first, kind="stable")] = np.arange(len(first))
    group = rank_of_code[codes.ravel()]
    order = np.argsort(group, kind="stable")
    offsets = np.concatenate([[0],
                              np.cumsum(np.bincount(group, minlength=len(first)))]).astype(np.int64)
    return y_true[order], y_score[order], offsets


def _grouped_mean(y_true, y_score, qid, *, measure: str, protocol: str) -> float:
    from .scores import evaluate_scores

    true, score, offsets = grouped_scores(y_true, y_score, qid)
    return evaluate_scores(true, score, measure, Protocol.from_text(protocol),
                           offsets=offsets).mean(measure)


class _ColumnQidScorer:
    """``scorer(estimator, X, y)`` reading each row's query id from a column of X."""

    def __init__(self, measure: str, protocol: str, column) -> None:
        self.measure, self.protocol, self.column = measure, protocol, column

    def _qid(self, X):
        import numpy as np

        from ..errors import InputError
        from ..errors import literal

        if hasattr(X, "columns"):  # pandas or polars
            if self.column not in list(X.columns):
                raise InputError(what="X has no such column", source=f"qid={self.column!r}",
                                 value=self.column,
                                 fix=f"its columns are {literal(', '.join(map(str, list(X.columns)[:8])))}")
            return np.asarray(X[self.column])
        if not isinstance(self.column, int):
            raise InputError(what=f"qid={literal(repr(self.column))} names a column, but X is an array",
                             fix="give the column index", value=self.column)
        return np.asarray(X)[:, self.column]

    def __call__(self, estimator, X, y, sample_weight=None) -> float:
        return _grouped_mean(y, estimator.predict(X), self._qid(X), measure=self.measure,
                             protocol=self.protocol)

    def __repr__(self) -> str:
        return f"rankproof.sklearn.scorer({self.measure!r}, {self.protocol!r}, qid={self.column!r})"


def scorer(measure: str = "ndcg@10", protocol: ProtocolLike = None, *, qid=None):
    """A scikit-learn scorer giving the mean of ``measure`` over the queries of ``y``.

    Parameters
    ----------
    measure : str
        Any rankproof measure, e.g. ``"ndcg@10"``, ``"ap@5"``, ``"rr"``
        (checked now, not when scoring).
    protocol : Protocol, preset name or protocol text, optional
        Default ``Protocol()``, which is scikit-learn's ``ndcg_score``
        convention (the ``sklearn`` preset); ``"lightgbm"`` is LightGBM's
        ndcg@k eval metric.
    qid : None, str, int or True
        None: ``y`` is a relevance matrix, one row per query. Otherwise the
        estimator is a per-document ranker (one row of ``X`` per (query,
        document), ``y`` and ``predict(X)`` one value per row) and the rows
        are grouped by query id (see :func:`grouped_scores`): a column name
        (pandas/polars ``X``) or index (array ``X``) holding the id, or
        True: the ids come as the ``qid`` metadata, which scikit-learn routes
        and splits with the rows (``sklearn.set_config(enable_metadata_routing=True)``,
        then ``GridSearchCV(...).fit(X, y, qid=qid)``; split with
        ``GroupKFold`` and ``groups=qid`` so no query straddles two folds).

    Returns
    -------
    callable ``scorer(estimator, X, y) -> float`` (greater is better).

    Examples
    --------
    >>> import numpy as np
    >>> class Ranker:                       # scores are the first feature
    ...     def predict(self, X):
    ...         return np.asarray(X)[:, 0]
    >>> X = np.array([[0.9, 7], [0.2, 7], [0.5, 8], [0.8, 8]])   # column 1: the query id
    >>> y = np.array([0, 1, 1, 0])
    >>> scorer("rr", qid=1)(Ranker(), X, y)   # each query's relevant row ranks 2nd: (1/2 + 1/2) / 2
    0.5
    """
    from ..evaluation import resolve_protocol

    text = str(parse_measure(measure))
    protocol_text = str(resolve_protocol(protocol))
    if qid is None:
        from sklearn.metrics import make_scorer

        return make_scorer(_mean_measure, measure=text, protocol=protocol_text)
    if qid is True:
        import sklearn
        from sklearn.metrics import make_scorer

        from ..errors import InputError

        if not sklearn.get_config().get("enable_metadata_routing"):
            raise InputError(what="qid=True asks scikit-learn to route the qid metadata to the scorer, which needs "
                             "sklearn.set_config(enable_metadata_routing=True) (or a sklearn.config_context) "
                             "before the scorer is made",
                             fix="or give qid as a column of X (qid='qid')")
        made = make_scorer(_grouped_mean, measure=text, protocol=protocol_text)
        return made.set_score_request(qid=True)
    if isinstance(qid, bool) or not isinstance(qid, (str, int)):
        from ..errors import InputError
        from ..errors import literal

        raise InputError(what="qid must be a column name or index of X, or True for the routed qid metadata; "
                         f"got {literal(repr(qid))}", value=qid)
    return _ColumnQidScorer(text, protocol_text, qid)


def ndcg_scorer(k: "int | None" = 10, protocol: ProtocolLike = None, *, qid=None):
    """Scorer of NDCG@k (all ranks when ``k`` is None); see :func:`scorer`.

    ``ndcg_scorer(k=10)`` scores like ``make_scorer(ndcg_score, k=10)``;
    ``ndcg_scorer(k=10, protocol="lightgbm", qid=...)`` like LightGBM's ndcg@10.
    """
    return scorer("ndcg" if k is None else f"ndcg@{k}", protocol, qid=qid)
