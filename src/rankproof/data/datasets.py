"""Qrels by ir_datasets name, with the dataset's official measures and its known quirks.

ir_datasets (``pip install 'rankproof[datasets]'``) is imported only when a
dataset is asked for. What a dataset declares is read from it: the qrels
(``qrels_iter()``), the meaning of the grades (``qrels_defs()``) and the
official measures of its documentation (``documentation()['official_measures']``,
ir_measures notation such as ``nDCG@10`` or ``AP(rel=2)``); a ``rel=N`` there is
the binary relevance level. Known quirks are named policies, listed by
:data:`QUIRKS` and returned with the qrels so that a caller prints them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rankproof.errors import InputError

__all__ = ["QUIRKS", "DatasetInfo", "dataset_qrels"]

# dataset name prefix -> (policy name, what it does and why)
QUIRKS: dict[str, tuple[str, str]] = {
    "beir/arguana": ("ignore_identical_ids",
                     "a query's own id is also a document id: drop the run's document equal to the query "
                     "(MTEB/BEIR ignore_identical_ids)"),
    "beir/quora": ("ignore_identical_ids",
                   "a query's own id is also a document id: drop the run's document equal to the query "
                   "(MTEB/BEIR ignore_identical_ids)"),
}


@dataclass(frozen=True)
class DatasetInfo:
    """What a dataset declares: official measures, binary relevance level, grade meanings, quirks."""

    name: str
    official_measures: tuple[str, ...] = ()
    relevance_level: int | None = None
    grade_meanings: dict[int, str] = field(default_factory=dict)
    quirks: tuple[tuple[str, str], ...] = ()


def _load(name: str) -> Any:
    try:
        import ir_datasets  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        raise InputError(what=f"dataset {name!r} needs ir_datasets",
                         fix="pip install 'rankproof[datasets]'") from None
    try:
        return ir_datasets.load(name)
    except KeyError:
        raise InputError(what=f"ir_datasets has no dataset {name!r}", value=name) from None


def _relevance_level(measures: tuple[str, ...]) -> int | None:
    levels = {int(found) for measure in measures for found in re.findall(r"rel=(\d+)", measure)}
    return levels.pop() if len(levels) == 1 else None


def dataset_qrels(name: str) -> tuple[dict[str, dict[str, int]], DatasetInfo]:
    """The qrels of ir_datasets dataset `name` as ``{query: {doc: grade}}``, and what it declares."""
    dataset = _load(name)
    if not dataset.has_qrels():
        raise InputError(what=f"dataset {name!r} has no qrels", value=name)
    judgments: dict[str, dict[str, int]] = {}
    for row in dataset.qrels_iter():
        judgments.setdefault(str(row.query_id), {})[str(row.doc_id)] = int(row.relevance)
    documentation = dataset.documentation() if hasattr(dataset, "documentation") else {}
    measures = tuple(str(m) for m in (documentation or {}).get("official_measures", ()) or ())
    defs = dataset.qrels_defs() if hasattr(dataset, "qrels_defs") else {}
    quirks = tuple(quirk for prefix, quirk in QUIRKS.items() if name == prefix
                   or name.startswith(prefix + "/"))
    info = DatasetInfo(name=name, official_measures=measures,
                       relevance_level=_relevance_level(measures),
                       grade_meanings={int(k): str(v) for k, v in (defs or {}).items()},
                       quirks=quirks)
    return judgments, info
