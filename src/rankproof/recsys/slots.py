"""The top-k slot counts of a whole run, standing in for the run where a catalogue measure reads only them.

A catalogue measure (coverage, Gini, entropy, ...) that reads no more of a run
than how many top-k slots each item takes can be given a :class:`SlotCounts`
instead of the :class:`~rankproof.Run`: :func:`~rankproof.recsys.concentration.item_counts`
returns its counts as they are, and :func:`~rankproof.recsys.coverage.coverage`
its items. The counts are then added up where the run lives (Spark, by
:mod:`rankproof.spark.catalogue`, in exact integers) and the measure's value is
taken on the driver by the same local function, so it is the local engine's
to the last bit.

Anything else a measure asks of it (a user's list, the items' ranks, another
cutoff or tie policy) raises :class:`NeedsRows`, which says the measure needs
the lists' rows; the Spark engine then gives the measure the top-k rows of
every list instead.

Examples
--------
>>> import numpy as np
>>> from rankproof.protocol import Protocol
>>> from rankproof.recsys.concentration import entropy
>>> slots = SlotCounts(2, Protocol(), np.array(["a", "b", "c"]), np.array([2, 1, 1]))
>>> entropy(slots, 2).value            # slots a 2, b 1, c 1 of 4: 1.5 bits
1.5
>>> slots.queries
Traceback (most recent call last):
...
rankproof.recsys.slots.NeedsRows: the value needs the lists' rows, not only the items' top-2 slot counts (it reads queries)
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..errors import MeasureError
from ..protocol import Protocol

__all__ = ["SlotCounts", "NeedsRows"]


class NeedsRows(MeasureError):
    """A measure read more of a run than its items' top-k slot counts (see the module's docstring)."""


@dataclasses.dataclass(frozen=True)
class SlotCounts:
    """How many top-k slots each item takes over every list of a run.

    Attributes
    ----------
    k : int
        The cutoff the slots were counted at.
    protocol : Protocol
        The protocol they were counted under (its ``ties`` policy picks the top k).
    ids : numpy.ndarray of str
        The items in at least one top-k list, sorted (as a Run's vocabulary is).
    counts : numpy.ndarray of int64
        The slots each takes (>= 1).
    """

    k: int
    protocol: Protocol
    ids: np.ndarray
    counts: np.ndarray

    def counts_for(self, k: Any, protocol: "Protocol | None") -> tuple[np.ndarray, np.ndarray]:
        """(ids, counts) at cutoff `k` under `protocol`; :class:`NeedsRows` unless both are the ones counted."""
        wanted = protocol if protocol is not None else Protocol()
        if (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) != self.k
            or wanted != self.protocol):
            raise NeedsRows(what=f"the value needs the top {k!r} under {wanted}; the slots were counted at the top "
                                 f"{self.k} under {self.protocol}")
        return self.ids, self.counts

    def __getattr__(self, name: str) -> Any:
        # Only for names a SlotCounts lacks: a Run's columns, a table's methods.
        if name.startswith("__"):
            raise AttributeError(name)
        raise NeedsRows(what=f"the value needs the lists' rows, not only the items' top-{self.k} slot counts "
                             f"(it reads {name})")
