"""Reading TREC qrels and run files into interned columns.

One compiled pass (:mod:`rankproof._libs.trec_scan`) splits the lines and
columns, checks the column count and parses the grade or score of every data
line, interns the query and doc ids through a hash table and records each
row's line number. Files of every size take this one path; a large file is
cut at newlines into parts scanned in threads, whose id tables are merged
afterwards. The distinct ids (a few per thousand rows) are then sorted by
code point and the codes renumbered. When the scan stops at a bad line,
Python builds the message (file, line, what, the fix).

What a line is:

- columns are separated by runs of *blanks*: spaces, tabs and carriage
  returns; blanks at either end of a line are ignored (so CRLF files read
  as LF files);
- a line of blanks only, and a line whose first non-blank character is
  ``#``, are skipped; a ``#`` later in a line is data;
- a vertical tab or a form feed in a data line is refused: trec_eval reads
  them as blanks (C's ``isspace``), most other readers as part of an id,
  so such a file means different things to different tools;
- every other byte is part of a column; NUL bytes and invalid UTF-8 are
  refused when the file is loaded, and a UTF-8 BOM is dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any
import dataclasses
from dataclasses import dataclass

import numpy as np

from ..errors import ParseError, literal
from .._libs import interner as _interner
from .._libs import trec_scan as _trec_scan
from .._libs import vocabulary as _vocabulary
from .columns import QrelsColumns, RunColumns
from .limits import MAX_ID_LENGTH
from .files import encoding_hint, load_text
from .values import Problem, grade_problem, real_grade_problem, score_problem, shorten

__all__ = [
    "second_columns",
    "QrelsColumns",
    "RunColumns",
    "read_trec_qrels_columns",
    "read_trec_run_columns",
    "first_data_fields",
]


_FIELD_SEPARATOR = re.compile(r"[ \t\r\v\f]+")  # trec_eval's isspace
_SPACE_NAMES = {0x0B: "a vertical tab (\\v)", 0x0C: "a form feed (\\f)", 0x00: "a NUL byte"}


@dataclass(frozen=True)
class _Format:
    """What distinguishes a qrels file from a run file when reading one."""

    what: str
    names: tuple[str, ...]
    layout: str
    value_index: int
    value_problem: Callable[[str], Problem | None]
    unit: str
    swapped_width: int
    swapped_hint: str
    integer: bool = False  # the value column is read as int64 (else float64)
    doc_index: int = 2     # the column of the doc id
    has_tag: bool = False  # the last column is a run tag

    @property
    def nothing(self) -> str:
        """What a file without a data line holds, for its message."""
        return f"holds no {self.unit}s"

    @property
    def shape_hint(self) -> str:
        """The fix for a line with the wrong number of columns."""
        whole = "ids and the tag" if self.has_tag else "ids"
        return (f"write one {self.unit} per line as '{self.layout}', separated by spaces or tabs "
                f"({whole} cannot contain whitespace)")


_QRELS = _Format(
    what="qrels",
    names=("query", "iteration", "doc", "grade"),
    layout="query 0 doc grade",
    value_index=3,
    value_problem=grade_problem,
    unit="judgment",
    swapped_width=6,
    swapped_hint=(
        "this looks like a run line (query Q0 doc rank score tag); "
        "check that the qrels and run files are not swapped"
    ),
    integer=True,
)
QRELS_FORMAT = _QRELS  # for the readers of TREC-like files (judgments per intent)
# Real-valued grades (grades=real): the value column is read as a score is.
_QRELS_REAL = dataclasses.replace(_QRELS, value_problem=real_grade_problem, integer=False)

_RUN = _Format(
    what="run",
    names=("query", "q0", "doc", "rank", "score", "tag"),
    layout="query Q0 doc rank score tag",
    value_index=4,
    value_problem=score_problem,
    unit="ranked document",
    swapped_width=4,
    swapped_hint=(
        "this looks like a qrels line (query 0 doc grade); "
        "check that the run and qrels files are not swapped"
    ),
    has_tag=True,
)

# A run of three whitespace-separated columns, as many RAG and MTEB dumps
# write it (format "run3"): no Q0, rank or tag.
_RUN3 = dataclasses.replace(
    _RUN, names=("query", "doc", "score"), layout="query doc score", value_index=2,
    swapped_width=6, doc_index=1, has_tag=False,
    swapped_hint="this looks like a TREC run line (query Q0 doc rank score tag); "
                 "read the file with format 'trec', not 'run3'",
)


def load_trec_text(path, source: str, fmt: _Format) -> bytes:
    """Read, decompress and check the file; return UTF-8 bytes without a BOM."""
    return load_text(
        path, source, what=fmt.what, label="TREC",
        binary_hint=lambda data: encoding_hint(data,
                                               f"give the plain-text {fmt.what} file instead"),
        encoding_fix=lambda data: encoding_hint(data,
                                                "TREC files must be UTF-8 text, so re-save it as UTF-8"),
    )


def _row_error(
    fields: list[str], shown: str, fmt: _Format, source: str, line: int
) -> ParseError | None:
    """Return the error for one data line, or None if the line is fine."""
    width = len(fmt.names)
    if len(fields) != width:
        hint = fmt.swapped_hint if len(fields) == fmt.swapped_width else fmt.shape_hint
        if fmt is _RUN and len(fields) == 3:
            hint = ("for a run of 'query doc score' lines pass format 'run3' (--run-format run3); "
                    "else " + hint)
        return ParseError(source=source, line=line, value=shown, fix=hint,
                          what=f"expected {width} columns ({fmt.layout}), found {len(fields)}: "
                               f"{literal(repr(shorten(shown)))}")
    problem = fmt.value_problem(fields[fmt.value_index])
    if problem is None:
        return None
    return ParseError(source=source, line=line, query=shorten(fields[0]),
                      doc=shorten(fields[fmt.doc_index]),
                      what=problem.what, fix=problem.fix, value=problem.value)


def _space_problem(text: bytes, start: int, at: int) -> Problem:
    """Say which byte the line holds that is neither a blank nor part of a column."""
    byte = text[at]
    column = len(text[start:at].decode("utf-8")) + 1
    name = _SPACE_NAMES.get(byte, f"byte 0x{byte:02x}")
    return Problem(f"holds {name} at position {column}",
                   "columns must be separated by spaces or tabs, so replace it with a space "
                   "(or remove it if it belongs to an id)", byte)


# Parts of a file are scanned in threads (the scan releases the GIL); a part
# under this size is not worth a thread.
_PART_BYTES = 4 << 20
_MAX_PARTS = 4


def _parts(text: bytes) -> list[tuple[int, int]]:
    """Cut `text` after newlines into parts of about equal size, one per core."""
    count = max(1, min(os.cpu_count() or 1, _MAX_PARTS, len(text) // _PART_BYTES))
    bounds = [0]
    for k in range(1, count):
        cut = text.find(b"\n", max(bounds[-1], len(text) * k // count))
        if cut < 0 or cut + 1 == len(text):
            break
        bounds.append(cut + 1)
    bounds.append(len(text))
    return list(zip(bounds[:-1], bounds[1:]))


class _InPlace:
    """The part of ThreadPoolExecutor that `_scan` uses, run in the calling thread."""

    def __enter__(self) -> "_InPlace":
        return self

    def __exit__(self, *exc) -> None:
        return None

    @staticmethod
    def map(function, items):
        return map(function, items)


def _pool(parts: int):
    """A thread per part; a one-part file (or stdin's) is scanned in the calling thread, with no pool started."""
    if parts <= 1:
        return _InPlace()
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=parts)


