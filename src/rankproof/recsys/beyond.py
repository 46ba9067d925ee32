"""Beyond accuracy: measures of a recommender's lists that need side data.

Accuracy measures (ndcg, ap, ...) need only the lists and the judgments, and
live in the measure registry. The measures here also need something about the
items, so they are functions taking the run and that side data:

==========================  ====================================  ==================
function                    side data                             value per list
==========================  ====================================  ==================
:func:`ild`                 item feature vectors (cosine) or      mean pairwise
                            category sets (Jaccard)               distance in top k
:func:`novelty`             a training log (item popularity)      mean -log2 p(i)
:func:`long_tail_share`     a training log (item popularity)      share of tail items
==========================  ====================================  ==================

(:func:`rankproof.recsys.coverage.coverage` is the catalogue measure of the same
kind; it describes a whole run, not a list. The per-session means,
:func:`~rankproof.recsys.sessions.session_mean`, moved to :mod:`~rankproof.recsys.sessions`
and are still importable from here.)

Every list function returns :class:`ListValues`: one value per query (user)
of the run, ``nan`` where the value is undefined (a list of fewer than 2 items
has no pair for ILD; an empty list has no mean), with ``per_query()`` and
``mean`` as :class:`~rankproof.results.Results` have, undefined lists left out
of the mean and counted. The top k of each list is taken under the protocol's
``ties`` policy as for coverage: ``input`` and ``docid`` order a tied group
that crosses the cutoff, ``expected`` and ``error`` refuse it (a set of the
top k is then not determined by the scores).

Predictions are a :class:`~rankproof.data.run.Run` or a table with user, item
and score columns, as for :func:`rankproof.evaluate_frame`.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Mapping

import numpy as np

from .coverage import as_run
from ..data.run import Run
from ..errors import USERS_AND_ITEMS, InputError, RankproofError
from .side import Interactions
from .._libs.lists import list_sums_read
from .categories import CategorySets, category_sets
from .list_values import ListValues
from .topk import read_cut, shared_value, slot_counts, sorted_top_rows, top_offsets
from ..protocol import Protocol
from ..errors import literal

__all__ = ["ListValues", "ild", "feature_vectors", "novelty", "long_tail_share", "popularity",
           "list_mean",
           "Distance", "Unseen"]

# The options of ild's distance and novelty's items unseen in training.
Distance = Literal["cosine", "jaccard"]
Unseen = Literal["error", "laplace", "drop"]


def _item_error(**fields: Any) -> RankproofError:
    """An error about the users' lists, worded with users and items."""
    return InputError(**fields).in_words_of(USERS_AND_ITEMS)


def _check_k(k: Any, name: str) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(what=f"the cutoff k of {name} must be an integer >= 1; got {literal(repr(k))}. "
                         f"Write {name}(run, 10, ...)", value=k)
    return int(k)


