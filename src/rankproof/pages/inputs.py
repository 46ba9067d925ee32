"""The report's input files (a part of the page model): each one's digest and size for the page's header, and the segments file."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re

from ..errors import InputError, literal
from ..io.files import json_int

__all__ = ["InputFile", "input_file", "read_segments", "check_segments_match"]


@dataclasses.dataclass(frozen=True)
class InputFile:
    """One input file: its role, path, SHA-256 (first 16 hex digits), lines and bytes."""

    role: str
    path: str
    sha256: str
    lines: int
    size: int


def input_file(role: str, path: "str | os.PathLike[str]") -> InputFile | None:
    """Digest and line count of a file, or None when the path is not a readable file.

    >>> import tempfile, pathlib
    >>> folder = tempfile.mkdtemp()
    >>> path = pathlib.Path(folder, "q.txt"); _ = path.write_text("1 0 a 1\\n1 0 b 0\\n")
    >>> f = input_file("qrels", path)
    >>> f.lines, f.size, f.sha256       # sha256sum of the file, first 16 hex digits
    (2, 16, '9df8cc85e0767f1a')
    """
    digest, lines, size, last = hashlib.sha256(), 0, 0, b"\n"
    try:
        # In blocks: a Parquet log of a million users is hashed without holding it.
        with open(path, "rb") as stream:
            while block := stream.read(1 << 23):
                digest.update(block)
                lines += block.count(b"\n")
                size += len(block)
                last = block[-1:]
    except OSError:
        return None
    lines += 1 if size and last != b"\n" else 0
    return InputFile(role=role, path=str(path), sha256=digest.hexdigest()[:16], lines=lines,
                     size=size)


def read_segments(path: "str | os.PathLike[str]") -> dict[str, str]:
    """A query -> segment mapping from a file.

    JSON (``.json``): an object ``{"query": "segment", ...}`` whose labels are
    strings (or numbers, read as their text). Otherwise text, one query per
    line: the query id, spaces or tabs, the segment label (the rest of the
    line); blank lines and lines starting with ``#`` are skipped. Lines end
    at ``\\n`` only and fields are split at ASCII blanks only, so an id may
    hold a non-breaking space and line numbers are an editor's.

    The file is read as every input is (a binary file or device is refused
    at its first megabyte, the size is capped), and JSON deeper than the
    nesting limit is refused before it is parsed.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp(), "seg.txt")
    >>> _ = path.write_text("# query segment\\n1 short\\n2 long query\\n")
    >>> read_segments(path)
    {'1': 'short', '2': 'long query'}
    """
    from ..io.files import check_json_nesting, load_text

    source = f"--segments {path}"
    example = 'give a UTF-8 text file of "query segment" lines, or a JSON object {"1": "short"}'
    data = load_text(path, source, what="segments", label="segments", binary_hint=lambda _: example,
                     encoding_fix=lambda _: example)
    if str(path).endswith(".json"):
        check_json_nesting(data, source)
        return _json_segments(data, source)
    return _text_segments(data.decode("utf-8"), path)


def _json_segments(data: bytes, source: str) -> dict[str, str]:
    try:
        raw = json.loads(data, parse_int=json_int)
    except (ValueError, RecursionError) as error:
        raise InputError(what=literal(f"not valid JSON ({error})"), source=source,
                         fix='write {{"query": "segment"}}') from None
    if not isinstance(raw, dict):
        raise InputError(what='expected a JSON object such as {{"1": "short"}}', source=source,
                         value=type(raw).__name__)
    labels: dict[str, str] = {}
    for query, label in raw.items():
        # null would become a segment named "None", a list one named "['x']".
        if isinstance(label, bool) or not isinstance(label, (str, int, float)) or label == "":
            raise InputError(what=literal(f"query {query!r} has segment {json.dumps(label)[:40]}, not a name"),
                             source=source, query=query,
                             fix="give each query a segment name as a string")
        labels[query] = str(label)
    if not labels:
        raise InputError(what="the object names no query", source=source,
                         fix='write {{"query": "segment"}}')
    return labels


def _text_segments(text: str, path: "str | os.PathLike[str]") -> dict[str, str]:
    labels: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip(" \t\r")
        if not line or line.startswith("#"):
            continue
        parts = re.split(r"[ \t]+", line, maxsplit=1)
        if len(parts) < 2:
            raise InputError(what=literal(f"expected 'query segment', got {line[:80]!r}"),
                             source=f"{path}:{number}",
                             value=line, fix="give the query id, a space, then its segment")
        query, label = parts[0], parts[1].strip(" \t")
        if query in labels and labels[query] != label:
            raise InputError(what=literal(f"query {query} is given two segments ({labels[query]!r} and {label!r})"),
                             source=f"{path}:{number}", value=label,
                             fix="give each query one segment")
        labels[query] = label
    if not labels:
        raise InputError(what="no 'query segment' line", source=str(path),
                         fix="give one line per query")
    return labels


def check_segments_match(segments: dict[str, str], queries, path: "str | os.PathLike[str]") -> None:
    """Refuse a segments file that names none of the judged queries (it would be ignored without a word).

    >>> check_segments_match({"1": "short"}, ["1", "2"], "seg.txt")
    >>> check_segments_match({"01": "short"}, ["1", "2"], "seg.txt")
    Traceback (most recent call last):
    ...
    rankproof.errors.InputError: --segments seg.txt: none of its 1 queries is a query of the qrels (its first: '01'; the qrels' first: '1'); check that both use the same query ids
    """
    known = {str(query) for query in queries}
    if not any(query in known for query in segments):
        first = next(iter(segments))
        theirs = next(iter(known), None)
        raise InputError(what=literal(f"none of its {len(segments):,} queries is a query of the qrels (its first: "
                                      f"{first!r}; the qrels' first: {sorted(known)[0] if theirs else None!r})"),
                         source=f"--segments {path}", fix="check that both use the same query ids")
