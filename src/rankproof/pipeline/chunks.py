"""The ``chunk_map`` and ``chunks`` policies: a run of chunk ids becomes a run of document ids.

A chunk map that names a file is read once, when the protocol is resolved
(:func:`resolve_files`, which :func:`rankproof.evaluation.resolve_protocol`
and :func:`~rankproof.pipeline.align` call): the join reads the table the
protocol holds, never the file. The other policies that name a file hold
their values already (``discount=file:`` reads its vector when the policy
is made, :class:`~rankproof.protocol.DiscountFile`; a gain map is written
in the protocol text).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..data.run import Run
from ..errors import InputError, literal
from ..io.lines import take_lines
from ..protocol import ChunkMap, Chunks, Protocol, file_digest
from .rows import line_at

__all__ = ["chunk_documents", "merge_chunks", "resolve_files", "read_chunk_table"]


def read_chunk_table(chunk_map: ChunkMap) -> tuple[np.ndarray, np.ndarray]:
    """A file map's table, (chunk ids sorted, doc id of each), the file refused when it
    changed since the protocol was made."""
    from ..io.chunk_map import read_chunk_map

    if file_digest(chunk_map.spec, "chunk map") != chunk_map.digest:
        raise InputError(what=f"the chunk map file changed since the protocol was made (digest {chunk_map.digest} "
                              "expected)", source=chunk_map.spec, value=chunk_map.digest,
                         fix="build the protocol again")
    return read_chunk_map(chunk_map.spec)


def resolve_files(protocol: Protocol) -> Protocol:
    """The protocol with the file its chunk map names read into it (the same protocol when
    there is none, or when it is read already): what the join then reads."""
    chunk_map = protocol.chunk_map
    if chunk_map.kind != "file" or chunk_map.table is not None:
        return protocol
    return protocol.replace(chunk_map=chunk_map.with_table(*read_chunk_table(chunk_map)))


def _by_separator(chunks: np.ndarray, chunk_map: ChunkMap) -> tuple[np.ndarray, list[int]]:
    # Split at the last separator: doc ids may hold the separator themselves.
    parts = [chunk.rpartition(chunk_map.spec) for chunk in chunks.tolist()]
    docs = [head if sep else tail for head, sep, tail in parts]
    return np.array(docs, dtype=object), [i for i, (head, sep, _) in enumerate(parts)
                                          if sep and not head]


def _by_pattern(chunks: np.ndarray, chunk_map: ChunkMap) -> tuple[np.ndarray, list[int]]:
    import re

    pattern = re.compile(chunk_map.spec)
    found = [pattern.search(chunk) for chunk in chunks.tolist()]
    docs = [m.group(1) if m is not None else None for m in found]
    return np.array(docs, dtype=object), [i for i, doc in enumerate(docs) if not doc]


def _by_table(chunks: np.ndarray, chunk_map: ChunkMap) -> tuple[np.ndarray, np.ndarray]:
    table = chunk_map.table if chunk_map.table is not None else read_chunk_table(chunk_map)
    mapped_chunks, mapped_docs = table
    at = np.minimum(np.searchsorted(mapped_chunks, chunks), len(mapped_chunks) - 1)
    return mapped_docs[at].astype(object), np.flatnonzero(mapped_chunks[at] != chunks)


# Each kind of chunk map: how it finds the documents of chunk ids (and the ids it finds
# none for), what is wrong with such an id and what to do (``{chunk}``: the id, ``{spec}``:
# the map's text).
_KINDS: dict[str, tuple[Callable, str, str]] = {
    "sep": (_by_separator,
            "chunk id {chunk!r} has nothing before the separator {spec!r}, so it names no document",
            "fix the ids or choose another chunk_map"),
    "regex": (_by_pattern,
              "chunk id {chunk!r} does not match chunk_map=regex:{spec} or its group is empty",
              "give a pattern whose one group matches the document id of every ranked chunk"),
    "file": (_by_table, "chunk {chunk!r} is not in the chunk map {spec}",
             "add a line '{chunk} DOC' for each"),
}


def chunk_documents(chunks: np.ndarray, chunk_map: ChunkMap,
                    locate: Callable[[int], dict]) -> np.ndarray:
    """The document id of each chunk id, as the ``chunk_map`` policy says.

    `locate(i)` names where chunk ``chunks[i]`` is ranked, for errors.

    >>> chunk_documents(np.array(["d1#c2", "d1#x#c1", "d2"]), ChunkMap("sep", "#"), None).tolist()
    ['d1', 'd1#x', 'd2']
    >>> chunk_documents(np.array(["d1_p3", "d22_p0"]), ChunkMap("regex", "^(.+)_p[0-9]+$"), None).tolist()
    ['d1', 'd22']
    """
    documents, what, fix = _KINDS[chunk_map.kind]
    docs, unmapped = documents(chunks, chunk_map)
    if len(unmapped):
        i = int(unmapped[0])
        chunk = str(chunks[i])
        what, fix = (text.format(chunk=chunk, spec=chunk_map.spec) for text in (what, fix))
        raise InputError(what=literal(f"{what} ({len(unmapped)} such ids)"), value=chunk,
                         **locate(i), fix=literal(fix))
    return docs


def merge_chunks(run: Run, protocol: Protocol, counts: dict) -> Run:
    """The ``chunk_map`` and ``chunks`` policies: a run of chunk ids becomes a
    run of document ids in which each document ranks once.

    Each chunk id is mapped to its document (:func:`chunk_documents`, once per
    distinct id, not per row). Of a document's chunks within one query, one
    stands for it: the first listed (``chunks=first``) or the highest-scored,
    the first listed among equal scores (``chunks=max``); the rows of its
    other chunks leave the ranking, so the documents below them move up, and
    are counted as ``chunks_merged``. Rows of the chosen chunk itself stay,
    so a chunk listed twice still meets the ``duplicates`` policy. Applied
    before every other row policy; qrels are judged at document level and
    are not touched.

    >>> run = Run.from_dict({"q": {"d1#0": 0.2, "d2#0": 0.9, "d1#1": 0.8, "d3#4": 0.5}})
    >>> counts = {}
    >>> merged = merge_chunks(run, Protocol(chunk_map="sep:#", chunks="max"), counts)
    >>> merged.docs[merged.doc_codes].tolist(), merged.scores.tolist(), counts
    (['d2', 'd1', 'd3'], [0.9, 0.8, 0.5], {'chunks_merged': 1})
    >>> merged = merge_chunks(run, Protocol(chunk_map="sep:#"), {})   # chunks=first: d1 at 0.2
    >>> merged.docs[merged.doc_codes].tolist(), merged.scores.tolist()
    (['d1', 'd2', 'd3'], [0.2, 0.9, 0.5])
    """
    if protocol.chunk_map.kind == "none":
        return run
    lengths = np.diff(run.offsets)
    row_query = np.repeat(np.arange(run.num_queries, dtype=np.int64), lengths)
    first_row_of_chunk = np.full(len(run.docs), -1, dtype=np.int64)
    first_row_of_chunk[run.doc_codes[::-1]] = np.arange(len(run.doc_codes) - 1, -1, -1)

    def chunk_row(i: int) -> dict:
        row = int(first_row_of_chunk[i])
        return {"source": run.source, "line": line_at(run.lines, row),
                "query": str(run.queries[row_query[row]]),
                "doc": str(run.docs[i])}

    doc_of_chunk = chunk_documents(run.docs, protocol.chunk_map, chunk_row)
    docs, doc_code_of_chunk = np.unique(doc_of_chunk.astype(str), return_inverse=True)
    row_doc = doc_code_of_chunk[run.doc_codes]
    n = len(row_doc)
    rows = np.arange(n, dtype=np.int64)
    key = row_query * max(len(docs), 1) + row_doc
    if protocol.chunks is Chunks.MAX:
        order = np.lexsort((rows, -run.scores, key))
    else:
        order = np.lexsort((rows, key))
    sorted_key = key[order]
    starts = (np.concatenate([[True], sorted_key[1:] != sorted_key[:-1]]) if n
              else np.zeros(0, dtype=bool))
    # The chunk standing for each (query, doc), spread back to its rows.
    winner_chunk = run.doc_codes[order[starts]]
    key_index = np.cumsum(starts) - 1
    chosen = np.empty(n, dtype=np.int64)
    chosen[order] = winner_chunk[key_index]
    keep = np.flatnonzero(run.doc_codes == chosen)
    counts["chunks_merged"] = int(n - len(keep))
    return Run(query_codes=row_query[keep], queries=run.queries, doc_codes=row_doc[keep], docs=docs,
               scores=run.scores[keep] if run.has_scores else None,
               lines=take_lines(run.lines, keep),
               source=run.source, name=run.name)

