"""Random small cases for the differential parity suite, edge cases weighted up.

One case is one query: its judgments ``{doc: grade}`` and its ranking (a list
in order, with scores). The generator draws, with raised weights, the edges
where presets and frameworks part: empty lists, empty ground truths,
duplicates, tied scores, k beyond the list, all-negative grades (where the
framework reads grades), and a query alone (``single``). Every case set is
drawn from a fixed seed, so a difference found is found again.

``COUNTS`` collects, per framework, the cases compared and those left out of a
comparison because the preset's documentation names the difference;
conftest.py prints them after the run.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter

import pytest

CASES = 10_000
KS = (1, 2, 3, 5, 10)
# framework -> Counter of "compared", "refused (both)", and "left out: <documented reason>"
COUNTS: dict[str, Counter] = {}


@dataclasses.dataclass
class Case:
    query: str
    truth: dict          # doc -> grade ({} : an empty ground truth)
    ranking: list        # doc ids in rank order (may repeat a doc when duplicates are drawn)
    scores: list         # one per entry, non-increasing (equal values: ties)
    k: int

    @property
    def relevant(self) -> list:
        return [d for d, g in self.truth.items() if g >= 1]

    @property
    def tied(self) -> bool:
        return len(set(self.scores)) < len(self.scores)


def draw(seed: int, n: int = CASES, *, duplicates: bool = False, ties: bool = False, negatives: bool = False,
         empty_lists: bool = True, empty_truths: bool = True, max_length: int = 8) -> list[Case]:
    """`n` cases from `seed`; each flag turns its edge on (drawn in about one case in eight)."""
    rng = random.Random(seed)
    found = []
    for i in range(n):
        pool = [f"d{j}" for j in range(rng.randint(1, 6))]
        if empty_truths and rng.random() < 0.12:
            truth: dict = {}
        else:
            grades = [0, 1, 1, 2, 3] + ([-1, -2] if negatives else [])
            if negatives and rng.random() < 0.1:
                grades = [-1, -2]   # all-negative grades
            truth = {d: rng.choice(grades) for d in rng.sample(pool, rng.randint(1, len(pool)))}
        candidates = pool + [f"u{j}" for j in range(3)]   # u*: never judged
        length = 0 if (empty_lists and rng.random() < 0.12) else rng.randint(1, max_length)
        if duplicates and rng.random() < 0.3:
            ranking = [rng.choice(candidates) for _ in range(length)]
        else:
            ranking = rng.sample(candidates, min(length, len(candidates)))
        if ties and rng.random() < 0.4:
            scores = sorted((float(rng.randint(1, 3)) for _ in ranking), reverse=True)
        else:
            scores = [float(len(ranking) - j) for j in range(len(ranking))]
        found.append(Case(f"q{i}", truth, ranking, scores, rng.choice(KS)))
    return found


def count(framework: str, key: str, by: int = 1) -> None:
    COUNTS.setdefault(framework, Counter())[key] += by


def same(framework: str, measure: str, ours: dict, theirs: dict, cases: list[Case], left_out=None) -> None:
    """Fail on any query where the two values differ (NaN on both sides agrees), unless
    ``left_out(case)`` names the documented difference that covers it (counted)."""
    by_query = {c.query: c for c in cases}
    bad = []
    for query, value in theirs.items():
        case = by_query[query]
        reason = left_out(case) if left_out else None
        if reason:
            count(framework, f"left out: {reason}")
            continue
        mine = ours.get(query, math.nan)
        both_nan = (value is None or (isinstance(value, float) and math.isnan(value))) and math.isnan(mine)
        if not both_nan and not (value is not None and mine == pytest.approx(value, abs=1e-9)):
            bad.append((query, case, mine, value))
        else:
            count(framework, "compared")
    assert not bad, f"{framework} {measure}: {len(bad)} differences, first {bad[:3]}"
