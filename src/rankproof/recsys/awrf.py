"""Attention-weighted rank fairness (AWRF; Sapiezynski, Zeng, Robertson, Mislove and Wilson, WWW 2019).

Each ranked item belongs to zero, one or several groups (its categories in
``--features``). A list's **attention-weighted group distribution** sums each
position's attention over the groups of the item there, normalised to 1:

.. math:: p_g = \\frac{\\sum_i a(i)\\,[g \\in G(d_i)]}{\\sum_h \\sum_i a(i)\\,[h \\in G(d_i)]}

with the attention :math:`a(i) = 1 / \\log_2 \\max(i, 2)` of 1-based rank i
(``attention=log``, TREC Fair Ranking 2021's discount) or :math:`\\gamma^{i-1}`
(``attention=geometric``, patience :math:`\\gamma`). AWRF compares it with a
target distribution :math:`q` by the Jensen-Shannon divergence:

.. math:: \\mathrm{AWRF} = 1 - \\mathrm{JSD}(p, q), \\quad
          \\mathrm{JSD}(p, q) = \\tfrac12 \\mathrm{KL}(p \\Vert m) + \\tfrac12 \\mathrm{KL}(q \\Vert m),
          \\; m = \\tfrac12 (p + q)

in bits (``base=2``: AWRF in [0, 1], 1 when the list's attention matches the
target); ``base=e`` gives nats, as TREC Fair Ranking 2021's script (scipy's
``jensenshannon`` squared). The target ``q`` (``target=``): ``relevant``, the
groups' shares among the query's relevant items (grade >= ``rel``; TREC's
per-query alignment), ``catalogue``, their shares among every item with a
group, or ``uniform``. Items without a group take no part; a list (or a
target) with no grouped item has no value (nan, left out of the mean). An item
in several groups counts fully in each (the distribution is normalised after).
Tied scores follow the protocol (:mod:`~rankproof.recsys.attention`).

Examples
--------
u ranks a (g1), b (g2), c (g1 and g2), d (no group); attention 1, 1, 1/log2 3, 1/2.
g1 and g2 get 1 + 0.6309 each: p = (1/2, 1/2); against a uniform target, AWRF = 1. v ranks a, c:
g1 gets 2, g2 1, p = (2/3, 1/3), m = (7/12, 5/12), JSD = (2/3 log2 8/7 + 1/3 log2 4/5 + 1/2 log2 6/7
+ 1/2 log2 6/5) / 2 = 0.0207.

>>> from rankproof import Run
>>> groups = {"a": ["g1"], "b": ["g2"], "c": ["g1", "g2"]}
>>> run = Run.from_dict({"u": ["a", "b", "c", "d"], "v": ["a", "c"]})
>>> result = awrf(run, groups_of=groups, target="uniform")
>>> [round(float(v), 4) for v in result.values]
[1.0, 0.9793]
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

import numpy as np

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, literal
from ..protocol import Protocol
from .attention import ranked_attention
from .beyond import ListValues
from .side_params import check_cutoff, one_of

__all__ = ["awrf", "jensen_shannon", "TARGETS", "ATTENTION"]

TARGETS = ("relevant", "catalogue", "uniform")
ATTENTION = ("log", "geometric")


def jensen_shannon(p: np.ndarray, q: np.ndarray, base: float = 2.0) -> np.ndarray:
    """The Jensen-Shannon divergence of each row of `p` from the same row of `q` (each normalised to 1).

    >>> float(jensen_shannon(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]))[0])
    1.0
    """
    p = p / p.sum(axis=-1, keepdims=True)
    q = q / q.sum(axis=-1, keepdims=True)
    m = (p + q) / 2

    def kl(a: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0) / np.where(a > 0, m, 1.0)),
                            0.0).sum(axis=-1)

    return (kl(p) + kl(q)) / 2 / math.log(base)


def _membership(groups_of: Mapping[Any, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(items, group index, group names): one row per (item, group), sorted by item."""
    if not isinstance(groups_of, Mapping):
        raise InputError(what="groups_of must map each item to its group or groups; got "
                         f"{literal(type(groups_of).__name__)}", value=type(groups_of).__name__)
    pairs = sorted({(str(item), str(g)) for item, found in groups_of.items()
                    for g in ([found] if isinstance(found, str) or not isinstance(found, Iterable)
                              else found)})
    names = np.array(sorted({g for _, g in pairs}), dtype=str)
    items = np.array([i for i, _ in pairs], dtype=str)
    group = np.searchsorted(names, np.array([g for _, g in pairs], dtype=str)).astype(np.int64)
    return items, group, names


def _group_mass(query: np.ndarray, docs: np.ndarray, weight: np.ndarray, member: tuple,
                n_queries: int):
    """(n_queries, n_groups) sums of `weight` over each row's groups."""
    items, group, names = member
    start, stop = np.searchsorted(items, docs, "left"), np.searchsorted(items, docs, "right")
    count = stop - start
    row = np.repeat(np.arange(len(docs)), count)
    offset = np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count)
    at = group[np.repeat(start, count) + offset] if len(row) else np.zeros(0, dtype=np.int64)
    flat = np.bincount(query[row] * len(names) + at, weight[row], n_queries * len(names))
    return flat.reshape(n_queries, len(names))