def _lookup(ids: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position of each wanted id among sorted `ids`, and whether it is there."""
    if ids.size == 0:
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    return at, ids[at] == wanted


def _lookup_rows(ids: np.ndarray, run: Run, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_lookup` of the item of each row, searched once per distinct item of the run."""
    at, found = _lookup(ids, run.docs)
    codes = run.doc_codes[rows]
    return at[codes], found[codes]


def _missing_item(run: Run, rows: np.ndarray, query: np.ndarray, found: np.ndarray, what: str,
                  fix: str) -> RankproofError:
    i = int(np.flatnonzero(~found)[0])
    return _item_error(what=f"has no {what} ({int((~found).sum())} recommended {{docs}} lack one)",
                       fix=fix,
                       source=run.source, query=run.queries[query[i]],
                       doc=run.docs[run.doc_codes[rows[i]]])


# -- intra-list diversity ---------------------------------------------------------


def feature_vectors(features) -> tuple[np.ndarray, np.ndarray]:
    """(sorted ids, matrix) from {id: vector} or an (ids, matrix) pair (what ``features=`` takes
    in :func:`ild` and :func:`rankproof.recsys.serendipity.serendipity`), validated."""
    if isinstance(features, Mapping):
        ids = np.asarray([str(i) for i in features.keys()])
        try:
            matrix = np.asarray([np.asarray(v, dtype=np.float64).reshape(-1)
                                 for v in features.values()])
        except (TypeError, ValueError):
            raise InputError(what="features must map each item to a vector of numbers, e.g. {{'i1': [0.2, 0.7]}}, "
                             "or be an (ids, matrix) pair") from None
    else:
        try:
            ids_in, matrix_in = features
        except (TypeError, ValueError):
            raise InputError(what="features must be a mapping {{item: vector}} or an (ids, matrix) pair") from None
        ids = np.asarray(ids_in).astype(str).reshape(-1)
        matrix = np.asarray(matrix_in, dtype=np.float64)
    if matrix.ndim != 2 or len(matrix) != len(ids):
        raise InputError(what=f"features must give one vector of the same length per item; got {len(ids)} ids and "
                         f"an array of shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise InputError(what="feature vectors must hold finite numbers")
    order = np.argsort(ids, kind="stable")
    ids, matrix = ids[order], matrix[order]
    if (ids[1:] == ids[:-1]).any():
        raise _item_error(what="has two feature vectors", fix="give one per {doc}",
                          doc=ids[1:][ids[1:] == ids[:-1]][0])
    return ids, matrix


def _category_bits(categories) -> tuple[np.ndarray, np.ndarray]:
    """(sorted ids, uint64 bitsets) from {id: category or iterable of categories} (a
    :class:`~rankproof.recsys.categories.CategorySets`, as read from ``--features``, holds the codes)."""
    if not isinstance(categories, CategorySets):
        if not isinstance(categories, Mapping):
            raise InputError(what="categories must map each item to a category or a set of categories, "
                             "e.g. {{'i1': {{'jazz', 'live'}}, 'i2': 'rock'}}")
        sets = [frozenset([v]) if isinstance(v, (str, int)) else frozenset(v)
                for v in categories.values()]
        categories = category_sets(np.asarray([str(i) for i in categories.keys()]),
                                   [[str(c) for c in s] for s in sets])
    empty = categories.empty()
    if empty is not None:
        raise _item_error(what="has no category", doc=empty,
                          fix="give every {doc} at least one (Jaccard distance is not defined between empty sets)")
    return categories.ids, categories.bitsets()


def _cosine_similarity_sums(run: Run, k: int, protocol: Protocol, features,
                            sizes: np.ndarray) -> np.ndarray:
    """Per list, the sum of the cosine similarities of its top-k pairs."""
    from scipy import sparse

    rows, query = sorted_top_rows(run, k, protocol)
    ids, matrix = feature_vectors(features)
    at, found = _lookup_rows(ids, run, rows)
    if not found.all():
        raise _missing_item(run, rows, query, found, "feature vector",
                            "give features for every recommended item")
    norms = np.linalg.norm(matrix, axis=1)
    if (norms[at] == 0).any():
        i = int(np.flatnonzero(norms[at] == 0)[0])
        raise _item_error(what="has a zero feature vector, so its cosine distance is not defined",
                          fix="give it a nonzero vector", source=run.source,
                          query=run.queries[query[i]],
                          doc=run.docs[run.doc_codes[rows[i]]])
    unit = matrix / np.where(norms > 0, norms, 1.0)[:, None]
    # Sum of cosines over pairs i < j: (|sum of unit vectors|^2 - n) / 2. The
    # sums per list are one sparse (lists x items) by dense (items x dim)
    # product, without a copy of a vector per recommended item.
    membership = sparse.csr_matrix((np.ones(len(at)), (query, at)),
                                   shape=(run.num_queries, len(ids)))
    summed = np.asarray(membership @ unit)
    return ((summed * summed).sum(axis=1) - sizes) / 2.0


def _jaccard_sums(run: Run, k: int, protocol: Protocol, categories) -> np.ndarray:
    """Per list, the sum of the Jaccard distances of its top-k pairs: a compiled loop over the
    lists (threads split them) reads each row's bitset through its item's code, no copy per row."""
    from .._libs.lists import jaccard_pair_sums_read

    rows, offsets = read_cut(run, k, protocol), top_offsets(run, k)
    # The items' bitsets are built once per categories mapping and shared by the runs evaluated.
    ids, bits = shared_value("category bits", categories, lambda: _category_bits(categories))
    at, found = _lookup(ids, run.docs)
    if not found.all() and (slot_counts(run, k, protocol)[~found] > 0).any():
        rows, query = sorted_top_rows(run, k, protocol)
        raise _missing_item(run, rows, query, found[run.doc_codes[rows]], "category",
                            "give categories for every recommended item")
    return jaccard_pair_sums_read(offsets, rows, run.offsets, run.doc_codes, at, bits)


def ild(predictions, k: int, *, features=None, categories=None, distance: Distance | None = None,
        protocol: Protocol | None = None, user="user", item="item", score="score",
        normaliser: Literal["pairs", "n"] = "pairs") -> ListValues:
    """Intra-list diversity ILD@k: the mean distance between two items of a top-k list.

    .. math::

        \\mathrm{ILD@}k = \\frac{2}{n (n - 1)} \\sum_{i < j \\le n} d(i, j),
        \\qquad n = \\min(k, |L|)

    (Ziegler et al. 2005; Castells et al., *Novelty and Diversity in
    Recommender Systems*). Undefined (``nan``, left out of the mean) for a
    list of fewer than 2 items.

    Parameters
    ----------
    predictions : Run, or a table / path as for :func:`rankproof.evaluate_frame`
    k : int
    features : mapping item -> vector, or (ids, matrix)
        For ``distance="cosine"`` (the default with features):
        d(i, j) = 1 - cos(x_i, x_j). A zero vector is refused.
    categories : mapping item -> category or iterable of categories
        For ``distance="jaccard"`` (the default with categories):
        d(i, j) = 1 - |C_i & C_j| / |C_i | C_j|; one category per item makes
        it 0 for the same category and 1 otherwise.
    distance : {"cosine", "jaccard"}, optional
    protocol : Protocol, optional
        Its ``ties`` policy decides the top k (see the module docstring).
    user, item, score : str
        Columns when `predictions` is a table.

    Notes
    -----
    Every recommended item inside the cutoff needs features (or categories);
    a missing one is an error naming the user and item.

    Examples
    --------
    Three items: a = (1, 0), b = (0, 1), c = (1, 1). Cosine distances:
    d(a, b) = 1, d(a, c) = d(b, c) = 1 - 1/sqrt(2) = 0.2929. u's top 3 has the
    three pairs: (1 + 2 x 0.2929) / 3 = 0.5286; v's top 3 is a, c: 0.2929;
    w's single item has no pair.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "c"], "w": ["b"]})
    >>> vectors = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> result = ild(run, 3, features=vectors)
    >>> {q: round(v, 4) for q, v in result.per_query().items()}, result.undefined
    ({'u': 0.5286, 'v': 0.2929}, 1)
    >>> round(result.mean, 4)   # (0.5286 + 0.2929) / 2
    0.4107

    Categories, Jaccard: {jazz}, {jazz, live}, {rock}: d = 1 - 1/2, 1, 1.

    >>> genres = {"a": "jazz", "b": {"jazz", "live"}, "c": "rock"}
    >>> round(ild(run, 3, categories=genres).per_query()["u"], 4)   # (0.5 + 1 + 1) / 3
    0.8333
    """
    k = _check_k(k, "ild")
    if normaliser not in ("pairs", "n"):
        raise InputError(what=f"normaliser must be 'pairs' or 'n'; got {literal(repr(normaliser))}",
                         value=normaliser)
    if (features is None) == (categories is None):
        raise InputError(what="ild needs features=(item vectors) for cosine distance or categories=(item "
                         "categories) for Jaccard distance", fix="give exactly one")
    distance = distance or ("cosine" if features is not None else "jaccard")
    if distance not in ("cosine", "jaccard") or (distance == "cosine") != (features is not None):
        raise InputError(what=f"distance {literal(repr(distance))} does not fit: cosine takes features=, jaccard "
                         "takes categories=", value=distance)
    run = as_run(predictions, user, item, score)
    protocol = protocol if protocol is not None else Protocol()
    sizes = np.diff(top_offsets(run, k))
    pairs = sizes * (sizes - 1) / 2.0
    if distance == "cosine":
        distance_sum = pairs - _cosine_similarity_sums(run, k, protocol, features, sizes)
    else:
        distance_sum = _jaccard_sums(run, k, protocol, categories)
    with np.errstate(invalid="ignore", divide="ignore"):
        # Evidently's DiversityMetric: the sum over pairs / the list's length
        if normaliser == "n":
            values = np.where(sizes >= 1, np.where(sizes >= 2, distance_sum, 0.0)
                              / np.maximum(sizes, 1), np.nan)
        else:
            values = np.where(sizes >= 2, distance_sum / np.maximum(pairs, 1), np.nan)
    name = f"ild(distance={distance}{',normaliser=n' if normaliser == 'n' else ''})@{k}"
    return ListValues(name, run.queries, values, sizes)


# -- popularity: novelty and the long tail ------------------------------------------


def popularity(training) -> tuple[np.ndarray, np.ndarray]:
    """Interactions per item of a training log: (sorted item ids, counts).

    Parameters
    ----------
    training : iterable of item ids (one per interaction), mapping item -> count, or
        the ``Interactions`` of ``SideData.train`` (their counts, counted once and shared)

    Examples
    --------
    >>> popularity(["b", "a", "b", "b"])
    (array(['a', 'b'], dtype='<U1'), array([1, 3]))
    """
    if isinstance(training, Interactions):
        return training.popularity()
    if isinstance(training, Mapping):
        ids = np.asarray([str(i) for i in training.keys()])
        counts = np.asarray(list(training.values()))
        # Floats are whole counts past int64 (Interactions.popularity adds those as floats, not to
        # wrap).
        if counts.dtype.kind not in "iuf" or (counts < 0).any() or (
                counts.dtype.kind == "f"
                and not (np.isfinite(counts) & (counts == np.floor(counts))).all()):
            raise InputError(what="popularity counts must be non-negative integers, e.g. {{'i1': 12, 'i2': 3}}")
        order = np.argsort(ids, kind="stable")
        return (ids[order],
                counts[order].astype(np.float64 if counts.dtype.kind == "f" else np.int64))
    if isinstance(training, (str, bytes)):
        raise InputError(what="the training log must be a list of item ids (one per interaction) or a mapping "
                         "item -> count")
    values = np.asarray(list(training) if not isinstance(training, np.ndarray)
                        else training).astype(str).reshape(-1)
    if values.size == 0:
        raise InputError(what="the training log is empty",
                         fix="give the item of every training interaction")
    ids, counts = np.unique(values, return_counts=True)
    return ids, counts.astype(np.int64)


def list_mean(run: Run, k: int, protocol: Protocol, per_doc: np.ndarray, name: str, *,
              ranked: bool = False) -> ListValues:
    """Each list's mean over its top-k items of a value per item (``per_doc``, one per code of
    ``run.docs``; nan: the item is left out of its list, and of n); undefined (nan) for a list
    with no item left.

    A compiled loop over the lists reads each row's item through the shared cut (no copy of a
    value per row) and adds the values from 0.0 in the rows' order, input order (or rank order
    when `ranked`), as ``np.bincount(list, weights=...)`` adds them: the same floats.
    """
    total, sizes = list_sums_read(top_offsets(run, k), read_cut(run, k, protocol, ranked=ranked),
                                  run.offsets, run.doc_codes,
                                  np.ascontiguousarray(per_doc, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(sizes > 0, total / np.maximum(sizes, 1), np.nan)
    return ListValues(name, run.queries, values, sizes)


def novelty(predictions, k: int, *, training, unseen: Unseen = "error",
            protocol: Protocol | None = None,
            user="user", item="item", score="score", total: "float | None" = None) -> ListValues:
    """Novelty@k: the mean self-information of the top-k items, from their
    popularity in a training log.

    .. math::

        \\mathrm{novelty@}k = \\frac{1}{n} \\sum_{i \\in \\mathrm{top}_k} -\\log_2 p(i),
        \\qquad p(i) = \\frac{c_i}{N}

    with c_i the training interactions of item i and N all training
    interactions (Zhou et al. 2010; Vargas and Castells 2011). In bits; an
    empty list is undefined (nan).

    Parameters
    ----------
    training : iterable of item ids (one per interaction), or mapping item -> count
    unseen : {"error", "laplace", "drop"}
        An item recommended but never seen in training has p = 0 (infinite
        information): an error naming it, or add-one smoothing for every item,
        p(i) = (c_i + 1) / (N + |I|), with I the items of the training log and
        of the predictions, or left out of its list's mean (``drop``, as
        Evidently's ``NoveltyMetric``; a list of such items only is undefined).
    total : float, optional
        The N of p(i) = c_i / N: by default the sum of the counts. Evidently
        counts c_i as the users who interacted with item i and N as the users
        of the training log (:data:`rankproof.recsys.registry` ``novelty(preset=evidently)``).

    Examples
    --------
    Training: a 4 times, b 2, c 1, d 1 (N = 8): p = 1/2, 1/4, 1/8, 1/8, so
    -log2 p = 1, 2, 3, 3 bits.

    >>> from rankproof import Run
    >>> train = ["a"] * 4 + ["b"] * 2 + ["c", "d"]
    >>> run = Run.from_dict({"u": ["a", "b"], "v": ["c", "d", "a"]})
    >>> novelty(run, 2, training=train).per_query()   # u: (1 + 2) / 2; v: (3 + 3) / 2
    {'u': 1.5, 'v': 3.0}
    """
    k = _check_k(k, "novelty")
    if unseen not in ("error", "laplace", "drop"):
        raise InputError(what=f"unseen must be 'error', 'laplace' or 'drop'; got {literal(repr(unseen))}",
                         value=unseen)
    ids, counts = popularity(training)
    run = as_run(predictions, user, item, score)
    protocol = protocol if protocol is not None else Protocol()
    # Each distinct item of the run: its count and its information, read per row by its code.
    at, found = _lookup(ids, run.docs)
    item_counts = np.where(found, counts[at] if len(counts) else 0, 0).astype(np.float64)
    # The total as a float sum: an int64 sum past 2**63 wraps to a negative N (issue 36).
    total = float(counts.sum(dtype=np.float64)) if total is None else float(total)
    if unseen == "laplace":
        catalogue = np.union1d(ids, run.docs).size
        p = (item_counts + 1.0) / (total + catalogue)
    else:
        p = item_counts / total
    # p = 0 for an item never trained on: below
    with np.errstate(divide="ignore", invalid="ignore"):
        information = -np.log2(p)
    known = found & (item_counts > 0)
    if unseen == "drop":
        return list_mean(run, k, protocol, np.where(known, information, np.nan),
                         f"novelty(unseen=drop)@{k}")
    if unseen == "error" and not known.all():
        rows, query = sorted_top_rows(run, k, protocol)
        if not known[run.doc_codes[rows]].all():
            raise _missing_item(run, rows, query, known[run.doc_codes[rows]],
                                "interaction in the training log",
                                "pass unseen='laplace' for add-one smoothing, or train on a log that has it")
    return list_mean(run, k, protocol, information, f"novelty(unseen={unseen})@{k}")


def long_tail_share(predictions, k: int, *, training, head: float = 0.2,
                    protocol: Protocol | None = None,
                    user="user", item="item", score="score") -> ListValues:
    """Long-tail share@k: the share of the top-k items outside the popular head.

    .. math:: \\mathrm{LT@}k = \\frac{|\\{i \\in \\mathrm{top}_k : i \\notin H\\}|}{n}

    The head H is the ``ceil(head x |I|)`` most interacted-with items of the
    training log (I its items; default the top 20%), plus every item with as
    many interactions as the last of them, so that ties do not split on item
    ids. Items never seen in training are in the tail. An empty list is
    undefined (nan).

    Examples
    --------
    Training counts a 5, b 3, c 3, d 1, e 1 (5 items): the head is the top
    ceil(0.2 x 5) = 1 item, a. With head=0.4 it is a and b, and c too (tied
    with b at 3).

    >>> from rankproof import Run
    >>> train = {"a": 5, "b": 3, "c": 3, "d": 1, "e": 1}
    >>> run = Run.from_dict({"u": ["a", "b", "d", "x"]})
    >>> long_tail_share(run, 4, training=train).per_query()   # b, d, x of 4
    {'u': 0.75}
    >>> long_tail_share(run, 4, training=train, head=0.4).per_query()   # d, x of 4
    {'u': 0.5}
    """
    k = _check_k(k, "long_tail_share")
    if isinstance(head, bool) or not isinstance(head, (int, float)) or not 0 < head < 1:
        raise InputError(what="head must be a share of the items between 0 and 1 (exclusive), e.g. 0.2; got "
                         f"{literal(repr(head))}", value=head)
    ids, counts = popularity(training)
    if len(ids) == 0:
        raise InputError(what="the training log has no item",
                         fix="give the item of every training interaction")
    size = math.ceil(head * len(ids))
    threshold = np.sort(counts)[::-1][size - 1]
    head_ids = ids[counts >= threshold]
    run = as_run(predictions, user, item, score)
    _, in_head = _lookup(head_ids, run.docs)
    return list_mean(run, k, protocol if protocol is not None else Protocol(),
                     (~in_head).astype(np.float64),
                     f"long_tail_share(head={head:g})@{k}")


def __getattr__(name: str):
    """session_mean and SessionMean moved to :mod:`.sessions`; still importable from here."""
    if name in ("session_mean", "SessionMean"):
        from . import sessions

        return getattr(sessions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
