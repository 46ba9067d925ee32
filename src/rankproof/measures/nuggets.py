"""Nugget scores of TREC RAG answers, as nuggetizer computes them (castorini/nuggetizer, core/metrics.py).

Per answer, over its nuggets (importance vital or okay, assignment support,
partial_support or not_support):

==================  ==============  ===================================================
score               nuggets         value
==================  ==============  ===================================================
strict_vital_score  vital           support / vital nuggets
strict_all_score    all             support / all nuggets
vital_score         vital           (support + 0.5 partial_support) / vital nuggets
all_score           all             (support + 0.5 partial_support) / all nuggets
==================  ==============  ===================================================

A score with no nugget to divide by is 0.0 (nuggetizer's choice), and the
mean is the plain mean over the answers (``statistics.mean``).

>>> values = nugget_values([[("vital", "support"), ("vital", "partial_support"), ("okay", "not_support")]])
>>> {name: float(v[0]) for name, v in values.items()}
{'strict_vital_score': 0.5, 'strict_all_score': 0.3333333333333333, 'vital_score': 0.75, 'all_score': 0.5}
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["NUGGET_SCORES", "PARTIAL_CREDIT", "nugget_values"]

NUGGET_SCORES = ("strict_vital_score", "strict_all_score", "vital_score", "all_score")
PARTIAL_CREDIT = 0.5  # nuggetizer's credit for partial_support in vital_score and all_score


def nugget_values(answers: Sequence[Sequence[tuple[str, str]]]) -> dict[str, np.ndarray]:
    """Each score of NUGGET_SCORES per answer, each answer a list of (importance, assignment)."""
    out = {name: np.zeros(len(answers)) for name in NUGGET_SCORES}
    for i, nuggets in enumerate(answers):
        for prefix, chosen in (("vital", [a for imp, a in nuggets if imp == "vital"]),
                               ("all", [a for _, a in nuggets])):
            if not chosen:
                continue  # 0.0, as nuggetizer
            support = sum(a == "support" for a in chosen)
            partial = sum(a == "partial_support" for a in chosen)
            out[f"strict_{prefix}_score"][i] = support / len(chosen)
            out[f"{prefix}_score"][i] = (support + PARTIAL_CREDIT * partial) / len(chosen)
    return out
