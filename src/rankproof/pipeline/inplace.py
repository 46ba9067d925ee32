"""Ranking a run's columns in place, where the run is rankproof's own.

A front door that reads a log itself (``evaluation.evaluate_read``) holds
the only reference to its :class:`~rankproof.data.run.Run`. The alignment may
then reorder the run's own buffers instead of copying them into rank order,
which holds each column once instead of twice at the alignment's peak
(1M users x 20 rows: 0.3 GB of doc codes and scores). A run anyone else can
reach (the caller's, or one whose arrays are views of the caller's table)
is never written: :func:`sole_owner` says None for it.
"""

from __future__ import annotations

import sys

import numpy as np

from ..protocol import Protocol
from .ties import rank_order_within

__all__ = ["CHUNK_ROWS", "rank_in_place", "sole_owner"]

CHUNK_ROWS = 1 << 20  # rows reordered at a time: the temporary copies are this long


def sole_owner(view: np.ndarray) -> "np.ndarray | None":
    """The writable array that owns `view`'s memory, when `view` (a run's read-only column)
    covers it whole and nothing but `view` refers to it; None otherwise."""
    base = view.base
    if not (isinstance(base, np.ndarray) and base.base is None and base.flags.owndata
            and base.flags.writeable
            and base.flags.c_contiguous and base.dtype == view.dtype and base.shape == view.shape
            and base.ctypes.data == view.ctypes.data):
        return None
    # Referenced by view.base, by `base` here and by getrefcount's argument: any other array
    # or object holding it (a view of it, the caller's table) adds one.
    return base if sys.getrefcount(base) == 3 else None


def rank_in_place(offsets: np.ndarray, score: np.ndarray, doc: np.ndarray,
                  columns: list[np.ndarray],
                  protocol: Protocol) -> None:
    """Reorder `score`, `doc` and every array of `columns` in place into the ``ties`` policy's
    rank order within each query (delimited by `offsets`), whole queries of about
    :data:`CHUNK_ROWS` rows at a time: the order :func:`~rankproof.pipeline.ties.rank_order_within`
    gives for all rows at once, since it moves rows only within their query."""
    queries = len(offsets) - 1
    rows = int(offsets[-1])
    step = max(1, int(queries * CHUNK_ROWS // max(rows, 1)))
    for first in range(0, queries, step):
        last = min(first + step, queries)
        lo, hi = int(offsets[first]), int(offsets[last])
        order = rank_order_within(offsets[first:last + 1] - lo, score[lo:hi], doc[lo:hi], protocol)
        if order is None:
            continue
        for column in (score, doc, *columns):
            part = column[lo:hi]
            part[:] = part[order]
