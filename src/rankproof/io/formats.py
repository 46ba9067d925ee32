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

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, ParseError, literal
from .arrow import release_arrow_memory
from .delimited import read_delimited
from .files import encoding_hint, load_text
from .jsonl import read_jsonl
from .parquet import open_parquet, read_column, read_parquet
from .tables import consume_run_table, qrels_columns_from_table, read_grouped_run
from .trec import (QrelsColumns, RunColumns, first_data_fields, read_trec_qrels_columns,
                   read_trec_run_columns)
from .values import score_problem
from .what import LABELS, QRELS, RUN, What, example_line

__all__ = [
    "FORMATS",
    "INPUT_FORMATS",
    "InputFormat",
    "formats_for",
    "named_format",
    "What",
    "QRELS",
    "RUN",
    "format_of",
    "POSITIONS",
    "positional",
    "read_table",
    "read_qrels_columns",
    "read_run_columns",
]

@dataclass(frozen=True)
class InputFormat:
    """One input format: its name, the file suffixes that name it, and the routes that read it.

    Routes: ``"memory"`` (:func:`read_qrels_columns`, :func:`read_run_columns`),
    ``"out_of_core"`` (a log read in parts under a memory budget,
    :mod:`rankproof.frontdoors.outofcore`), ``"spark"`` (``--engine spark``) and
    ``"rag"`` (:func:`rankproof.io.rag.read_rag`).
    """

    name: str
    suffixes: tuple[str, ...]
    routes: frozenset[str]
    label: str


def _format(name: str, suffixes: tuple[str, ...], routes: str, label: str) -> InputFormat:
    return InputFormat(name, suffixes, frozenset(routes.split()), label)


# Every input format and what reads it: format_of consults this table, and so does every
# reader and front door that chooses by a file's name (a new format is one row here).
INPUT_FORMATS: dict[str, InputFormat] = {entry.name: entry for entry in (
    _format("trec", (), "memory", "TREC"),
    _format("csv", (".csv",), "memory out_of_core", "CSV"),
    _format("tsv", (".tsv",), "memory out_of_core", "TSV"),
    _format("jsonl", (".jsonl", ".ndjson"), "memory out_of_core rag", "JSON Lines"),
    _format("parquet", (".parquet", ".pq"), "memory out_of_core spark rag", "Parquet"),
    _format("run3", (), "memory", "three-column run"),
    _format("json", (".json",), "rag", "a JSON list"),
)}

ROUTES = ("memory", "out_of_core", "spark", "rag")

FORMATS = tuple(name for name, entry in INPUT_FORMATS.items() if "memory" in entry.routes)
"""The formats :func:`read_qrels_columns` and :func:`read_run_columns` read. ``run3`` is a
run of three whitespace-separated columns, ``query doc score`` (runs only)."""


def formats_for(route: str) -> tuple[str, ...]:
    """The formats a route reads, in the table's order.

    >>> formats_for("out_of_core")
    ('csv', 'tsv', 'jsonl', 'parquet')
    """
    return tuple(name for name, entry in INPUT_FORMATS.items() if route in entry.routes)


