"""Rank-biased overlap of rankings with ties: the variants RBO^w, RBO^a and RBO^b.

Reference: M. Corsi and J. Urbano, "The treatment of ties in rank-biased
overlap", SIGIR 2024 (sections 3-4); the uneven-length extrapolation is
Webber, Moffat and Zobel's eq. 32 as corrected there.

A ranking is a list of tie groups, best first. Flattened, the items of a
group of size g starting at (0-based) position t fill positions t..t+g-1.
Each item contributes to the prefix of depth d = c + 1 (column c) with

    w (ties are equality): 1 from column t on (the whole group is seen at once)
    a, b (ties are uncertainty): min(1, max(0, (c - t + 1) / g)), the chance
        the item is in the top d when the group is broken at random

and the overlap at depth d is X_d = sum over items of c_S(i, d) c_L(i, d).
The agreement A_d is

    w: 2 X_d / (|S_d| + |L_d|)      (|S_d| the items of S seen by depth d)
    a: X_d / d                        (the expectation over random tie-breaking)
    b: X_d / sqrt(sum c_S^2 sum c_L^2)  (a cosine: RBO^b(X, X) = 1)

and RBO = (1 - p)/p sum_d A_d p^d. Past the short list's end s, S's side of
the denominator is d (the unseen items of S are taken untied), and the
unseen overlap is bounded (min: none; max: the first d - s items of L not in
S) or extrapolated (ext: at S's agreement A_s, weighted by the mean
contribution of L's unseen items at that depth). Past the long list's end l
every item's contribution is 1 and the tails are those of the tie-free case.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["TIE_VARIANTS", "rbo_tied"]

TIE_VARIANTS = ("w", "a", "b")


def _flatten(groups: Sequence[Sequence[Any]]) -> dict[Any, tuple[int, int]]:
    """item -> (t, g): the group's first position (0-based) and its size."""
    where: dict[Any, tuple[int, int]] = {}
    position = 0
    for group in groups:
        for item in group:
            where[item] = (position, len(group))
        position += len(group)
    return where


class _Columns:
    """Sums over columns 0..n-1 of curves that ramp up on [lo, hi) and stay at `weight` from hi on."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.ramp = np.zeros(n)
        self.steps = np.zeros(n + 1)

    def add(self, lo: int, hi: int, values: np.ndarray, weight: float) -> None:
        lo, hi = min(lo, self.n), min(hi, self.n)
        if hi > lo:
            self.ramp[lo:hi] += values[: hi - lo]
        self.steps[hi] += weight

    def total(self) -> np.ndarray:
        return self.ramp + np.cumsum(self.steps)[: self.n]


def _curve(columns: np.ndarray, t: int, g: int) -> np.ndarray:
    return np.clip((columns - t + 1) / g, 0.0, 1.0)


def _overlap(s_items: dict[Any, tuple[int, int]], l_items: dict[Any, tuple[int, int]],
             n: int) -> np.ndarray:
    """X at every column: sum over common items of c_S c_L (items in the same pair of groups share a curve)."""
    pairs = Counter((s_items[item], l_items[item]) for item in s_items if item in l_items)
    acc = _Columns(n)
    for ((ts, gs), (tl, gl)), count in pairs.items():
        lo, hi = max(ts, tl), max(ts + gs - 1, tl + gl - 1)
        columns = np.arange(lo, hi)
        acc.add(lo, hi, count * _curve(columns, ts, gs) * _curve(columns, tl, gl), count)
    return acc.total()


def _sizes(groups: Sequence[Sequence[Any]], n: int, power: int) -> np.ndarray:
    """sum over a ranking's items of c^power at every column (power 1 in w: the items seen)."""
    acc = _Columns(n)
    t = 0
    for group in groups:
        g = len(group)
        columns = np.arange(t, t + g - 1)
        acc.add(t, t + g - 1, g * _curve(columns, t, g) ** power, g)
        t += g
    return acc.total()


