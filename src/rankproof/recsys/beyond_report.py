"""What the report's "beyond accuracy" section shows, computed here (renderers never compute).

:func:`beyond_data` evaluates, for every run, the side-data measures asked for
and the curves the side data allows:

- coverage against the cutoff (with a catalogue: ``--items``, else the
  training log's items): the share of the catalogue in some top-k list, k = 1 .. K;
- popularity against the rank (with ``--train``): the mean popularity
  percentile (0: the least interacted-with item of the training log, 100:
  the most; an item never trained on counts 0) of the items at each rank;
- exposure by item category (with ``--features`` categories): each
  category's share of the exposure of the top K, exposure 1 / log2(rank + 1)
  split evenly among an item's categories;
- per user group (with ``--groups``): each per-list measure's mean within
  each group (a user of the run without a group goes to ``(none)``), and
  each accuracy measure's with :func:`accuracy_by_group`; and each measure's
  disparity across the groups (the highest group mean minus the lowest) with
  its 95% interval (:func:`rankproof.stats.group_disparity`, by :func:`disparity_entry`).

K is the largest cutoff of the side-data measures (10 without one), at most 100.
Ranks within the top K follow the protocol's rank order (its ``ties`` policy;
``expected`` and ``error`` refuse a tie across K only).

Examples
--------
>>> import numpy as np
>>> from rankproof import Run
>>> from rankproof.recsys.side import SideData
>>> run = Run.from_dict({"u": ["a", "b"], "v": ["a", "c"]})
>>> data = beyond_data({"A": run}, [], SideData(items=np.array(list("abcd"))), k=2)
>>> data["coverage_curve"]["A"]   # top 1: a (1 of 4); top 2: a, b, c
[0.25, 0.75]
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..data.run import Run
from .topk import top_rows
from ..protocol import Protocol
from .registry import LIST, SideMeasure
from .side import Interactions, SideData
from .side_eval import side_values

__all__ = ["beyond_data", "accuracy_by_group", "disparity_entry", "NO_GROUP"]

NO_GROUP = "(none)"
_LARGEST = 100


def _ranked(run: Run, k: int, protocol: Protocol) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query code, 0-based rank, item id) of each row in the top k, in rank order."""
    rows = top_rows(run, k, protocol)
    query = np.searchsorted(run.offsets, rows, side="right") - 1
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if rows.size else np.zeros(0, dtype=np.int64)
    rank = np.arange(rows.size) - np.repeat(starts, np.diff(np.r_[starts, rows.size]))
    return query, rank, run.docs[run.doc_codes[rows]]


def _coverage_curve(rank: np.ndarray, items: np.ndarray, catalogue: np.ndarray, k: int) -> list[float]:
    inside = np.isin(items, catalogue)
    first: dict[str, int] = {}
    for item, r in zip(items[inside].tolist(), rank[inside].tolist()):
        if r < first.get(item, k):
            first[item] = r
    reached = np.bincount(np.fromiter(first.values(), dtype=np.int64, count=len(first)), minlength=k)[:k]
    return (np.cumsum(reached) / catalogue.size).tolist()


def _percentiles(side: SideData) -> dict[str, float]:
    """Each trained item's popularity percentile: 100 x (items less popular) / (items - 1)."""
    train: Interactions = side.needed("train")
    ids, counts = train.popularity()
    below = np.searchsorted(np.sort(counts), counts, side="left")
    scale = 100.0 / max(len(ids) - 1, 1)
    return dict(zip(ids.tolist(), (below * scale).tolist()))


def _popularity_curve(rank: np.ndarray, items: np.ndarray, percentile: Mapping[str, float], k: int) -> list:
    values = np.fromiter((percentile.get(i, 0.0) for i in items.tolist()), dtype=np.float64, count=items.size)
    total = np.bincount(rank, weights=values, minlength=k)[:k]
    shown = np.bincount(rank, minlength=k)[:k]
    return [float(t / n) if n else math.nan for t, n in zip(total.tolist(), shown.tolist())]


def _exposure(rank: np.ndarray, items: np.ndarray, categories: Mapping[str, frozenset], labels: list[str]) -> list:
    share = dict.fromkeys(labels, 0.0)
    weight = 1.0 / np.log2(rank + 2.0)
    for item, w in zip(items.tolist(), weight.tolist()):
        found = categories.get(item) or frozenset([NO_GROUP])
        for label in found:
            share[label] += w / len(found)
    total = sum(share.values()) or 1.0
    return [share[label] / total for label in labels]


