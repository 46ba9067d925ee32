"""The top k of each user's list, in rank order: the rows the per-list side-data measures read.

:func:`ranked_top` orders each user's rows by the protocol (its tie policy
decides tied groups across the cutoff) and gives each kept row its user and
1-based rank; :func:`item_sets` reads user -> items from a mapping or a table.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..data.run import Run
from ..errors import InputError, literal
from .topk import ranked_rows
from ..protocol import Protocol
from .coverage import as_run
from .side_params import check_cutoff

__all__ = ["RankedTop", "ranked_top", "item_sets", "check_cutoff"]

_WHOLE_LIST = 2**62


class RankedTop:
    """A run's top-k rows: ``run``, ``rows`` (grouped by user, in rank order), ``user`` (index into
    ``run.queries``) and ``rank`` (1-based) of each row, and ``items`` (each row's item id)."""

    def __init__(self, run: Run, rows: np.ndarray, user: "np.ndarray | None" = None,
                 rank: "np.ndarray | None" = None):
        self.run = run
        self.rows = rows
        if user is None or rank is None:
            user = np.searchsorted(run.offsets, rows, side="right") - 1
            starts = (np.flatnonzero(np.r_[True, user[1:] != user[:-1]]) if len(rows)
                      else np.zeros(0, dtype=np.int64))
            rank = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)])) + 1
        self.user = user
        self.rank = rank
        self.items = run.docs[run.doc_codes[rows]].astype(str)

    @property
    def sizes(self) -> np.ndarray:
        """Rows kept per user (``min(k, list length)``)."""
        return np.bincount(self.user, minlength=self.run.num_queries).astype(np.int64)

    def by_user(self):
        """``(user index, slice of the rows)`` for each user with at least one row, in user order."""
        bounds = np.r_[0, np.cumsum(self.sizes)]
        for u in np.flatnonzero(self.sizes):
            yield int(u), slice(int(bounds[u]), int(bounds[u + 1]))


def ranked_top(predictions, k: "int | None", protocol: "Protocol | None", user="user", item="item",
               score="score") -> RankedTop:
    """The top k rows of each list (k None: every row), ranked by the protocol."""
    run = as_run(predictions, user, item, score)
    return RankedTop(run, *ranked_rows(run, _WHOLE_LIST if k is None else int(k),
                                       protocol if protocol is not None else Protocol()))


def item_sets(given: Any, what: str) -> dict[str, set[str]]:
    """user -> set of items, from a mapping user -> items (or -> {item: grade > 0}), a Qrels, or a
    table with ``user`` and ``item`` columns."""
    if hasattr(given, "to_dict") and hasattr(given, "grades"):
        given = given.to_dict()
    if isinstance(given, Mapping):
        out: dict[str, set[str]] = {}
        for u, items in given.items():
            if isinstance(items, Mapping):
                out[str(u)] = {str(i) for i, grade in items.items() if grade is not None and grade
                               > 0}
            elif isinstance(items, (str, bytes)):
                out[str(u)] = {str(items)}
            else:
                out[str(u)] = {str(i) for i in items}
        return out
    try:
        table = Run.from_table(given, query="user", doc="item", score=None, source=what)
    except (TypeError, ValueError, InputError):
        raise InputError(what=f"{what} must map each user to items, or be a table with user and item columns; "
                         f"got {literal(type(given).__name__)}",
                         fix=f"give {what}=dict(u1=['i1', 'i2'])",
                         value=type(given).__name__) from None
    user_of_row = np.repeat(np.arange(table.num_queries), np.diff(table.offsets))
    found: dict[str, set[str]] = {}
    for u, i in zip(table.queries[user_of_row].tolist(), table.docs[table.doc_codes].tolist()):
        found.setdefault(str(u), set()).add(str(i))
    return found