def _scan(path, fmt: _Format) -> tuple[str, dict]:
    """Load a file and scan it; raise the error for its first bad line, if any.

    Each part of the file is scanned into its own slice of the output arrays
    with its own id tables; the tables of the later parts are then merged
    into the first one's and their codes renumbered, and the rows moved
    together. Which part a line fell in changes nothing in the result.
    """
    source = str(path)
    # Held in a list, so that it can be let go before the tables merge (the closures below read it).
    held = [load_trec_text(path, source, fmt)]
    parts = _parts(held[0])
    with _pool(len(parts)) as pool:
        lines_in = list(pool.map(lambda part: _trec_scan.count_lines(held[0], *part), parts))
        # A part's capacity is its line count; its lines follow the newlines before it.
        row_offsets = np.concatenate([[0], np.cumsum(lines_in)]).tolist()
        line_offsets = np.concatenate([[0], np.cumsum(np.subtract(lines_in, 1))]).tolist()
        capacity = row_offsets[-1]
        query_codes = np.empty(capacity, dtype=np.int64)
        doc_codes = np.empty(capacity, dtype=np.int64)
        line = np.empty(capacity, dtype=np.int64)
        values = np.empty(capacity, dtype=np.int64 if fmt.integer else np.float64)
        # The seed only spreads ids over the hash tables (a crafted file cannot
        # aim at collisions); codes do not depend on it.
        seed = int.from_bytes(os.urandom(8), "little")
        tables = [(_interner.Interner(seed), _interner.Interner(seed)) for _ in parts]

        def scan(k: int) -> dict:
            begin, end = parts[k]
            return _trec_scan.scan(
                held[0], begin, end, len(fmt.names), fmt.value_index, fmt.integer,
                tables[k][0], tables[k][1], query_codes, doc_codes, values, line,
                row_offsets[k], line_offsets[k], fmt.doc_index,
            )

        scanned = list(pool.map(scan, range(len(parts))))
    for part in scanned:
        if part["status"] != _trec_scan.OK:
            raise _line_error(held[0], part, fmt, source)
    rows = sum(part["rows"] for part in scanned)
    if rows == 0:
        raise ParseError(source=source,
                         what=f"{fmt.nothing} (the file is empty or has only blank and comment lines)",
                         fix=f"give one '{fmt.layout}' line per {fmt.unit}")
    tag_start, tag_end = next(part["tag"] for part in scanned if part["rows"])
    tag = held[0][tag_start:tag_end].decode("utf-8") if fmt.has_tag else None
    # every id is in the tables' arenas: the file's bytes are not held beside their merge
    held.clear()
    queries, docs = tables[0]
    done = scanned[0]["rows"]
    for k in range(1, len(parts)):
        start, count = row_offsets[k], scanned[k]["rows"]
        _interner.renumber(query_codes[start : start + count], queries.absorb(tables[k][0]))
        _interner.renumber(doc_codes[start : start + count], docs.absorb(tables[k][1]))
        # part k's ids are in the first tables now: free its own before the next merge
        tables[k] = tables[0]
        if start != done:
            for column in (query_codes, doc_codes, values, line):
                column[done : done + count] = column[start : start + count]
        done += count
    return source, {
        "query_codes": query_codes[:rows], "doc_codes": doc_codes[:rows], "values": values[:rows],
        "lines": line[:rows], "queries": queries, "docs": docs,
        "tag": tag,
    }


