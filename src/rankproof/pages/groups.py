"""Each accuracy measure's mean per user group, vectorised: one pass of numpy per run and measure.

The beyond-accuracy section shows the page's accuracy measures per user group
(``--groups``) beside the side-data measures. A Python loop over a million
users per measure and run took minutes; here each user's group is found by
one sorted search and the sums are one ``bincount``, which adds in the
users' order as the loop did, so the means are the same to the last bit.

Examples
--------
>>> import numpy as np
>>> group_means(np.array(["u", "v", "w", "x"]), np.array([1.0, 0.5, 0.0, 1.0]),
...             np.array(["u", "v", "w"]), np.array(["a", "a", "b"]), "(none)")
{'a': 0.75, 'b': 0.0, '(none)': 1.0}
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_means", "group_codes", "coded_means", "ArrayLabels"]


class ArrayLabels:
    """Query -> label as two arrays, read by :meth:`rankproof.Results.by` as it reads a pandas Series
    (its ``index.to_numpy()`` and ``to_numpy()``): no dict of a million users, no pandas.

    >>> labels = ArrayLabels(np.array(["u", "v"]), np.array(["new", "old"]))
    >>> labels.index.to_numpy().tolist(), labels.to_numpy().tolist()
    (['u', 'v'], ['new', 'old'])
    """

    def __init__(self, queries: np.ndarray, labels: np.ndarray) -> None:
        self.index = _Column(queries)
        self._labels = labels

    def to_numpy(self) -> np.ndarray:
        return self._labels


class _Column:
    def __init__(self, values: np.ndarray) -> None:
        self._values = values

    def to_numpy(self) -> np.ndarray:
        return self._values


def group_codes(ids: np.ndarray, users: np.ndarray, labels: np.ndarray,
                none: str) -> tuple[np.ndarray, np.ndarray]:
    """(the group names, sorted; each of `ids`' index into them): users without a group (not in the
    sorted `users`) under `none`. Found once per run and shared by its measures (:func:`coded_means`)."""
    text = np.asarray(ids).astype(str)
    users = np.asarray(users).astype(str)
    names, inverse = np.unique(np.concatenate([np.asarray(labels).astype(str), np.array([none])]),
                               return_inverse=True)
    inverse = inverse.reshape(-1)
    if not users.size:
        return names, np.full(text.size, inverse[-1], dtype=np.int64)
    at = np.minimum(np.searchsorted(users, text), users.size - 1)
    return names, np.where(users[at] == text, inverse[:-1][at], inverse[-1])


def coded_means(names: np.ndarray, codes: np.ndarray, values: np.ndarray) -> dict[str, float]:
    """{group: mean of `values` over its users} (`codes` of :func:`group_codes`), groups in the order
    their first user appears; NaN values left out."""
    keep = ~np.isnan(values)
    codes, values = codes[keep], values[keep]
    sums = np.bincount(codes, weights=values, minlength=names.size)
    counts = np.bincount(codes, minlength=names.size)
    first = np.full(names.size, codes.size)
    np.minimum.at(first, codes, np.arange(codes.size))
    order = np.argsort(first, kind="stable")
    return {str(names[g]): float(sums[g] / counts[g]) for g in order.tolist() if counts[g]}


def group_means(ids: np.ndarray, values: np.ndarray, users: np.ndarray, labels: np.ndarray,
                none: str) -> dict[str, float]:
    """{group: mean of `values` over its users}, groups in the order their first user appears; users
    without a group (not in the sorted `users`) under `none`; NaN values left out."""
    return coded_means(*group_codes(ids, users, labels, none), np.asarray(values, dtype=np.float64))
