"""Compatibility (Clarke, Vtyurina and Smucker, "Assessing top-k preferences", ACM TOIS 39(3), 2021),
as ir_measures computes it (its ``Compat(p=0.95, normalize=True)``).

The ranking is compared with an ideal ranking by rank-biased overlap (RBO):
the ideal holds the judged docs of positive grade, best grade first, a tie
broken by the run's score (an unranked doc scores 0), then by the run's
order, so that the run's own order of equally good docs is ideal (ir_measures
breaks the last tie by the qrels' order, which only matters for tied scores). To the depth D = max(ranking's length,
ideal's length),

    RBO = sum_{i=1}^{D} p^{i-1} |ranking[:i] & ideal[:i]| / i  /  sum_{i=1}^{D} p^{i-1}

and Compat = RBO(ranking, ideal) / RBO(ideal, ideal) (``normalize=1``, the
default), or RBO itself (``normalize=0``). A doc counts in the overlap at
depth i once both lists hold it within their top i: at i >= max(its rank in
the ranking, its rank in the ideal).

The ranking is the run's order after the protocol's tie policy: under
``ties=expected`` tied scores are refused (no closed form); ir_measures
orders tied docs by doc id, ascending.

>>> from rankproof import Qrels, Run, evaluate
>>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 1}})
>>> round(evaluate(qrels, Run.from_dict({"q": ["a", "b"]}), "compat").mean("compat"), 12)
1.0
"""

from __future__ import annotations

import numpy as np

from ..errors import MeasureError, literal
from .base import Measure, MeasureSpec, Param, TieSupport, register, register_param
from .compute import Context, Values

__all__ = ["COMPAT", "compat_value"]


def _normalize(value) -> int:
    text = str(value).strip().lower()
    if text in ("1", "true", "yes"):
        return 1
    if text in ("0", "false", "no"):
        return 0
    raise MeasureError(what=f"normalize must be 1 or 0; got {literal(repr(value))}", value=value)


register_param(Param("normalize", _normalize,
                     "Compat: divide by the ideal ranking's RBO (1) or not (0)",
                     policy=False))


def _rbo(depth_of_each: np.ndarray, depth: int, p: float) -> float:
    """RBO from each shared doc's depth of entry (max of its two 0-based ranks)."""
    weight = np.power(p, np.arange(depth, dtype=np.float64))
    overlap = np.cumsum(np.bincount(depth_of_each[depth_of_each < depth], minlength=depth)[:depth])
    return float(np.sum(weight * overlap / np.arange(1, depth + 1)) / np.sum(weight))


def compat_value(ranked_docs: list, ranked_scores: np.ndarray, judged: dict, p: float,
                 normalize: int) -> float:
    """Compat of one query: ``ranked_docs`` in rank order, ``judged`` doc -> grade.

    >>> compat_value(["x", "a"], np.array([2.0, 1.0]), {"a": 1}, 0.5, 0)   # a enters at depth 2
    0.16666666666666666
    """
    score = dict(zip(ranked_docs, ranked_scores.tolist()))
    at = {doc: i for i, doc in reversed(list(enumerate(ranked_docs)))}
    # Best grade first, then the run's score, then the run's own order (ir_measures keeps the
    # qrels' order there, which would make the value depend on how docs are named).
    ideal = sorted((doc for doc in judged if judged[doc] > 0),
                   key=lambda doc: (-judged[doc], -score.get(doc, 0.0), at.get(doc, len(at))))
    depth = max(len(ranked_docs), len(ideal))
    if depth == 0:
        return 0.0
    entry = np.array([max(i, at[doc]) for i, doc in enumerate(ideal) if doc in at], dtype=np.int64)
    value = _rbo(entry, depth, p)
    if normalize:
        best = _rbo(np.arange(len(ideal), dtype=np.int64), depth, p)
        if best > 0:
            value /= best
    return value


def _compat(ctx: Context, m: Measure) -> Values:
    a = ctx.alignment
    p, normalize = m.setting("p", ctx.protocol), m.setting("normalize", ctx.protocol)
    if a.pool_doc is None or a.pool_docs is None:
        raise MeasureError(what=f"{literal(m)} needs the judged docs' ids (their order in the ideal ranking)",
                           fix="evaluate qrels and a run with doc ids (not a score matrix)")
    out = np.zeros(a.num_queries)
    docs, pool_docs = np.asarray(a.docs), np.asarray(a.pool_docs)
    for q in range(a.num_queries):
        lo, hi = int(a.offsets[q]), int(a.offsets[q + 1])
        plo, phi = int(a.pool_offsets[q]), int(a.pool_offsets[q + 1])
        judged = dict(zip((str(d) for d in pool_docs[a.pool_doc[plo:phi]]),
                          a.pool_grade[plo:phi].tolist()))
        out[q] = compat_value([str(d) for d in docs[a.doc[lo:hi]]], a.score[lo:hi], judged, p,
                              normalize)
    return Values(out)


COMPAT = [
    MeasureSpec("compat",
                "compatibility (Clarke, Vtyurina and Smucker 2021; ir_measures' Compat): RBO(p) of the "
                "ranking against the ideal (positive grades best first, ties by the run's score), divided by the "
                "ideal's own RBO (normalize=1)", ("p", "normalize"), _compat, cutoff=False,
                ties=TieSupport.ORDERED,
                defaults=(("p", 0.95), ("normalize", 1)), family="user", ideal_is_best=True),
]
register(*COMPAT)   # after trec_gains, which declares the persistence p
