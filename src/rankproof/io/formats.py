"""Reading qrels and runs from TREC, CSV, TSV, JSON Lines and Parquet files.

:func:`read_qrels_columns` and :func:`read_run_columns` choose a reader by the
``format`` argument or else by the file extension, and return the same
interned columns as the TREC reader (:mod:`rankproof.io.trec`). TREC files go
to that reader; the others are parsed by pyarrow into a table that
:mod:`rankproof.io.tables` checks and interns, so a value means the same in
every format.

CSV and TSV files have a header line naming the columns; JSON Lines files
hold one object per line; the caller names the query, doc and grade (or
score) columns or fields. Ids are read as text, so ``007`` stays ``007``.
Text files may be gzip-compressed (a ``.gz`` extension) and must be UTF-8.
Messages give the file line of a bad value; Parquet files have no lines, so
their messages give the 1-based row.

The normal path is vectorised. Python walks the lines of a text file only
when pyarrow cannot read it in one go: to name the malformed line, or, for a
JSON Lines file whose field changes JSON type between lines (ids written as
``7`` on one line and ``"7"`` on another), to read it line by line.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, ParseError, literal
from .arrow import missing_error
from .tables import qrels_columns_from_table, run_columns_from_table
from .files import check_json_nesting, encoding_hint, load_text, read_bytes
from .limits import MAX_DECOMPRESSED_BYTES, MAX_DECOMPRESSION_RATIO
from .trec import QrelsColumns, RunColumns, read_trec_qrels_columns, read_trec_run_columns
from .values import shorten

__all__ = [
    "FORMATS",
    "What",
    "QRELS",
    "RUN",
    "format_of",
    "read_table",
    "read_qrels_columns",
    "read_run_columns",
]

FORMATS = ("trec", "csv", "tsv", "jsonl", "parquet")
"""The formats :func:`read_qrels_columns` and :func:`read_run_columns` read."""

_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}
_LABELS = {"csv": "CSV", "tsv": "TSV", "jsonl": "JSON Lines", "parquet": "Parquet"}
_BLOCK_SIZE = 1 << 24


@dataclass(frozen=True)
class What:
    """What distinguishes qrels from a run in messages."""

    what: str
    unit: str
    units: str
    example_value: object


QRELS = What(what="qrels", unit="judgment", units="judgments", example_value=1)
RUN = What(what="run", unit="ranked document", units="ranked documents", example_value=11.17)


# -- line numbers of a delimited or JSON Lines file ------------------------------


def _newlines(data: bytes) -> np.ndarray:
    """Return the byte offsets of every newline in `data`, as int64.

    The scan goes one megabyte at a time (a loop over chunks, not lines):
    comparing the whole buffer at once would allocate, and fault in, one
    bool per byte, which costs several times more than the comparison.
    """
    buffer = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    parts = [
        np.flatnonzero(buffer[offset : offset + step] == 0x0A) + offset
        for offset in range(0, buffer.size, step)
    ]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(parts).astype(np.int64, copy=False)


def _line_bounds(size: int, breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the start and end (exclusive, newline excluded) of every line."""
    starts = np.empty(breaks.size + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = breaks + 1
    ends = np.empty_like(starts)
    ends[:-1] = breaks
    ends[-1] = size
    return starts, ends


def _data_lines(
    text: bytes, breaks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the 1-based line numbers, starts and ends of the non-empty lines."""
    starts, ends = _line_bounds(len(text), breaks)
    keep = ends > starts
    if keep[:-1].all():
        # No blank line but perhaps the empty one after the final newline:
        # slices, not copies, on the common path.
        count = len(keep) - (0 if keep[-1] else 1)
        return np.arange(1, count + 1, dtype=np.int64), starts[:count], ends[:count]
    return np.flatnonzero(keep).astype(np.int64) + 1, starts[keep], ends[keep]


def format_of(path, format: str | None = None) -> str:
    """Return the format `path` is read as.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    format : {"trec", "csv", "tsv", "jsonl", "parquet"}, optional
        Overrides the extension.

    Returns
    -------
    str
        One of :data:`FORMATS`. Without `format`: ``.csv``, ``.tsv``,
        ``.jsonl`` or ``.ndjson`` and ``.parquet`` name their format, each
        optionally followed by ``.gz``; anything else (``.txt``, ``.qrels``,
        ``.run``, ``.trec``, no extension) is TREC.

    Raises
    ------
    rankproof.errors.InputError
        If `format` is not one of :data:`FORMATS`.

    Examples
    --------
    >>> format_of("runs/bm25.tsv.gz"), format_of("qrels.txt"), format_of("x.csv", "trec")
    ('tsv', 'trec', 'trec')
    """
    if format is not None:
        chosen = str(format).lower()
        if chosen not in FORMATS:
            raise InputError(what=f"format {literal(repr(format))} is not one of {', '.join(map(repr, FORMATS))}",
                             value=format, fix="pass one of those, or leave format out to choose by the file extension")
        return chosen
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    return _SUFFIXES.get(os.path.splitext(name)[1], "trec")


# -- files --------------------------------------------------------------------


def _read_bytes(file: Path, source: str, what: What, size: int = -1) -> bytes:
    """Read a file (or its first `size` bytes), turning OS errors into ParseErrors."""
    return read_bytes(file, source, what.what, size)


def _text_hint(data: bytes, label: str) -> str:
    if data.startswith(b"PAR1"):
        return "it looks like a Parquet file, so give it a .parquet extension or pass format='parquet'"
    return encoding_hint(data, f"{label} files must be UTF-8 text, so re-save it as UTF-8")


def _load_text(path, source: str, fmt: str, what: What, how: str) -> bytes:
    """Read, decompress and check a text file; return UTF-8 bytes without a BOM.

    `how` says what a valid file holds, for the message about an empty one.
    """
    label = _LABELS[fmt]
    hint = lambda data: _text_hint(data, label)  # noqa: E731
    data = load_text(path, source, what=what.what, label=label, binary_hint=hint, encoding_fix=hint)
    if not data.strip():
        raise ParseError(source=source, what="is empty", fix=literal(how))
    return data


def _unique(named: dict) -> list:
    return list(dict.fromkeys(named.values()))


def _example_line(named: dict, what: What) -> str:
    record: dict[str, object] = {named["query"]: "q1", named["doc"]: "d1"}
    value_arg = next((arg for arg in ("grade", "score") if arg in named), None)
    if value_arg is not None:
        record[named[value_arg]] = what.example_value
    return json.dumps(record)


# -- CSV and TSV --------------------------------------------------------------


def _delimited_failure(
    data: bytes, source: str, delimiter: str, fmt: str, what: What, exc: Exception
) -> ParseError:
    """Name the first row whose width differs from the header's, once pyarrow gave up."""
    label = _LABELS[fmt]
    separator = "commas" if delimiter == "," else "tabs"
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=delimiter)
    header = None
    try:
        for row in reader:
            if not row:  # a blank line, which pyarrow skips too
                continue
            if header is None:
                header = row
                continue
            if len(row) != len(header):
                shown = literal(repr(delimiter.join(header)))
                return ParseError(source=source, line=reader.line_num, value=delimiter.join(row),
                                  what=f"expected {len(header)} columns like the header ({shown}), found "
                                       f"{len(row)}: {literal(repr(shorten(delimiter.join(row))))}",
                                  fix=f"give every row one value per header column, separated by {separator}")
    except csv.Error as error:
        return ParseError(source=source, line=reader.line_num, what=f"cannot be read as {label} ({literal(error)})",
                          fix="check the quoting on this line")
    text = str(exc).strip()
    reason = text.splitlines()[0] if text else type(exc).__name__
    return ParseError(source=source, what=f"cannot be read as a {label} file ({literal(reason)})",
                      fix=f"check that it has a header line and one row per {what.unit}")


def _read_delimited(data: bytes, source: str, named: dict, fmt: str, what: What):
    """Parse a CSV or TSV file; return the named columns and each row's file line."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    delimiter = "," if fmt == "csv" else "\t"
    # pyarrow skips empty lines and takes CRLF as one line end; deleting the
    # CRs (which keeps every newline) lets numpy find the same lines, and so
    # the file line of every row, without a loop.
    plain = data.translate(None, b"\r") if b"\r" in data else data
    numbers, starts, ends = _data_lines(plain, _newlines(plain))
    header_line = int(numbers[0])
    header_text = plain[starts[0] : ends[0]].decode("utf-8")
    header = next(csv.reader([header_text], delimiter=delimiter))

    missing = [arg for arg, name in named.items() if name not in header]
    if missing:
        raise missing_error(header, named, missing, "column", source, header_line)
    wanted = _unique(named)
    for name in wanted:
        if header.count(name) > 1:
            raise ParseError(source=source, line=header_line, fix="rename all but one",
                             what=f"the header names {header.count(name)} columns {literal(repr(name))}")

    read_options = pacsv.ReadOptions(use_threads=True, block_size=_BLOCK_SIZE)
    parse_options = pacsv.ParseOptions(delimiter=delimiter, ignore_empty_lines=True)
    # Every named column is read as text: ids keep their spelling ("007"), and
    # grades and scores are parsed by the table checks with the TREC reader's
    # rules. No null spellings: "NA" is an id, or a bad grade, never a gap.
    convert_options = pacsv.ConvertOptions(
        column_types={name: pa.string() for name in wanted},
        include_columns=wanted,
        null_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        check_utf8=False,
    )
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=read_options,
            parse_options=parse_options,
            convert_options=convert_options,
        )
    except (pa.ArrowInvalid, pa.ArrowKeyError) as exc:
        raise _delimited_failure(data, source, delimiter, fmt, what, exc) from None

    rows = numbers[1:]
    # A quoted value holding a newline makes one row span several lines; then
    # the lines cannot be matched to rows, and messages give the row instead.
    lines = rows if rows.size == table.num_rows else None
    return table, lines


# -- JSON Lines ---------------------------------------------------------------


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


_RULES = {
    "query": "ids must be strings or integers",
    "doc": "ids must be strings or integers",
    "grade": "grades must be integers such as 0, 1, 2",
    "score": "scores must be numbers such as 11.17",
}


def _as_text(value, arg: str) -> str | None:
    """Spell a JSON value as the text the table checks read, or None if it has no spelling."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and arg not in ("query", "doc"):
        return repr(value)
    return None


def _jsonl_by_line(data: bytes, source: str, named: dict, what: What):
    """Read a JSON Lines file one line at a time, for files pyarrow cannot take whole.

    Names the first malformed line; otherwise turns every value into text
    (``7`` -> ``"7"``, ``2.0`` -> ``"2.0"``), which the table checks then read
    as they read a CSV file.
    """
    import pyarrow as pa

    example = _example_line(named, what)
    wanted = _unique(named)
    values: dict = {name: [] for name in wanted}
    numbers: list[int] = []
    fields: dict = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = raw.strip(b" \t\r")
        if not text:
            continue
        try:
            record = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            if isinstance(exc, json.JSONDecodeError):
                reason = f"{exc.msg} at column {exc.colno}"
            else:
                reason = "nested too deeply"
            raise ParseError(source=source, line=number, fix=f"write one JSON object per line, such as {literal(example)}",
                             what=f"is not valid JSON ({literal(reason)}): "
                                  f"{literal(repr(shorten(text.decode('utf-8'))))}") from None
        if not isinstance(record, dict):
            raise ParseError(source=source, line=number, fix=f"write one JSON object per line, such as {literal(example)}",
                             what=f"holds a JSON {_json_type(record)}, not an object: "
                                  f"{literal(repr(shorten(text.decode('utf-8'))))}")
        fields.update(dict.fromkeys(record))
        for name in wanted:
            values[name].append(record.get(name))
        numbers.append(number)

    missing = [arg for arg, name in named.items() if name not in fields]
    if missing:
        raise missing_error(list(fields), named, missing, "field", source)

    columns = {}
    for arg, name in named.items():
        if name in columns:
            continue
        spelled = []
        for row, value in enumerate(values[name]):
            if value is None or isinstance(value, str):
                spelled.append(value)
                continue
            spelling = _as_text(value, arg)
            if spelling is None:
                raise ParseError(source=source, line=numbers[row], value=value, fix=_RULES[arg],
                                 what=f"{arg} {literal(shorten(json.dumps(value)))} is a JSON {_json_type(value)}")
            spelled.append(spelling)
        columns[name] = pa.array(spelled, type=pa.large_string())
    return pa.table(columns), np.asarray(numbers, dtype=np.int64)


def _read_jsonl(data: bytes, source: str, named: dict, what: What):
    """Parse a JSON Lines file; return the named columns and each row's file line."""
    import pyarrow as pa
    import pyarrow.json as pajson

    # pyarrow skips lines holding only blanks. Deleting the blanks (which
    # keeps every newline) lets numpy find the other lines, and so the file
    # line of every row, without a loop.
    check_json_nesting(data, source)  # before pyarrow, which crashes on deep nesting
    squeezed = data.translate(None, b" \t\r")
    numbers, _, _ = _data_lines(squeezed, _newlines(squeezed))
    try:
        table = pajson.read_json(
            pa.BufferReader(data),
            read_options=pajson.ReadOptions(use_threads=True, block_size=_BLOCK_SIZE),
            parse_options=pajson.ParseOptions(newlines_in_values=False),
        )
    except pa.ArrowInvalid:
        # A malformed line, or a field whose JSON type changes between lines.
        return _jsonl_by_line(data, source, named, what)
    if table.num_rows != numbers.size:  # pragma: no cover - pyarrow skipped a line numpy kept
        return _jsonl_by_line(data, source, named, what)
    present = table.column_names
    missing = [arg for arg, name in named.items() if name not in present]
    if missing:
        raise missing_error(present, named, missing, "field", source)
    return table.select(_unique(named)), numbers


# -- Parquet ------------------------------------------------------------------


def _check_parquet_size(parquet, file: Path, source: str, columns: int) -> None:
    """Refuse a Parquet file whose rows would take far more memory than its size.

    Parquet's dictionary and run-length encodings make a decompression bomb
    easy (50 million identical rows in half a megabyte). The rows are known
    from the footer before anything is decoded; each row of each column read
    takes at least 8 bytes once decoded.
    """
    decoded = parquet.metadata.num_rows * max(columns, 1) * 8
    most = MAX_DECOMPRESSED_BYTES.value()
    if decoded > most:
        raise ParseError(source=source, fix=MAX_DECOMPRESSED_BYTES.fix, what=MAX_DECOMPRESSED_BYTES.beyond(
            f"{parquet.metadata.num_rows} rows (at least {decoded} bytes decoded)"))
    ratio = MAX_DECOMPRESSION_RATIO.value()
    size = max(file.stat().st_size, 1)
    if decoded > (64 << 20) and decoded > ratio * size:
        raise ParseError(source=source, fix=MAX_DECOMPRESSION_RATIO.fix, what=MAX_DECOMPRESSION_RATIO.beyond(
            f"{parquet.metadata.num_rows} rows in {size} bytes (at least {decoded // size} times the file "
            "size once decoded), a decompression bomb or a very repetitive file,"))


def _read_parquet(path, source: str, named: dict, what: What):
    """Read the named columns of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = Path(path)
    if file.name.lower().endswith(".gz"):
        raise ParseError(source=source, what="is a gzip-compressed Parquet file",
                         fix="Parquet compresses its columns itself, so decompress the file and give the .parquet file")
    head = _read_bytes(file, source, what, size=4)
    if not head:
        raise ParseError(source=source, what="is empty", fix=f"give a Parquet file with one row per {what.unit}")
    try:
        parquet = pq.ParquetFile(str(file))
        present = parquet.schema_arrow.names
    except (pa.ArrowInvalid, OSError) as exc:
        text = str(exc).strip()
        reason = text.splitlines()[0] if text else type(exc).__name__
        hint = encoding_hint(
            head, "check that it is a Parquet file, or pass format= to read it as text"
        )
        raise ParseError(source=source, what=f"is not a Parquet file ({literal(reason)})", fix=hint) from None
    missing = [arg for arg, name in named.items() if name not in present]
    if missing:
        raise missing_error(present, named, missing, "column", source)
    _check_parquet_size(parquet, file, source, len(_unique(named)))
    try:
        return parquet.read(columns=_unique(named))
    except (pa.ArrowInvalid, OSError) as exc:
        raise ParseError(source=source, what=f"cannot be read as Parquet ({literal(exc)})",
                         fix="check that the file is whole") from None


# -- public -------------------------------------------------------------------


def read_table(path, fmt: str, named: dict, what: What):
    """Read a non-TREC file into ``(table, lines or None, source)``."""
    source = str(path)
    if fmt == "parquet":
        table, lines = _read_parquet(path, source, named, what), None
    elif fmt == "jsonl":
        how = f"give one JSON object per line, such as {_example_line(named, what)}"
        data = _load_text(path, source, fmt, what, how)
        table, lines = _read_jsonl(data, source, named, what)
    else:
        delimiter = "," if fmt == "csv" else "\t"
        header = delimiter.join(str(name) for name in named.values())
        how = f"give a header line such as {header!r} and one row per {what.unit}"
        data = _load_text(path, source, fmt, what, how)
        table, lines = _read_delimited(data, source, named, fmt, what)
    if table.num_rows == 0:
        # Only a header line (or a Parquet file without rows).
        raise ParseError(source=source, what=f"holds no {what.units} (it has columns but no rows)",
                         fix=f"give one row per {what.unit}")
    return table, lines, source


def read_qrels_columns(
    path, format: str | None = None, *, query="query", doc="doc", grade="grade", real: bool = False
) -> QrelsColumns:
    """Read a qrels file in any supported format into interned columns.

    Parameters
    ----------
    path : str or os.PathLike
        The file. ``.gz`` text files are decompressed.
    format : {"trec", "csv", "tsv", "jsonl", "parquet"}, optional
        Without it, the extension decides (see :func:`format_of`).
    query, doc, grade : str, optional
        Names of the columns (CSV, TSV, Parquet) or fields (JSON Lines) that
        hold the query id, the document id and the grade. A TREC file's
        columns are positional, so there the names are not used.
    real : bool, optional
        Read real-valued grades (float64) instead of integers (the
        protocol's ``grades=real``).

    Returns
    -------
    QrelsColumns
        One entry per judgment, in file order. ``line`` is the file line of
        each row for text files (a CSV file's header is line 1), ``-1`` for
        Parquet.

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, unreadable, empty, not UTF-8 text, not in the
        format, lacks a named column (the message lists those it has), or a
        row has a missing or empty id or a grade that is not an integer. The
        message names the file and the line (row for Parquet).
    rankproof.errors.InputError
        If `format` is unknown.
    """
    fmt = format_of(path, format)
    if fmt == "trec":
        return read_trec_qrels_columns(path, real=real)
    named = {"query": query, "doc": doc, "grade": grade}
    table, lines, source = read_table(path, fmt, named, QRELS)
    return qrels_columns_from_table(
        table, query=query, doc=doc, grade=grade, source=source, lines=lines, real=real
    )


def read_run_columns(
    path, format: str | None = None, *, query="query", doc="doc", score="score"
) -> RunColumns:
    """Read a run file in any supported format into interned columns.

    Parameters
    ----------
    path : str or os.PathLike
        The file. ``.gz`` text files are decompressed.
    format : {"trec", "csv", "tsv", "jsonl", "parquet"}, optional
        Without it, the extension decides (see :func:`format_of`).
    query, doc : str, optional
        Names of the columns or fields holding the query and document ids.
    score : str or None, optional
        Name of the score column or field. None means the file has no scores
        and its rows are in rank order within each query, best first; the
        result then has ``has_scores=False``. Not used for TREC files, which
        always have scores.

    Returns
    -------
    RunColumns
        One entry per ranked document, in file order. ``tag`` is the TREC
        run tag, None for the other formats; ``line`` is as for
        :func:`read_qrels_columns`.

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, unreadable, empty, not UTF-8 text, not in the
        format, lacks a named column, or a row has a missing or empty id or a
        score that is not a finite number. The message names the file and the
        line (row for Parquet).
    rankproof.errors.InputError
        If `format` is unknown.
    """
    fmt = format_of(path, format)
    if fmt == "trec":
        return read_trec_run_columns(path)
    named = {"query": query, "doc": doc}
    if score is not None:
        named["score"] = score
    table, lines, source = read_table(path, fmt, named, RUN)
    return run_columns_from_table(
        table, query=query, doc=doc, score=score, source=source, lines=lines
    )


# The names other modules imported before these became public.
_What = What
_read_table = read_table