def disparity_entry(values: Mapping[Any, float], groups: Mapping[str, str]) -> "dict[str, Any] | None":
    """The report's disparity of one measure: value, interval, method and the extreme groups (None: fewer
    than two groups with a value). Users without a group are in ``(none)``, as in the group means."""
    from ..errors import InputError
    from ..stats.group_disparity import group_disparity

    try:
        d = group_disparity({str(u): v for u, v in values.items()}, groups, unlabelled=NO_GROUP)
    except InputError:
        return None
    return {"value": d.disparity, "low": d.low, "high": d.high, "method": d.method, "highest": d.highest,
            "lowest": d.lowest}


def _disparities(values, side: SideData) -> dict[str, Any]:
    """Per list-measure: its disparity across the user groups (:func:`disparity_entry`)."""
    groups = side.needed("groups").as_dict()
    found = {}
    for v in values:
        if v.kind == LIST and v.queries is not None and v.values is not None:
            entry = disparity_entry(dict(zip(v.queries.tolist(), v.values.tolist())), groups)
            if entry is not None:
                found[v.measure] = entry
    return found


def _by_group(values, side: SideData) -> dict[str, Any]:
    """Per list-measure, per group: the mean of the users' values (nan left out)."""
    groups = side.needed("groups").as_dict()
    found: dict[str, dict[str, float]] = {}
    for v in values:
        if v.kind != LIST or v.queries is None or v.values is None:
            continue
        per: dict[str, list[float]] = {}
        for user, value in zip(v.queries.tolist(), v.values.tolist()):
            if value == value:
                per.setdefault(groups.get(user, NO_GROUP), []).append(value)
        found[v.measure] = {group: sum(vs) / len(vs) for group, vs in per.items()}
    return found


def accuracy_by_group(data: dict[str, Any], per_query: Mapping[str, Mapping[str, Mapping[str, float]]],
                      side: SideData) -> dict[str, Any]:
    """`data` (of :func:`beyond_data`) with each accuracy measure's mean per user group, before the side ones.

    `per_query` is run -> measure -> {user: value} (the users each mean includes, as
    ``Results.per_query`` gives them). Without ``--groups`` `data` is returned as it is.

    >>> import numpy as np
    >>> from rankproof.recsys.side import Groups
    >>> side = SideData(groups=Groups(np.array(["u", "v", "w"]), np.array(["a", "a", "b"]), "groups"))
    >>> accuracy_by_group({"by_group": {"A": {}}}, {"A": {"ndcg@2": {"u": 1.0, "v": 0.5, "w": 0.0, "x": 1.0}}},
    ...                   side)["by_group"]["A"]
    {'ndcg@2': {'a': 0.75, 'b': 0.0, '(none)': 1.0}}
    """
    if side.groups is None or data.get("by_group") is None:
        return data
    groups = side.groups.as_dict()
    by_group = dict(data["by_group"])
    for run, measures in per_query.items():
        found: dict[str, dict[str, float]] = {}
        for measure, values in measures.items():
            per: dict[str, list[float]] = {}
            for user, value in values.items():
                if value == value:
                    per.setdefault(groups.get(str(user), NO_GROUP), []).append(value)
            found[measure] = {group: sum(vs) / len(vs) for group, vs in per.items()}
        by_group[run] = {**found, **by_group.get(run, {})}
    return {**data, "by_group": by_group}


def beyond_data(runs: Mapping[str, Run], measures: Sequence[SideMeasure], side: SideData,
                protocol: "Protocol | None" = None, *, k: "int | None" = None) -> dict[str, Any]:
    """The section's data: values per run and measure, and the curves the side data allows (see the module)."""
    protocol = protocol if protocol is not None else Protocol()
    k = k or min(max([m.cutoff or 0 for m in measures] + [10]), _LARGEST)
    catalogue = side.catalogue()
    percentile = _percentiles(side) if side.train is not None else None
    categories = side.features.categories if side.features is not None else None
    labels = sorted({c for s in categories.values() for c in s}) + [NO_GROUP] if categories else []
    data: dict[str, Any] = {"k": k, "measures": {}, "coverage_curve": {} if catalogue is not None else None,
                            "popularity_curve": {} if percentile is not None else None,
                            "exposure": {"groups": labels} if categories else None,
                            "by_group": {} if side.groups is not None else None,
                            "disparity": {} if side.groups is not None else None}
    for name, run in runs.items():
        values = side_values(run, measures, side, protocol)
        for v in values:
            entry = data["measures"].setdefault(v.measure, {"display": v.display, "kind": v.kind, "runs": {}})
            entry["runs"][name] = v.value
        _, rank, items = _ranked(run, k, protocol)
        if catalogue is not None:
            data["coverage_curve"][name] = _coverage_curve(rank, items, catalogue, k)
        if percentile is not None:
            data["popularity_curve"][name] = _popularity_curve(rank, items, percentile, k)
        if categories:
            data["exposure"][name] = _exposure(rank, items, categories, labels)
        if side.groups is not None:
            data["by_group"][name] = _by_group(values, side)
            data["disparity"][name] = _disparities(values, side)
    return data
