"""Judgments per intent, laid over an alignment: what the diversity measures read.

:func:`rankproof.evaluate` aligns a run with the doc-level judgments of an
:class:`~rankproof.IntentQrels` (:attr:`~rankproof.IntentQrels.doc_qrels`), so
every row policy (ties, duplicates, unjudged docs, missing queries, ...) is
applied once, by :mod:`rankproof.pipeline`. :func:`attach_intents` then adds,
per ranked position and per judged doc of each query's pool, the
(query, intent) pairs the doc is judged for, with their grades.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..data.intents import IntentQrels
from .aligned import Alignment
from ..kernels.segments import offsets_of

__all__ = ["IntentTable", "IntentAlignment", "attach_intents"]


@dataclasses.dataclass(frozen=True)
class IntentTable:
    """Per-intent judgments of the evaluated queries, as flat arrays.

    Attributes
    ----------
    pair_offsets : int64 array, the (query, intent) pairs of each evaluated query
        (len = queries + 1); pairs are numbered query by query, intents in order
    pair_intent : str array, per pair, the intent id
    weight : float64 array, per pair, the weight given (NaN when none was given),
        or None when no weights were given (uniform)
    position_offsets, position_pair, position_grade :
        per ranked position of the alignment, its judged (pair, grade) entries
    pool_offsets : int64 array, each query's judged docs (ascending doc id)
    pool_doc_offsets, pool_pair, pool_grade : each judged doc's (pair, grade) entries
    """

    pair_offsets: np.ndarray
    pair_intent: np.ndarray
    weight: "np.ndarray | None"
    position_offsets: np.ndarray
    position_pair: np.ndarray
    position_grade: np.ndarray
    pool_offsets: np.ndarray
    pool_doc_offsets: np.ndarray
    pool_pair: np.ndarray
    pool_grade: np.ndarray
    source: str

    @property
    def pair_query(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.pair_offsets) - 1), np.diff(self.pair_offsets))


@dataclasses.dataclass(frozen=True)
class IntentAlignment(Alignment):
    """An :class:`~rankproof.pipeline.Alignment` with the judgments per intent."""

    intents: "IntentTable | None" = None


# Dense lookup tables are used while they stay within this many entries per
# element looked up (else sorting and binary search: no memory blow-up for a
# huge query x doc space).
_DENSE_PER_ELEMENT = 4


def _codes(keys: np.ndarray, key_space: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for keys in [0, key_space), by counting when that is small."""
    if key_space > _DENSE_PER_ELEMENT * len(keys) + 1024:
        unique, inverse = np.unique(keys, return_inverse=True)
        return unique, inverse.reshape(-1).astype(np.int64)
    present = np.zeros(key_space, dtype=bool)
    present[keys] = True
    renumber = np.cumsum(present) - 1
    return np.flatnonzero(present), renumber[keys].astype(np.int64)


def _find(sorted_keys: np.ndarray, values: np.ndarray, keys: np.ndarray,
          key_space: int) -> np.ndarray:
    """For each of `keys`, the value of the equal sorted key, or -1 when there is none."""
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    if key_space <= _DENSE_PER_ELEMENT * len(keys) + 1024:
        table = np.full(key_space, -1, dtype=np.int64)
        table[sorted_keys] = values
        return table[keys]
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[at] == keys, values[at], -1)


