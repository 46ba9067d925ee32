"""Which ids the caller is shown for the evaluated queries, and in which order.

The step evaluates queries by their text ids, in text order. A front door may want them shown
otherwise (``query_ids``, :data:`rankproof.typing.QueryIds`): :func:`rankproof.evaluate_frame`
gives a log's integer user ids back as integers in numeric order, :func:`rankproof.evaluate_scores`
the rows' own ids in row order. :class:`ShownQueries` holds that choice for a
:class:`~rankproof.results.Results`; its per-query arrays stay in the evaluated order and are
reordered only when shown.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..typing import QueryIds

__all__ = ["ShownQueries"]


class ShownQueries:
    """The ids shown for `queries` (the evaluated text ids, in text order) and their order.

    `source`: None (the text ids, as evaluated), the ids themselves (aligned with `queries`), or a
    function of `queries` giving ``(ids, order)``, called on first use only (a million integer ids
    cost time that a caller reading means alone should not pay); a None id or order keeps the
    queries' own.

    >>> queries = np.array(["10", "9"])
    >>> shown = ShownQueries(queries, lambda q: (q.astype(int), np.argsort(q.astype(int))))
    >>> shown.ids().tolist(), shown.shown(np.array([0.5, 1.0])).tolist()
    ([9, 10], [1.0, 0.5])
    >>> ShownQueries(queries, None).ids().tolist()
    ['10', '9']
    """

    def __init__(self, queries: np.ndarray, source: "QueryIds | None") -> None:
        self._queries, self._source = queries, source

    @cached_property
    def _presentation(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        source = self._source
        if source is None:
            return None, None
        if callable(source):
            return source(self._queries)
        return np.asarray(source), None

    @property
    def given(self) -> np.ndarray | None:
        """The ids the front door gave, aligned with the evaluated queries (None: none given)."""
        return self._presentation[0]

    @property
    def order(self) -> np.ndarray | None:
        """The order the queries are shown in, as indices into the evaluated order (None: as
        evaluated)."""
        return self._presentation[1]

    def shown(self, array: np.ndarray) -> np.ndarray:
        """A per-query array (in the evaluated order) in the order the queries are shown."""
        order = self.order
        return array if order is None else array[order]

    def ids(self) -> np.ndarray:
        """The ids shown, in the order shown."""
        return self.shown(self._queries if self.given is None else self.given)
