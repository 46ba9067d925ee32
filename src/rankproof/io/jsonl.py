"""Reading JSON Lines files: one JSON object per line.

pyarrow reads the file in one go; Python walks the lines only when it cannot,
to name a malformed line, or, for a field whose JSON type changes between
lines (ids written as ``7`` on one line and ``"7"`` on another), to read it
line by line, each value spelled as the text the table checks read.
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import ParseError, literal
from .named_columns import missing_error
from .delimited import BLOCK_SIZE
from .files import check_json_nesting, json_int
from .lines import data_lines, newlines
from .values import shorten
from .what import What, example_line, unique

__all__ = ["read_jsonl"]


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

    example = example_line(named, what)
    wanted = unique(named)
    values: dict = {name: [] for name in wanted}
    numbers: list[int] = []
    fields: dict = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = raw.strip(b" \t\r")
        if not text:
            continue
        try:
            record = json.loads(text, parse_int=json_int)
        except (json.JSONDecodeError, RecursionError) as exc:
            if isinstance(exc, json.JSONDecodeError):
                reason = f"{exc.msg} at column {exc.colno}"
            else:
                reason = "nested too deeply"
            raise ParseError(source=source, line=number,
                             fix=f"write one JSON object per line, such as {literal(example)}",
                             what=f"is not valid JSON ({literal(reason)}): "
                                  f"{literal(repr(shorten(text.decode('utf-8'))))}") from None
        if not isinstance(record, dict):
            raise ParseError(source=source, line=number,
                             fix=f"write one JSON object per line, such as {literal(example)}",
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
                                 what=f"{_word(arg)} {literal(shorten(json.dumps(value)))} is a JSON "
                                      f"{_json_type(value)}")
            spelled.append(spelling)
        columns[name] = pa.array(spelled, type=pa.large_string())
    return pa.table(columns), np.asarray(numbers, dtype=np.int64)


def _word(arg: str) -> str:
    """The id's word as a template (``{doc}``: "item" in a log's or side data's messages)."""
    return "{" + arg + "}" if arg in ("query", "doc") else arg


def read_jsonl(data: bytes, source: str, named: dict, what: What):
    """Parse a JSON Lines file; return the named columns and each row's file line."""
    import pyarrow as pa
    import pyarrow.json as pajson

    # pyarrow skips lines holding only blanks. Deleting the blanks (which
    # keeps every newline) lets numpy find the other lines, and so the file
    # line of every row, without a loop.
    check_json_nesting(data, source)  # before pyarrow, which crashes on deep nesting
    squeezed = data.translate(None, b" \t\r")
    numbers, _, _ = data_lines(squeezed, newlines(squeezed))
    try:
        table = pajson.read_json(
            pa.BufferReader(data),
            read_options=pajson.ReadOptions(use_threads=True, block_size=BLOCK_SIZE),
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
    return table.select(unique(named)), numbers
