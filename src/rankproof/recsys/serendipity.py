"""Serendipity: how unexpected a user's recommended items are given that user's history, and whether
they are relevant.

For a user u with history H_u (the distinct items of u's training interactions)
and top-k list L_u:

.. math::

    \\mathrm{unexp}(u, i) = 1 - \\frac{1}{|H_u|} \\sum_{j \\in H_u} \\mathrm{sim}(i, j), \\qquad
    \\mathrm{serendipity@}k(u) = \\frac{1}{|L_u|} \\sum_{i \\in L_u} \\mathrm{unexp}(u, i)\\, \\mathrm{rel}(u, i)

(Zhang, Ó Séaghdha, Quercia and Jambor, "Auralist: introducing serendipity
into music recommendation", WSDM 2012, for the unexpectedness; Ge, Delgado-
Battenfeld and Jannach, "Beyond accuracy", RecSys 2010, and Kaminskas and
Bridge, "Diversity, serendipity, novelty, and coverage", ACM TiiS 2016, for
serendipity as unexpected *and* relevant). The run's value is the mean over
the users with a history and a list; the others are undefined (nan).

The policies, stated:

- ``similarity``: ``cosine`` of the items' numeric feature vectors (a zero
  vector is similar to nothing: 0), ``jaccard`` of their category sets, or
  ``cooccurrence``: the cosine of the items' user sets in the history,
  :math:`|U_i \\cap U_j| / \\sqrt{|U_i||U_j|}` (0 for an item no user has);
- ``relevance``: ``binary`` (1 when the item is relevant to the user in the
  judgments, else 0) or ``one`` (every item relevant: the value is the mean
  unexpectedness);
- an item of the list that is also in the user's history is kept, and counts
  its similarity 1 with itself (Microsoft Recommenders refuses such a pair).

Presets, where the libraries differ:

- ``recommenders``: Microsoft Recommenders' ``python_evaluation.serendipity``
  with its defaults (``item_sim_measure="item_cooccurrence_count"``, no
  relevance column): ``similarity=cooccurrence, relevance=one``;
- ``recommenders_features``: the same with ``item_sim_measure="item_feature_vector"``:
  ``similarity=cosine, relevance=one``.

Recommenders drops a user without history (an inner join), as the nan here
does. RecBole, Elliot, RecPack and LensKit have no serendipity measure.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..errors import USERS_AND_ITEMS, InputError, literal
from ..protocol import Protocol
from .beyond import ListValues, feature_vectors
from .ranked import check_cutoff, item_sets, ranked_top
from .side_params import one_of

__all__ = ["serendipity", "SERENDIPITY_PRESETS"]

SERENDIPITY_PRESETS: dict[str, dict[str, str]] = {
    "recommenders": {"similarity": "cooccurrence", "relevance": "one"},
    "recommenders_features": {"similarity": "cosine", "relevance": "one"},
}


def _missing(item: str, what: str) -> Exception:
    return InputError(what=f"{{doc}} {literal(repr(item))} has no {what}",
                      fix=f"give the {what} of every {{doc}} of the lists and the histories",
                      doc=item).in_words_of(USERS_AND_ITEMS)


class _Cosine:
    def __init__(self, features: Any):
        # One reader of features= for ild and serendipity: {item: vector} or (ids, matrix), sorted.
        self.ids, matrix = feature_vectors(features)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self.unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)

    def rows(self, items: list[str]) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.ids, items), len(self.ids) - 1)
        for item, where in zip(items, at):
            if self.ids[where] != item:
                raise _missing(item, "feature vector")
        return self.unit[at]

    def __call__(self, listed: list[str], history: list[str]) -> np.ndarray:
        return self.rows(listed) @ self.rows(history).T


class _Indexed:
    """Items as rows of a matrix (sorted ids), looked up by id; a missing id is refused."""

    def __init__(self, ids: np.ndarray, what: "str | None"):
        self.ids = ids
        self.what = what

    def at(self, items: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(row of each item, whether it has one); refused when `what` names what it lacks."""
        if not len(self.ids):
            found = np.zeros(len(items), dtype=bool)
            return np.zeros(len(items), dtype=np.int64), found
        at = np.minimum(np.searchsorted(self.ids, items), len(self.ids) - 1)
        found = self.ids[at] == np.asarray(items, dtype=str)
        if self.what is not None and not found.all():
            raise _missing(items[int(np.flatnonzero(~found)[0])], self.what)
        return at, found


