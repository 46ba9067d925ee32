"""Popularity and calibration of each user's list: average recommendation
popularity (ARP) and Steck's miscalibration.

Both are per-list values (:class:`~rankproof.recsys.beyond.ListValues`), each
needing a side table: ARP the items' popularity in a training log, the
miscalibration each user's history and the items' categories.
"""

from __future__ import annotations

import math
from typing import Literal, Mapping

import numpy as np

from ..errors import USERS_AND_ITEMS, InputError, literal
from .topk import ranked_rows
from ..protocol import Protocol
from .beyond import ListValues, list_mean, popularity
from .coverage import as_run
from .side_params import check_cutoff, one_of

__all__ = ["arp", "miscalibration"]


def _ranked_top(predictions, k: int, protocol: Protocol | None, columns: dict):
    """The run, its top-k rows in rank order (grouped by query), each row's query and 1-based rank."""
    run = as_run(predictions, columns["user"], columns["item"], columns["score"])
    rows, query, rank = ranked_rows(run, k, protocol if protocol is not None else Protocol())
    return run, rows, query, rank


def arp(predictions, k: int, *, training, protocol: Protocol | None = None, user="user",
        item="item",
        score="score", unseen: Literal["zero", "drop"] = "zero") -> ListValues:
    """Average recommendation popularity@k: the mean training popularity of a list's top-k items.

    .. math:: \\mathrm{ARP@}k(u) = \\frac{1}{n} \\sum_{i \\in \\mathrm{top}_k(u)} \\phi(i)

    with phi(i) the interactions of item i in the training log (0 for an item
    it never saw) and n = min(k, list length); the run's value is the mean
    over the lists (Abdollahpouri et al., "Managing popularity bias in
    recommender systems with personalized re-ranking", FLAIRS 2019; RecBole's
    ``AveragePopularity`` and Elliot's ``ARP`` for full lists). An empty list
    is undefined (nan).

    Parameters
    ----------
    training : iterable of item ids (one per interaction), or mapping item -> count
    unseen : {"zero", "drop"}
        An item the training log never saw counts 0 (``zero``), or is left out
        of its list's mean (``drop``: n counts only the trained items, as
        Evidently's ``PopularityBias`` does; a list of such items only is
        undefined).

    Examples
    --------
    Training: a 4 times, b 2, c 1. u gets a, b (mean 3); v gets c, x (x unseen: (1 + 0) / 2).

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b"], "v": ["c", "x"]})
    >>> arp(run, 2, training=["a"] * 4 + ["b"] * 2 + ["c"]).per_query()
    {'u': 3.0, 'v': 0.5}
    """
    k = check_cutoff(k, "arp")
    one_of("unseen", unseen, ("zero", "drop"))
    ids, counts = popularity(training)
    run = as_run(predictions, user, item, score)
    # Each distinct item of the run looked up once, then read per row by its code.
    at_doc = np.minimum(np.searchsorted(ids, run.docs), max(len(ids) - 1, 0))
    found_doc = (ids[at_doc] == run.docs) if len(ids) else np.zeros(len(run.docs), dtype=bool)
    per_doc = np.where(found_doc, counts[at_doc] if len(counts) else 0, 0).astype(np.float64)
    if unseen == "drop":
        per_doc = np.where(found_doc & (per_doc > 0), per_doc, np.nan)
    # Added in rank order, as before (the list means' compiled loop: the same floats).
    return list_mean(run, k, protocol if protocol is not None else Protocol(), per_doc,
                     f"arp{'(unseen=drop)' if unseen == 'drop' else ''}@{k}", ranked=True)


def _genre_matrix(categories) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(sorted item ids, items x genres matrix of p(g|i), genre labels): each item's
    categories weighted equally, as Steck does for items of several genres."""
    if not isinstance(categories, Mapping):
        raise InputError(what="categories must map each item to a category or a set of categories, "
                         "e.g. {{'i1': {{'drama', 'crime'}}, 'i2': 'comedy'}}")
    ids = np.asarray([str(i) for i in categories.keys()])
    sets = [frozenset([v]) if isinstance(v, (str, int)) else frozenset(v)
            for v in categories.values()]
    empty = [ids[i] for i, s in enumerate(sets) if not s]
    if empty:
        raise InputError(what="has no category", doc=str(empty[0]),
                         fix="give every {doc} at least one category").in_words_of(USERS_AND_ITEMS)
    labels = sorted({str(c) for s in sets for c in s})
    index = {label: j for j, label in enumerate(labels)}
    matrix = np.zeros((len(sets), len(labels)))
    for row, s in enumerate(sets):
        for c in s:
            matrix[row, index[str(c)]] = 1.0 / len(s)
    order = np.argsort(ids, kind="stable")
    return ids[order], matrix[order], labels


def _history_pairs(history) -> tuple[np.ndarray, np.ndarray]:
    """(user ids, item ids) as text from a mapping user -> items or a table with user and item columns."""
    if isinstance(history, Mapping):
        users = [str(u) for u, items in history.items() for _ in items]
        items = [str(i) for its in history.values() for i in its]
        return np.asarray(users, dtype=str), np.asarray(items, dtype=str)
    from ..data.run import Run

    table = Run.from_table(history, query="user", doc="item", score=None, source="history")
    user_of_row = np.repeat(np.arange(table.num_queries), np.diff(table.offsets))
    return table.queries[user_of_row], table.docs[table.doc_codes]


def _distribution(owner: np.ndarray, items: np.ndarray, weights: np.ndarray, num_owners: int,
                  ids: np.ndarray, matrix: np.ndarray, what: str) -> np.ndarray:
    """Per owner, the weighted mean of its items' genre distributions (rows of zeros for owners without items)."""
    at = np.minimum(np.searchsorted(ids, items), len(ids) - 1)
    known = ids[at] == items
    if not known.all():
        missing = items[~known][0]
        raise InputError(what=f"{{doc}} {literal(repr(str(missing)))} of {what} has no category",
                         fix="give the categories of every {doc} of the lists and the histories",
                         doc=str(missing)).in_words_of(USERS_AND_ITEMS)
    total = np.zeros((num_owners, matrix.shape[1]))
    np.add.at(total, owner, matrix[at] * weights[:, None])
    mass = total.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mass > 0, total / np.where(mass > 0, mass, 1.0), 0.0)


