"""Significant pairs at a glance: the compact letter display and the matrix of pairs.

Compact letter display: H.-P. Piepho, "An algorithm for a letter-based
representation of all-pairwise comparisons", Journal of Computational and
Graphical Statistics 13(2), 2004 (the insert-absorb algorithm). Systems that
share a letter are not significantly different; two systems with no letter
in common are. Letters go in order of the best mean: 'a' marks the group of
the best system.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["compact_letters", "pair_matrix"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _absorb(columns: list[frozenset]) -> list[frozenset]:
    """Drop duplicate columns and those contained in another (Piepho's absorb step)."""
    unique = list(dict.fromkeys(columns))
    return [column for column in unique if not any(column < other for other in unique)]


def compact_letters(means: Sequence[float], significant: Sequence[tuple[int, int]]) -> list[str]:
    """One string of letters per system (in the order of ``means``), from the significant pairs (indices).

    Examples
    --------
    Three systems, only the best and the worst differ: a, ab, b.

    >>> compact_letters([0.5, 0.4, 0.3], [(0, 2)])
    ['a', 'ab', 'b']
    >>> compact_letters([0.5, 0.4, 0.3], [])
    ['a', 'a', 'a']
    """
    count = len(means)
    columns = [frozenset(range(count))]
    for first, second in significant:
        split: list[frozenset] = []
        for column in columns:
            if first in column and second in column:
                split += [column - {first}, column - {second}]
            else:
                split.append(column)
        columns = _absorb(split)
    # 'a' for the column holding the best mean, then by the next best.
    columns.sort(key=lambda column: sorted((-means[i], i) for i in column))
    if len(columns) > len(_LETTERS):
        return ["".join("*" if i in column else "." for column in columns) for i in range(count)]
    return ["".join(_LETTERS[k] for k, column in enumerate(columns) if i in column)
            for i in range(count)]


def pair_matrix(systems: Sequence[str], means: Sequence[float],
                tested: dict[tuple[int, int], bool]) -> str:
    """Text matrix, best mean first: '+' the row is significantly better than the column, '-' worse,
    '.' not significant, blank not tested (or the diagonal).

    >>> print(pair_matrix(["x", "y"], [0.2, 0.5], {(0, 1): True}))
         y  x
      y     +
      x  -
    """
    order = sorted(range(len(systems)), key=lambda i: (-means[i], i))
    width = max(len(name) for name in systems)
    cell = max(2, width)

    def mark(row: int, column: int) -> str:
        key = (row, column) if (row, column) in tested else (column, row)
        if row == column or key not in tested:
            return ""
        if not tested[key]:
            return "."
        return "+" if means[row] > means[column] else "-"

    lines = [" " * (width + 3) + " ".join(systems[i].rjust(cell) for i in order)]
    for row in order:
        cells = " ".join(mark(row, column).rjust(cell) for column in order)
        lines.append(f"  {systems[row].ljust(width)}{(' ' + cells).rstrip()}")
    return "\n".join(lines)
