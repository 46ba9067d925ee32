"""A JSON Lines log read in blocks of bounded size, for out-of-core evaluation.

pyarrow's streaming JSON reader cannot take a field whose JSON type changes
between lines (ids written ``7`` on one line and ``"7"`` on another: it
stops with "changed from string to number"), and takes the types of the
first block for the whole file. So the file is read here in blocks of whole
lines, at most `block` bytes each (a longer line is read whole), each block
parsed by the in-memory reader (:func:`rankproof.io.jsonl.read_jsonl`, which
names a malformed line, here by its line in the file), and every column
spelled as text, as the CSV reader gives it: ``7`` and ``"7"`` are one id,
as they are in memory.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "log.jsonl")
>>> _ = open(path, "w").write('{"user": 7, "item": "a", "score": 0.5}\\n{"user": "8", "item": 9, "score": 1}\\n')
>>> [t.to_pydict() for t in jsonl_batches(path, ("user", "item", "score"), 1 << 16)]
[{'user': ['7', '8'], 'item': ['a', '9'], 'score': ['0.5', '1']}]
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ..errors import ParseError

__all__ = ["jsonl_batches"]


def _blocks(path: str, block: int) -> Iterator[tuple[bytes, int]]:
    """(whole lines of about `block` bytes, lines before them) through the file."""
    before, rest = 0, b""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(block)
            data = rest + chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            if cut == 0 and chunk:      # one line longer than a block: read on
                rest = data
                continue
            data, rest = data[:cut], data[cut:]
            if data:
                yield data, before
                before += data.count(b"\n")
            if not chunk:
                return


def jsonl_batches(path: str, columns: Sequence[str], block: int) -> Iterator:
    """The file's `columns` (query, doc, then grade or score) as pyarrow Tables of text, a block at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io.jsonl import read_jsonl
    from ..io.what import What

    named = dict(zip(("query", "doc", "score"), columns))
    what = What(what="log", unit="row", units="rows", example_value=1)
    for data, before in _blocks(path, block):
        if not data.strip():
            continue
        try:
            table, _ = read_jsonl(data, path, named, what)
        except ParseError as error:
            raise (error.replace(line=error.line + before) if error.line else error) from None
        yield pa.table({name: pc.cast(table.column(name), pa.string())
                        for name in dict.fromkeys(columns)})
