"""Read-only columns for the immutable value objects (Qrels, Run)."""

from __future__ import annotations

import numpy as np

__all__ = ["read_only"]


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of `array`; the array itself stays as it was.

    A view costs no copy, and the caller's own array (which a constructor
    may hold without copying it) keeps its writeable flag.

    >>> given = np.arange(3)
    >>> held = read_only(given)
    >>> held.flags.writeable, given.flags.writeable
    (False, True)
    """
    if not array.flags.writeable:  # a broadcast of -1 (no lines) is read-only already
        return array
    view = array.view()
    view.flags.writeable = False
    return view