def _line_error(text: bytes, scanned: dict, fmt: _Format, source: str) -> ParseError:
    """Build the message for the line the scan refused."""
    line, start, end = scanned["line"], scanned["start"], scanned["end"]
    if scanned["status"] == _trec_scan.BAD_SPACE:
        problem = _space_problem(text, start, scanned["at"])
        return ParseError(source=source, line=line, what=problem.what, fix=problem.fix,
                          value=problem.value)
    shown = text[start:end].decode("utf-8").strip(" \t\r\v\f")
    error = _row_error(_FIELD_SEPARATOR.split(shown), shown, fmt, source, line)
    if error is None:  # pragma: no cover - the scan and the message functions disagree
        raise RuntimeError(f"line {line} was refused by the scan but passes the checks")
    return error


def _interned(codes: np.ndarray, interner, what: str = "id", lines: "np.ndarray | None" = None,
              source: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Renumber first-appearance codes (in place) into the order of the sorted ids.

    An id longer than the id-length limit is refused before the vocabulary
    is built: its fixed-width array would take the longest id's size times
    the number of ids (see :mod:`rankproof.io.limits`).
    """
    text, starts, lengths = interner.vocabulary()
    del interner   # the caller hands over its only reference: the hash table goes before the sort
    longest = MAX_ID_LENGTH.value()
    if len(lengths) and int(np.max(lengths)) > longest:
        code = int(np.argmax(np.asarray(lengths) > longest))
        line = int(lines[np.argmax(codes == code)]) if lines is not None else None
        raise ParseError(source=source, line=line, fix=MAX_ID_LENGTH.fix,
                         what=MAX_ID_LENGTH.beyond(f"the {what} id of {int(lengths[code])} bytes"))
    order, ids = _vocabulary.sorted_vocabulary(text, starts, lengths)
    _vocabulary.remap(codes, order)
    return codes, ids


def read_trec_qrels_columns(path, real: bool = False) -> QrelsColumns:
    """Read a TREC qrels file (``query 0 doc grade``) into interned columns.

    Columns are separated by any run of spaces, tabs or CRs; leading and
    trailing blanks and CRLF line ends are tolerated; blank lines and lines whose first
    non-blank character is ``#`` are skipped. The second column is ignored.
    A ``.gz`` file is decompressed. Duplicates and negative grades are left
    for the evaluation policy to judge.

    Parameters
    ----------
    path : str or os.PathLike
        The qrels file.
    real : bool, optional
        Read real-valued grades (``1.5``, ``2e-1``) as float64: the
        protocol's ``grades=real``. NaN and infinities are refused.

    Returns
    -------
    QrelsColumns
        One entry per judgment, in file order.

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, unreadable, not UTF-8 text, holds no
        judgments, or a line has the wrong number of columns, a vertical tab
        or form feed, or a grade that is not a 64-bit integer. The message
        names the file and line.
    """
    source, scanned, ids = _scanned_ids(path, _QRELS_REAL if real else _QRELS)
    return QrelsColumns(**ids, grade=scanned["values"], line=scanned["lines"], source=source)


def _scanned_ids(path, fmt: _Format) -> tuple[str, dict, dict[str, Any]]:
    """The source, what the scan found, and the query and doc columns renumbered in id order."""
    source, scanned = _scan(path, fmt)
    lines = scanned["lines"]
    query_codes, query_vocab = _interned(scanned["query_codes"], scanned.pop("queries"), "query",
                                         lines, source)
    doc_codes, doc_vocab = _interned(scanned["doc_codes"], scanned.pop("docs"), "doc", lines,
                                     source)
    return source, scanned, {"query_codes": query_codes, "query_vocab": query_vocab,
                             "doc_codes": doc_codes, "doc_vocab": doc_vocab}


def read_trec_run_columns(path, *, layout: str = "trec") -> RunColumns:
    """Read a TREC run file (``query Q0 doc rank score tag``) into interned columns.

    Lines are read as :func:`read_trec_qrels_columns` reads them (blanks, comments, CRLF,
    ``.gz``). The second and fourth columns are ignored (the rank need not be a number); the order of documents comes
    from the scores, later.

    Parameters
    ----------
    path : str or os.PathLike
        The run file.
    layout : {"trec", "run3"}, optional
        ``"run3"`` reads three columns, ``query doc score`` (as many RAG and
        MTEB dumps write them), with the same rules for blanks, comments and
        scores; its runs have no tag.

    Returns
    -------
    RunColumns
        One entry per ranked document, in file order.

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, unreadable, not UTF-8 text, holds no ranked
        documents, or a line has the wrong number of columns, a vertical tab
        or form feed, or a score that is not a finite number. The message
        names the file and line.
    """
    source, scanned, ids = _scanned_ids(path, _RUN3 if layout == "run3" else _RUN)
    return RunColumns(**ids, score=scanned["values"], line=scanned["lines"], source=source,
                      tag=scanned["tag"])


def first_data_fields(path, limit: int = 1 << 16) -> list[str] | None:
    """The fields of the first data line (not blank, not a ``#`` comment) within the first
    `limit` bytes of a text file (``.gz`` decompressed), or None when there is none or the
    file cannot be read: a peek to choose a layout; the reader checks the file itself."""
    import gzip
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):   # a FIFO or a device: never opened twice
            return None
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rb") as handle:
            head = handle.read(limit)
    except Exception:   # noqa: BLE001 - a peek: the reader itself says what is wrong with the file
        return None
    for raw in head.split(b"\n")[:-1] if len(head) == limit else head.split(b"\n"):
        text = raw.decode("utf-8", "replace").strip(" \t\r")
        if text and not text.startswith("#"):
            return _FIELD_SEPARATOR.split(text)
    return None


def second_columns(path, lines: tuple[int, ...]) -> list[str]:
    """The second field of the given lines (1-based) of a TREC file, streamed up to the last one;
    an error path's look at the iteration or intent column the reader does not keep."""
    import gzip

    wanted, found = set(lines), {}
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if number in wanted:
                fields = raw.split()
                found[number] = fields[1].decode("utf-8", "replace") if len(fields) > 1 else ""
            if number >= max(wanted):
                break
    return [found.get(number, "") for number in lines]
