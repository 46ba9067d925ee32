"""Per measure, the judged docs inside its cutoff from each layer of layered qrels (the counts'
``judged_in_cutoff_by_layer``).

A doc counts as inside cutoff k under the rule of the unjudged count
(:func:`rankproof.pipeline.alignment.cutoff_counts`): its group of averaged
ties starts inside the top k. A measure without a cutoff counts the whole
ranking. Vectorised: each ranked position's (query, doc) is looked up among
the qrels' sorted (query, doc) keys.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data.qrels import LayeredQrels

__all__ = ["layer_cutoff_counts"]


def _position_layers(a, qrels: LayeredQrels) -> np.ndarray:
    """The layer of each ranked position of the alignment `a` (-1: unjudged)."""
    per_query = np.diff(a.offsets)
    query_index = np.searchsorted(qrels.queries, a.queries)
    query_index = np.where(query_index < len(qrels.queries), query_index, 0)
    known_query = qrels.queries[query_index] == a.queries
    doc_index = np.searchsorted(qrels.docs, a.docs)
    doc_index = np.where(doc_index < len(qrels.docs), doc_index, 0)
    known_doc = qrels.docs[doc_index] == a.docs
    width = max(len(qrels.docs), 1)
    row_queries = np.repeat(np.arange(len(qrels.queries), dtype=np.int64), np.diff(qrels.offsets))
    row_keys = row_queries * width + qrels.doc_codes
    keys = np.repeat(query_index, per_query).astype(np.int64) * width + doc_index[a.doc]
    row = np.minimum(np.searchsorted(row_keys, keys), len(row_keys) - 1)
    found = (row_keys[row] == keys) & np.repeat(known_query,
                                                per_query) & known_doc[a.doc] & a.judged
    return np.where(found, qrels.layer_of_row[row], -1)


def layer_cutoff_counts(a, measures, qrels: Any) -> dict[str, dict[str, dict[str, int]]]:
    """``{"judged_in_cutoff_by_layer": {measure: {layer: count}}}`` of the flat alignment `a`
    (:class:`~rankproof.pipeline.aligned.Alignment`, which asks for them); empty for plain qrels."""
    if not isinstance(qrels, LayeredQrels) or not len(a.doc):
        return {} if not isinstance(qrels, LayeredQrels) else {"judged_in_cutoff_by_layer": {}}
    layers = _position_layers(a, qrels)
    group_sizes = np.diff(a.group_offsets)
    group_start = np.repeat(a.group_offsets[:-1], group_sizes)
    rank_of_start = group_start - np.repeat(a.offsets[:-1], np.diff(a.offsets))
    names = qrels.layers.names
    out: dict[str, dict[str, int]] = {}
    for measure in measures:
        inside = (rank_of_start < measure.cutoff if measure.cutoff is not None
                  else np.ones(len(layers), bool))
        counts = np.bincount(layers[inside & (layers >= 0)], minlength=len(names))
        out[str(measure)] = dict(zip(names, counts.tolist()))
    return {"judged_in_cutoff_by_layer": out}
