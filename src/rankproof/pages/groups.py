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

__all__ = ["group_means"]


def group_means(ids: np.ndarray, values: np.ndarray, users: np.ndarray, labels: np.ndarray,
                none: str) -> dict[str, float]:
    """{group: mean of `values` over its users}, groups in the order their first user appears; users
    without a group (not in the sorted `users`) under `none`; NaN values left out."""
    text = np.asarray(ids).astype(str)
    keep = ~np.isnan(values)
    text, values = text[keep], values[keep]
    users = np.asarray(users).astype(str)
    at = np.minimum(np.searchsorted(users, text), max(users.size - 1, 0))
    found = (users[at] == text) if users.size else np.zeros(text.size, dtype=bool)
    names, codes = np.unique(np.where(found, np.asarray(labels).astype(str)[at] if users.size else none, none),
                             return_inverse=True)
    sums = np.bincount(codes, weights=values, minlength=names.size)
    counts = np.bincount(codes, minlength=names.size)
    first = np.full(names.size, codes.size)
    np.minimum.at(first, codes, np.arange(codes.size))
    order = np.argsort(first, kind="stable")
    return {str(names[g]): float(sums[g] / counts[g]) for g in order.tolist() if counts[g]}
