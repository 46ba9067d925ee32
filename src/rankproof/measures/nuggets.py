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

The four are registered as measures (family ``nuggets``) so that Results,
compare, saved results and the report take them by name; they are not
computed from a ranking (``MeasureSpec.ranking`` is False): no engine
computes them, and :func:`rankproof.evaluate_nuggets` reads their values
from assignment files.

>>> values = nugget_values([[("vital", "support"), ("vital", "partial_support"), ("okay", "not_support")]])
>>> {name: float(v[0]) for name, v in values.items()}
{'strict_vital_score': 0.5, 'strict_all_score': 0.3333333333333333, 'vital_score': 0.75, 'all_score': 0.5}
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .base import MeasureSpec, register

__all__ = ["NUGGET_SCORES", "PARTIAL_CREDIT", "nugget_values"]

NUGGET_SCORES = ("strict_vital_score", "strict_all_score", "vital_score", "all_score")
PARTIAL_CREDIT = 0.5  # nuggetizer's credit for partial_support in vital_score and all_score


def nugget_values(answers: Sequence[Sequence[tuple[str, str]]],
                  partial_credit: float = PARTIAL_CREDIT) -> dict[str, np.ndarray]:
    """Each score of NUGGET_SCORES per answer, each answer a list of (importance, assignment);
    ``partial_credit`` is what a partial_support counts in vital_score and all_score."""
    out = {name: np.zeros(len(answers)) for name in NUGGET_SCORES}
    for i, nuggets in enumerate(answers):
        for prefix, chosen in (("vital", [a for imp, a in nuggets if imp == "vital"]),
                               ("all", [a for _, a in nuggets])):
            if not chosen:
                continue  # 0.0, as nuggetizer
            support = sum(a == "support" for a in chosen)
            partial = sum(a == "partial_support" for a in chosen)
            out[f"strict_{prefix}_score"][i] = support / len(chosen)
            out[f"{prefix}_score"][i] = (support + partial_credit * partial) / len(chosen)
    return out


_READ = ("Read from nuggetizer's assignment files (rankproof.evaluate_nuggets, rankproof nuggets), not computed "
         "from a ranking; partial_support counts the protocol's nuggets=partial_support:X, 0.5 as nuggetizer")


def _spec(name: str, formula: str) -> MeasureSpec:
    return MeasureSpec(name, f"{formula} (nuggetizer's {name}). {_READ}.", (), cutoff=False,
                       family="nuggets",
                       ranking=False)


register(
    _spec("strict_vital_score",
          "supported vital nuggets / vital nuggets of the answer, 0 without one"),
    _spec("strict_all_score", "supported nuggets / nuggets of the answer, 0 without one"),
    _spec("vital_score",
          "(supported + 0.5 partially supported) vital nuggets / vital nuggets, 0 without one"),
    _spec("all_score",
          "(supported + 0.5 partially supported) nuggets / nuggets of the answer, 0 without one"),
)
