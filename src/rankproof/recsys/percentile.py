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
from .ranked import check_cutoff, ranked_top

__all__ = ["PercentileRank", "percentile_rank", "PERCENTILE_PRESETS"]

PERCENTILE_PRESETS: dict[str, dict[str, str]] = {
    "recpack": {"weights": "binary", "average": "pooled", "scale": "percent"},
    "hu": {"weights": "grade", "average": "pooled", "scale": "percent"},
}
_DEFAULTS = {"weights": "binary", "average": "pooled", "scale": "percent"}
_CHOICES = {"weights": ("binary", "grade"), "average": ("pooled", "users"), "scale": ("percent", "fraction")}


@dataclasses.dataclass(frozen=True)
class PercentileRank:
    """Expected percentile ranking.

    Attributes
    ----------
    measure : str
        Its text with its policies, e.g. ``percentile_rank(average=pooled,scale=percent,weights=binary)``.
    value : float
        Lower is better; nan when no user has a relevant item.
    per_user : ListValues
        Each user's own weighted mean (nan for a user without relevant items).
    users, relevant, universe : int
        Users with a relevant item, relevant (user, item) pairs, and |I|.
    """

    measure: str
    value: float
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
        if value not in _CHOICES[name]:
            raise InputError(what=f"{name} must be one of {', '.join(_CHOICES[name])}; got {literal(repr(value))}",
                             value=value)
        if preset is not None and value != chosen[name]:
            raise InputError(what=f"preset={preset} sets {name}={chosen[name]}; got {name}={value}",
                             fix=f"drop {name}= or the preset", value=value)
        chosen[name] = value
    return chosen


def percentile_rank(predictions, relevant, *, catalogue=(), k: "int | None" = None,
                    weights: "Literal['binary', 'grade'] | None" = None,
                    average: "Literal['pooled', 'users'] | None" = None,
                    scale: "Literal['percent', 'fraction'] | None" = None, preset: "str | None" = None,
                    protocol: Protocol | None = None, user="user", item="item", score="score") -> PercentileRank:
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
    universe = len(set(map(str, catalogue)) | set(np.unique(top.items).tolist())
                   | {i for items in wanted.values() for i in items})
    position: dict[str, dict[str, int]] = {}
    for u, rows in top.by_user():
        position[str(top.run.queries[u])] = dict(zip(top.items[rows].tolist(), top.rank[rows].tolist()))
    sums: dict[str, tuple[float, float]] = {}
    for name, items in wanted.items():
        ranks = position.get(name, {})
        miss = (max(len(ranks), 1) - 1 + universe) / (2 * universe)
        total = weight = 0.0
        for i, grade in items.items():
            w = grade if policy["weights"] == "grade" else 1.0
            total += w * ((ranks[i] - 1) / universe if i in ranks else miss)
            weight += w
        sums[name] = (total, weight)
    factor = 100.0 if policy["scale"] == "percent" else 1.0
    if not sums:
        value = float("nan")
    elif policy["average"] == "pooled":
        value = factor * sum(t for t, _ in sums.values()) / sum(w for _, w in sums.values())
    else:
        value = factor * float(np.mean([t / w for t, w in sums.values()]))
    names = ",".join(f"{key}={policy[key]}" for key in sorted(policy))
    measure = f"percentile_rank({names})" + (f"@{k}" if k is not None else "")
    per_user = ListValues(measure, top.run.queries,
                          np.array([factor * sums[q][0] / sums[q][1] if q in sums else np.nan
                                    for q in top.run.queries.astype(str).tolist()], dtype=np.float64),
                          top.sizes)
    return PercentileRank(measure, value, per_user, len(sums), sum(len(v) for v in wanted.values()), universe)


# -- the registry (rankproof evaluate -m percentile_rank --items items.csv): the judgments from the qrels ---------


def _registered(run, k, side, params: dict, protocol: Protocol):
    from .registry import CatalogueValue

    qrels = side.judgments
    if qrels is None or not hasattr(qrels, "grades"):
        side.relevant(protocol.rel)   # refuses in one line
    graded = {u: {i: g for i, g in items.items() if g >= protocol.rel} for u, items in qrels.to_dict().items()}
    catalogue = side.catalogue()
    result = percentile_rank(run, graded, catalogue=() if catalogue is None else catalogue.astype(str).tolist(),
                             k=k, weights=params["weights"], average=params["average"], scale=params["scale"],
                             preset=params["preset"], protocol=protocol)
    return CatalogueValue(result.measure, result.value, (("users", result.users), ("relevant", result.relevant),
                                                         ("universe", result.universe)))


def _register() -> None:
    from .registry import CATALOGUE, SIDE_REGISTRY, SideParam, SideSpec, choice, register_side

    if "percentile_rank" in SIDE_REGISTRY:
        return
    register_side(SideSpec(
        "percentile_rank", "Percentile rank", "expected percentile ranking (Hu, Koren and Volinsky 2008): where in "
        "each user's ranking of the catalogue the relevant items fall (0: top; a random ranking about 50 %)",
        CATALOGUE, (("items", "train"),), _registered,
        (SideParam("weights", choice(*_CHOICES["weights"]), None, "weights=binary or weights=grade"),
         SideParam("average", choice(*_CHOICES["average"]), None, "average=pooled or average=users"),
         SideParam("scale", choice(*_CHOICES["scale"]), None, "scale=percent or scale=fraction"),
         SideParam("preset", choice(*PERCENTILE_PRESETS), None, "preset=recpack or preset=hu")),
        needs_cutoff=False, value_range=(0.0, 100.0), higher_is_better=False, judgments=True,
        reads="--items or --train (the catalogue) and the judgments (QRELS)"))


_register()