def _unseen(l_groups: Sequence[Sequence[Any]], s_items: dict[Any, tuple[int, int]], s: int,
            n: int, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """For L's items not in S: the most they can add to the overlap (the first d - s of them) and
    their mean contribution among those already seen, at every column."""
    most, mass, count = _Columns(n), _Columns(n), _Columns(n)
    t, j = 0, 0
    for group in l_groups:
        g = 1 if ties == "w" else len(group)
        unseen = sum(item not in s_items for item in group)
        top = t + g - 1
        columns = np.arange(t, top)
        mass.add(t, top, unseen * _curve(columns, t, g), unseen)
        count.add(t, t, np.empty(0), unseen)
        for _ in range(unseen):
            lo = max(s + j, t)
            columns = np.arange(lo, max(lo, top))
            most.add(lo, max(lo, top), _curve(columns, t, g), 1.0)
            j += 1
        t += len(group)
    counts = count.total()
    mean = np.divide(mass.total(), counts, out=np.zeros(n), where=counts > 0)
    return most.total(), mean


def _log_tail(p: float, depth: int) -> float:
    """sum_{d > depth} p^d / d."""
    return -math.log1p(-p) - sum(p ** d / d for d in range(1, depth + 1))


def _agreement(x: np.ndarray, depth: np.ndarray, side_s: np.ndarray, side_l: np.ndarray,
               ties: str) -> np.ndarray:
    if ties == "a":
        return x / depth
    if ties == "w":
        return 2 * x / (side_s + side_l)
    return x / np.sqrt(side_s * side_l)


def rbo_tied(short: Sequence[Sequence[Any]], long: Sequence[Sequence[Any]], p: float,
             ties: str) -> tuple[float, float, float]:
    """(min, residual, ext) of RBO^`ties` (Corsi and Urbano 2024) for rankings given as tie groups.

    `short` has no more items than `long`; both are non-empty lists of
    non-empty groups of distinct items. The caller checks its inputs.
    """
    s_items = _flatten(short)
    s = len(s_items)
    l_items = _flatten(long)
    n = len(l_items)
    if ties == "w":          # a group is seen whole at its first position
        s_items = {item: (t, 1) for item, (t, _) in s_items.items()}
        l_items = {item: (t, 1) for item, (t, _) in l_items.items()}
    x = _overlap(s_items, l_items, n)
    depth = np.arange(1, n + 1, dtype=float)
    power = 1 if ties == "w" else 2
    size_s = _sizes(short, n, power) if ties != "w" else _seen(short, n)
    size_l = _sizes(long, n, power) if ties != "w" else _seen(long, n)
    size_s[s:] = depth[s:]     # past S's end its unseen items are taken untied: d of them
    head = _agreement(x[:s], depth[:s], size_s[:s], size_l[:s], ties)
    a_s = head[-1]
    most, mean = _unseen(long, s_items, s, n, ties)
    rest = slice(s, n)
    x_ext = x[rest] + (depth[rest] - s) * a_s * mean[rest]
    weights = np.power(p, depth)
    scale = (1 - p) / p

    def total(section: np.ndarray) -> float:
        return float(np.dot(np.concatenate([head, section]), weights))

    x_l = float(round(x[-1]))       # past l every contribution is 1: the plain overlap
    f = int(s + n - x_l)
    section_min = total(_agreement(x[rest], depth[rest], size_s[rest], size_l[rest], ties))
    section_max = total(_agreement(x[rest] + most[rest], depth[rest], size_s[rest], size_l[rest],
                                   ties))
    section_ext = total(_agreement(x_ext, depth[rest], size_s[rest], size_l[rest], ties))
    tail_min = x_l * _log_tail(p, n)
    tail_max = (sum((2 * d - n - s + x_l) / d * p ** d for d in range(n + 1, f + 1)) + p ** (f + 1)
                / (1 - p))
    tail_ext = (x_l + (n - s) * a_s) / n * p ** (n + 1) / (1 - p)
    rbo_min = scale * (section_min + tail_min)
    rbo_max = scale * (section_max + tail_max)
    return rbo_min, rbo_max - rbo_min, scale * (section_ext + tail_ext)


def _seen(groups: Sequence[Sequence[Any]], n: int) -> np.ndarray:
    """|R_d| in RBO^w: the items of every group that starts at or above each column."""
    acc = _Columns(n)
    t = 0
    for group in groups:
        acc.add(t, t, np.empty(0), len(group))
        t += len(group)
    return acc.total()