def miscalibration(predictions, k: int, *, history, categories, alpha: float = 0.01,
                   rank_weight: Literal["uniform", "log"] = "uniform",
                   protocol: Protocol | None = None,
                   user="user", item="item", score="score") -> ListValues:
    """Steck's miscalibration@k: how far a list's category mix is from the user's history's.

    .. math::

        C_{KL}(p, q) = \\sum_g p(g|u) \\ln \\frac{p(g|u)}{\\tilde q(g|u)},
        \\qquad \\tilde q = (1 - \\alpha)\\, q + \\alpha\\, p

    with p(g|u) the mean of p(g|i) over the items i of the user's history,
    q(g|u) the mean over the list's top-k items weighted by rank (``uniform``
    or ``log``: 1 / log2(r + 1)), p(g|i) spread equally over item i's
    categories, and the smoothing alpha keeping q~ > 0 where p > 0 (H. Steck,
    "Calibrated Recommendations", RecSys 2018, eq. 1-4; alpha = 0.01 there).
    In nats; 0 when the list's mix equals the history's. A user with an empty
    history or list is undefined (nan).

    Parameters
    ----------
    history : mapping user -> items, or a table with ``user`` and ``item`` columns
        What each user interacted with (the training data).
    categories : mapping item -> category or iterable of categories
    alpha : float in [0, 1)
    rank_weight : {"uniform", "log"}

    Examples
    --------
    u's history is two dramas and a comedy: p = (comedy 1/3, drama 2/3). Its
    list is one comedy and one drama: q = (1/2, 1/2), q~ = 0.99 q + 0.01 p.

    >>> from rankproof import Run
    >>> genres = {"d1": "drama", "d2": "drama", "c1": "comedy", "c2": "comedy"}
    >>> run = Run.from_dict({"u": ["c2", "d2"]})
    >>> value = miscalibration(run, 2, history={"u": ["d1", "d2", "c1"]}, categories=genres).per_query()["u"]
    >>> q = [0.99 * 0.5 + 0.01 / 3, 0.99 * 0.5 + 0.02 / 3]
    >>> round(value, 12) == round(1 / 3 * math.log((1 / 3) / q[0]) + 2 / 3 * math.log((2 / 3) / q[1]), 12)
    True
    """
    k = check_cutoff(k, "miscalibration")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha < 1:
        raise InputError(what=f"alpha must be in [0, 1); got {literal(repr(alpha))}", value=alpha)
    one_of("rank_weight", rank_weight, ("uniform", "log"))
    ids, matrix, _ = _genre_matrix(categories)
    run, rows, query, rank = _ranked_top(predictions, k, protocol,
                                         dict(user=user, item=item, score=score))
    weights = np.ones(len(rows)) if rank_weight == "uniform" else 1.0 / np.log2(rank + 1.0)
    q = _distribution(query, run.docs[run.doc_codes[rows]], weights, run.num_queries, ids, matrix,
                      "a list")
    users, items = _history_pairs(history)
    owner = np.searchsorted(run.queries, users)
    ranked = (owner < len(run.queries)) & (run.queries[np.minimum(owner, max(len(run.queries) - 1,
                                                                             0))] == users
                                           if len(run.queries)
                                           else np.zeros(len(users), dtype=bool))
    p = _distribution(owner[ranked], items[ranked], np.ones(int(ranked.sum())), run.num_queries,
                      ids, matrix,
                      "a history")
    q_smooth = (1 - alpha) * q + alpha * p
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)
                                           / np.where(q_smooth > 0, q_smooth, 1.0)), 0.0)
    values = terms.sum(axis=1)
    sizes = np.bincount(query, minlength=run.num_queries).astype(np.int64)
    defined = (sizes > 0) & (p.sum(axis=1) > 0)
    if alpha == 0:
        # Without smoothing, a category of the history missing from the list has q = 0: infinitely
        # far.
        values = np.where(((p > 0) & (q <= 0)).any(axis=1), math.inf, values)
    return ListValues(f"miscalibration(alpha={alpha:g},rank_weight={rank_weight})@{k}", run.queries,
                      np.where(defined, values, np.nan), sizes)
