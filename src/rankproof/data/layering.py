"""Layered qrels: judgments from several sources, the first source that judged a (query, doc) winning.

A team holds human judgments for some documents and an LLM judge's for
many more. :meth:`rankproof.Qrels.layer` puts them together: every
(query, doc) takes its grade from the first source, in the order given,
that judged it, and remembers which one (``layer_of_row``). Evaluating
layered qrels records the layering in the protocol (``judgments=layers:
human>judge``: printed and fingerprinted) and counts, per measure, the
judged docs inside the cutoff from each layer (the results' counts
``judged_in_cutoff_by_layer``), so a number says how much of it rests on
the judge.

This module works on the columns only (it does not import
:mod:`rankproof.data.qrels`, whose ``Qrels.layer`` calls it).

Examples
--------
>>> from rankproof import Qrels
>>> human = Qrels.from_dict({"q1": {"a": 2, "b": 0}})
>>> judge = Qrels.from_dict({"q1": {"a": 0, "c": 1}, "q2": {"d": 1}})
>>> layered = Qrels.layer(human, judge, names=("human", "judge"))
>>> layered.to_dict()                     # a keeps the human's 2; c and q2 come from the judge
{'q1': {'a': 2, 'b': 0, 'c': 1}, 'q2': {'d': 1}}
>>> layer_counts(layered)
{'human': 2, 'judge': 2}
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from ..errors import InputError
from ..protocol import Protocol
from ..protocol.layers import Layers, parse_layers

__all__ = ["layer_counts", "layer_lookup", "layers_of", "merge_sources", "source_names",
           "with_layers"]


def source_names(names, count: int, *, default: str, needs: str, each: str,
                 unit: str) -> tuple[str, ...]:
    """The names of `count` sources (two or more): `names` as given, one each, or ``default``
    numbered from 1. ``needs`` and ``each`` are the messages for too few sources and for a name
    count that differs; ``unit`` names the sources in the latter's value.

    >>> source_names(None, 2, default="layer{}", needs="", each="", unit="qrels")
    ('layer1', 'layer2')
    """
    if count < 2:
        raise InputError(what=needs, value=count)
    names = (tuple(names) if names is not None
             else tuple(default.format(i + 1) for i in range(count)))
    if len(names) != count:
        raise InputError(what=each, value=f"{len(names)} names, {count} {unit}")
    return names


def merge_sources(sources: Sequence[Any], names: Sequence[str] | None) -> dict[str, Any]:
    """The columns of the layered qrels: the first source that judged each (query, doc) wins.

    Returns the keyword arguments of the ``Qrels`` constructor (rows sorted
    by (query, doc) over sorted vocabularies, so the constructor keeps their
    order) plus ``layers`` and ``origin`` (the source index of every row).
    """
    names = source_names(names, len(sources), default="layer{}",
                         needs="layering needs two or more qrels",
                         each="give one name per layered qrels", unit="qrels")
    layers = parse_layers("layers:" + ">".join(names))
    if len({source.real_grades for source in sources}) > 1:
        raise InputError(what="the layered qrels mix integer and real grades",
                         fix="read every source with the same grades policy")
    query_ids = [np.repeat(source.queries, np.diff(source.offsets)) for source in sources]
    doc_ids = [source.docs[source.doc_codes] for source in sources]
    origin = np.concatenate([np.full(len(source.grades), i, dtype=np.int8)
                             for i, source in enumerate(sources)])
    queries, query_codes = np.unique(np.concatenate(query_ids).astype(str), return_inverse=True)
    docs, doc_codes = np.unique(np.concatenate(doc_ids).astype(str), return_inverse=True)
    width = max(len(docs), 1)
    unique_keys, first = np.unique(query_codes.astype(np.int64) * width + doc_codes,
                                   return_index=True)
    return {"query_codes": unique_keys // width, "queries": queries,
            "doc_codes": unique_keys % width,
            "docs": docs, "grades": np.concatenate([source.grades for source in sources])[first],
            "source": " > ".join(source.source for source in sources), "layers": layers,
            "origin": origin[first]}


def layers_of(qrels: Any) -> Layers:
    """The layering of `qrels` (``Layers()`` for plain qrels)."""
    return getattr(qrels, "layers", None) or Layers()


def layer_counts(qrels: Any) -> dict[str, int]:
    """Judgments per source of layered qrels."""
    counts = np.bincount(qrels.layer_of_row, minlength=len(qrels.layers.names))
    return dict(zip(qrels.layers.names, counts.tolist()))


def layer_lookup(qrels: Any) -> dict[tuple[str, str], int]:
    """``{(query, doc): layer index}`` of every judged pair of layered qrels."""
    queries = np.repeat(qrels.queries, np.diff(qrels.offsets)).tolist()
    return dict(zip(zip(queries, qrels.docs[qrels.doc_codes].tolist()),
                    qrels.layer_of_row.tolist()))


def with_layers(protocol: Protocol, qrels: Any) -> Protocol:
    """The protocol to evaluate `qrels` under: layered qrels set ``judgments=layers:...``.

    A protocol that already names a layering must name this one; plain
    qrels under a layering, and layered qrels under an ids policy (ids
    normalised after layering could merge two sources' pairs), are refused.
    """
    layers = layers_of(qrels)
    if protocol.judgments == layers:
        if layers.names and str(protocol.ids) != "none":
            raise InputError(what="layered qrels under an ids policy are not available yet",
                             fix="normalise the ids of each source before Qrels.layer, and evaluate with ids=none")
        return protocol
    if protocol.judgments.names:
        raise InputError(what=f"the protocol says judgments={protocol.judgments} but the qrels are "
                              f"{'layered as ' + str(layers) if layers.names else 'not layered'}",
                         fix="evaluate the qrels Qrels.layer made, or leave judgments=none")
    return with_layers(dataclasses.replace(protocol, judgments=layers), qrels)
