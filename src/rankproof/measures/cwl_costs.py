"""The cost of each ranked document for the C/W/L measures, read from files as cwl_eval reads them.

cwl_eval (Azzopardi, Thomas and Moffat 2019) takes a cost file of
``element_type cost`` lines and reads each ranked document's element type
from the second column of the TREC run (``topic element_type doc rank score
run``), the column trec_eval ignores. Here that is two measure parameters:

- ``costs=PATH``: a file of ``key cost`` lines (whitespace separated). With
  ``elements=RUN`` the keys are element types; without it they are doc ids.
  A file of ``query doc cost`` lines gives a cost per document per query.
- ``elements=RUN``: a TREC run file whose second column names the element
  type of each (query, doc); usually the run evaluated.

A ranked document no file prices costs 1, cwl_eval's default ``max_cost``
(as it prices an element type its cost file lacks). Costs must be finite
and positive: C/W/L's rate measures divide by the cumulative cost, and
cwl_eval asks for "no free lunches".

Each file is read once when the measure is built; its text form is the path
(``tbg(costs=costs.txt,elements=run.txt)``), and two measures are equal when
their files' contents are.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np

from ..errors import MeasureError, ParseError, literal
from ..protocol.values import file_digest

__all__ = ["CostFile", "ElementFile", "DEFAULT_COST", "position_costs", "parse_costs",
           "parse_elements"]

# cwl_eval's max_cost: what an element type its cost file lacks (and an unjudged padding slot)
# costs.
DEFAULT_COST = 1.0
# Side files are small tables; past this they are a mistake (a run given as the cost file, say).
_LARGEST_SIDE_FILE = 1 << 30


def _lines(path: str, what: str):
    """(line number, fields) of each non-blank line of a text file."""
    file_digest(path, what)   # refuses devices, pipes and binary files before reading
    import os

    if os.path.getsize(path) > _LARGEST_SIDE_FILE:
        raise MeasureError(what=f"the {what} file {literal(path)} is larger than 1 GiB", value=path,
                           fix="give the table of costs (key cost), not a run")
    with open(path, encoding="utf-8", errors="strict") as handle:
        try:
            for number, line in enumerate(handle, 1):
                fields = line.split()
                if fields:
                    yield number, fields
        except UnicodeDecodeError:
            raise ParseError(what=f"the {what} file is not UTF-8 text", source=path,
                             fix="save it as UTF-8") from None


def _cost(text: str, path: str, line: int) -> float:
    try:
        cost = float(text)
    except ValueError:
        cost = math.nan
    if not math.isfinite(cost) or cost <= 0:
        raise ParseError(what=f"a cost must be a finite number > 0; got {literal(repr(text[:40]))}",
                         source=path,
                         line=line, value=text[:40],
                         fix="C/W/L divides by the cumulative cost: give every "
                         "element a positive cost (cwl_eval's 'no free lunches')")
    return cost


@dataclasses.dataclass(frozen=True, eq=False)
class CostFile:
    """Costs read from ``path``: by key (an element type or a doc id), or by (query, doc).

    ``by_key`` holds ``key -> cost``; ``by_pair`` holds ``(query, doc) -> cost``.
    One of the two is empty. Equal when the contents are.
    """

    path: str
    by_key: dict
    by_pair: dict

    @classmethod
    def read(cls, path: str) -> "CostFile":
        by_key: dict = {}
        by_pair: dict = {}
        width = None
        for line, fields in _lines(path, "costs"):
            if len(fields) not in (2, 3) or (width is not None and len(fields) != width):
                raise ParseError(what=f"a cost line has {len(fields)} fields", source=path,
                                 line=line,
                                 fix="write 'element_type cost' (cwl_eval's cost file), 'doc cost' or "
                                     "'query doc cost' on every line")
            width = len(fields)
            table, key = (by_key, fields[0]) if width == 2 else (by_pair, (fields[0], fields[1]))
            cost = _cost(fields[-1], path, line)
            # which would win is a guess: cwl_eval keeps the last, silently
            if table.get(key, cost) != cost:
                raise ParseError(what=f"{' '.join(map(str, key if width == 3 else (key,)))} is priced twice, "
                                 f"{table[key]:g} and {cost:g}", source=path, line=line,
                                 fix="give each element one cost")
            table[key] = cost
        if width is None:
            raise ParseError(what="the costs file is empty", source=path,
                             fix="give one 'key cost' line per element")
        return cls(path, by_key, by_pair)

    def __eq__(self, other) -> bool:
        return (isinstance(other, CostFile) and (self.by_key, self.by_pair)
                == (other.by_key, other.by_pair))

    def __hash__(self) -> int:
        return hash((len(self.by_key), len(self.by_pair), self.path))

    def __str__(self) -> str:
        return self.path


@dataclasses.dataclass(frozen=True, eq=False)
class ElementFile:
    """``(query, doc) -> element type`` from the second column of a TREC run file."""

    path: str
    element: dict

    @classmethod
    def read(cls, path: str) -> "ElementFile":
        element: dict = {}
        for line, fields in _lines(path, "elements"):
            if len(fields) < 3:
                raise ParseError(what=f"a run line has {len(fields)} fields; the element type is its second",
                                 source=path, line=line,
                                 fix="give the TREC run: query element_type doc rank "
                                 "score run")
            element.setdefault((fields[0], fields[2]), fields[1])
        return cls(path, element)

    def __eq__(self, other) -> bool:
        return isinstance(other, ElementFile) and self.element == other.element

    def __hash__(self) -> int:
        return hash((len(self.element), self.path))

    def __str__(self) -> str:
        return self.path


def _path(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or any(c in value for c in " \t\n(),"):
        raise MeasureError(what=f"{what} must be a file path without blanks, commas or parentheses; got "
                           f"{literal(repr(str(value)[:60]))}", value=value,
                           fix="rename or link the file")
    return value.strip()


def _stamp(path: str) -> tuple:
    """What tells one state of a file from another without reading it: size and change times."""
    import os

    try:
        info = os.stat(path)
    except OSError:
        return (path,)   # the reader reports what is wrong with the path
    return (path, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


@functools.lru_cache(maxsize=16)
def _read(reader: Callable[[str], Any], stamp: tuple):
    # A measure list often names one cost file many times (each quantity of each model):
    # read once per state of the file.
    return reader(stamp[0])


def parse_costs(value) -> CostFile:
    """The ``costs`` parameter: a CostFile, or the path of one."""
    return (value if isinstance(value, CostFile)
            else _read(CostFile.read, _stamp(_path(value, "costs"))))


def parse_elements(value) -> ElementFile:
    """The ``elements`` parameter: an ElementFile, or the path of a TREC run."""
    return (value if isinstance(value, ElementFile)
            else _read(ElementFile.read, _stamp(_path(value, "elements"))))


def position_costs(alignment, costs: "CostFile | None",
                   elements: "ElementFile | None") -> np.ndarray:
    """The cost of every ranked position of ``alignment`` (1 when no file prices it).

    >>> position_costs(type("A", (), {"doc": np.array([0, 1]), "offsets": np.array([0, 2])})(), None, None)
    array([1., 1.])
    """
    size = len(alignment.doc)
    if costs is None:
        return np.full(size, DEFAULT_COST)
    docs = alignment.docs
    if elements is None and not costs.by_pair:
        per_code = np.array([costs.by_key.get(str(d), DEFAULT_COST) for d in docs],
                            dtype=np.float64)
        return per_code[alignment.doc] if size else np.zeros(0)
    if costs.by_pair:
        by_pair = costs.by_pair
    else:   # element type -> cost, composed once per (query, doc) the run file lists
        listed = elements.element.items() if elements is not None else ()
        by_pair = {pair: costs.by_key.get(kind, DEFAULT_COST) for pair, kind in listed}
    query = np.repeat(np.arange(len(alignment.queries)), np.diff(alignment.offsets)).tolist()
    names = [str(q) for q in alignment.queries]
    doc_names = [str(d) for d in docs]
    return np.array([by_pair.get((names[q], doc_names[d]), DEFAULT_COST)
                     for q, d in zip(query, alignment.doc.tolist())], dtype=np.float64)
