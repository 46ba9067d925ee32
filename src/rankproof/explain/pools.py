"""The judged pool of an alignment by doc id, as the explanations read it.

:func:`pool_ids` names every pool entry's doc; :func:`expanded_pool` adds the repeated
copies of judged docs an ``ideal=expanded`` ideal counts.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["pool_ids", "expanded_pool"]


def pool_ids(a) -> np.ndarray:
    """The doc id of every pool entry of an alignment."""
    if a.pool_doc is None or a.pool_docs is None:
        raise InputError(what="this alignment keeps no doc ids of the judged pool", fix="explain needs Qrels and a Run")
    return a.pool_docs[a.pool_doc]


def expanded_pool(a, cutoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query, doc id, grade) of each query's judged pool plus one entry per
    repeated copy of a judged doc ranked within its query's cutoff
    (``ideal=expanded``, as :meth:`rankproof.measures.compute.Context.ideal_dcg`)."""
    lengths = np.diff(a.offsets)
    query = np.repeat(np.arange(a.num_queries), lengths)
    rank0 = np.arange(len(a.doc), dtype=np.int64) - a.offsets[query]
    key = query * max(len(a.docs), 1) + a.doc
    first = np.zeros(len(key), dtype=bool)
    first[np.unique(key, return_index=True)[1]] = True
    copies = ~first & a.judged & (rank0 < cutoffs[query])
    pool_query = np.repeat(np.arange(a.num_queries), np.diff(a.pool_offsets))
    return (np.concatenate([pool_query, query[copies]]), np.concatenate([pool_ids(a), a.docs[a.doc[copies]]]),
            np.concatenate([a.pool_grade, a.grade[copies]]))
