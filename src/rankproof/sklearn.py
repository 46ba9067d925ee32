"""scikit-learn scorers: rankproof measures in ``cross_val_score`` and ``GridSearchCV``.

For multi-output rankers: ``y`` is a relevance matrix (one row per query or
user, one column per candidate) and ``estimator.predict(X)`` gives a score
matrix of the same shape. Imported only when used: ``import rankproof`` does
not load scikit-learn.

>>> from rankproof.sklearn import ndcg_scorer
>>> scorer = ndcg_scorer(k=10)  # what make_scorer(ndcg_score, k=10) computes
"""

from __future__ import annotations

from .measures.base import parse_measure
from .protocol import Protocol

__all__ = ["scorer", "ndcg_scorer"]


def _mean_measure(y_true, y_score, *, measure: str, protocol: str) -> float:
    # Module level, with text arguments, so the scorer pickles (n_jobs > 1).
    from .scores import evaluate_scores

    return evaluate_scores(y_true, y_score, measure, Protocol.from_text(protocol)).mean(measure)


def scorer(measure: str = "ndcg@10", protocol: "Protocol | str | None" = None):
    """A scikit-learn scorer giving the mean of ``measure`` over the rows of ``y``.

    Parameters
    ----------
    measure : str
        Any rankproof measure, e.g. ``"ndcg@10"``, ``"ap@5"``, ``"rr"``
        (checked now, not when scoring).
    protocol : Protocol, preset name or protocol text, optional
        Default ``Protocol()``, which is scikit-learn's ``ndcg_score``
        convention (the ``sklearn`` preset).

    Returns
    -------
    callable ``scorer(estimator, X, y) -> float`` (greater is better), from
    :func:`sklearn.metrics.make_scorer`.
    """
    from sklearn.metrics import make_scorer

    from .evaluate import _as_protocol

    text = str(parse_measure(measure))
    return make_scorer(_mean_measure, measure=text, protocol=str(_as_protocol(protocol)))


def ndcg_scorer(k: "int | None" = 10, protocol: "Protocol | str | None" = None):
    """Scorer of NDCG@k (all ranks when ``k`` is None); see :func:`scorer`.

    ``ndcg_scorer(k=10)`` scores like ``make_scorer(ndcg_score, k=10)``;
    ``ndcg_scorer(k=10, protocol="lightgbm")`` like LightGBM's ndcg@10.
    """
    return scorer("ndcg" if k is None else f"ndcg@{k}", protocol)