def _target(target: Any, queries: np.ndarray, member: tuple, qrels: "Qrels | None",
            rel: float) -> np.ndarray:
    items, group, names = member
    if isinstance(target, Mapping):
        row = np.array([float(target.get(str(g), 0.0)) for g in names.tolist()])
        return np.broadcast_to(row, (len(queries), len(names)))
    if target == "uniform":
        return np.ones((len(queries), len(names)))
    if target == "catalogue":
        return np.broadcast_to(np.bincount(group, minlength=len(names)).astype(np.float64),
                               (len(queries), len(names)))
    if target != "relevant":
        raise InputError(what=f"target must be one of {', '.join(TARGETS)} or a mapping group -> share; got "
                         f"{literal(repr(target))}", value=target)
    if qrels is None:
        raise InputError(what="target=relevant reads the judgments",
                         fix="give qrels, or target=uniform")
    keep = np.asarray(qrels.grades) >= rel
    q_of = np.repeat(np.arange(len(qrels.queries)), np.diff(qrels.offsets))[keep]
    if len(queries) == 0:
        return np.zeros((0, len(names)))
    at = np.searchsorted(queries, qrels.queries[q_of])
    found = (at < len(queries)) & (queries[np.minimum(at, len(queries) - 1)] == qrels.queries[q_of])
    docs = qrels.docs[qrels.doc_codes[keep]][found]
    return _group_mass(at[found], docs, np.ones(len(docs)), member, len(queries))


def awrf(predictions: Run, k: "int | None" = None, *, groups_of: Mapping[Any, Any],
         target: Any = "relevant",
         qrels: "Qrels | Mapping | None" = None, attention: str = "log", patience: float = 0.5,
         base: float = 2.0, protocol: "Protocol | None" = None) -> ListValues:
    """AWRF of each list of `predictions` (see the module's docstring); `k` cuts each list (None: whole)."""
    protocol = protocol if protocol is not None else Protocol()
    one_of("attention", attention, ATTENTION)
    if not 0 < patience < 1 or not base > 1:
        raise InputError(what=f"patience must be in (0, 1) and base > 1; got {patience!r}, {base!r}",
                         value=(patience, base))
    k = None if k is None else check_cutoff(k, "awrf")
    if qrels is not None and not isinstance(qrels, Qrels):
        qrels = Qrels.from_dict(qrels)
    member = _membership(groups_of)

    def weight_of(rank: np.ndarray) -> np.ndarray:
        return (1.0 / np.log2(np.maximum(rank + 1.0, 2.0)) if attention == "log" else patience
                ** rank)

    query, doc, weight = ranked_attention(predictions, weight_of, protocol,
                                          math.inf if k is None else k)
    p = _group_mass(query, predictions.docs[doc], weight, member, predictions.num_queries)
    q = _target(target, predictions.queries, member, qrels, protocol.rel)
    defined = (p.sum(axis=1) > 0) & (q.sum(axis=1) > 0)
    values = np.full(predictions.num_queries, np.nan)
    if defined.any():
        values[defined] = 1.0 - jensen_shannon(p[defined], q[defined], base)
    lengths = np.diff(predictions.offsets)
    name = (f"awrf(target={target if isinstance(target, str) else 'given'})"
            + (f"@{k}" if k is not None else ""))
    return ListValues(name, predictions.queries, values,
                      np.minimum(lengths, k) if k is not None else lengths)


# -- the registry (rankproof evaluate QRELS RUN -m "awrf(target=relevant)@10" --features items.csv)


def _registered(run: Run, k, side, params: dict, protocol: Protocol) -> ListValues:
    from ..errors import MeasureError

    features = side.needed("features")
    if features.categories is None:
        raise MeasureError(what="awrf needs the items' groups: a category column in --features",
                           fix="give --features with a category column (an item may have several)")
    trec = params["preset"] == "trec2021"
    result = awrf(run, k, groups_of=features.categories, target=params["target"],
                  qrels=side.judgments,
                  attention="log" if trec else params["attention"], patience=params["patience"],
                  base=math.e if trec or params["base"] == "e" else 2.0, protocol=protocol)
    return result


def _register() -> None:
    from .registry import LIST, SideParam, SideSpec, register_side
    from .side_params import choice, open_unit

    register_side(SideSpec(
        "awrf", "AWRF",
        "attention-weighted rank fairness: 1 - the Jensen-Shannon divergence of the list's "
        "attention-weighted group distribution (groups: the categories of --features) from a target "
        "(Sapiezynski et al., WWW 2019; TREC Fair Ranking 2021/22)", LIST, (("features",),),
        _registered,
        (SideParam("target", choice(*TARGETS), "relevant",
                   "target=relevant (the groups' shares among the "
                   "query's relevant items), catalogue (among every item with a group) or uniform"),
         SideParam("attention", choice(*ATTENTION), "log",
                   "attention=log (1/log2 max(rank, 2)) or geometric "
                   "(patience^(rank-1))"),
         SideParam("patience", open_unit, 0.5, "patience=0.5: the gamma of attention=geometric"),
         SideParam("base", choice("2", "e"), "2", "base=2 (bits: AWRF in [0, 1]) or base=e (nats)"),
         SideParam("preset", choice("trec2021"), None,
                   "preset=trec2021: attention=log, base=e, as TREC Fair "
                   "Ranking 2021's script")),
        needs_cutoff=False, judgments=True,
        reads="--features (a category column) and the judgments (QRELS)"))


_register()
