"""What a catalogue-level side-data measure gives, and how it is put together from parts.

A catalogue measure (coverage, Gini, GAUC, ...) is one number for the whole run:
a :class:`CatalogueValue`. A measure function that returns a richer result of its own
(:class:`~rankproof.recsys.auc.AUCValue`, ...) makes it a :class:`CatalogueResult`,
which declares the numbers the value is made of and gives the registry its
:class:`CatalogueValue`. An executor that holds the users in parts (Spark) gathers
one without a cutoff from per-user numbers (:class:`PerUser`) or from counts per
distinct score over every pair of rows (:class:`PooledPairs`), as its spec
(``rankproof.recsys.registry.SideSpec``) declares.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar

import numpy as np

from ..data.run import Run
from ..protocol import Protocol
from .measure_value import MeasureValue
from .side import SideData

__all__ = ["CatalogueResult", "CatalogueValue", "PerUser", "PooledPairs"]


@dataclasses.dataclass(frozen=True)
class CatalogueValue(MeasureValue):
    """The value of a catalogue-level measure (one number for the whole run), as the registry
    gives it (its ``measure`` e.g. ``coverage@10``).

    Attributes
    ----------
    value : float
    detail : tuple of (str, number)
        What the value is made of (covered, catalogue_size, ...), for the report.
    """

    value: float
    detail: tuple[tuple[str, Any], ...] = ()


@dataclasses.dataclass(frozen=True)
class CatalogueResult(MeasureValue):
    """A catalogue-level measure function's own result: its value and, in fields named by the
    class's ``DETAIL``, the numbers the value is made of.

    Attributes
    ----------
    value : float
    """

    DETAIL: ClassVar[tuple[str, ...]] = ()

    value: float

    def catalogue_value(self) -> CatalogueValue:
        """The registry's :class:`CatalogueValue`: the measure, the value and, as its detail,
        the ``DETAIL`` fields in that order."""
        return CatalogueValue(self.measure, float(self.value),
                              tuple((name, getattr(self, name)) for name in self.DETAIL))


@dataclasses.dataclass(frozen=True)
class PerUser:
    """How a catalogue measure that reads every row (no cutoff: GAUC, percentile rank) is put together from
    per-user numbers, for an engine that holds the users in parts (Spark, partitioned by user).

    - ``part(run, k, side, params, protocol)``: a mapping column name -> one number per user of `run` (in
      ``run.queries`` order), each from that user's rows alone;
    - ``whole(users, columns, items, k, side, params, protocol)``: the :class:`CatalogueValue` from the
      columns of every user (`users` sorted, as a Run's queries, and the columns in that order) and, when
      ``items`` is set, the run's distinct items (sorted; else None).

    The registered ``compute`` is ``whole(part(run))`` on the whole run, so one machine and the parts give the
    same value: the same sums in the same user order.
    """

    part: Callable[..., dict[str, np.ndarray]]
    whole: Callable[..., "CatalogueValue"]
    items: bool = False

    def compute(self, run: Run, k, side: SideData, params: dict,
                protocol: Protocol) -> "CatalogueValue":
        """``whole(part(run))``: the measure on one machine (a SideSpec's ``compute``)."""
        items = np.unique(run.docs[run.doc_codes].astype(str)) if self.items else None
        columns = self.part(run, k, side, params, protocol)
        return self.whole(run.queries.astype(str), columns, items, k, side, params, protocol)


@dataclasses.dataclass(frozen=True)
class PooledPairs:
    """How a catalogue measure over every (positive, negative) pair of rows, across users (pooled AUC), is put
    together from counts per distinct score, for an engine that holds the rows in parts (Spark).

    - ``labels(run, k, side, params, protocol)``: each row's label (True: positive), in the run's row order,
      from that user's rows alone;
    - ``whole(twice_u, positives, negatives, users, params)``: the :class:`CatalogueValue` from twice the
      Mann-Whitney U over all rows (each pair a positive scores above counts 2, a tie 1: an integer, exact
      at any size), the positives and negatives, and the users.
    """

    labels: Callable[..., np.ndarray]
    whole: Callable[..., "CatalogueValue"]
