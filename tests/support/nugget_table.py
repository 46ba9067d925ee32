"""The hand-worked table of nugget scores (issue 27), shared by the tests of the scores, their Results,
compare and the report: nuggetizer (castorini/nuggetizer) cannot be installed here (it requires
Python >= 3.12 and this environment runs 3.11), so the values below are worked by hand from its
core/metrics.py (calculate_nugget_scores, calculate_global_metrics) and its quickstart's examples.

Answers-mode example (q1): vital support, vital support, okay partial_support, okay not_support:
strict_vital 2/2 = 1, strict_all 2/4 = 0.5, vital (2 + 0)/2 = 1, all (2 + 0.5)/4 = 0.625.
Retrieval-mode example (q2): vital support, okay not_support: 1, 1/2, 1, 1/2.
q3, a vital partial_support and an okay support: strict_vital 0/1 = 0, strict_all 1/2,
vital 0.5/1 = 0.5, all (1 + 0.5)/2 = 0.75.
q4 has no vital nugget: its vital scores are 0.0 (nuggetizer: "if vital_nuggets else 0.0").
Means over the four answers, as statistics.mean.
"""

from __future__ import annotations

import json
from pathlib import Path


def nugget(importance: str, assignment: str) -> dict:
    return {"text": "...", "importance": importance, "assignment": assignment}


RECORDS = [
    {"query": "What is Python?", "qid": "q1", "answer_text": "...", "response_length": 42, "run_id": "run-123",
     "nuggets": [nugget("vital", "support"), nugget("vital", "support"), nugget("okay", "partial_support"),
                 nugget("okay", "not_support")]},
    {"text": "What is Python?", "qid": "q2", "candidate_text": "...", "docid": "d1",
     "nuggets": [nugget("vital", "support"), nugget("okay", "not_support")]},
    {"qid": "q3", "nuggets": [nugget("vital", "partial_support"), nugget("okay", "support")]},
    {"qid": 4, "nuggets": [nugget("okay", "support"), nugget("okay", "not_support")]},
]
# strict_vital, strict_all, vital, all
EXPECTED = {"q1": (1.0, 0.5, 1.0, 0.625), "q2": (1.0, 0.5, 1.0, 0.5), "q3": (0.0, 0.5, 0.5, 0.75),
            "4": (0.0, 0.5, 0.0, 0.5)}
MEANS = tuple(sum(row[i] for row in EXPECTED.values()) / 4 for i in range(4))


def write(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# The same answers with every nugget supported: every score 1, but q4's vital scores, 0 without a vital nugget.
FULL = [dict(r, nuggets=[dict(n, assignment="support") for n in r["nuggets"]]) for r in RECORDS]
FULL_EXPECTED = {"q1": (1.0, 1.0, 1.0, 1.0), "q2": (1.0, 1.0, 1.0, 1.0), "q3": (1.0, 1.0, 1.0, 1.0),
                 "4": (0.0, 1.0, 0.0, 1.0)}