def named_format(path, route: str = "memory") -> str | None:
    """The format the file's name gives (``.gz`` ignored), among those the route reads; None if none."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    suffix = os.path.splitext(name)[1]
    return next((entry.name for entry in INPUT_FORMATS.values() if suffix in entry.suffixes
                 and route in entry.routes), None)


def format_of(path, format: str | None = None, *, route: str = "memory") -> str:
    """Return the format `path` is read as.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    format : {"trec", "csv", "tsv", "jsonl", "parquet", "run3"}, optional
        Overrides the extension.
    route : {"memory", "out_of_core", "spark", "rag"}
        What will read the file (:data:`INPUT_FORMATS` says which formats each reads).

    Returns
    -------
    str
        A format of :data:`INPUT_FORMATS` that the route reads. Without
        `format`: ``.csv``, ``.tsv``, ``.jsonl`` or ``.ndjson`` and
        ``.parquet`` or ``.pq`` name their format, each optionally followed by
        ``.gz``; in memory anything else (``.txt``, ``.qrels``, ``.run``,
        ``.trec``, no extension) is TREC, and a RAG file is JSON Lines unless
        its name says Parquet or a JSON list (``.json``).

    Raises
    ------
    rankproof.errors.InputError
        If `format` is not a format of the route, or (routes without a
        default) the file's name names none of them.

    Examples
    --------
    >>> format_of("runs/bm25.tsv.gz"), format_of("qrels.txt"), format_of("x.csv", "trec")
    ('tsv', 'trec', 'trec')
    >>> format_of("log.pq"), format_of("rows.json", route="rag")
    ('parquet', 'json')
    """
    readable = formats_for(route)
    if format is not None:
        chosen = str(format).lower()
        if chosen not in readable:
            raise InputError(what=f"format {literal(repr(format))} is not one of {', '.join(map(repr, readable))}",
                             value=format,
                             fix="pass one of those, or leave format out to choose by the file extension")
        return chosen
    found = named_format(path, route)
    if found is not None:
        return found
    default = {"memory": "trec", "rag": "jsonl"}.get(route)
    if default is None:
        labels = ", ".join(INPUT_FORMATS[name].label for name in readable)
        raise InputError(what=f"{literal(str(path))}: {route.replace('_', '-')} evaluation reads {labels} files; "
                              "the file's name names none of them", value=str(path),
                         fix="convert it, or name its format")
    return default


# -- files --------------------------------------------------------------------


def _text_hint(data: bytes, label: str) -> str:
    if data.startswith(b"PAR1"):
        return "it looks like a Parquet file, so give it a .parquet extension or pass format='parquet'"
    return encoding_hint(data, f"{label} files must be UTF-8 text, so re-save it as UTF-8")


def _load_text(path, source: str, fmt: str, what: What, how: str) -> bytes:
    """Read, decompress and check a text file; return UTF-8 bytes without a BOM.

    `how` says what a valid file holds, for the message about an empty one.
    """
    label = LABELS[fmt]
    hint = lambda data: _text_hint(data, label)  # noqa: E731
    data = load_text(path, source, what=what.what, label=label, binary_hint=hint, encoding_fix=hint)
    if not data.strip():
        raise ParseError(source=source, what="is empty", fix=literal(how))
    return data


def _three_columns(path) -> bool:
    """A file read as TREC by its extension whose first data line is ``query doc score``
    (three columns, the third a number): a TREC run line has six, so the only reading
    is format run3."""
    fields = first_data_fields(path)
    if fields is None or len(fields) != 3:
        return False
    return score_problem(fields[2]) is None


# -- public -------------------------------------------------------------------


def _refuse_run3(path, what: str) -> None:
    raise ParseError(source=str(path),
                     what=f"format 'run3' ('query doc score' lines) holds a run, not {what}",
                     fix="give the format of this file (trec, csv, tsv, jsonl or parquet)")


POSITIONS = {"query": "1", "doc": "2", "grade": "3", "score": "3"}
"""Without a header line (``header=False``; ``--no-header``), the column each role is read
from when it is not named: query 1, doc 2, grade or score 3 (1-based positions)."""


def positional(named: dict, fmt: str, header: bool) -> dict:
    """The columns of `named` for a file with (`header`) or without a header line.

    Without one, columns are named by their 1-based position (``"2"`` or 2); a role left at
    its default (its own name) takes its :data:`POSITIONS` column, and a name that is not a
    position is refused, as is ``header=False`` for a format that has no header line to
    leave out (JSON Lines, Parquet). TREC and run3 files never have one: there it changes
    nothing.
    """
    if header or fmt in ("trec", "run3"):
        return named
    if fmt not in ("csv", "tsv"):
        raise InputError(what=f"header=False (--no-header) is for CSV and TSV files; a {LABELS[fmt]} file has "
                              "no header line to leave out", fix="leave it out for this file")
    chosen: dict[str, str | None] = {}
    for role, name in named.items():
        if name is None:
            chosen[role] = None
        elif name == role and role in POSITIONS:
            chosen[role] = POSITIONS[role]
        elif str(name).isdigit() and int(str(name)) >= 1:
            chosen[role] = str(int(str(name)))
        else:
            raise InputError(what=f"{role}={name!r} names a column, but without a header line (header=False, "
                                  "--no-header) columns have no names", value=name,
                             fix=f"give its 1-based position instead, such as {role}={POSITIONS.get(role, '1')} "
                                 f"(--{role}-col {POSITIONS.get(role, '1')})")
    roles_of: dict = {}
    for role, name in chosen.items():
        if name is not None and name in roles_of:
            raise InputError(what=f"column {name} is taken for two roles, {roles_of[name]} and {role} (without a "
                                  f"header line, {roles_of[name]} reads column {POSITIONS.get(roles_of[name])} and "
                                  f"{role} column {POSITIONS.get(role)} unless named)",
                             fix="give each role its own position")
        roles_of[name] = role
    return chosen


def read_table(path, fmt: str, named: dict, what: What, has_header: bool = True):
    """Read a non-TREC file into ``(table, lines or None, source)``; without a `header`
    line (`has_header` false: CSV and TSV), columns are named "1", "2", ... by position."""
    source = str(path)
    if fmt == "run3":
        _refuse_run3(path, what.units)
    if fmt == "parquet":
        table, lines = read_parquet(path, source, named, what), None
    elif fmt == "jsonl":
        how = f"give one JSON object per line, such as {example_line(named, what)}"
        data = _load_text(path, source, fmt, what, how)
        table, lines = read_jsonl(data, source, named, what)
    else:
        delimiter = "," if fmt == "csv" else "\t"
        header = delimiter.join(str(name) for name in named.values())
        how = f"give a header line such as {header!r} and one row per {what.unit}"
        data = _load_text(path, source, fmt, what, how)
        table, lines = read_delimited(data, source, named, fmt, what, has_header)
    if table.num_rows == 0:
        # Only a header line (or a Parquet file without rows).
        raise ParseError(source=source, what=f"holds no {what.units} (it has columns but no rows)",
                         fix=f"give one row per {what.unit}")
    return table, lines, source


def read_qrels_columns(
    path, format: str | None = None, *, query="query", doc="doc", grade="grade", real: bool = False,
    header: bool = True,
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
    header : bool, optional
        False: a CSV or TSV file has no header line, and its columns are
        taken by 1-based position, query 1, doc 2, grade 3 unless named by
        position (``grade=4``); see :func:`positional`.

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
    if fmt == "run3":
        _refuse_run3(path, "judgments")
    named = positional({"query": query, "doc": doc, "grade": grade}, fmt, header)
    table, lines, source = read_table(path, fmt, named, QRELS, header)
    columns = qrels_columns_from_table(
        table, query=named["query"], doc=named["doc"], grade=named["grade"], source=source,
        lines=lines, real=real
    )
    del table
    release_arrow_memory()
    return columns


def _parquet_grouped(path, named: dict) -> "RunColumns | None":
    """A Parquet run read grouped one column at a time (io.tables.read_grouped_run); None
    when the file has no rows or a bad value, which the whole table's reading then names."""
    source = str(path)
    parquet = open_parquet(path, source, named, RUN)
    if parquet.metadata.num_rows == 0:
        return None
    return read_grouped_run(lambda name: read_column(parquet, name, source), named, source)


