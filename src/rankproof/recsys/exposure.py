"""Exposure of item groups in the top k under a position-weighted exposure model.

The exposure model is a policy, named in the result:

=============  ====================================  ===================================================
``model``      exposure of rank r (1-based)          reference
=============  ====================================  ===================================================
``uniform``    1                                     every slot alike (a share of the slots)
``log``        1 / log2(r + 1)                       the DCG discount (Singh and Joachims, KDD 2018)
``geometric``  (1 - p) p^(r - 1), ``persistence`` p  the user model of RBP (Moffat and Zobel, TOIS 2008)
=============  ====================================  ===================================================

:func:`group_exposure` sums the exposure each item group gets over all lists,
and gives each group's share of the total and its mean exposure per item of
the group (Singh and Joachims' demographic parity compares these).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np

from ..errors import InputError, literal
from .topk import top_rows
from ..protocol import Protocol
from ..typing import Exposure
from .coverage import as_run
from .measure_value import MeasureValue
from .side_params import check_cutoff, in_open_unit, one_of

__all__ = ["GroupExposure", "group_exposure", "position_exposure"]

_MODELS = ("uniform", "log", "geometric")


@dataclasses.dataclass(frozen=True)
class GroupExposure(MeasureValue):
    """Exposure per item group over a run (its ``measure`` e.g. ``exposure(model=log)@10``).

    Attributes
    ----------
    groups : tuple of str
        The groups, sorted (items without a group are in ``""`` when any is shown).
    exposure : dict of str to float
        Total exposure of each group over all lists.
    share : dict of str to float
        Each group's share of the total exposure.
    per_item : dict of str to float
        Each group's exposure over its items in ``groups_of`` (a mean per item, shown or not).
    """

    groups: tuple[str, ...]
    exposure: dict[str, float]
    share: dict[str, float]
    per_item: dict[str, float]


def position_exposure(rank: np.ndarray, model: Exposure = "log",
                      persistence: float = 0.8) -> np.ndarray:
    """Exposure of each 1-based rank under ``model`` (see the module's table).

    >>> position_exposure(np.array([1, 2, 3]), "geometric", 0.5).tolist()
    [0.5, 0.25, 0.125]
    """
    rank = np.asarray(rank, dtype=np.float64)
    if one_of("model", model, _MODELS) == "uniform":
        return np.ones_like(rank)
    if model == "log":
        return 1.0 / np.log2(rank + 1.0)
    persistence = in_open_unit("persistence", persistence, example=0.8)
    return (1.0 - persistence) * persistence ** (rank - 1.0)


def group_exposure(predictions, k: int, *, groups_of: Mapping[Any, Any], model: Exposure = "log",
                   persistence: float = 0.8, protocol: Protocol | None = None, user="user",
                   item="item",
                   score="score") -> GroupExposure:
    """Total, share and per-item exposure of each item group in the top k.

    .. math:: E(g) = \\sum_u \\sum_{i \\in \\mathrm{top}_k(u),\\, i \\in g} e(\\mathrm{rank}_u(i)),
              \\quad \\mathrm{share}(g) = E(g) / \\sum_h E(h), \\quad \\bar E(g) = E(g) / |g|

    Examples
    --------
    u: a, b; v: b, c. Groups: a, b "pop", c "niche". Log model: rank 1 -> 1,
    rank 2 -> 1/log2(3) = 0.6309. pop: 1 + 0.6309 + 1; niche: 0.6309.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b"], "v": ["b", "c"]})
    >>> result = group_exposure(run, 2, groups_of={"a": "pop", "b": "pop", "c": "niche"})
    >>> {g: round(e, 4) for g, e in result.exposure.items()}
    {'niche': 0.6309, 'pop': 2.6309}
    >>> round(result.share["niche"], 4), round(result.per_item["pop"], 4)
    (0.1934, 1.3155)
    """
    k = check_cutoff(k, "group_exposure")
    if not isinstance(groups_of, Mapping):
        raise InputError(what="groups_of must map each item to its group; got "
                         f"{literal(type(groups_of).__name__)}", value=type(groups_of).__name__)
    run = as_run(predictions, user, item, score)
    rows = top_rows(run, int(k), protocol if protocol is not None else Protocol())
    query = np.searchsorted(run.offsets, rows, side="right") - 1
    starts = (np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(rows)
              else np.zeros(0, dtype=np.int64))
    rank = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)])) + 1
    weights = position_exposure(rank, model, persistence)
    labels = {str(i): str(g) for i, g in groups_of.items()}
    exposure: dict[str, float] = {g: 0.0 for g in labels.values()}
    for doc, w in zip(run.docs[run.doc_codes[rows]].tolist(), weights.tolist()):
        g = labels.get(str(doc), "")
        exposure[g] = exposure.get(g, 0.0) + w
    total = sum(exposure.values())
    sizes: dict[str, int] = {}
    for g in labels.values():
        sizes[g] = sizes.get(g, 0) + 1
    names = tuple(sorted(exposure))
    share = {g: (exposure[g] / total if total > 0 else float("nan")) for g in names}
    per_item = {g: exposure[g] / sizes[g] for g in names if sizes.get(g)}
    name = (f"exposure(model={model}"
            + (f",persistence={persistence:g}" if model == "geometric" else "") + f")@{k}")
    return GroupExposure(name, names, {g: exposure[g] for g in names}, share, per_item)


# -- the registry (rankproof evaluate -m "exposure(groups=popularity)@10" --train ...) -------------


def exposure_parity(result: GroupExposure) -> float:
    """std / mean over the groups of their exposure per item (population std; 0: every group's items
    equally exposed, Singh and Joachims' demographic parity). Items in no group ("") are left out.

    >>> exposure_parity(GroupExposure("e", ("a", "b"), {}, {}, {"a": 3.0, "b": 1.0}))
    0.5
    """
    per_item = np.array([v for g, v in result.per_item.items() if g != ""], dtype=np.float64)
    if per_item.size < 2 or per_item.mean() <= 0:
        return float("nan")
    return float(per_item.std() / per_item.mean())


def _item_groups(side, groups: str, ratio: float, k: int) -> dict[str, str]:
    """item -> group: Elliot's short head / long tail of --train (groups=popularity), or the item's one
    category of --features (groups=category)."""
    from ..errors import InputError
    from .popularity_bias import short_head

    if groups == "popularity":
        history = side.training_history(f"exposure(groups=popularity)@{k}")
        head, tail = short_head(history, ratio)
        return {**{i: "head" for i in head}, **{i: "tail" for i in tail}}
    features = side.features
    if features is None or features.categories is None:
        raise InputError(what=f"exposure(groups=category)@{k} needs the items' categories",
                           fix="give --features with a category column, or write exposure(groups=popularity)")
    several = next((item for item, found in features.categories.items() if len(found) != 1), None)
    if several is not None:
        raise InputError(what=f"exposure(groups=category)@{k} needs one category per item; item "
                           f"{literal(repr(str(several)[:40]))} has {len(features.categories[several])}",
                           fix="give one category per item, or write exposure(groups=popularity)")
    return {str(item): next(iter(found)) for item, found in features.categories.items()}


def _registered(run, k: int, side, params: dict, protocol: Protocol):
    from .registry import CatalogueValue

    result = group_exposure(run, k,
                            groups_of=_item_groups(side, params["groups"], params["ratio"], k),
                            model=params["model"], persistence=params["persistence"],
                            protocol=protocol)
    name = result.measure.replace("exposure(", f"exposure(groups={params['groups']},", 1)
    detail = [(f"share {g}", result.share[g]) for g in result.groups]
    detail += [(f"per_item {g}", v) for g, v in result.per_item.items()]
    return CatalogueValue(name, exposure_parity(result), tuple(detail))


def _register() -> None:
    from .registry import CATALOGUE, SideParam, SideSpec, register_side
    from .side_params import choice, open_unit

    register_side(SideSpec(
        "exposure", "Exposure parity",
        "std/mean over item groups of their top-k exposure per item (0: parity); "
        "groups=popularity: Elliot's short head and long tail of --train; groups=category: --features, one "
        "category per item", CATALOGUE, (), _registered,
        (SideParam("groups", choice("popularity", "category"), "popularity",
                   "groups=popularity or category"),
         SideParam("model", choice(*_MODELS), "log",
                   "model=log (1/log2(rank+1)), uniform or geometric"),
         SideParam("persistence", open_unit, 0.8, "persistence=0.8: the p of model=geometric"),
         SideParam("ratio", open_unit, 0.8,
                   "ratio=0.8: the short head's share of training interactions")),
        value_range=(0.0, float(np.inf)), higher_is_better=False,
        reads="--train (groups=popularity) or --features (groups=category)",
        optional=("train", "features")))


_register()
