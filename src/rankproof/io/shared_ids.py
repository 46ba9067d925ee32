"""Id vocabularies shared by the files one command reads: the truth and every run of a
comparison name the same million users, numbered from 0.

Interning a column of integer ids within a narrow range (:mod:`rankproof.io.arrow`) finds
which ids occur, then writes each as decimal text and sorts the texts: for a million users,
about a third of a second, the same for every file that names the same users. Within
:func:`sharing` (entered by the commands that read many runs against one truth), the sorted
vocabulary of a set of ids is made once and handed to every later column holding exactly
that set: the texts are not made and sorted again, and the files' vocabularies are then one
array, which the alignment recognises at once (:func:`rankproof.data.interning.same_ids`).
Outside it nothing is kept.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator

import numpy as np

__all__ = ["sharing", "shared_vocabulary"]

_LOCK = threading.Lock()
# While sharing: (lowest id, slots present, rank table, vocabulary) of the sets seen, newest last.
_SEEN: "list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None" = None
# A command's files hold two id columns (users, items): a few sets are enough.
_KEPT = 4


@contextlib.contextmanager
def sharing() -> Iterator[None]:
    """Within this block, a set of ids interned again gets the vocabulary made the first time.

    >>> with sharing():
    ...     first = shared_vocabulary(0, np.array([1, 5]), lambda: (np.array([0, 1]), np.array(["1", "5"])))
    ...     again = shared_vocabulary(0, np.array([1, 5]), lambda: (np.array([0, 1]), np.array(["1", "5"])))
    >>> again[1] is first[1]
    True
    """
    global _SEEN
    with _LOCK:
        _SEEN = []
    try:
        yield
    finally:
        with _LOCK:
            _SEEN = None


def shared_vocabulary(lowest: int, slots: np.ndarray,
                      build: "Callable[[], tuple[np.ndarray, np.ndarray]]") -> tuple[np.ndarray,
                                                                                     np.ndarray]:
    """(rank table, vocabulary) of the ids ``lowest + slots``: ``build()``'s, or, within
    :func:`sharing`, those of the same set of ids seen before (made read-only: several files
    hold them)."""
    with _LOCK:
        seen = _SEEN
        for kept_lowest, kept_slots, rank, vocabulary in seen or ():
            if kept_lowest == lowest and np.array_equal(kept_slots, slots):
                return rank, vocabulary
    rank, vocabulary = build()
    if seen is not None:
        rank.flags.writeable = False
        vocabulary.flags.writeable = False
        with _LOCK:
            if _SEEN is seen:
                seen.append((lowest, slots, rank, vocabulary))
                del seen[:-_KEPT]
    return rank, vocabulary
