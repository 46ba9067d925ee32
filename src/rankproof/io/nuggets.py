"""Reading nuggetizer's assignment files (TREC RAG's nugget evaluation), one JSON object per line.

Each line is what ``nuggetizer assign`` writes for one answer: ``qid`` and
``nuggets``, a list of ``{"text", "importance", "assignment"}`` with
importance ``vital`` or ``okay`` and assignment ``support``,
``partial_support`` or ``not_support`` (castorini/nuggetizer, the
input-output examples of its quickstart). Other fields (``query``,
``answer_text``, ``run_id``, ``trace``) are kept out. The file is read line
by line, each line held to the JSON nesting limit.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ..errors import ParseError, literal
from .files import check_json_nesting, json_int
from .values import shorten

__all__ = ["IMPORTANCE", "ASSIGNMENT", "NuggetRecord", "read_nuggets"]

IMPORTANCE = ("vital", "okay")
ASSIGNMENT = ("support", "partial_support", "not_support")


@dataclasses.dataclass(frozen=True)
class NuggetRecord:
    """One answer's nuggets: its query id, file line, per nugget (importance, assignment), and each
    nugget's text ("" where none is given: what the nuggets are, the same for every run's answer)."""

    qid: str
    line: int
    nuggets: tuple[tuple[str, str], ...]
    run_id: str | None = None
    texts: tuple[str, ...] = ()


def _nugget(item, source: str, line: int, index: int) -> tuple[str, str]:
    if not isinstance(item, dict):
        raise ParseError(source=source, line=line,
                         fix="write each nugget as {\"importance\": ..., \"assignment\": ...}",
                         what=f"nugget {index + 1} is not an object")
    pair: list[str] = []
    for field, allowed in (("importance", IMPORTANCE), ("assignment", ASSIGNMENT)):
        value = item.get(field)
        if value not in allowed:
            raise ParseError(source=source, line=line, value=value,
                             fix=f"{field} is one of: {', '.join(allowed)}",
                             what=f"nugget {index + 1} has the {field} {literal(shorten(repr(value)))}")
        pair.append(str(value))
    return pair[0], pair[1]


def _record(text: bytes, source: str, number: int) -> NuggetRecord:
    check_json_nesting(text, source)
    try:
        record = json.loads(text, parse_int=json_int)
    except (json.JSONDecodeError, RecursionError, UnicodeDecodeError):
        raise ParseError(source=source, line=number, what="is not valid JSON",
                         fix="write one JSON object per line (nuggetizer assign's output)") from None
    if not isinstance(record, dict) or "nuggets" not in record:
        raise ParseError(source=source, line=number, what="has no nuggets field",
                         fix="give nuggetizer assign's output: qid and nuggets with importance and assignment")
    qid = record.get("qid")
    if isinstance(qid, bool) or not isinstance(qid, (str, int)) or qid == "":
        raise ParseError(source=source, line=number, value=qid, what="has no qid",
                         fix="give each line its query id as qid")
    nuggets = record["nuggets"]
    if not isinstance(nuggets, list):
        raise ParseError(source=source, line=number, what="nuggets is not a list",
                         fix="write nuggets as a list of objects")
    run_id = record.get("run_id")
    pairs = tuple(_nugget(item, source, number, i) for i, item in enumerate(nuggets))
    texts = tuple(item["text"] if isinstance(item.get("text"), str) else "" for item in nuggets)
    return NuggetRecord(str(qid), number, pairs, run_id if isinstance(run_id, str) else None, texts)


def read_nuggets(path: "str | Path", source: str | None = None) -> list[NuggetRecord]:
    """The records of a nuggetizer assignment file, one per answer; a query answered twice is refused."""
    file = Path(path)
    source = source or str(path)
    if not file.is_file():
        raise ParseError(source=source, what="does not exist or is not a file",
                         fix="check the path")
    records: list[NuggetRecord] = []
    seen: dict[str, int] = {}
    with file.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw.strip()
            if not text:
                continue
            record = _record(text, source, number)
            if record.qid in seen:
                raise ParseError(source=source, line=number, query=record.qid,
                                 what=f"answers the query of line {seen[record.qid]} again",
                                 fix="give one answer per query (one run per file; a retrieval-mode file, one "
                                     "record per passage, scores passages, not answers)")
            seen[record.qid] = number
            records.append(record)
    if not records:
        raise ParseError(source=source, what="holds no records",
                         fix="give nuggetizer assign's output")
    return records
