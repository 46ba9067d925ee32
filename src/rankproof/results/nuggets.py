"""Nugget scores of answers as :class:`~rankproof.Results`: nuggetizer's assignment files, read once.

TREC RAG scores an answer by its nuggets (castorini/nuggetizer): each nugget
is ``vital`` or ``okay`` and the answer ``support``\\ s it, ``partial_support``\\ s
it or not. :func:`evaluate_nuggets` reads one assignment file (one run: an
answer per query) and gives the four scores of nuggetizer's
``calculate_nugget_scores`` per query, as a Results like any evaluation's, so
that :func:`rankproof.compare`, saved results (``to_json``) and the report
take them as they take ranking measures:

- the measures ``strict_vital_score``, ``strict_all_score``, ``vital_score``
  and ``all_score`` (:mod:`rankproof.measures.nuggets`), per answer;
- the protocol ``nuggets=partial_support:0.5`` (what a partially supported
  nugget counts; its fingerprint differs from every ranking protocol's);
- the judgments: the nuggets of each query (text and importance), whose
  digest (``qrels_digest``) is the same for every run judged with the same
  nuggets, so compare refuses runs judged with other nuggets;
- the counts: answers, nuggets, vital nuggets, how many each assignment
  got, and the answers without a (vital) nugget (their scores are 0, as
  nuggetizer's).

Examples
--------
>>> import json, tempfile, os
>>> from rankproof import evaluate_nuggets
>>> nugget = lambda importance, assignment: {"text": f"{importance} {assignment}", "importance": importance,
...                                           "assignment": assignment}
>>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write(json.dumps({"qid": "q1", "nuggets": [nugget("vital", "support"),
...                             nugget("vital", "partial_support"), nugget("okay", "not_support")]}) + "\\n")
>>> results = evaluate_nuggets(path)
>>> results.per_query("vital_score"), results.mean("strict_all_score")
({'q1': 0.75}, 0.3333333333333333)
>>> str(results.protocol).split()[-1]
'nuggets=partial_support:0.5'
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..data.qrels import Qrels
from ..io.nuggets import NuggetRecord, read_nuggets
from ..measures.base import Measure
from ..measures.nuggets import NUGGET_SCORES, PARTIAL_CREDIT, nugget_values
from ..pipeline.alignment import QueryTable
from ..protocol import Protocol
from ..protocol.nuggets import parse_nuggets
from . import Results
from .values import MeasureResult

__all__ = ["evaluate_nuggets", "nugget_judgments", "NUGGET_GRADES"]

# The grades the nuggets take as judgments (for the digest compare checks): vital above okay.
NUGGET_GRADES = {"vital": 2, "okay": 1}


def nugget_judgments(records: "list[NuggetRecord]", source: str) -> Qrels:
    """The nuggets of every query as judgments: the nugget's text as doc id, its importance as grade.

    Assignments are left out, so every run judged with the same nuggets has
    the same judgments (and ``qrels_digest``), whatever its answers support.
    A nugget without text is named by its place (``#1``); a text twice in one
    query, by its place after the first (``text #2``).
    """
    judgments: dict[str, dict[str, int]] = {}
    for record in records:
        docs: dict[str, int] = {}
        for i, ((importance, _), text) in enumerate(zip(record.nuggets, record.texts or ("",)
                                                        * len(record.nuggets))):
            name = text or f"#{i + 1}"
            if name in docs:
                name = f"{text} #{i + 1}"
            docs[name] = NUGGET_GRADES[importance]
        judgments[record.qid] = docs
    return Qrels.from_dict(judgments, source=source)


def _counts(records: "list[NuggetRecord]") -> dict[str, Any]:
    pairs = [pair for record in records for pair in record.nuggets]
    answers = len(records)
    return {
        "queries_in_qrels": answers, "queries_in_run": answers, "queries_evaluated": answers,
        "queries_missing_from_run": 0, "queries_missing_from_qrels": 0,
        "nuggets": len(pairs),
        "vital_nuggets": sum(importance == "vital" for importance, _ in pairs),
        "nuggets_supported": sum(a == "support" for _, a in pairs),
        "nuggets_partially_supported": sum(a == "partial_support" for _, a in pairs),
        "nuggets_not_supported": sum(a == "not_support" for _, a in pairs),
        "answers_without_nuggets": sum(not record.nuggets for record in records),
        "answers_without_vital_nuggets": sum(all(i != "vital" for i, _ in record.nuggets)
                                             for record in records),
        "unjudged_in_cutoff": {}, "tied_groups_crossing_cutoff": {},
    }


def evaluate_nuggets(path: "str | os.PathLike[str]", *, name: str | None = None,
                     partial_credit: float = PARTIAL_CREDIT) -> Results:
    """Nuggetizer's four scores of each answer of an assignment file, as :class:`~rankproof.Results`.

    Parameters
    ----------
    path : path of a nuggetizer assignment file (JSON Lines: ``qid`` and
        ``nuggets``, each with ``importance`` vital/okay and ``assignment``
        support/partial_support/not_support), one answer per query.
    name : the run's name, by default the file's name.
    partial_credit : what a partial_support counts in ``vital_score`` and
        ``all_score`` (nuggetizer: 0.5); stated in the protocol as
        ``nuggets=partial_support:X``.

    Returns
    -------
    Results
        Per query (in text order) ``strict_vital_score``, ``strict_all_score``,
        ``vital_score`` and ``all_score``; means over the answers (an answer
        without a vital nugget scores 0 for the vital scores, as in
        nuggetizer). Errors name the file and line
        (:class:`~rankproof.errors.ParseError`).
    """
    source = os.fspath(path)
    # refuses anything but a number in [0, 1]
    policy = parse_nuggets(f"partial_support:{partial_credit!r}")
    records = sorted(read_nuggets(source), key=lambda record: record.qid)
    values = nugget_values([record.nuggets for record in records],
                           partial_credit=float(policy.partial or 0.0))
    n = len(records)
    queries = np.array([record.qid for record in records])
    table = QueryTable(queries=queries, in_run=np.ones(n, dtype=bool),
                       retrieved=np.zeros(n, dtype=np.int64),
                       unjudged_retrieved=np.zeros(n, dtype=np.int64), qrels_source=source,
                       run_source=source,
                       judged_queries=n)
    measures = {}
    for score in NUGGET_SCORES:
        measure = Measure(score)
        measures[measure] = MeasureResult(measure=measure, value=values[score],
                                          included=np.ones(n, dtype=bool),
                                          numerator=None, denominator=None,
                                          zero_ideal=np.zeros(n, dtype=bool))
    return Results(table=table, counts=_counts(records), protocol=Protocol(nuggets=policy),
                   measures=measures,
                   weights=None, run_name=name or os.path.basename(source),
                   qrels=nugget_judgments(records, source), complete_judgments=True)
