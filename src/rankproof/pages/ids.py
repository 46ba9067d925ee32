"""Each Results' query ids as one array, made once: ``Results.queries`` builds a list on every call, and a
million-user page reads the ids of every run several times (differences, drill-down, matrices)."""

from __future__ import annotations

import weakref

import numpy as np

__all__ = ["ids_of", "count_of"]

_IDS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def ids_of(result) -> np.ndarray:
    """The ids of ``result.queries`` (the order of ``values``), as an array, cached per Results."""
    try:
        return _IDS[result]
    except KeyError:
        ids = _IDS[result] = np.asarray(result.queries)
        return ids
    except TypeError:   # not weakly referable: no cache
        return np.asarray(result.queries)


def count_of(result) -> int:
    """The number of evaluated queries, without listing them."""
    return len(result.table.queries)
