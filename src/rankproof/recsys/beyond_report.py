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
from ..pages.groups import coded_means, group_codes, group_means
from ..protocol import Protocol
from .registry import LIST, SideMeasure
from .side import Interactions, SideData
from .side_eval import side_values
from .topk import ranked_rows, shared_cuts

__all__ = ["beyond_data", "accuracy_by_group", "disparity_entry", "NO_GROUP"]

NO_GROUP = "(none)"
_LARGEST = 100


def _found(docs: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(whether each of the run's distinct `docs` is among the sorted `keys`, its index there):
    one sorted search over the run's distinct items instead of a lookup per recommended row."""
    if keys.size == 0:
        return np.zeros(docs.size, dtype=bool), np.zeros(docs.size, dtype=np.int64)
    text = np.asarray(docs).astype(str)
    at = np.minimum(np.searchsorted(keys, text), keys.size - 1)
    return keys[at] == text, at


def _coverage_curve(codes: np.ndarray, rank: np.ndarray, inside: np.ndarray, size: int,
                    k: int) -> list[float]:
    """Share of the catalogue (`size` items; `inside`: which of the run's items are in it) reached
    by the top 1 .. k: each item counted at its best rank."""
    first = np.full(inside.size, k, dtype=np.int64)
    kept = inside[codes]
    np.minimum.at(first, codes[kept], rank[kept])
    reached = np.bincount(first[first < k], minlength=k)[:k]
    return (np.cumsum(reached) / size).tolist()


def _percentiles(side: SideData) -> tuple[np.ndarray, np.ndarray]:
    """(sorted trained items, each one's popularity percentile: 100 x (items less popular) / (items - 1))."""
    train: Interactions = side.needed("train")
    ids, counts = train.popularity()
    below = np.searchsorted(np.sort(counts), counts, side="left")
    return np.asarray(ids).astype(str), below * (100.0 / max(len(ids) - 1, 1))


def _popularity_curve(codes: np.ndarray, rank: np.ndarray, per_doc: np.ndarray, k: int) -> list:
    """Mean popularity percentile at each rank (`per_doc`: each of the run's items', 0 if never trained
    on), added in rank order as the rows come."""
    total = np.bincount(rank, weights=per_doc[codes], minlength=k)[:k]
    shown = np.bincount(rank, minlength=k)[:k]
    return [float(t / n) if n else math.nan for t, n in zip(total.tolist(), shown.tolist())]


def _category_table(categories: Mapping[str, frozenset], labels: list[str]) -> tuple[np.ndarray,
                                                                                     ...]:
    """The items' categories as arrays, built once: (sorted items with a category, each one's first
    entry in the next two, the label index of each entry, 1 / the item's number of categories)."""
    where = {label: i for i, label in enumerate(labels)}
    items = np.array(sorted(item for item, found in categories.items() if found), dtype=str)
    sets = [sorted(categories[item]) for item in items.tolist()]
    sizes = np.array([len(found) for found in sets], dtype=np.int64)
    label = np.fromiter((where[c] for found in sets for c in found), dtype=np.int64,
                        count=int(sizes.sum()))
    return items, np.r_[0, np.cumsum(sizes)], label, np.repeat(1.0 / np.maximum(sizes, 1), sizes)


def _exposure(codes: np.ndarray, rank: np.ndarray, docs: np.ndarray, table: tuple[np.ndarray, ...],
              labels: list[str]) -> list:
    """Each category's share of the top k's exposure, 1 / log2(rank + 1) split evenly among an item's
    categories (an item without one: ``(none)``): summed per item once, then spread over its categories."""
    items, starts, label, split = table
    per_doc = np.bincount(codes, weights=1.0 / np.log2(rank + 2.0), minlength=docs.size)
    found, at = _found(docs, items)
    share = np.zeros(len(labels))
    share[labels.index(NO_GROUP)] = per_doc[~found].sum()
    doc = np.flatnonzero(found)
    sizes = starts[at[doc] + 1] - starts[at[doc]]
    entry = (np.repeat(starts[at[doc]] - np.cumsum(sizes) + sizes, sizes)
             + np.arange(int(sizes.sum())))
    share += np.bincount(label[entry], weights=np.repeat(per_doc[doc], sizes) * split[entry],
                         minlength=len(labels))
    total = float(share.sum()) or 1.0
    return (share / total).tolist()


def disparity_entry(ids: np.ndarray, values: np.ndarray, groups) -> "dict[str, Any] | None":
    """The report's disparity of one measure (`values` of the users `ids`, `groups` the side data's
    :class:`~.side.Groups`): value, interval, method and the extreme groups (None: fewer than two groups
    with a value). Users without a group are in ``(none)``, as in the group means."""
    from ..errors import InputError
    from ..stats.group_disparity import coded_disparity

    names, codes = group_codes(ids, groups.users, groups.labels, NO_GROUP)
    try:
        d = coded_disparity(np.asarray(values, dtype=np.float64), codes, names)
    except InputError:
        return None
    return {"value": d.disparity, "low": d.low, "high": d.high, "method": d.method,
            "highest": d.highest,
            "lowest": d.lowest}


def _disparities(values, side: SideData) -> dict[str, Any]:
    """Per list-measure: its disparity across the user groups (:func:`disparity_entry`)."""
    groups = side.needed("groups")
    found = {}
    for v in values:
        if v.kind == LIST and v.queries is not None and v.values is not None:
            entry = disparity_entry(v.queries, v.values, groups)
            if entry is not None:
                found[v.measure] = entry
    return found


def _by_group(values, side: SideData) -> dict[str, Any]:
    """Per list-measure, per group: the mean of the users' values (nan left out); each user's group
    found once for the measures that list the same users."""
    groups = side.needed("groups")
    found: dict[str, Any] = {}
    coded: "tuple[np.ndarray, np.ndarray, np.ndarray] | None" = None
    for v in values:
        if v.kind != LIST or v.queries is None or v.values is None:
            continue
        if coded is None or not np.array_equal(coded[0], v.queries):
            coded = (v.queries, *group_codes(v.queries, groups.users, groups.labels, NO_GROUP))
        found[v.measure] = coded_means(coded[1], coded[2], np.asarray(v.values, dtype=np.float64))
    return found


def accuracy_by_group(data: dict[str, Any],
                      per_query: Mapping[str, Mapping[str, Mapping[str, float]]],
                      side: SideData) -> dict[str, Any]:
    """`data` (of :func:`beyond_data`) with each accuracy measure's mean per user group, before the side ones.

    `per_query` is run -> measure -> {user: value} (the users each mean includes, as
    ``Results.per_query`` gives them). Without ``--groups`` `data` is returned as it is. The means are
    :func:`rankproof.pages.groups.group_means`'s (the report's, from the Results' arrays).

    >>> import numpy as np
    >>> from rankproof.recsys.side import Groups
    >>> side = SideData(groups=Groups(np.array(["u", "v", "w"]), np.array(["a", "a", "b"]), "groups"))
    >>> accuracy_by_group({"by_group": {"A": {}}}, {"A": {"ndcg@2": {"u": 1.0, "v": 0.5, "w": 0.0, "x": 1.0}}},
    ...                   side)["by_group"]["A"]
    {'ndcg@2': {'a': 0.75, 'b': 0.0, '(none)': 1.0}}
    """
    if side.groups is None or data.get("by_group") is None:
        return data
    by_group = dict(data["by_group"])
    for run, measures in per_query.items():
        found = {measure: group_means(np.array([str(user) for user in values], dtype=str),
                                      np.fromiter(values.values(), dtype=np.float64,
                                                  count=len(values)),
                                      side.groups.users, side.groups.labels, NO_GROUP)
                 for measure, values in measures.items()}
        by_group[run] = {**found, **by_group.get(run, {})}
    return {**data, "by_group": by_group}


def beyond_data(runs: Mapping[str, Run], measures: Sequence[SideMeasure], side: SideData,
                protocol: "Protocol | None" = None, *, k: "int | None" = None) -> dict[str, Any]:
    """The section's data: values per run and measure, and the curves the side data allows (see the module).

    Each run's top k is cut once (:func:`~.topk.shared_cuts`) for its measures and its curves, and
    the curves look each of the run's distinct items up once (by its code), not each recommended row.
    """
    protocol = protocol if protocol is not None else Protocol()
    k = k or min(max([m.cutoff or 0 for m in measures] + [10]), _LARGEST)
    catalogue = side.catalogue()
    catalogue = np.asarray(catalogue).astype(str) if catalogue is not None else None
    percentile = _percentiles(side) if side.train is not None else None
    categories = side.features.categories if side.features is not None else None
    labels = sorted({c for s in categories.values() for c in s}) + [NO_GROUP] if categories else []
    table = _category_table(categories, labels) if categories else None
    data: dict[str, Any] = {"k": k, "measures": {},
                            "coverage_curve": {} if catalogue is not None else None,
                            "popularity_curve": {} if percentile is not None else None,
                            "exposure": {"groups": labels} if categories else None,
                            "by_group": {} if side.groups is not None else None,
                            "disparity": {} if side.groups is not None else None}
    for name, run in runs.items():
        with shared_cuts():   # the measures' top k and the curves' are one cut
            values = side_values(run, measures, side, protocol)
            rows, _, ranks = ranked_rows(run, k, protocol)
            codes, rank = run.doc_codes[rows], ranks - 1
        for v in values:
            entry = data["measures"].setdefault(v.measure,
                                                {"display": v.display, "kind": v.kind, "runs": {}})
            entry["runs"][name] = v.value
        if catalogue is not None:
            inside, _ = _found(run.docs, catalogue)
            data["coverage_curve"][name] = _coverage_curve(codes, rank, inside, catalogue.size, k)
        if percentile is not None:
            trained, at = _found(run.docs, percentile[0])
            per_doc = (np.where(trained, percentile[1][at], 0.0) if percentile[0].size
                       else np.zeros(run.docs.size))
            data["popularity_curve"][name] = _popularity_curve(codes, rank, per_doc, k)
        if table is not None:
            data["exposure"][name] = _exposure(codes, rank, run.docs, table, labels)
        if side.groups is not None:
            data["by_group"][name] = _by_group(values, side)
            data["disparity"][name] = _disparities(values, side)
        del rows, ranks, codes, rank
    return data
