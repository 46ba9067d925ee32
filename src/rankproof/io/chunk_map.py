"""Reading a chunk -> document mapping file (the ``chunk_map=file:PATH`` policy).

A whitespace-separated text file of two columns, ``chunk doc`` (one chunk per
line, ``#`` lines are comments), or a CSV, TSV, JSON Lines or Parquet table
with columns ``chunk`` and ``doc``, chosen by the extension as for runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ParseError, literal
from .files import read_bytes

__all__ = ["read_chunk_map"]


def _text_pairs(data: bytes, source: str) -> tuple[list[str], list[str]]:
    chunks: list[str] = []
    docs: list[str] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParseError(source=source, what="is not UTF-8 text",
                         fix="re-save it as UTF-8") from None
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise ParseError(source=source, line=number, what=f"has {len(fields)} fields",
                             fix="give two per line, the chunk id and its document id, e.g. 'doc7#3 doc7'")
        chunks.append(fields[0])
        docs.append(fields[1])
    return chunks, docs


def read_chunk_map(path: str) -> tuple[np.ndarray, np.ndarray]:
    """The mapping as (chunk ids sorted, document id of each), both str arrays.

    Raises :class:`~rankproof.errors.ParseError` naming the file (and line)
    when it cannot be read, is malformed, is empty, or maps one chunk to two
    documents.
    """
    from .formats import What, format_of, read_table

    source = str(path)
    fmt = format_of(path)
    if fmt == "trec":
        chunks, docs = _text_pairs(read_bytes(Path(path), source, "chunk map"), source)
    else:
        what = What(what="chunk map", unit="chunk", units="chunks", example_value="doc7")
        table, _, _ = read_table(path, fmt, {"chunk": "chunk", "doc": "doc"}, what)
        chunks = [str(v) for v in table.column("chunk").to_pylist()]
        docs = [str(v) for v in table.column("doc").to_pylist()]
    if not chunks:
        raise ParseError(source=source, what="maps no chunk",
                         fix="give one line 'chunk doc' per chunk")
    chunk_array = np.array(chunks, dtype=object)
    doc_array = np.array(docs, dtype=object)
    order = np.argsort(chunk_array, kind="stable")
    chunk_array, doc_array = chunk_array[order], doc_array[order]
    same = chunk_array[1:] == chunk_array[:-1]
    clash = np.flatnonzero(same & (doc_array[1:] != doc_array[:-1]))
    if clash.size:
        i = int(clash[0])
        raise ParseError(source=source, value=chunk_array[i], fix="give each chunk one document",
                         what=f"maps chunk {literal(chunk_array[i])} to both {literal(doc_array[i])} and "
                              f"{literal(doc_array[i + 1])}")
    keep = np.concatenate([[True], ~same])
    return chunk_array[keep].astype(str), doc_array[keep].astype(str)
