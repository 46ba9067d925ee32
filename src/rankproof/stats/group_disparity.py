"""Group disparity: how far apart the groups' means of a per-query measure are, with an interval.

The users (queries) are split by a label (``--groups``: new vs returning,
country, ...). The **disparity** is the spread of the groups' means:

.. math:: D = \\max_g \\bar v_g - \\min_g \\bar v_g

(with two groups, the absolute difference of their means; 0: every group
served alike). Its interval resamples the statistic, recomputing the max and
the min each time (a percentile interval); each group's mean is redrawn by one
of two methods, chosen by the group's size and named in the result
(``method``: ``bootstrap``, ``normal``, or ``bootstrap+normal`` when the groups
took both):

- ``bootstrap``: the group's users resampled with replacement within the group
  (a stratified bootstrap; each group keeps its size), for a group of fewer than
  :data:`~rankproof.stats.asymptotic.MIN_QUERIES` users;
- ``normal``: the group's mean drawn from its normal approximation
  :math:`N(\\bar v_g, s_g^2 / n_g)` (the central limit theorem), for a group of at
  least that many: no pass over its users per draw.

Examples
--------
>>> values = {"u1": 1.0, "u2": 0.5, "u3": 0.0, "u4": 0.25}
>>> groups = {"u1": "new", "u2": "new", "u3": "old", "u4": "old"}
>>> d = group_disparity(values, groups, n_resamples=200)
>>> d.means, d.disparity, d.method       # new: 0.75, old: 0.125
({'new': 0.75, 'old': 0.125}, 0.625, 'bootstrap')
>>> bool(d.low <= d.disparity <= d.high)
True
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np

from ..errors import InputError, literal
from .asymptotic import MIN_QUERIES

__all__ = ["GroupDisparity", "group_disparity", "coded_disparity", "METHODS"]

METHODS = ("auto", "bootstrap", "normal")
_CELLS = 1 << 22   # resampled values held at once (32 MiB of float64)


@dataclasses.dataclass(frozen=True)
class GroupDisparity:
    """The groups' means of one measure, their spread and its interval.

    Attributes
    ----------
    means, counts : dict of group -> float, int
        Each group's mean over its users with a value, and how many they are.
    disparity : float
        The highest group mean minus the lowest.
    highest, lowest : str
        Their groups.
    low, high : float
        The interval of `disparity` at `confidence`.
    method : str
        ``bootstrap``, ``normal`` or ``bootstrap+normal`` (see the module's docstring).
    """

    means: dict
    counts: dict
    disparity: float
    highest: str
    lowest: str
    low: float
    high: float
    confidence: float
    method: str
    n_resamples: int


def _draws(values: np.ndarray, code: np.ndarray, counts: np.ndarray, normal: np.ndarray,
           n_resamples: int,
           rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, groups) resampled group means (`normal`: the groups drawn from their normal law)."""
    means = np.empty((n_resamples, len(counts)))
    for g, n in enumerate(counts.tolist()):
        inside = values[code == g]
        if normal[g]:
            spread = inside.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
            means[:, g] = rng.normal(inside.mean(), spread, n_resamples)
            continue
        step = max(1, _CELLS // n)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            means[start:stop, g] = inside[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return means


def group_disparity(values: Mapping[Any, float], groups: Mapping[Any, Any], *,
                    confidence: float = 0.95,
                    n_resamples: int = 2000, seed: int = 0, method: str = "auto",
                    unlabelled: "str | None" = None) -> GroupDisparity:
    """The disparity of per-user `values` across `groups` (user -> label), with its interval.

    Users without a value (nan) take no part; a user without a label goes to the group `unlabelled`
    (None: left out). ``method="auto"`` chooses per group as the module's docstring says; ``bootstrap`` or
    ``normal`` takes one for every group. :func:`coded_disparity` takes arrays instead.
    """
    labels, kept = [], []
    for user, value in values.items():
        label = groups.get(user, unlabelled)
        if label is not None:
            labels.append(str(label))
            kept.append(float(value))
    names, code = np.unique(np.asarray(labels, dtype=str), return_inverse=True)
    return coded_disparity(np.asarray(kept, dtype=np.float64), code.reshape(-1), names,
                           confidence=confidence,
                           n_resamples=n_resamples, seed=seed, method=method)


def coded_disparity(values: np.ndarray, codes: np.ndarray, names: np.ndarray, *,
                    confidence: float = 0.95,
                    n_resamples: int = 2000, seed: int = 0, method: str = "auto") -> GroupDisparity:
    """:func:`group_disparity` from arrays: each user's value and group code (an index into `names`);
    nan values left out, groups without a user with a value dropped. No loop over the users in Python
    (a million-user report's groups: :func:`rankproof.pages.groups.group_codes`)."""
    if method not in METHODS:
        raise InputError(what=f"method must be one of {', '.join(METHODS)}; got {literal(repr(method))}",
                         value=method)
    if not 0 < confidence < 1 or isinstance(n_resamples, bool) or not isinstance(n_resamples, int) \
            or n_resamples < 1:
        raise InputError(what="confidence must be in (0, 1) and n_resamples an integer >= 1; got "
                         f"{confidence!r}, {n_resamples!r}", value=(confidence, n_resamples))
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    present, code = np.unique(np.asarray(codes)[keep], return_inverse=True)
    names = np.asarray(names)[present]
    if len(names) < 2:
        raise InputError(what=f"a disparity needs users with a value in two groups at least; found "
                         f"{len(names)}", fix="give a label to users of several groups (--groups)")
    data, code = values[keep], code.reshape(-1)
    counts = np.bincount(code, minlength=len(names))
    means = np.bincount(code, data, len(names)) / counts
    normal = counts >= MIN_QUERIES if method == "auto" else np.full(len(counts), method == "normal")
    method = "+".join(name for name, used in (("bootstrap", not normal.all()),
                                              ("normal", normal.any())) if used)
    draws = _draws(data, code, counts, normal, n_resamples, np.random.default_rng(seed))
    spread = draws.max(axis=1) - draws.min(axis=1)
    low, high = np.quantile(spread, [(1 - confidence) / 2, (1 + confidence) / 2])
    hi, lo = int(np.argmax(means)), int(np.argmin(means))
    return GroupDisparity(dict(zip(names.tolist(), means.tolist())),
                          dict(zip(names.tolist(), counts.tolist())),
                          float(means[hi] - means[lo]), str(names[hi]), str(names[lo]), float(low),
                          float(high),
                          confidence, method, n_resamples)