class _Jaccard(_Indexed):
    def __init__(self, categories: Mapping):
        sets = {str(i): frozenset([c] if isinstance(c, str) else c) for i, c in categories.items()}
        super().__init__(np.array(sorted(sets), dtype=str), "category")
        names = sorted({c for cats in sets.values() for c in cats})
        column = {c: j for j, c in enumerate(names)}
        self.matrix = np.zeros((len(self.ids), len(names)))
        for row, item in enumerate(self.ids.tolist()):
            self.matrix[row, [column[c] for c in sets[item]]] = 1.0
        self.sizes = self.matrix.sum(axis=1)

    def __call__(self, listed: list[str], history: list[str]) -> np.ndarray:
        a, _ = self.at(listed)
        b, _ = self.at(history)
        both = self.matrix[a] @ self.matrix[b].T
        union = self.sizes[a][:, None] + self.sizes[b][None, :] - both
        return np.divide(both, union, out=np.zeros_like(both), where=union > 0)


class _Cooccurrence(_Indexed):
    def __init__(self, histories: dict[str, set[str]]):
        from scipy import sparse

        items = np.array(sorted({i for its in histories.values() for i in its}), dtype=str)
        super().__init__(items, None)
        rows = [self.at(sorted(its))[0] for its in histories.values()]
        users = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
        codes = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        self.matrix = sparse.csr_matrix((np.ones(len(codes)), (codes, users)),
                                        shape=(len(items), len(rows)))
        self.counts = np.asarray(self.matrix.sum(axis=1)).ravel()

    def __call__(self, listed: list[str], history: list[str]) -> np.ndarray:
        a, known = self.at(listed)
        b, _ = self.at(history)   # a history item is a training item: always found
        both = (self.matrix[a] @ self.matrix[b].T).toarray()
        scale = np.sqrt(self.counts[a][:, None] * self.counts[b][None, :])
        out = np.divide(both, scale, out=np.zeros_like(both), where=scale > 0)
        return np.where(known[:, None], out, 0.0)   # an item no user has is similar to nothing


def serendipity(predictions, k: int, *, history, similarity: "str | None" = None, features=None,
                categories=None, relevant=None, relevance: "str | None" = None,
                preset: "str | None" = None, protocol: Protocol | None = None, user="user",
                item="item",
                score="score") -> ListValues:
    """Serendipity@k of each user's list (see the module for the formula, references and policies).

    Parameters
    ----------
    history : mapping user -> items, or a table with ``user`` and ``item`` columns
        Each user's training interactions (their distinct items are H_u).
    similarity : {"cosine", "jaccard", "cooccurrence"}
        Default: ``cosine`` with `features`, else ``jaccard`` with `categories`.
    features : mapping item -> vector, or (item ids, matrix), for ``cosine``
    categories : mapping item -> category or categories, for ``jaccard``
    relevant : mapping user -> items (or Qrels), for ``relevance=binary``
    relevance : {"binary", "one"}
        Default: ``binary`` when `relevant` is given, else ``one``.
    preset : {"recommenders", "recommenders_features"}, optional

    Examples
    --------
    u's history is {a, b}; its list is c (similar to a by 0.5, to b by 0) and
    a (its own history: 1 and 0). Unexpectedness 1 - 0.25 = 0.75 and
    1 - 0.5 = 0.5; only c is relevant.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["c", "a"]})
    >>> cats = {"a": {"x", "y"}, "b": {"z"}, "c": {"x"}}
    >>> serendipity(run, 2, history={"u": ["a", "b"]}, categories=cats, relevant={"u": ["c"]}).per_query()
    {'u': 0.375}
    >>> serendipity(run, 2, history={"u": ["a", "b"]}, categories=cats).per_query()   # relevance=one
    {'u': 0.625}
    """
    k = check_cutoff(k, "serendipity")
    similarity_, relevance_ = _settings(similarity, relevance, preset, features, relevant)
    histories = item_sets(history, "history")
    measure_sim: Any
    if similarity_ == "cosine":
        if features is None:
            raise InputError(what="similarity=cosine needs the items' feature vectors",
                             fix="give features=")
        measure_sim = _Cosine(features)
    elif similarity_ == "jaccard":
        if categories is None:
            raise InputError(what="similarity=jaccard needs the items' categories",
                             fix="give categories=")
        measure_sim = _Jaccard(categories)
    else:
        measure_sim = _Cooccurrence(histories)
    wanted = item_sets(relevant, "relevant") if relevance_ == "binary" else {}
    top = ranked_top(predictions, k, protocol, user, item, score)
    values = np.full(top.run.num_queries, np.nan)
    for u, rows in top.by_user():
        name = str(top.run.queries[u])
        seen = sorted(histories.get(name, ()))
        if not seen:
            continue
        listed = top.items[rows].tolist()
        unexpected = 1.0 - measure_sim(listed, seen).mean(axis=1)
        if relevance_ == "binary":
            good = wanted.get(name, set())
            unexpected = unexpected * np.array([i in good for i in listed], dtype=np.float64)
        values[u] = float(unexpected.mean())
    return ListValues(f"serendipity(relevance={relevance_},similarity={similarity_})@{k}",
                      top.run.queries, values,
                      top.sizes)


