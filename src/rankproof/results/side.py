"""The values of side-data measures (coverage, novelty, ...) that Results hold beside accuracy.

A side-data measure (:mod:`rankproof.recsys.registry`) is evaluated on the
run with item or user side data; its value is either per list (a value per
user of the run, and their mean over the lists with one) or one value for
the whole catalogue. :class:`SideValue` holds either kind, already computed:
renderers read it; :func:`join_side` joins per-list values of disjoint users
(the parts :meth:`rankproof.Results.concat` joins).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["SideValue", "LIST", "CATALOGUE", "join_side", "side_warnings"]

LIST = "list"
CATALOGUE = "catalogue"


@dataclasses.dataclass(frozen=True)
class SideValue:
    """One side-data measure's value on one run.

    Attributes
    ----------
    measure : str
        Its text as asked for, e.g. ``coverage@10`` or ``ild(distance=jaccard)@10``.
    display : str
        Its name in the report (``Coverage``).
    kind : {"list", "catalogue"}
    value : float
        The mean over the lists with a value (``list``), or the catalogue value.
    queries, values : numpy.ndarray or None
        Per list (``list`` only): each user of the run and its value (nan: undefined).
    detail : tuple of (str, value)
        What the value is made of (``covered``, ``catalogue_size``, ...).
    higher_is_better : bool or None
    """

    measure: str
    display: str
    kind: str
    value: float
    queries: "np.ndarray | None" = None
    values: "np.ndarray | None" = None
    detail: tuple[tuple[str, Any], ...] = ()
    higher_is_better: "bool | None" = True

    @property
    def undefined(self) -> int:
        """Lists without a value (left out of the mean)."""
        return 0 if self.values is None else int(np.isnan(self.values).sum())

    def per_query(self) -> dict[str, float]:
        """``{user: value}`` for the lists with a value; empty for a catalogue measure."""
        if self.values is None or self.queries is None:
            return {}
        keep = ~np.isnan(self.values)
        return dict(zip(self.queries[keep].tolist(), self.values[keep].tolist()))

    def to_dict(self, per_query: bool = True) -> dict[str, Any]:
        """As JSON: kind, value (null for nan), detail, and per list the values."""
        document: dict[str, Any] = {"kind": self.kind, "display": self.display,
                                    "value": None if math.isnan(self.value) else self.value}
        if self.detail:
            document["detail"] = dict(self.detail)
        if self.kind == LIST:
            document["lists"] = 0 if self.values is None else len(self.values)
            document["undefined"] = self.undefined
            if per_query:
                document["per_query"] = self.per_query()
        return document


def join_side(parts: "list[tuple[SideValue, ...]]") -> tuple[SideValue, ...]:
    """The side values of parts over disjoint users, as one evaluation of all the users would give.

    A per-list measure's values are joined and put in user order (the order
    the recommender measures give them in), so the mean over the lists with a
    value is the whole's to the last bit. A catalogue measure (coverage, Gini,
    ...) is one number for the whole run that its parts' numbers do not make:
    it is refused, rather than dropped or averaged.

    >>> a = SideValue("ild@2", "ILD", LIST, 0.5, np.array(["u"]), np.array([0.5]))
    >>> b = SideValue("ild@2", "ILD", LIST, 1.0, np.array(["t", "v"]), np.array([1.0, np.nan]))
    >>> (joined,) = join_side([(a,), (b,)])
    >>> joined.queries.tolist(), joined.value, joined.undefined
    (['t', 'u', 'v'], 0.75, 1)
    """
    first = parts[0]
    names = [value.measure for value in first]
    for part in parts[1:]:
        if [value.measure for value in part] != names:
            raise InputError(what="Results.concat: the parts hold different side-data measures "
                                  f"({', '.join(names) or 'none'} against {', '.join(v.measure for v in part) or 'none'})",
                             fix="evaluate every part with the same measures")
    joined = []
    for i, value in enumerate(first):
        if value.kind != LIST:
            raise InputError(what=f"Results.concat: {value.measure} is one value for the whole catalogue, "
                                  "which the parts' values do not make", value=value.measure,
                             fix="evaluate catalogue measures on the whole run (or on the joined lists)")
        queries = np.concatenate([part[i].queries for part in parts])
        values = np.concatenate([part[i].values for part in parts])
        order = np.argsort(queries, kind="stable")
        queries, values = queries[order], values[order]
        defined = values[~np.isnan(values)]
        mean = float(defined.mean()) if defined.size else math.nan
        detail = (("lists", len(values)), ("undefined", int(np.isnan(values).sum())))
        joined.append(dataclasses.replace(value, value=mean, queries=queries, values=values,
                                          detail=detail))
    return tuple(joined)


def side_warnings(values: "tuple[SideValue, ...] | list[SideValue]") -> tuple[str, ...]:
    """The doubts the side values raise, one line each: items recommended in the top k
    that the item catalogue does not hold (``outside_catalogue`` in a catalogue measure's
    detail). Coverage counts only catalogue items, so a catalogue that misses the run's
    items gives a high coverage that means little (1.0 with half the items unknown).

    >>> v = SideValue("coverage@10", "Coverage", CATALOGUE, 1.0,
    ...               detail=(("covered", 2), ("catalogue_size", 2), ("outside_catalogue", 3)))
    >>> side_warnings([v])[0][:76]
    'coverage@10: 3 items recommended in the top 10 are not in the item catalogue'
    """
    lines = []
    for value in values:
        outside = int(dict(value.detail).get("outside_catalogue", 0) or 0)
        if outside <= 0:
            continue
        cutoff = value.measure.rpartition("@")[2]
        where = f"in the top {cutoff}" if cutoff.isdigit() else "in the lists"
        lines.append(f"{value.measure}: {outside} {'item' if outside == 1 else 'items'} recommended {where} "
                     f"{'is' if outside == 1 else 'are'} not in the item catalogue, which the value leaves out; "
                     "the catalogue is likely older than the run, a sample of it, or spells the item ids "
                     "differently: check the items file")
    return tuple(lines)
