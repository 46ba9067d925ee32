"""What a file holds, as messages name it: qrels, a run, a click log, a chunk map.

>>> example_line({"query": "qid", "doc": "docno", "score": "s"}, RUN)
'{"qid": "q1", "docno": "d1", "s": 11.17}'
"""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = ["What", "QRELS", "RUN", "LABELS", "unique", "example_line"]

LABELS = {"csv": "CSV", "tsv": "TSV", "jsonl": "JSON Lines", "parquet": "Parquet"}
"""How messages name each format but TREC."""


@dataclass(frozen=True)
class What:
    """What distinguishes qrels from a run (or another kind of file) in messages."""

    what: str
    unit: str
    units: str
    example_value: object


QRELS = What(what="qrels", unit="judgment", units="judgments", example_value=1)
RUN = What(what="run", unit="ranked document", units="ranked documents", example_value=11.17)


def unique(named: dict) -> list:
    """The column names of ``{argument: column}``, each once, in order."""
    return list(dict.fromkeys(named.values()))


def example_line(named: dict, what: What) -> str:
    """One JSON object with the named fields, for messages."""
    record: dict[str, object] = {named["query"]: "q1", named["doc"]: "d1"}
    value_arg = next((arg for arg in ("grade", "score") if arg in named), None)
    if value_arg is not None:
        record[named[value_arg]] = what.example_value
    return json.dumps(record)