def _settings(similarity, relevance, preset, features, relevant) -> tuple[str, str]:
    if preset is not None:
        if preset not in SERENDIPITY_PRESETS:
            raise InputError(what=f"unknown serendipity preset {literal(repr(preset))}",
                             fix=f"use one of {', '.join(SERENDIPITY_PRESETS)}", value=preset)
        chosen = SERENDIPITY_PRESETS[preset]
        for name, given in (("similarity", similarity), ("relevance", relevance)):
            if given is not None and given != chosen[name]:
                raise InputError(what=f"preset={preset} sets {name}={chosen[name]}; got {name}={given}",
                                 fix=f"drop {name}= or the preset", value=given)
        similarity, relevance = chosen["similarity"], chosen["relevance"]
    if similarity is None:
        similarity = "cosine" if features is not None else "jaccard"
    if relevance is None:
        relevance = "binary" if relevant is not None else "one"
    one_of("similarity", similarity, ("cosine", "jaccard", "cooccurrence"))
    one_of("relevance", relevance, ("binary", "one"))
    if relevance == "binary" and relevant is None:
        raise InputError(what="relevance=binary needs the relevant items of each user",
                         fix="give relevant=")
    return similarity, relevance


# -- the registry (rankproof evaluate -m serendipity@10 --train train.csv --features items.csv) ----


def _registered(run, k: int, side, params: dict, protocol: Protocol):
    from ..errors import MeasureError

    train = side.needed("train")
    if train.users is None:
        raise MeasureError(what=f"serendipity@{k} needs each user's training items",
                           fix="give --train with a user column")
    preset = params["preset"]
    similarity = (params["similarity"]
                  or (SERENDIPITY_PRESETS[preset]["similarity"] if preset else None))
    relevance = (params["relevance"]
                 or (SERENDIPITY_PRESETS[preset]["relevance"] if preset else "binary"))
    features = side.features
    if similarity is None:
        if features is None:
            raise MeasureError(what=f"serendipity@{k} compares items by their features, and no --features was "
                               "given",
                               fix=f"give --features, or write serendipity(similarity=cooccurrence)@{k}")
        similarity = "cosine" if features.vectors is not None else "jaccard"
    if similarity in ("cosine", "jaccard"):
        kind = "numeric feature columns" if similarity == "cosine" else "a category column"
        if (features is None
            or (features.vectors if similarity == "cosine" else features.categories) is None):
            raise MeasureError(what=f"serendipity(similarity={similarity})@{k} needs {kind} in --features",
                               fix="give them with --features, or choose another similarity=")
    relevant = None
    if relevance == "binary":
        if side.judgments is None:
            raise MeasureError(what=f"serendipity@{k} counts only relevant items (relevance=binary) and has no "
                               "judgments (--engine spark does not pass them to side-data measures)", fix=f"evaluate it with qrels, or write "
                               f"serendipity(relevance=one)@{k} for the unexpectedness alone")
        relevant = side.relevant(protocol.rel)
    history = {"user": train.users.astype(str), "item": train.items.astype(str)}
    pairs: dict[str, list] = {}
    for u, i in zip(history["user"].tolist(), history["item"].tolist()):
        pairs.setdefault(u, []).append(i)
    return serendipity(run, k, history=pairs, similarity=similarity, relevance=relevance,
                       relevant=relevant,
                       features=None if features is None else features.vectors,
                       categories=None if features is None else features.categories,
                       protocol=protocol)


def _register() -> None:
    from .registry import LIST, SideParam, SideSpec, choice, register_side

    register_side(SideSpec(
        "serendipity", "Serendipity",
        "unexpectedness (1 - mean similarity to the user's training items) of the "
        "top k times relevance (relevance=binary: the qrels; one: every item)", LIST, (("train",),),
        _registered,
        (SideParam("similarity", choice("cosine", "jaccard", "cooccurrence"), None,
                   "similarity=cosine (numeric features), jaccard (categories) or cooccurrence (--train)"),
         SideParam("relevance", choice("binary", "one"), None,
                   "relevance=binary (the qrels) or relevance=one"),
         SideParam("preset", choice(*SERENDIPITY_PRESETS), None,
                   "preset=recommenders or recommenders_features (Microsoft Recommenders)")),
        optional=("features",),
        reads="--train, --features (unless similarity=cooccurrence) and, for "
        "relevance=binary, the judgments (QRELS)"))


_register()
