"""The values of side-data measures (coverage, novelty, ...) that Results hold beside accuracy.

A side-data measure (:mod:`rankproof.recsys.registry`) is evaluated on the
run with item or user side data; its value is either per list (a value per
user of the run, and their mean over the lists with one) or one value for
the whole catalogue. :class:`SideValue` holds either kind, already computed:
renderers read it, nothing here computes.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

__all__ = ["SideValue", "LIST", "CATALOGUE"]

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
