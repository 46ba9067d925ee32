"""Reading RAG evaluation files: one row per query, its retrieved ids in order and its relevant ids.

The retrieval part of a RAG evaluation is kept by the tools people use as
rows of a JSON Lines or Parquet file, each row holding everything about one
query. Three layouts are read, told apart by their field names (or chosen
with ``layout=``):

``ragas``
    ragas' ``EvaluationDataset`` rows (``SingleTurnSample``):
    ``user_input`` (the question), ``retrieved_context_ids`` (in order) and
    ``reference_context_ids``; the query id is ``user_input`` unless the row
    has an ``id``, ``query_id`` or ``qid``.
``llamaindex``
    LlamaIndex's ``RetrievalEvalResult`` rows: ``query``,
    ``retrieved_ids`` (in order) and ``expected_ids``; the query id as for
    ragas.
``rankproof``
    ``query_id`` (or ``qid``), ``retrieved`` (ids in order), optional
    ``scores`` (one per retrieved id), ``relevant`` (ids, or
    ``{id: grade}``), optional ``grades`` (one per relevant id).

A JSON file (``.json``) holding a list of such rows is read too (results
dumped with ``json.dump``), and the relevant ids may come apart, from a
LlamaIndex retrieval dataset (``queries``, ``corpus``, ``relevant_docs``:
:func:`read_judgments`). Rows are read one at a time (a JSON Lines file
line by line, a Parquet file batch by batch), each JSON line held to the nesting limit and each id to the
id length limit. The reader knows nothing of measures: it returns
:class:`RagRows`, from which the front door builds qrels and a run.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Iterator

from ..errors import ParseError, literal
from .files import check_json_nesting, json_int
from .formats import format_of
from .limits import MAX_ID_LENGTH
from .parquet import check_parquet_size
from .values import shorten

__all__ = ["LAYOUTS", "RagRows", "detect_layout", "read_judgments", "read_rag", "read_rag_records"]


@dataclasses.dataclass(frozen=True)
class _Layout:
    name: str
    retrieved: str
    relevant: str
    text: str | None  # the field holding the question, the query id when no id field is there
    scores: str | None = None
    grades: str | None = None


# The query id fields looked for first, in this order, by every layout.
ID_FIELDS = ("query_id", "qid", "id")

LAYOUTS: dict[str, _Layout] = {
    "ragas": _Layout("ragas", "retrieved_context_ids", "reference_context_ids", "user_input"),
    "llamaindex": _Layout("llamaindex", "retrieved_ids", "expected_ids", "query"),
    "rankproof": _Layout("rankproof", "retrieved", "relevant", None, scores="scores",
                         grades="grades"),
}


@dataclasses.dataclass
class RagRows:
    """What a RAG evaluation file holds, row by row.

    ``rankings[query]`` is the retrieved ids in order (or ``{id: score}`` when
    the file gives scores); ``judgments[query]`` is ``{id: grade}`` for every
    row, ``{}`` for a row with no relevant id (an empty ground truth: the
    query stays in the evaluation set); ``empty`` counts the rows with
    nothing retrieved, ``unjudged`` the rows with no relevant id; ``source``
    names where the rows came from (a path, or what the caller passed).
    """

    layout: str
    rankings: dict[str, Any]
    judgments: dict[str, dict[str, int]]
    rows: int = 0
    empty: int = 0
    unjudged: int = 0
    source: str = ""


def detect_layout(fields: "set[str] | list[str]", source: str, line: int | None = None) -> str:
    """The layout whose retrieved and relevant fields a row has.

    >>> detect_layout({"user_input", "retrieved_context_ids", "reference_context_ids"}, "x.jsonl")
    'ragas'
    >>> detect_layout({"query", "retrieved_ids", "expected_ids"}, "x.jsonl")
    'llamaindex'
    """
    present = set(fields)
    for name, layout in LAYOUTS.items():
        if layout.retrieved in present and layout.relevant in present:
            return name
    for name, layout in LAYOUTS.items():  # relevant ids given apart (read_judgments)
        if layout.retrieved in present:
            return name
    wanted = "; ".join(f"{name}: {layout.retrieved} and {layout.relevant}"
                       for name, layout in LAYOUTS.items())
    shown = ", ".join(sorted(present)[:8]) or "none"
    raise ParseError(source=source, line=line,
                     what=f"names no known RAG layout (its fields: {literal(shown)})",
                     fix=f"give rows with the retrieved and relevant ids of one layout ({wanted}), or choose "
                         "the layout with --layout")


def _rows_jsonl(path: Path, source: str) -> Iterator[tuple[int, dict]]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw.strip()
            if not text:
                continue
            check_json_nesting(text, source)
            try:
                record = json.loads(text, parse_int=json_int)
            except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
                reason = (f"{exc.msg} at column {exc.colno}"
                          if isinstance(exc, json.JSONDecodeError) else "not UTF-8")
                raise ParseError(source=source, line=number, fix="write one JSON object per line",
                                 what=f"is not valid JSON ({literal(reason)}): "
                                      f"{literal(repr(shorten(text.decode('utf-8', 'replace'))))}") from None
            if not isinstance(record, dict):
                raise ParseError(source=source, line=number,
                                 what="holds a JSON value that is not an object",
                                 fix="write one JSON object per line")
            yield number, record


def _rows_parquet(path: Path, source: str) -> Iterator[tuple[int, dict]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(str(path))
    except (pa.ArrowInvalid, OSError) as exc:
        raise ParseError(source=source,
                         what=f"is not a Parquet file ({literal(str(exc).splitlines()[0])})",
                         fix="give a Parquet or JSON Lines file") from None
    check_parquet_size(parquet, path, source, len(parquet.schema_arrow.names))
    number = 0
    for batch in parquet.iter_batches(batch_size=4096):
        for record in batch.to_pylist():
            number += 1
            yield number, record


def _id(value: Any, role: str, source: str, line: int | None) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise ParseError(source=source, line=line, value=value, fix="give ids as text such as 'd1'",
                         what=f"the {role} id {literal(shorten(repr(value)))} is not a non-empty string or an integer")
    text = str(value)
    if len(text.encode("utf-8")) > MAX_ID_LENGTH.value():
        raise ParseError(source=source, line=line, fix=MAX_ID_LENGTH.fix,
                         what=MAX_ID_LENGTH.beyond(f"a {role} id of {len(text)} characters"))
    return text


def _list(record: dict, field: str, source: str, line: int) -> list:
    value = record.get(field)
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "tolist"):  # numpy arrays from Parquet lists
        return list(value.tolist())
    raise ParseError(source=source, line=line, value=value,
                     fix=f"write {field} as a list such as [\"d1\", \"d2\"]",
                     what=f"{field} is a {type(value).__name__}, not a list")


def _query_id(record: dict, layout: _Layout, source: str, line: int) -> str:
    for field in ID_FIELDS:
        if record.get(field) not in (None, ""):
            return _id(record[field], "query", source, line)
    if layout.text is not None and record.get(layout.text) not in (None, ""):
        return _id(record[layout.text], "query", source, line)
    named = ", ".join(ID_FIELDS + ((layout.text,) if layout.text else ()))
    raise ParseError(source=source, line=line, what="has no query id",
                     fix=f"give each row one of: {named}")


def _relevant(record: dict, layout: _Layout, source: str, line: int) -> dict[str, int]:
    value = record.get(layout.relevant)
    if isinstance(value, dict):
        pairs = list(value.items())
    else:
        ids = _list(record, layout.relevant, source, line)
        grades = _list(record, layout.grades, source, line) if layout.grades else []
        if grades and len(grades) != len(ids):
            raise ParseError(source=source, line=line,
                             fix=f"give one grade per id of {layout.relevant}",
                             what=f"{len(ids)} relevant ids but {len(grades)} grades")
        pairs = list(zip(ids, grades or [1] * len(ids)))
    judged: dict[str, int] = {}
    for doc, grade in pairs:
        if isinstance(grade, bool) or not isinstance(grade, int):
            raise ParseError(source=source, line=line, value=grade,
                             fix="grades must be integers such as 0, 1, 2",
                             what=f"the grade {literal(shorten(repr(grade)))} of {literal(str(doc))} is not an integer")
        judged[_id(doc, "doc", source, line)] = max(grade, judged.get(str(doc), grade))
    return judged


def _retrieved(record: dict, layout: _Layout, source: str,
               line: int) -> "list[str] | dict[str, float]":
    if layout.retrieved not in record:
        raise ParseError(source=source, line=line,
                         what=f"has no {layout.retrieved} field ({layout.name} layout)",
                         fix=f"give every row its retrieved ids as {layout.retrieved} (an empty list if none)")
    ids = [_id(doc, "doc", source, line) for doc in _list(record, layout.retrieved, source, line)]
    if layout.scores is None or record.get(layout.scores) is None:
        return ids
    scores = _list(record, layout.scores, source, line)
    if (len(scores) != len(ids)
        or not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores)):
        raise ParseError(source=source, line=line,
                         fix=f"give one number per id of {layout.retrieved}",
                         what=f"{layout.scores} must hold {len(ids)} numbers, one per retrieved id")
    ranking: dict[str, float] = {}
    for doc, score in zip(ids, scores):
        ranking.setdefault(doc, float(score))  # a repeated id keeps its first (best placed) score
    return ranking


def _rows_json(path: Path, source: str) -> Iterator[tuple[int, dict]]:
    """A JSON file holding a list of rows (LlamaIndex results dumped with ``json.dump``)."""
    data = _whole_json(path, source)
    if not isinstance(data, list):
        raise ParseError(source=source, what="is a JSON object, not a list of rows",
                         fix="give a list of rows, one JSON object per line, or a Parquet file")
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            raise ParseError(source=f"{source} row {number}", what="is not a JSON object",
                             fix="give one object per row")
        yield number, record


def _whole_json(path: Path, source: str) -> Any:
    from .limits import MAX_STREAM_BYTES

    if path.stat().st_size > MAX_STREAM_BYTES.value():
        raise ParseError(source=source, fix=MAX_STREAM_BYTES.fix,
                         what=MAX_STREAM_BYTES.beyond(f"a JSON file of {path.stat().st_size} bytes"))
    data = path.read_bytes()
    check_json_nesting(data, source)
    try:
        return json.loads(data, parse_int=json_int)
    except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
        reason = (f"{exc.msg} at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError)
                  else "not UTF-8")
        raise ParseError(source=source, what=f"is not valid JSON ({literal(reason)})",
                         fix="give a JSON file, or one JSON object per line") from None


def read_judgments(path: "str | Path",
                   source: str | None = None) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """The relevant ids of a LlamaIndex retrieval dataset (``EmbeddingQAFinetuneDataset.save_json``).

    The file holds ``queries`` ({query id: text}), ``corpus`` and
    ``relevant_docs`` ({query id: [node id, ...]}); returns ``{query id:
    {node id: 1}}`` and ``{text: query id}``, by which rows naming their query
    by its text are matched.
    """
    file = Path(path)
    source = source or str(path)
    if not file.is_file():
        raise ParseError(source=source, what="does not exist or is not a file",
                         fix="check the path")
    data = _whole_json(file, source)
    if not isinstance(data, dict) or not isinstance(data.get("relevant_docs"), dict):
        raise ParseError(source=source, what="has no relevant_docs mapping",
                         fix="give a LlamaIndex dataset JSON: queries, corpus and relevant_docs")
    judgments: dict[str, dict[str, int]] = {}
    for query, docs in data["relevant_docs"].items():
        ids = docs if isinstance(docs, list) else []
        judgments[str(query)] = {_id(doc, "doc", f"{source} query {query}", None): 1 for doc in ids}
    queries = data.get("queries")
    texts = queries.items() if isinstance(queries, dict) else ()
    return judgments, {str(text): str(query) for query, text in texts}


def read_rag(path: "str | Path", source: str | None = None, layout: str | None = None) -> RagRows:
    """Read a RAG evaluation file (JSON Lines; Parquet or a JSON list of rows by its suffix) row by row."""
    file = Path(path)
    source = source or str(path)
    if layout is not None and layout not in LAYOUTS:
        raise ParseError(source=source, value=layout,
                         what=f"the layout {literal(layout)} is not known",
                         fix=f"choose one of: {', '.join(LAYOUTS)}")
    if not file.is_file():
        raise ParseError(source=source, what="does not exist or is not a file",
                         fix="check the path")
    kind = format_of(file, route="rag")
    if kind == "parquet":
        rows = _rows_parquet(file, source)
    elif kind == "json":
        rows = _rows_json(file, source)
    else:
        rows = _rows_jsonl(file, source)
    return _collect(rows, source, layout)


def read_rag_records(records: Any, source: str = "rows", layout: str | None = None) -> RagRows:
    """RAG rows given in memory: a list of dicts (one per query, in a layout
    :func:`read_rag` reads), or a pandas, polars or Arrow table with those
    columns (list columns of ids). Errors name the row by its 1-based number.

    >>> read_rag_records([{"user_input": "q?", "retrieved_context_ids": ["a", "b"],
    ...                    "reference_context_ids": ["b"]},
    ...                   {"user_input": "q2", "retrieved_context_ids": ["a"],
    ...                    "reference_context_ids": []}]).judgments   # q2: an empty ground truth
    {'q?': {'b': 1}, 'q2': {}}
    """
    if layout is not None and layout not in LAYOUTS:
        raise ParseError(source=source, value=layout,
                         what=f"the layout {literal(layout)} is not known",
                         fix=f"choose one of: {', '.join(LAYOUTS)}")
    return _collect(_rows_records(records, source), source, layout)


def _rows_records(records: Any, source: str) -> Iterator[tuple[int, dict]]:
    """(row number, row) of a list of dicts, or of a pandas, polars or Arrow table."""
    library = type(records).__module__.split(".")[0]
    if library in ("pandas", "polars", "pyarrow"):
        yield from enumerate(_table_rows(records, library, source), start=1)
        return
    if isinstance(records, (str, bytes, dict)) or not hasattr(records, "__iter__"):
        raise ParseError(source=source, what=f"is a {type(records).__name__}, not rows",
                         fix="give a path, a list of dicts (one per query) or a pandas/polars table")
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise ParseError(source=source, line=number,
                             what=f"is a {type(record).__name__}, not a dict",
                             fix="give one dict per query")
        yield number, record


def _table_rows(table: Any, library: str, source: str) -> Iterator[dict]:
    import pyarrow as pa

    try:
        if library == "pandas":
            table = pa.Table.from_pandas(table, preserve_index=False)
        elif library == "polars":
            table = table.to_arrow()
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, AttributeError,
            TypeError) as exc:
        raise ParseError(source=source,
                         what=f"cannot be read as a table ({literal(shorten(str(exc)))})",
                         fix="give list columns of ids (strings or integers), or a list of dicts") from None
    if not isinstance(table, (pa.Table, pa.RecordBatch)):
        raise ParseError(source=source, what=f"is a {type(table).__name__}, not a table",
                         fix="give a DataFrame, or a list of dicts")
    batches = table.to_batches(max_chunksize=4096) if isinstance(table, pa.Table) else [table]
    for batch in batches:
        yield from batch.to_pylist()


def _collect(rows: Iterator[tuple[int, dict]], source: str, layout: str | None) -> RagRows:
    found = RagRows(layout=layout or "", rankings={}, judgments={}, source=source)
    first_line: dict[str, int] = {}
    for line, record in rows:
        if not found.layout:
            found.layout = detect_layout(set(record), source, line)
        chosen = LAYOUTS[found.layout]
        query = _query_id(record, chosen, source, line)
        if query in first_line:
            raise ParseError(source=source, line=line, query=query,
                             fix="give each query one row (or an id field)",
                             what=f"repeats the query of line {first_line[query]}")
        first_line[query] = line
        found.rows += 1
        found.rankings[query] = _retrieved(record, chosen, source, line)
        found.empty += not found.rankings[query]
        found.judgments[query] = _relevant(record, chosen, source, line)
        found.unjudged += not found.judgments[query]
    if not found.rows:
        raise ParseError(source=source, what="holds no rows", fix="give one row per query")
    return found
