"""Expected percentile ranking (Hu, Koren and Volinsky, "Collaborative filtering for implicit feedback
datasets", ICDM 2008, section 6): where in each user's ranking of the whole catalogue the items the user
went on to consume fall, 0 % being the top; lower is better, a random ranking gives about 50 %.

.. math::

    \\overline{\\mathrm{rank}} = \\frac{\\sum_{u,i} r_{ui}\\, \\mathrm{rank}_{ui}}{\\sum_{u,i} r_{ui}}, \\qquad
    \\mathrm{rank}_{ui} =
    \\begin{cases}
        \\dfrac{p_{ui} - 1}{|I|} & i \\text{ at position } p_{ui} \\text{ of } u\\text{'s list} \\\\[1ex]
        \\dfrac{\\max(n_u, 1) - 1 + |I|}{2|I|} & i \\text{ not in the list}
    \\end{cases}

with r_ui the weight of (u, i) in the judgments, n_u the length of u's list
(after the cutoff, when one is given) and |I| the item universe. An item the
list does not rank gets the mean of the positions left (the expected value when
the rest is ordered at random), as RecPack does. The value is in percent.

The policies, stated:

- the item universe |I|: the catalogue (``--items``, else the training items),
  with every item the run ranks or the judgments hold added (RecPack's
  ``num_items`` is its matrix's width: every item id of the data set);
- ``weights``: ``binary`` (r = 1 for each relevant item: RecPack, which
  assumes a binary y_true) or ``grade`` (r = the grade: Hu et al.'s r^t, the
  test week's watching time);
- ``average``: ``pooled`` over every relevant (user, item), as Hu et al. and
  RecPack, or ``users``: each user's value, then their mean (each user
  counts once);
- ``scale``: ``percent`` (Hu et al., RecPack) or ``fraction`` (in [0, 1]);
- users: those with a relevant item; one the run has no list for counts 50 %
  per relevant item (RecPack's row of zeros).

Presets: ``recpack`` (RecPack 0.3's ``PercentileRanking``: binary, pooled,
percent) and ``hu`` (grade weights, pooled, percent). BigQuery ML's
``average_rank`` for implicit matrix factorisation is documented only as "the
percentile rank from the predicted confidence" and its code is not public, so
no preset claims it; ``scale=fraction`` gives the fraction, should it be one.

RecPack ranks only the items with a nonzero score; here every row of the run is
ranked (give the lists without the items you want left unranked).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Mapping

import numpy as np

from ..errors import InputError, literal
from ..protocol import Protocol
from .beyond import ListValues
from .catalogue_value import CatalogueResult, CatalogueValue
from .ranked import check_cutoff, ranked_top
from .side_params import one_of

__all__ = ["PercentileRank", "percentile_rank", "PERCENTILE_PRESETS"]

PERCENTILE_PRESETS: dict[str, dict[str, str]] = {
    "recpack": {"weights": "binary", "average": "pooled", "scale": "percent"},
    "hu": {"weights": "grade", "average": "pooled", "scale": "percent"},
}
_DEFAULTS = {"weights": "binary", "average": "pooled", "scale": "percent"}
_CHOICES = {"weights": ("binary", "grade"), "average": ("pooled", "users"),
            "scale": ("percent", "fraction")}


@dataclasses.dataclass(frozen=True)
class PercentileRank(CatalogueResult):
    """Expected percentile ranking (its ``measure`` with its policies, e.g.
    ``percentile_rank(average=pooled,scale=percent,weights=binary)``).

    Attributes
    ----------
    value : float
        Lower is better; nan when no user has a relevant item.
    per_user : ListValues
        Each user's own weighted mean (nan for a user without relevant items).
    users, relevant, universe : int
        Users with a relevant item, relevant (user, item) pairs, and |I|.
    """

    DETAIL = ("users", "relevant", "universe")

    per_user: ListValues
    users: int
    relevant: int
    universe: int


def _graded(relevant: Any) -> dict[str, dict[str, float]]:
    """user -> {item: weight > 0} from Qrels, user -> {item: grade}, or user -> items (weight 1)."""
    if hasattr(relevant, "to_dict") and hasattr(relevant, "grades"):
        relevant = relevant.to_dict()
    if not isinstance(relevant, Mapping):
        raise InputError(what="relevant must map each user to its relevant items (user -> items, user -> "
                         f"{{item: grade}}, or Qrels); got {literal(type(relevant).__name__)}",
                         fix="give relevant=dict(u1=['i3'])", value=type(relevant).__name__)
    out: dict[str, dict[str, float]] = {}
    for user, items in relevant.items():
        if isinstance(items, Mapping):
            chosen = {str(i): float(g) for i, g in items.items() if g is not None and g > 0}
        else:
            chosen = {str(i): 1.0 for i in ([items] if isinstance(items, str) else items)}
        if chosen:
            out[str(user)] = chosen
    return out


def _policies(preset: "str | None", given: dict[str, "str | None"]) -> dict[str, str]:
    chosen = dict(_DEFAULTS)
    if preset is not None:
        if preset not in PERCENTILE_PRESETS:
            raise InputError(what=f"unknown percentile_rank preset {literal(repr(preset))}",
                             fix=f"use one of {', '.join(PERCENTILE_PRESETS)}", value=preset)
        chosen.update(PERCENTILE_PRESETS[preset])
    for name, value in given.items():
        if value is None:
            continue
        one_of(name, value, _CHOICES[name])
        if preset is not None and value != chosen[name]:
            raise InputError(what=f"preset={preset} sets {name}={chosen[name]}; got {name}={value}",
                             fix=f"drop {name}= or the preset", value=value)
        chosen[name] = value
    return chosen


def percentile_rank(predictions, relevant, *, catalogue=(), k: "int | None" = None,
                    weights: Literal["binary", "grade"] | None = None,
                    average: Literal["pooled", "users"] | None = None,
                    scale: Literal["percent", "fraction"] | None = None,
                    preset: "str | None" = None,
                    protocol: Protocol | None = None, user="user", item="item",
                    score="score") -> PercentileRank:
    """Expected percentile ranking of the relevant items (see the module for the formula and policies).

    Parameters
    ----------
    relevant : Qrels, mapping user -> items, or user -> {item: grade}
        Grades <= 0 are not relevant.
    catalogue : iterable of item ids
        The catalogue; the run's and the judgments' items are added to it.
    k : int, optional
        Rank only each list's top k (default: the whole list).

    Examples
    --------
    Five items. u ranks a, b, c and consumed b (position 2: 1/5) and e (not
    ranked: (3 - 1 + 5) / 10 = 0.7); v consumed a and has no list (0.5).

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b", "c"]})
    >>> result = percentile_rank(run, {"u": ["b", "e"], "v": ["a"]}, catalogue="abcde")
    >>> round(result.value, 10), result.users, result.relevant, result.universe
    (46.6666666667, 2, 3, 5)
    >>> round(percentile_rank(run, {"u": ["b", "e"], "v": ["a"]}, catalogue="abcde", average="users").value, 10)
    47.5
    """
    k = None if k is None else check_cutoff(k, "percentile_rank")
    policy = _policies(preset, {"weights": weights, "average": average, "scale": scale})
    wanted = _graded(relevant)
    top = ranked_top(predictions, k, protocol, user, item, score)
    universe = _universe(map(str, catalogue), np.unique(top.items).tolist(), wanted)
    users = top.run.queries.astype(str)
    sums = _user_sums(top, wanted, policy["weights"] == "grade")
    value, per_user = _value(users, sums, wanted, universe, policy)
    measure = _measure_text(policy, k)
    return PercentileRank(measure, value, ListValues(measure, top.run.queries, per_user, top.sizes),
                          len(wanted), sum(len(v) for v in wanted.values()), universe)


def _universe(catalogue, ranked, wanted: dict[str, dict[str, float]]) -> int:
    """|I|: the catalogue's items, the items the run ranks and the items the judgments hold."""
    return len(set(catalogue) | set(ranked) | {i for items in wanted.values() for i in items})


