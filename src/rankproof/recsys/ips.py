"""Inverse-propensity-scored hit rate and nDCG: hits on rarely-seen items weigh more, so a model is not
rewarded for recommending only what everyone already consumes.

The propensity of item i, the probability that a user's interaction with it
is observed, comes from its popularity (a policy, stated):

.. math:: p_i = \\left(\\frac{n_i}{N}\\right)^{\\eta}, \\qquad w_i = \\min(1 / p_i,\\ c)

with n_i the item's interactions in the training log (``--train``: its rows, or
its count column; RecPack fits on whichever matrix it is given), N their sum, the exponent
eta (``exponent``, default 1: RecPack's ``IPSMetric.fit``, p(i) = n_i / N;
Yang et al., "Unbiased offline recommender evaluation for missing-not-at-random
implicit feedback", RecSys 2018, model p_i proportional to n_i^((gamma + 1) / 2),
which ``exponent`` = (gamma + 1) / 2 gives up to their constant factor) and the
clipping cap c (``cap``, default 10000: RecPack's ``ip_cap``; ``cap=none``
clips nothing). An item with n_i = 0 weighs 0 (``unseen=zero``: RecPack sets
an infinite inverse propensity to 0) or c (``unseen=cap``).

- :func:`ips_hit_rate`: RecPack's ``IPSHitRateK``: the sum of w_i over the
  relevant items of the top k, per user (not divided by k: a weighted hit
  count), and its mean over the users;
- :func:`ips_ndcg`: the propensity-scored nDCG of extreme classification (Jain,
  Prabhu and Varma, "Extreme multi-label loss functions for recommendation,
  tagging, ranking and other missing label applications", KDD 2016; ranx #59
  asks for it): PSDCG@k = sum over relevant items at rank r <= k of
  w_i / log2(r + 1), divided by ``normaliser``: ``ideal_ips`` (the largest
  PSDCG@k the user's relevant items can reach, their weights sorted
  descending: in [0, 1], as pyxclib's ``psndcg``) or ``ideal`` (the
  propensity-free ideal sum of 1 / log2(r + 1), r <= min(k, |R_u|): the
  Extreme Classification Repository's PSnDCG, which can pass 1).

Users without a relevant item (or whose relevant items all weigh 0, for
``ips_ndcg``) are undefined (nan) and left out of the mean, as RecPack leaves
them out; a user with relevant items and no list counts 0; relevance is binary (grade >= the protocol's rel).
Jain et al.'s own propensity model (1 + C e^{-A log(n + B)})^{-1} is not one
of the choices.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Mapping

import numpy as np

from ..errors import InputError, literal
from ..protocol import Protocol
from .beyond import ListValues
from .ranked import check_cutoff, item_sets, ranked_top
from .side_params import one_of, positive

__all__ = ["inverse_propensities", "ips_hit_rate", "ips_ndcg"]

DEFAULT_CAP = 10000.0


def _counts(popularity: Any) -> dict[str, float]:
    if isinstance(popularity, Mapping):
        return {str(i): float(n) for i, n in popularity.items()}
    counts: dict[str, float] = {}
    for i in popularity:
        counts[str(i)] = counts.get(str(i), 0.0) + 1.0
    return counts


def inverse_propensities(popularity: Any, *, exponent: float = 1.0,
                         cap: "float | None" = DEFAULT_CAP,
                         unseen: Literal["zero",
                                         "cap"] = "zero") -> "tuple[dict[str, float], float]":
    """``({item: w_i}, weight of an unseen item)`` from the popularity (mapping item -> n_i, or one
    item id per interaction); see the module for the formula.

    >>> inverse_propensities({"a": 3, "b": 1})
    ({'a': 1.3333333333333333, 'b': 4.0}, 0.0)
    >>> inverse_propensities({"a": 3, "b": 1}, exponent=2, cap=10)
    ({'a': 1.7777777777777777, 'b': 10.0}, 0.0)
    """
    if isinstance(exponent, bool) or not isinstance(exponent, (int, float)) or not exponent > 0 \
            or math.isinf(exponent):
        raise InputError(what=f"exponent must be a number > 0; got {literal(repr(exponent))}",
                         value=exponent)
    if (cap is not None
        and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or not cap > 0)):
        raise InputError(what=f"cap must be a number > 0, or None; got {literal(repr(cap))}",
                         value=cap)
    one_of("unseen", unseen, ("zero", "cap"))
    if unseen == "cap" and cap is None:
        raise InputError(what="unseen=cap gives an unseen item the cap's weight, and no cap is set",
                         fix="set cap, or unseen=zero")
    counts = _counts(popularity)
    total = sum(counts.values())
    if total <= 0:
        raise InputError(what="the popularity source has no interaction",
                         fix="give the training interactions")
    weights = {}
    for i, n in counts.items():
        w = (total / n) ** exponent if n > 0 else math.inf
        weights[i] = min(w, float(cap)) if cap is not None else w
        if n <= 0:
            weights[i] = float(cap) if unseen == "cap" and cap is not None else 0.0
    return weights, (float(cap) if unseen == "cap" and cap is not None else 0.0)


def _weighted(predictions, k, relevant, popularity, exponent, cap, unseen, protocol, columns):
    k = check_cutoff(k, "ips")
    weights, other = inverse_propensities(popularity, exponent=exponent, cap=cap, unseen=unseen)
    wanted = item_sets(relevant, "relevant")
    top = ranked_top(predictions, k, protocol, *columns)
    return k, weights, other, wanted, top


def _name(base: str, k: int, exponent: float, cap: "float | None", unseen: str,
          extra: str = "") -> str:
    return f"{base}({extra}cap={'none' if cap is None else f'{cap:g}'},exponent={exponent:g},unseen={unseen})@{k}"


def ips_hit_rate(predictions, k: int, *, relevant, popularity, exponent: float = 1.0,
                 cap: "float | None" = DEFAULT_CAP, unseen: Literal["zero", "cap"] = "zero",
                 protocol: Protocol | None = None, user="user", item="item",
                 score="score") -> ListValues:
    """RecPack's IPSHitRate@k: per user, the sum of w_i over the relevant items in the top k.

    Examples
    --------
    Popularity a 3, b 1 (N = 4): w_a = 4/3, w_b = 4. u's top 2 holds both and
    both are relevant: 16/3; v's top 2 holds a, relevant, and c, never seen.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "c"]})
    >>> ips_hit_rate(run, 2, relevant={"u": ["a", "b"], "v": ["a", "c"]}, popularity={"a": 3, "b": 1}).per_query()
    {'u': 5.333333333333333, 'v': 1.3333333333333333}
    """
    k, weights, other, wanted, top = _weighted(predictions, k, relevant, popularity, exponent, cap,
                                               unseen,
                                               protocol, (user, item, score))
    values = np.full(top.run.num_queries, np.nan)
    for u, name in enumerate(top.run.queries.astype(str).tolist()):
        if wanted.get(name):
            values[u] = 0.0
    for u, rows in top.by_user():
        good = wanted.get(str(top.run.queries[u]))
        if good:
            values[u] = float(sum(weights.get(i, other) for i in top.items[rows].tolist()
                                  if i in good))
    return ListValues(_name("ips_hit_rate", k, exponent, cap, unseen), top.run.queries, values,
                      top.sizes)


def ips_ndcg(predictions, k: int, *, relevant, popularity, exponent: float = 1.0,
             cap: "float | None" = DEFAULT_CAP, unseen: Literal["zero", "cap"] = "zero",
             normaliser: Literal["ideal_ips", "ideal"] = "ideal_ips",
             protocol: Protocol | None = None,
             user="user", item="item", score="score") -> ListValues:
    """Propensity-scored nDCG@k (see the module for the formula and both normalisers).

    Examples
    --------
    w_a = 4/3, w_b = 4 (as in :func:`ips_hit_rate`). u ranks a then b, both
    relevant: PSDCG = 4/3 + 4/log2(3); the best order puts b first.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b"]})
    >>> value = ips_ndcg(run, 2, relevant={"u": ["a", "b"]}, popularity={"a": 3, "b": 1}).per_query()["u"]
    >>> round(value, 12) == round((4 / 3 + 4 / math.log2(3)) / (4 + 4 / 3 / math.log2(3)), 12)
    True
    """
    one_of("normaliser", normaliser, ("ideal_ips", "ideal"))
    k, weights, other, wanted, top = _weighted(predictions, k, relevant, popularity, exponent, cap,
                                               unseen,
                                               protocol, (user, item, score))
    discount = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))

    def ideal(good: set) -> float:
        gains = sorted((weights.get(i, other) for i in good), reverse=True)[:k]
        if normaliser == "ideal_ips":
            return float(np.dot(gains, discount[:len(gains)]))
        return float(discount[:len(gains)].sum())

    best = {name: ideal(good) for name, good in wanted.items() if good}
    values = np.array([0.0 if best.get(name, 0.0) > 0 else np.nan
                       for name in top.run.queries.astype(str).tolist()], dtype=np.float64)
    for u, rows in top.by_user():
        name = str(top.run.queries[u])
        if np.isnan(values[u]):
            continue
        good = wanted[name]
        dcg = sum(weights.get(i, other) * discount[r - 1]
                  for i, r in zip(top.items[rows].tolist(), top.rank[rows].tolist()) if i in good)
        values[u] = float(dcg / best[name])
    return ListValues(_name("ips_ndcg", k, exponent, cap, unseen, f"normaliser={normaliser},"),
                      top.run.queries,
                      values, top.sizes)


# -- the registry (rankproof evaluate -m ips_hit_rate@10 --train train.csv): relevance from the
# qrels ------------


def _registered(run, k: int, side, params: dict, protocol: Protocol, ndcg: bool):
    train = side.needed("train")
    common = dict(relevant=side.relevant(protocol.rel), popularity=train.popularity_map(),
                  exponent=params["exponent"], cap=params["cap"], unseen=params["unseen"],
                  protocol=protocol)
    if ndcg:
        return ips_ndcg(run, k, normaliser=params["normaliser"], **common)
    return ips_hit_rate(run, k, **common)


def _cap(value: Any) -> "float | None":
    return None if str(value) == "none" or value is None else positive(value)


def _register() -> None:
    from .registry import LIST, SideParam, SideSpec, register_side
    from .side_params import choice

    params = (SideParam("exponent", positive, 1.0,
                        "exponent=1: p_i = (n_i / N) ** exponent (RecPack: 1)"),
              SideParam("cap", _cap, DEFAULT_CAP,
                        "cap=10000 clips 1 / p_i (RecPack's ip_cap); cap=none clips nothing"),
              SideParam("unseen", choice("zero", "cap"), "zero",
                        "unseen=zero (RecPack) or unseen=cap: the weight "
                        "of an item --train never saw"))
    reads = "--train (the items' popularity) and the judgments (QRELS)"
    register_side(
        SideSpec("ips_hit_rate", "IPS hit rate",
                 "RecPack's IPSHitRate: the sum of the inverse propensities "
                 "min(N / n_i, cap) of the relevant items in the top k, per user", LIST,
                 (("train",),),
                 lambda run, k, side, p, protocol: _registered(run, k, side, p, protocol, False),
                 params,
                 value_range=(0.0, math.inf), judgments=True, reads=reads),
        SideSpec("ips_ndcg", "IPS nDCG",
                 "propensity-scored nDCG (Jain et al. 2016): DCG with gains 1 / p_i of the "
                 "relevant items, over the ideal (normaliser=ideal_ips: the best reachable, in [0, 1]; ideal: "
                 "propensity-free)", LIST, (("train",),),
                 lambda run, k, side, p, protocol: _registered(run, k, side, p, protocol, True),
                 (*params, SideParam("normaliser", choice("ideal_ips", "ideal"), "ideal_ips",
                                     "normaliser=ideal_ips or normaliser=ideal")),
                 value_range=(0.0, math.inf), judgments=True, reads=reads))


_register()
