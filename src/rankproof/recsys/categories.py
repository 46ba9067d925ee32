"""Items' category sets held as codes: what ``--features`` gives, read without a Python set per item.

:class:`CategorySets` is the mapping item -> frozenset of categories that
:attr:`~rankproof.recsys.side.Features.categories` holds. The reader
(:func:`~rankproof.recsys.side_io.read_features`) builds it from integer
codes (each distinct category text split once, not each row's), and the
Jaccard distances of ILD read its bitsets straight from the codes
(:meth:`CategorySets.bitsets`). The mapping itself, a frozenset per item, is
made only when a measure reads it (calibration, exposure groups, ...).

Examples
--------
>>> sets = category_sets(np.array(["b", "a", "b"]), [["rock"], ["jazz", "live"], ["pop", "rock"]])
>>> dict(sets) == {"b": frozenset({"rock", "pop"}), "a": frozenset({"jazz", "live"})}
True
>>> list(sets), len(sets)   # in order of first appearance, as a dict filled row by row
(['b', 'a'], 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

__all__ = ["CategorySets", "category_sets", "coded_category_sets"]


class CategorySets(Mapping):
    """Each item's categories as codes: a read-only mapping item -> frozenset of labels.

    Attributes
    ----------
    ids : numpy.ndarray of str
        The items, sorted (``ids``, not ``items``: a mapping's ``items()`` is its pairs).
    offsets : numpy.ndarray of int64
        Item i's categories are ``labels[codes[offsets[i]:offsets[i + 1]]]`` (none: an empty set).
    codes : numpy.ndarray of int64
        Indices into `labels`, increasing within each item.
    labels : numpy.ndarray of str
        The distinct categories, sorted.
    first : numpy.ndarray of int64
        The items in order of first appearance (the mapping's order), as indices into `ids`.
    """

    def __init__(self, ids: np.ndarray, offsets: np.ndarray, codes: np.ndarray, labels: np.ndarray,
                 first: np.ndarray):
        self.ids, self.offsets, self.codes, self.labels, self.first = (ids, offsets, codes, labels,
                                                                       first)
        self._made: "dict[str, frozenset] | None" = None

    def _mapping(self) -> dict[str, frozenset]:
        if self._made is None:
            labels = self.labels.tolist()
            codes, offsets, ids = self.codes.tolist(), self.offsets.tolist(), self.ids.tolist()
            self._made = {ids[i]: frozenset(labels[c] for c in codes[offsets[i]:offsets[i + 1]])
                          for i in self.first.tolist()}
        return self._made

    def __getitem__(self, item: str) -> frozenset:
        return self._mapping()[item]

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self.ids)

    def empty(self) -> "str | None":
        """The first item (in the mapping's order) without a category, or None."""
        sizes = np.diff(self.offsets)[self.first]
        return str(self.ids[self.first[np.argmax(sizes == 0)]]) if (sizes == 0).any() else None

    def bitsets(self) -> np.ndarray:
        """One row of uint64 words per item (`ids`' order): bit c set for category c."""
        words = max(1, (len(self.labels) + 63) // 64)
        bits = np.zeros((len(self.ids), words), dtype=np.uint64)
        row = np.repeat(np.arange(len(self.ids)), np.diff(self.offsets))
        np.bitwise_or.at(bits, (row, self.codes // 64), np.left_shift(np.uint64(1),
                                                                      (self.codes
                                                                       % 64).astype(np.uint64)))
        return bits


def coded_category_sets(items: np.ndarray, label_of_entry: np.ndarray, entry_row: np.ndarray,
                        labels: np.ndarray) -> CategorySets:
    """:class:`CategorySets` from each row's item (text) and its entries: entry e is the category
    ``labels[label_of_entry[e]]`` of row ``entry_row[e]`` (several rows of an item add up; a row
    with no entry still names its item, with an empty set)."""
    ids, first_row, item_of_row = np.unique(items, return_index=True, return_inverse=True)
    # Each (item, category) pair once, sorted by item then category (a sort: numpy's hashed
    # unique of integers is slower here).
    width = max(len(labels), 1)
    pair = np.sort(item_of_row[entry_row].astype(np.int64) * width + label_of_entry)
    pair = pair[np.r_[True, pair[1:] != pair[:-1]]] if len(pair) else pair
    offsets = np.r_[0, np.cumsum(np.bincount(pair // width, minlength=len(ids)))].astype(np.int64)
    return CategorySets(ids, offsets, (pair % width).astype(np.int64), labels,
                        np.argsort(first_row, kind="stable").astype(np.int64))


def category_sets(items: np.ndarray, parts: Sequence[Sequence[str]]) -> CategorySets:
    """:class:`CategorySets` from each row's item and its list of categories."""
    flat = [label for row in parts for label in row]
    labels, label_of_entry = np.unique(np.asarray(flat, dtype=str), return_inverse=True)
    entry_row = np.repeat(np.arange(len(parts)), [len(row) for row in parts])
    return coded_category_sets(np.asarray(items, dtype=str), label_of_entry.astype(np.int64),
                               entry_row,
                               labels if len(flat) else np.zeros(0, dtype="<U1"))
