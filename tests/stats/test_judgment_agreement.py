"""Agreement: kappa against scikit-learn and Fleiss against statsmodels, on Cranfield's qrels and a perturbed copy."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

import rankproof
from rankproof import Qrels
from rankproof.stats.agreement import cohen_kappa, confusion, fleiss_kappa, per_topic_agreement

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield" / "qrels.txt"


def _perturbed(qrels: dict, seed: int, rate: float) -> dict:
    rng = random.Random(seed)
    grades = sorted({g for docs in qrels.values() for g in docs.values()})
    return {q: {d: (rng.choice(grades) if rng.random() < rate else g) for d, g in docs.items()}
            for q, docs in qrels.items()}


@pytest.fixture(scope="module")
def cranfield() -> dict:
    return Qrels.read_trec(CRANFIELD).to_dict()


def _vectors(a: dict, b: dict) -> tuple[list, list]:
    pairs = [(q, d) for q in a for d in a[q] if q in b and d in b[q]]
    return [a[q][d] for q, d in pairs], [b[q][d] for q, d in pairs]


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_matches_sklearn(cranfield, weights, tmp_path):
    other = _perturbed(cranfield, 1, 0.3)
    path = tmp_path / "perturbed.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in other.items() for d, g in docs.items()))
    other = Qrels.read_trec(path).to_dict()
    x, y = _vectors(cranfield, other)
    assert cohen_kappa(cranfield, other, weights) == pytest.approx(cohen_kappa_score(x, y, weights=weights))


def test_fleiss_matches_statsmodels(cranfield):
    raters = [cranfield, _perturbed(cranfield, 2, 0.2), _perturbed(cranfield, 3, 0.4)]
    pairs = [(q, d) for q in cranfield for d in cranfield[q]]
    labels = sorted({r[q][d] for r in raters for q, d in pairs})
    table = np.array([[sum(r[q][d] == label for r in raters) for label in labels] for q, d in pairs])
    assert fleiss_kappa(raters) == pytest.approx(sm_fleiss(table))


def test_confusion_and_per_topic_by_hand():
    a = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d1": 2}}
    b = {"q1": {"d1": 1, "d2": 1, "d4": 0}, "q2": {"d1": 2}}
    result = confusion(a, b)
    assert result.labels == (0, 1, 2)
    assert result.matrix.tolist() == [[0, 1, 0], [0, 1, 0], [0, 0, 1]]
    assert (result.only_a, result.only_b) == (1, 1)
    topics = per_topic_agreement(a, b)
    assert topics["q1"][:2] == (2, 0.5) and topics["q2"][:2] == (1, 1.0)
    # identical judgments agree perfectly
    assert cohen_kappa(a, a) == 1.0