def _measure_text(policy: dict[str, str], k: "int | None") -> str:
    names = ",".join(f"{key}={policy[key]}" for key in sorted(policy))
    return f"percentile_rank({names})" + (f"@{k}" if k is not None else "")


def _user_sums(top, wanted: dict[str, dict[str, float]], by_grade: bool) -> np.ndarray:
    """Per user of the run (``top.run.queries`` order): (A, B, W) with the user's mean rank
    (A / |I| + B) / W, so that |I| can be applied once every user's sums are known.

    A ranked relevant item at position p adds w (p - 1) to A; one not ranked adds w (max(n, 1) - 1) / 2 to A
    and w / 2 to B (its rank, the mean of the positions left, is (max(n, 1) - 1 + |I|) / (2 |I|)); W adds w.
    A user without relevant items has W = 0.
    """
    sums = np.zeros((3, top.run.num_queries))
    rows = dict(top.by_user())
    for u, name in enumerate(top.run.queries.astype(str).tolist()):
        items = wanted.get(name)
        if not items:
            continue
        ranked = rows.get(u)
        ranks = (dict(zip(top.items[ranked].tolist(), top.rank[ranked].tolist()))
                 if ranked is not None else {})
        sums[:, u] = _sums(ranks, items, by_grade)
    return sums


def _sums(ranks: dict[str, int], items: dict[str, float], by_grade: bool) -> tuple[float, float,
                                                                                   float]:
    """(A, B, W) of one user (see :func:`_user_sums`)."""
    missed = (max(len(ranks), 1) - 1) / 2
    a = b = w_sum = 0.0
    for i, grade in items.items():
        w = grade if by_grade else 1.0
        if i in ranks:
            a += w * (ranks[i] - 1)
        else:
            a += w * missed
            b += w / 2
        w_sum += w
    return a, b, w_sum


