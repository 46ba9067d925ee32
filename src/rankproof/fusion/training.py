"""What trained fusion methods learn from judgments, on the queries of a training set."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np

from .normalization import reranked
from .table import Table
from .ties import FusionTies
from .trained_methods import Hits

__all__ = ["TRAINING_PARAMETERS", "Trainable", "judgments", "ranx_resort", "train_on"]

# Parameters a training step takes (the rest go to the fusion function).
TRAINING_PARAMETERS = {"n_segments"}


class Trainable(Protocol):
    """What :func:`train_on` reads of a method."""

    @property
    def name(self) -> str: ...

    @property
    def defaults(self) -> Mapping[str, Any]: ...

    @property
    def train(self) -> Callable[..., dict] | None: ...


def judgments(table: Table, qrels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(relevant per candidate, judged per query, relevant docs per query) of ``qrels`` on ``table``."""
    query_of_row = np.repeat(np.arange(qrels.num_queries), np.diff(qrels.offsets))
    tq = np.searchsorted(table.queries, qrels.queries)
    q_ok = (tq < len(table.queries)) & (table.queries[np.minimum(tq, len(table.queries) - 1)]
                                        == qrels.queries)
    td = np.searchsorted(table.docs, qrels.docs)
    d_ok = (td < len(table.docs)) & (table.docs[np.minimum(td, len(table.docs) - 1)] == qrels.docs)
    relevant_row = (np.asarray(qrels.grades) >= 1) & q_ok[query_of_row]
    judged = np.zeros(len(table.queries), dtype=bool)
    judged[tq[q_ok]] = True
    per_query = np.bincount(tq[query_of_row[relevant_row]], minlength=len(table.queries))
    keep = relevant_row & d_ok[qrels.doc_codes]
    keys = tq[query_of_row[keep]] * len(table.docs) + td[qrels.doc_codes[keep]]
    relevant = np.isin(table.query * len(table.docs) + table.doc, keys)
    return relevant, judged, per_query


def train_on(table: Table, method: Trainable, qrels, params: Mapping[str, Any],
             training: np.ndarray, *,
             resort: FusionTies | None = None) -> dict:
    """The method's learned parameters from the judged queries where ``training`` is True.

    ``resort``: sort each component by its (normalized) scores again first,
    equal scores by that policy. ranx does so (``ties=ranx``): it reads hit
    lists from a normalized run re-sorted by numba's quicksort, which may
    reorder equal scores once more.
    """
    if method.train is None:
        return {}
    if resort is not None:
        table = reranked(table, table.scores, resort)
    relevant, judged, per_query = judgments(table, qrels)
    hits = Hits(table, relevant, judged & training)
    if method.name == "mapfuse":
        return method.train(hits, per_query)
    extra = {k: v for k, v in {**method.defaults, **params}.items() if k in TRAINING_PARAMETERS}
    return method.train(hits, **extra)


def ranx_resort(ties: FusionTies, norm: str) -> FusionTies | None:
    """Whether training re-sorts the components (ranx re-sorts runs it normalized, except min-max-inverted,
    which it sorted already)."""
    return ties if ties is FusionTies.RANX and norm not in ("none", "min-max-inverted") else None