def _position_entries(a: Alignment, qrels: IntentQrels, pool_doc: np.ndarray,
                      pool_query: np.ndarray,
                      pool_doc_offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per ranked position, where its entries start (offsets) and each entry's row of the qrels:
    the rows of its judged doc, found by (query, run doc code); none for an unjudged doc."""
    num_queries = a.num_queries
    run_docs = a.docs
    code = np.minimum(np.searchsorted(run_docs, qrels.docs), max(len(run_docs) - 1, 0))
    ranked = (run_docs[code] == qrels.docs) if len(run_docs) else np.zeros(len(qrels.docs),
                                                                           dtype=bool)
    in_run = ranked[pool_doc]
    width = max(len(run_docs), 1)
    # ascending: both orders are by id
    pool_key = pool_query[in_run] * width + code[pool_doc[in_run]]
    pool_index = np.flatnonzero(in_run)
    position_query = np.repeat(np.arange(num_queries, dtype=np.int64), np.diff(a.offsets))
    position_key = position_query * width + a.doc
    position_doc = _find(pool_key, pool_index, position_key, num_queries * width)
    hit = position_doc >= 0
    counts = np.where(hit, np.diff(pool_doc_offsets)[np.maximum(position_doc, 0)], 0)
    position_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    starts = pool_doc_offsets[np.maximum(position_doc, 0)]
    entry = (np.arange(position_offsets[-1], dtype=np.int64)
             + np.repeat(starts - position_offsets[:-1], counts))
    return position_offsets, entry


def attach_intents(alignment: Alignment, qrels: IntentQrels) -> IntentAlignment:
    """The alignment with its :class:`IntentTable` (built from `qrels`, whose
    :attr:`~rankproof.IntentQrels.doc_qrels` the alignment was made from)."""
    a = alignment
    num_queries = a.num_queries
    # Evaluated query of each judged query (-1: not evaluated). Both vocabularies are sorted.
    at = np.minimum(np.searchsorted(a.queries, qrels.queries), max(num_queries - 1, 0))
    evaluated = (a.queries[at] == qrels.queries) if num_queries else np.zeros(len(qrels.queries),
                                                                              dtype=bool)
    eval_of_query = np.where(evaluated, at, -1)
    row_query = eval_of_query[qrels.query_codes]
    keep = row_query >= 0
    row_query, row_doc = row_query[keep], qrels.doc_codes[keep]
    row_intent, row_grade = qrels.intent_codes[keep], qrels.grades[keep]

    # Pairs (evaluated query, intent), numbered in that order.
    num_intents = max(len(qrels.intents), 1)
    pair_keys, row_pair = _codes(row_query * num_intents + row_intent, num_queries * num_intents)
    pair_query = pair_keys // num_intents
    pair_intent = qrels.intents[pair_keys % num_intents]
    pair_offsets = offsets_of(pair_query, num_queries)

    # The pool: judged docs of each query (rows are sorted by query, doc, intent).
    num_docs = max(len(qrels.docs), 1)
    row_key = row_query * num_docs + row_doc
    new_doc = np.ones(len(row_key), dtype=bool)
    new_doc[1:] = row_key[1:] != row_key[:-1]
    doc_starts = np.flatnonzero(new_doc)
    pool_doc_offsets = np.append(doc_starts, len(row_key)).astype(np.int64)
    pool_query = row_query[doc_starts]
    pool_offsets = offsets_of(pool_query, num_queries)

    # Ranked positions: each one's entries (its judged doc's rows, one per intent).
    position_offsets, entry = _position_entries(a, qrels, row_doc[doc_starts], pool_query,
                                                pool_doc_offsets)

    weight = None
    if qrels.weights is not None:
        query_ids = a.queries[pair_query]
        weight = np.array([qrels.weights.get(q, {}).get(i, np.nan) for q, i in
                           zip(query_ids.tolist(), pair_intent.tolist())], dtype=np.float64)
    table = IntentTable(
        pair_offsets=pair_offsets, pair_intent=pair_intent, weight=weight,
        position_offsets=position_offsets, position_pair=row_pair[entry],
        position_grade=row_grade[entry],
        pool_offsets=pool_offsets, pool_doc_offsets=pool_doc_offsets, pool_pair=row_pair,
        pool_grade=row_grade, source=qrels.source)
    fields = {field.name: getattr(a, field.name) for field in dataclasses.fields(Alignment)}
    return IntentAlignment(**fields, intents=table)
