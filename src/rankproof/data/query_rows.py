"""What :class:`~rankproof.data.qrels.Qrels` and :class:`~rankproof.data.run.Run` share: rows
grouped by query, each naming a doc by its code, held in read-only columns.

``offsets[i]`` to ``offsets[i + 1]`` are the rows of query ``queries[i]``; ``doc_codes`` index
the sorted vocabulary ``docs``. Each subclass adds its value column (grades, scores) and how
it orders the rows within a query.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .arrays import read_only

__all__ = ["QueryRows"]


# Frozen and typed; the constructors are the subclasses' own (they validate and sort), and
# equality is identity: comparing two of them element-wise is never what is meant.
@dataclasses.dataclass(frozen=True, init=False, eq=False, repr=False)
class QueryRows:
    """Rows grouped by query, a doc code each, in read-only columns (see the module notes)."""

    queries: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    doc_codes: np.ndarray

    def _hold_fields(self, **fields: Any) -> None:
        """Set the fields of a value being built: each array as a read-only view (the
        caller's array keeps its writeable flag), any other field as it is."""
        for name, value in fields.items():
            object.__setattr__(self, name,
                               read_only(value) if isinstance(value, np.ndarray) else value)

    @property
    def num_queries(self) -> int:
        return len(self.queries)

    def __len__(self) -> int:
        return len(self.doc_codes)

    def _by_query(self, values: np.ndarray) -> dict[str, dict[str, Any]]:
        """``{query: {doc: value}}`` of one value per row (a Python object per row: for
        small data)."""
        out: dict[str, dict[str, Any]] = {}
        for i, query in enumerate(self.queries.tolist()):
            lo, hi = self.offsets[i], self.offsets[i + 1]
            out[query] = dict(zip(self.docs[self.doc_codes[lo:hi]].tolist(),
                                  values[lo:hi].tolist()))
        return out
