"""Reading CSV and TSV files: a header line naming the columns, one row per line.

Every named column is read as text, so ids keep their spelling ("007"), and
grades and scores are read by the table checks with the TREC reader's rules.
Python walks the lines only when pyarrow cannot read the file in one go, to
name the malformed line.
"""

from __future__ import annotations

import csv
import io

from ..errors import ParseError, literal
from .named_columns import missing_error
from .lines import data_lines, newlines
from .values import shorten
from .what import LABELS, What, unique

__all__ = ["read_delimited", "BLOCK_SIZE"]

BLOCK_SIZE = 1 << 24
"""The block size of pyarrow's text readers."""


def _delimited_failure(
    data: bytes, source: str, delimiter: str, fmt: str, what: What, exc: Exception,
    header_line: bool = True
) -> ParseError:
    """Name the first row whose width differs from the header's (or, without a header, the
    first line's), once pyarrow gave up."""
    first = "the header" if header_line else "the first line"
    label = LABELS[fmt]
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
                                  what=f"expected {len(header)} columns like {first} ({shown}), found "
                                       f"{len(row)}: {literal(repr(shorten(delimiter.join(row))))}",
                                  fix=f"give every row one value per column of {first}, separated by {separator}")
    except csv.Error as error:
        return ParseError(source=source, line=reader.line_num,
                          what=f"cannot be read as {label} ({literal(error)})",
                          fix="check the quoting on this line")
    text = str(exc).strip()
    reason = text.splitlines()[0] if text else type(exc).__name__
    return ParseError(source=source, what=f"cannot be read as a {label} file ({literal(reason)})",
                      fix=f"check that it has a header line and one row per {what.unit}")


def _looks_like_data(header: list[str]) -> bool:
    """A first line with a number among its fields is a row, not column names (a file without a header)."""
    for field in header:
        try:
            float(field)
        except ValueError:
            continue
        return True
    return False


def read_delimited(data: bytes, source: str, named: dict, fmt: str, what: What,
                   header_line: bool = True):
    """Parse a CSV or TSV file; return the named columns and each row's file line.

    Without a header line (`header_line` false) the first line is data and
    the columns are named by their 1-based position: ``"1"``, ``"2"``, ...
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    delimiter = "," if fmt == "csv" else "\t"
    # pyarrow skips empty lines and takes CRLF as one line end; deleting the
    # CRs (which keeps every newline) lets numpy find the same lines, and so
    # the file line of every row, without a loop.
    plain = data.translate(None, b"\r") if b"\r" in data else data
    numbers, starts, ends = data_lines(plain, newlines(plain))
    header_text = plain[starts[0] : ends[0]].decode("utf-8")
    first_line = int(numbers[0])
    header = next(csv.reader([header_text], delimiter=delimiter))
    if not header_line:
        header = [str(position) for position in range(1, len(header) + 1)]

    missing = [arg for arg, name in named.items() if name not in header]
    if missing:
        error = missing_error(header, named, missing, "column", source, first_line)
        if header_line and _looks_like_data(header):
            raise error.headerless()
        raise error
    wanted = unique(named)
    for name in wanted:
        if header.count(name) > 1:
            raise ParseError(source=source, line=first_line, fix="rename all but one",
                             what=f"the header names {header.count(name)} columns {literal(repr(name))}")

    read_options = pacsv.ReadOptions(use_threads=True, block_size=BLOCK_SIZE,
                                     column_names=None if header_line else header)
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
        raise _delimited_failure(data, source, delimiter, fmt, what, exc, header_line) from None

    rows = numbers[1:] if header_line else numbers
    # A quoted value holding a newline makes one row span several lines; then
    # the lines cannot be matched to rows, and messages give the row instead.
    lines = rows if rows.size == table.num_rows else None
    return table, lines