def read_run_columns(
    path, format: str | None = None, *, query="query", doc="doc", score="score",
    header: bool = True, grouped: bool = False,
) -> RunColumns:
    """Read a run file in any supported format into interned columns.

    Parameters
    ----------
    path, header
        As for :func:`read_qrels_columns`; without a header line the score is
        column 3 unless named by position.
    format : {"trec", "csv", "tsv", "jsonl", "parquet", "run3"}, optional
        Without it, the extension decides (see :func:`format_of`); a file
        read as TREC whose first data line has three columns, the third a
        number, is read as ``run3`` (``query doc score``: a TREC run line
        has six columns, so no other reading exists).
    query, doc : str, optional
        Names of the columns or fields holding the query and document ids.
    score : str or None, optional
        Name of the score column or field. None means the file has no scores
        and its rows are in rank order within each query, best first; the
        result then has ``has_scores=False``. Not used for TREC files, which
        always have scores.
    grouped : bool, optional
        True: the rows of a table format (not TREC) come grouped by query
        code (:class:`~rankproof.io.grouping.GroupedRunColumns`).

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
    if fmt == "trec" and format is None and _three_columns(path):
        fmt = "run3"
    if fmt in ("trec", "run3"):
        return read_trec_run_columns(path, layout=fmt)
    named = positional({"query": query, "doc": doc, "score": score}, fmt, header)
    if named["score"] is None:
        del named["score"]
    if grouped and fmt == "parquet":
        columns = _parquet_grouped(path, named)
        if columns is not None:
            return columns
    holder = list(read_table(path, fmt, named, RUN, header))
    # the table alone stays in `holder`, which consume_run_table empties
    source, lines = holder.pop(), holder.pop()
    columns = consume_run_table(
        holder, query=named["query"], doc=named["doc"], score=named.get("score"), source=source,
        lines=lines,
        grouped=grouped)
    release_arrow_memory()
    return columns
