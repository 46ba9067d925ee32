"""Side data: what beyond-accuracy measures know about the items and users besides the lists.

:class:`SideData` holds the four kinds a measure may need, each optional:

==============  ==================  ===============================================
field           command line        what
==============  ==================  ===============================================
``items``       ``--items``         the item catalogue (sorted distinct ids)
``train``       ``--train``         training interactions (:class:`Interactions`)
``features``    ``--features``      item feature vectors or category sets (:class:`Features`)
``groups``      ``--groups``        user -> group (:class:`Groups`)
==============  ==================  ===============================================

The readers (:func:`rankproof.recsys.side_io.read_side_data`) build them from
Parquet, CSV/TSV, JSONL or a DataFrame with the same readers and limits as logs.

A fifth field, ``judgments``, has no flag: it is the evaluation's own judgments
(the qrels of ``rankproof evaluate``), set by the evaluation
(:meth:`SideData.with_judgments`) for the measures that read which items are
relevant (AUC, GAUC, PopREO: ``SideSpec.judgments``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import InputError

__all__ = ["SideData", "Interactions", "Features", "Groups", "SIDE_KINDS", "SIDE_FLAGS",
           "summed_counts"]

# The kinds of side data, in the order the command line lists them, and their flags.
SIDE_KINDS = ("items", "train", "features", "groups")
SIDE_FLAGS = {"items": "--items", "train": "--train", "features": "--features",
              "groups": "--groups"}


def summed_counts(codes: np.ndarray, counts: np.ndarray, size: int) -> np.ndarray:
    """The counts added up per code: int64 while every sum is exact in float64 (below 2**53), else float64.

    Sums of counts never wrap: int64 sums past 2**63 would turn negative (issue 36: novelty
    -0.07 for 1.58), so counts that large are added as floats (relative error 1e-16).

    >>> summed_counts(np.array([0, 1, 0]), np.array([2**62, 1, 2**62]), 2)
    array([9.22337204e+18, 1.00000000e+00])
    """
    summed = np.bincount(codes, weights=counts, minlength=size)
    if counts.sum(dtype=np.float64) < 2.0**53:   # every partial sum exact: the integers themselves
        return summed.astype(np.int64)
    return summed


class Interactions:
    """Training interactions: one row per (user, item), with a count (1 unless given).

    Attributes
    ----------
    users : numpy.ndarray of str, or None
        The user of each row (None: a popularity table with no users).
    items : numpy.ndarray of str
    counts : numpy.ndarray of int64
        Interactions the row stands for (>= 0).
    source : str
    item_popularity : (sorted item ids, interactions per item), optional
        :meth:`popularity`, when the reader has counted it already (from the items' codes); else
        counted at the first call and kept, so that every measure reading it shares one count.

    `users`, `items` and `counts` may be given as functions that make the arrays (as
    :func:`~rankproof.recsys.side_io.read_train` does):
    each is then made at its first reading only. Most measures read the items' counts alone,
    and a log of millions of rows would otherwise turn every row's ids into text for nothing.
    Read-only once made, as a frozen dataclass is.
    """

    __slots__ = ("_users", "_items", "_counts", "source", "item_popularity")
    source: str
    item_popularity: "tuple[np.ndarray, np.ndarray] | None"

    def __init__(self, users: "np.ndarray | Callable[[], np.ndarray | None] | None",
                 items: "np.ndarray | Callable[[], np.ndarray]",
                 counts: "np.ndarray | Callable[[], np.ndarray]",
                 source: str = "train",
                 item_popularity: "tuple[np.ndarray, np.ndarray] | None" = None):
        for name, value in (("_users", users), ("_items", items), ("_counts", counts),
                            ("source", source),
                            ("item_popularity", item_popularity)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __reduce__(self):
        # Pickled (Spark sends the side data to its workers) with its arrays made: a function is
        # not.
        return (Interactions,
                (self.users, self.items, self.counts, self.source, self.item_popularity))

    def _made(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if callable(value):
            value = value()
            object.__setattr__(self, name, value)
        return value

    @property
    def users(self) -> "np.ndarray | None":
        """The user of each row as text (None: a popularity table), made at the first reading."""
        return self._made("_users")

    @property
    def items(self) -> np.ndarray:
        """The item of each row as text, made at the first reading."""
        return self._made("_items")

    @property
    def counts(self) -> np.ndarray:
        """Interactions each row stands for, made at the first reading."""
        return self._made("_counts")

    def __repr__(self) -> str:
        return f"Interactions({self.source!r})"

    def popularity(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted item ids, interactions per item), counted once."""
        table = self.item_popularity
        if table is None:
            ids, inverse = np.unique(self.items, return_inverse=True)
            table = (ids, summed_counts(inverse, self.counts, len(ids)))
            # A cache of a value the fields determine: set on the frozen instance once.
            object.__setattr__(self, "item_popularity", table)
        return table

    def user_counts(self) -> tuple[dict[str, int], int]:
        """``({item: distinct users who interacted with it}, distinct users)``: Evidently's popularity
        (its ``TrainStats``); refused for a popularity table, which has no users."""
        if self.users is None:
            raise InputError(what="this measure counts the users of each item, and the training data is a "
                             "popularity table without users",
                             fix="give --train with a user column")
        pairs = np.unique(np.stack([self.users.astype(str), self.items.astype(str)]), axis=1)
        ids, counts = np.unique(pairs[1], return_counts=True)
        return dict(zip(ids.tolist(), counts.tolist())), int(np.unique(pairs[0]).size)

    def popularity_map(self) -> dict[str, int]:
        """``{item: interactions}``, as the popularity functions of :mod:`~rankproof.recsys.beyond` take."""
        ids, counts = self.popularity()
        return dict(zip(ids.tolist(), counts.tolist()))


@dataclasses.dataclass(frozen=True)
class Features:
    """Item features: numeric vectors, or category sets, or both.

    Attributes
    ----------
    vectors : (ids, matrix) or None
        Sorted item ids and one float64 row per item (cosine distances).
    categories : dict item -> frozenset of str, or None
        Each item's categories (genres): Jaccard distances, calibration.
    source : str
    """

    vectors: "tuple[np.ndarray, np.ndarray] | None" = None
    categories: "Mapping[str, frozenset] | None" = None
    source: str = "features"


@dataclasses.dataclass(frozen=True)
class Groups:
    """User groups: each user's group label.

    Attributes
    ----------
    users : numpy.ndarray of str (sorted)
    labels : numpy.ndarray of str
    source : str
    """

    users: np.ndarray
    labels: np.ndarray
    source: str = "groups"

    def as_dict(self) -> dict[str, str]:
        return dict(zip(self.users.tolist(), self.labels.tolist()))


@dataclasses.dataclass(frozen=True)
class SideData:
    """Side data for beyond-accuracy measures; any field may be None (not given)."""

    items: "np.ndarray | None" = None
    train: "Interactions | None" = None
    features: "Features | None" = None
    groups: "Groups | None" = None
    judgments: Any = None

    def with_judgments(self, qrels: Any) -> "SideData":
        """The same side data with the evaluation's judgments (a :class:`~rankproof.Qrels`)."""
        return dataclasses.replace(self, judgments=qrels)

    def relevant(self, rel: "int | float" = 1) -> dict[str, set[str]]:
        """user -> the items judged relevant (grade >= `rel`, the protocol's ``rel``), from ``judgments``.

        >>> from rankproof import Qrels
        >>> SideData().with_judgments(Qrels.from_dict({"u": {"a": 1, "b": 0}, "v": {"c": 2}})).relevant()
        {'u': {'a'}, 'v': {'c'}}
        """
        qrels = self.judgments
        if qrels is None or not hasattr(qrels, "grades"):
            raise InputError(what="the judgments were not given, or are judgments per intent",
                             fix="evaluate with one qrels file (rankproof evaluate QRELS RUN)")
        keep = np.asarray(qrels.grades) >= rel
        found: dict[str, set[str]] = {str(q): set() for q in qrels.queries.tolist()}
        query_of = np.repeat(np.arange(len(qrels.queries)), np.diff(qrels.offsets))
        users = qrels.queries[query_of[keep]].tolist()
        for user, item in zip(users, qrels.docs[qrels.doc_codes[keep]].tolist()):
            found[str(user)].add(str(item))
        return found

    def needed(self, kind: str):
        """The side data of `kind` (``"train"``, ``"features"``, ...), refused in one line naming its
        flag when it was not given (the registry checks before any measure runs; this says it again
        where a value is read, instead of an ``assert`` that ``python -O`` drops)."""
        value = getattr(self, kind)
        if value is None:
            raise InputError(what=f"the {kind} side data was not given",
                             fix=f"give it with {SIDE_FLAGS[kind]}")
        return value

    def training_history(self, what: str) -> dict[str, list[str]]:
        """user -> the user's training items (in file order, repeats kept), from ``train``.

        Refused in one line (an :class:`~rankproof.errors.InputError`: the input lacks something, as
        :meth:`needed` says) when ``--train`` was not given or has no user column; `what` names the
        measure that asked, e.g. ``"pop_rsp@10"``.

        >>> train = Interactions(np.array(["u", "v", "u"]), np.array(["a", "b", "c"]), np.ones(3, np.int64))
        >>> SideData(train=train).training_history("pop_rsp@10")
        {'u': ['a', 'c'], 'v': ['b']}
        """
        train = self.train
        if train is None or train.users is None:
            raise InputError(what=f"{what} needs each user's training items",
                             fix="give --train with a user column")
        history: dict[str, list[str]] = {}
        for user, item in zip(train.users.tolist(), train.items.tolist()):
            history.setdefault(str(user), []).append(str(item))
        return history

    def given(self) -> tuple[str, ...]:
        """The kinds present, in :data:`SIDE_KINDS` order."""
        return tuple(kind for kind in SIDE_KINDS if getattr(self, kind) is not None)

    def catalogue(self) -> "np.ndarray | None":
        """The item catalogue: ``items`` if given, else the items of the training log."""
        if self.items is not None:
            return self.items
        if self.train is not None:
            return np.unique(self.train.items)
        return None