def _value(users: np.ndarray, sums: np.ndarray, wanted: dict[str, dict[str, float]], universe: int,
           policy: dict[str, str]) -> tuple[float, np.ndarray]:
    """The measure and each listed user's own value, from the users' sums (`users` sorted, `sums` in their
    order); a user of the judgments with no list counts (0, W/2, W), the mean of every position."""
    by_grade = policy["weights"] == "grade"
    listed = set(users.tolist())
    absent = sorted(set(wanted) - listed)
    names = np.array([*users.tolist(), *absent], dtype=str)
    every = np.hstack([sums,
                       np.array([_sums({}, wanted[n], by_grade) for n in absent]).reshape(-1, 3).T])
    # every user in one sorted order, on one machine or in parts
    order = np.argsort(names, kind="stable")
    a, b, w = every[:, order]
    factor = 100.0 if policy["scale"] == "percent" else 1.0
    mean_rank = a / universe + b
    has = w > 0
    if not has.any():
        value = float("nan")
    elif policy["average"] == "pooled":
        value = factor * float(mean_rank[has].sum()) / float(w[has].sum())
    else:
        value = factor * float(np.mean(mean_rank[has] / w[has]))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(sums[2] > 0, factor * (sums[0] / universe + sums[1]) / sums[2], np.nan)
    return value, per_user


# -- the registry (rankproof evaluate -m percentile_rank --items items.csv): the judgments from the
# qrels ---------


def _judged(side, protocol: Protocol) -> dict[str, dict[str, float]]:
    """user -> {item: grade} of the evaluation's judgments with grade >= the protocol's rel."""
    qrels = side.judgments
    if qrels is None or not hasattr(qrels, "grades"):
        side.relevant(protocol.rel)   # refuses in one line
    return _graded({u: {i: g for i, g in items.items() if g >= protocol.rel}
                    for u, items in qrels.to_dict().items()})


def _catalogue_items(side) -> list[str]:
    catalogue = side.catalogue()
    return [] if catalogue is None else catalogue.astype(str).tolist()


def _policy(params: dict) -> dict[str, str]:
    return _policies(params["preset"],
                     {key: params[key] for key in ("weights", "average", "scale")})


def _registered(run, k, side, params: dict, protocol: Protocol):
    result = percentile_rank(run, _judged(side, protocol), catalogue=_catalogue_items(side), k=k,
                             weights=params["weights"], average=params["average"],
                             scale=params["scale"],
                             preset=params["preset"], protocol=protocol)
    return result.catalogue_value()


def _part(run, k, side, params: dict, protocol: Protocol) -> dict[str, np.ndarray]:
    """One part of the users: their (A, B, W) sums (see :func:`_user_sums`)."""
    top = ranked_top(run, k, protocol)
    a, b, w = _user_sums(top, _judged(side, protocol), _policy(params)["weights"] == "grade")
    return {"a": a, "b": b, "w": w}


def _whole(users, columns: dict, items, k, side, params: dict, protocol: Protocol):
    """The value from every user's sums and the run's distinct items, as :func:`percentile_rank` takes it."""
    policy, wanted = _policy(params), _judged(side, protocol)
    universe = _universe(_catalogue_items(side), items.tolist(), wanted)
    value, _ = _value(users, np.vstack([columns["a"], columns["b"], columns["w"]]), wanted,
                      universe, policy)
    counts = (len(wanted), sum(len(v) for v in wanted.values()), universe)
    return CatalogueValue(_measure_text(policy, k), value,
                          tuple(zip(PercentileRank.DETAIL, counts)))


def _register() -> None:
    from .registry import CATALOGUE, PerUser, SideParam, SideSpec, choice, register_side

    register_side(SideSpec(
        "percentile_rank", "Percentile rank",
        "expected percentile ranking (Hu, Koren and Volinsky 2008): where in "
        "each user's ranking of the catalogue the relevant items fall (0: top; a random ranking about 50 %)",
        CATALOGUE, (("items", "train"),), _registered,
        (SideParam("weights", choice(*_CHOICES["weights"]), None,
                   "weights=binary or weights=grade"),
         SideParam("average", choice(*_CHOICES["average"]), None,
                   "average=pooled or average=users"),
         SideParam("scale", choice(*_CHOICES["scale"]), None, "scale=percent or scale=fraction"),
         SideParam("preset", choice(*PERCENTILE_PRESETS), None, "preset=recpack or preset=hu")),
        needs_cutoff=False, value_range=(0.0, 100.0), higher_is_better=False, judgments=True,
        per_user=PerUser(_part, _whole, items=True),
        reads="--items or --train (the catalogue) and the judgments (QRELS)"))


_register()
