"""The report's input files: each one's digest and size for the page's header, and the segments file."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os

from ..errors import InputError, literal
from ..io.files import json_int

__all__ = ["InputFile", "input_file", "read_segments"]


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
    try:
        with open(path, "rb") as stream:
            content = stream.read()
    except OSError:
        return None
    lines = content.count(b"\n") + (1 if content and not content.endswith(b"\n") else 0)
    return InputFile(role=role, path=str(path), sha256=hashlib.sha256(content).hexdigest()[:16],
                     lines=lines, size=len(content))


def read_segments(path: "str | os.PathLike[str]") -> dict[str, str]:
    """A query -> segment mapping from a file.

    JSON (``.json``): an object ``{"query": "segment", ...}``. Otherwise text,
    one query per line: the query id, white space, the segment label (the
    rest of the line); blank lines and lines starting with ``#`` are skipped.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp(), "seg.txt")
    >>> _ = path.write_text("# query segment\\n1 short\\n2 long query\\n")
    >>> read_segments(path)
    {'1': 'short', '2': 'long query'}
    """
    try:
        text = open(path, encoding="utf-8").read()
    except FileNotFoundError:
        raise InputError(what="the file does not exist", source=f"--segments {path}", fix="check the path") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(what=literal(f"cannot be read ({error})"), source=f"--segments {path}",
                         fix="give a UTF-8 text or JSON file") from None
    if str(path).endswith(".json"):
        try:
            raw = json.loads(text, parse_int=json_int)
        except json.JSONDecodeError as error:
            raise InputError(what=literal(f"not valid JSON ({error})"), source=f"--segments {path}",
                             fix='write {{"query": "segment"}}') from None
        if not isinstance(raw, dict):
            raise InputError(what='expected a JSON object such as {{"1": "short"}}', source=f"--segments {path}",
                             value=type(raw).__name__)
        return {str(query): str(label) for query, label in raw.items()}
    labels: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            raise InputError(what=literal(f"expected 'query segment', got {line!r}"), source=f"{path}:{number}",
                             value=line, fix="give the query id, a space, then its segment")
        query, label = parts[0], parts[1].strip()
        if query in labels and labels[query] != label:
            raise InputError(what=literal(f"query {query} is given two segments ({labels[query]!r} and {label!r})"),
                             source=f"{path}:{number}", value=label, fix="give each query one segment")
        labels[query] = label
    if not labels:
        raise InputError(what="no 'query segment' line", source=str(path), fix="give one line per query")
    return labels
