"""Agreement of label sources: alpha against the krippendorff package, AC1/AC2 against Gwet's formulas.

Gwet's AC1/AC2: the ``irrCAC`` package pins scipy 1.12 and numpy < 2, so it
cannot be a test dependency; the expected values are worked by hand from
Gwet's formulas or taken from the worked example of his handbook (Gwet 2014,
the 12 units x 4 raters table that is also Krippendorff's 2011 example).
"""

from __future__ import annotations

import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, multilabel_confusion_matrix

import rankproof
from rankproof import Qrels
from rankproof.errors import InputError
from rankproof.stats.label_agreement import label_agreement, label_table

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield" / "qrels.txt"
NAN = float("nan")
# Krippendorff (2011) / Gwet (2014): 12 units, 4 observers, values 1..5, NaN = not coded.
HANDBOOK = np.array([[1, 1, NAN, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
                     [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [NAN, 5, 5, 5], [NAN, NAN, 1, 1],
                     [NAN, NAN, 3, NAN]])


def _sources(matrix: np.ndarray) -> list[dict]:
    """One topic per unit, so that the bootstrap has topics to draw."""
    return [{f"t{u}": {"d": float(matrix[u, s])} for u in range(len(matrix)) if not np.isnan(matrix[u, s])}
            for s in range(matrix.shape[1])]


def _perturbed(qrels: dict, seed: int, rate: float, drop: float = 0.0) -> dict:
    rng = random.Random(seed)
    out: dict = {}
    for q, docs in qrels.items():
        for d, g in docs.items():
            if rng.random() < drop:
                continue
            out.setdefault(q, {})[d] = rng.choice([0, 1, 2, 3, 4]) if rng.random() < rate else g
    return out


@pytest.fixture(scope="module")
def cranfield() -> dict:
    return Qrels.read_trec(CRANFIELD).to_dict()


def _reliability(table) -> np.ndarray:
    return table.grades.T


def test_handbook_example():
    # one topic: unit 12, coded once, still counts in Gwet's category shares (n = 12 units)
    one_topic = [{"q": {f"u{u}": float(HANDBOOK[u, s]) for u in range(12) if not np.isnan(HANDBOOK[u, s])}}
                 for s in range(4)]
    result = label_agreement(one_topic, weights="none", resamples=0)
    # Krippendorff (2011) reports alpha nominal .743, ordinal .815, interval .849 for this table.
    assert round(result.alpha["nominal"].value, 3) == 0.743
    assert round(result.alpha["ordinal"].value, 3) == 0.815
    assert round(result.alpha["interval"].value, 3) == 0.849
    # Gwet's handbook: AC1 = 0.77544 (p_a = 0.81818, p_e = 0.19032).
    assert round(result.ac1.value, 5) == 0.77544
    for level in ("nominal", "ordinal", "interval"):
        oracle = krippendorff.alpha(reliability_data=HANDBOOK.T, level_of_measurement=level)
        assert result.alpha[level].value == pytest.approx(oracle, abs=1e-12)


def test_ac1_and_ac2_by_hand():
    # Two raters, units (0,0), (0,1), (2,2), (1,2); quadratic weights 1 - (k - l)^2 / 4:
    # w01 = w12 = 0.75, w02 = 0. Unit agreements sum_k r_k (r*_k - 1) / 2: 1, 0.75, 1, 0.75,
    # p_a = 0.875; pi = (1.5, 1, 1.5) / 4; sum pi (1 - pi) = 0.65625; sum w = 6 = q (q - 1),
    # p_e = 0.65625; AC2 = 0.21875 / 0.34375 = 7 / 11. AC1: p_a = 0.5, p_e = 3 / 6 * 0.65625,
    # AC1 = (11 / 64) / (43 / 64) = 11 / 43.
    units = np.array([[0, 0], [0, 1], [2, 2], [1, 2]], dtype=float)
    result = label_agreement(_sources(units), weights="quadratic", resamples=0)
    assert result.ac2.value == pytest.approx(7 / 11, abs=1e-12)
    assert result.ac1.value == pytest.approx(11 / 43, abs=1e-12)
    # linear weights 1 - |k - l| / 2: w01 = w12 = 0.5; agreements 1, 0.5, 1, 0.5, p_a = 0.75;
    # sum w = 3 + 2 = 5, p_e = 5 / 6 * 0.65625 = 0.546875; AC2 = 0.203125 / 0.453125 = 13 / 29.
    linear = label_agreement(_sources(units), weights="linear", resamples=0)
    assert linear.ac2.value == pytest.approx(13 / 29, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_equals_krippendorff_with_missing_labels(cranfield, level):
    sources = [cranfield, _perturbed(cranfield, 1, 0.3, 0.1), _perturbed(cranfield, 2, 0.5, 0.3)]
    result = label_agreement(sources, resamples=0)
    table = label_table(sources)
    oracle = krippendorff.alpha(reliability_data=_reliability(table), level_of_measurement=level)
    print(f"alpha {level}: worst difference {abs(result.alpha[level].value - oracle):.2e}")
    assert result.alpha[level].value == pytest.approx(oracle, abs=1e-10)


def test_bootstrap_interval_equals_resampling_units_by_hand(cranfield):
    # The same multinomial topic counts, then the krippendorff package on each resample's units
    # (a drawn topic's units repeated as often as it was drawn): the percentile interval is equal.
    small = {q: cranfield[q] for q in list(cranfield)[:30]}
    sources = [small, _perturbed(small, 4, 0.4, 0.2)]
    result = label_agreement(sources, resamples=40, seed=3)
    table = label_table(sources)
    topics = len(table.queries)
    counts = np.random.default_rng(3).multinomial(topics, np.full(topics, 1 / topics), size=40)
    draws = []
    for row in counts:
        units = np.concatenate([np.flatnonzero(table.topic == t) for t in range(topics)
                                for _ in range(row[t])])
        draws.append(krippendorff.alpha(reliability_data=table.grades[units].T,
                                        level_of_measurement="interval"))
    low, high = np.percentile(draws, [2.5, 97.5])
    assert (result.alpha["interval"].low, result.alpha["interval"].high) == pytest.approx((low, high), abs=1e-10)
    assert low < result.alpha["interval"].value < high


def test_judge_against_reference_equals_sklearn(cranfield):
    judge, other = _perturbed(cranfield, 5, 0.3), _perturbed(cranfield, 6, 0.2, 0.4)
    result = label_agreement([cranfield, judge, other], ["human", "judge", "other"], weights="quadratic",
                             resamples=50)
    pairs = [(q, d) for q in cranfield for d in cranfield[q]]
    y = [cranfield[q][d] for q, d in pairs]
    y_judge = [judge[q][d] for q, d in pairs]
    row = result.judges[0]
    assert row.source == "judge" and row.units == len(pairs)
    assert row.kappa.value == pytest.approx(cohen_kappa_score(y, y_judge), abs=1e-12)
    assert row.weighted_kappa.value == pytest.approx(cohen_kappa_score(y, y_judge, weights="quadratic"),
                                                     abs=1e-12)
    assert row.exact.value == pytest.approx(np.mean(np.equal(y, y_judge)))
    # one grade against the rest: [[tn, fp], [fn, tp]] per grade
    for grade, ((tn, fp), (fn, tp)) in zip([0, 1, 2, 3, 4],
                                           multilabel_confusion_matrix(y, y_judge, labels=[0, 1, 2, 3, 4])):
        assert row.sensitivity[grade].value == pytest.approx(tp / (tp + fn))
        assert row.specificity[grade].value == pytest.approx(tn / (tn + fp))
        assert row.sensitivity[grade].low <= row.sensitivity[grade].value <= row.sensitivity[grade].high
    shared = [(q, d) for q, d in pairs if q in other and d in other[q]]
    assert result.judges[1].units == len(shared)
    assert result.judges[1].confusion.sum() == len(shared)


def test_identical_sources_agree_perfectly(cranfield):
    result = label_agreement([cranfield, cranfield, cranfield], resamples=20)
    for estimate in (*result.alpha.values(), result.ac1, result.ac2, result.judges[0].kappa):
        assert (estimate.value, estimate.low, estimate.high) == pytest.approx((1.0, 1.0, 1.0))


def test_topics_no_two_sources_judged_leave_the_bootstrap():
    human = {"q1": {"a": 1, "b": 0}}
    judge = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 0}}
    result = label_agreement([human, judge], resamples=10)
    assert result.topics == 1 and result.units == 2


@pytest.mark.parametrize("sources, what", [
    ([{"q": {"d": 1}}], "two or more"),
    ([{"q": {"d": 1}}, {"q": {"e": 1}}], "judged by two sources"),
])
def test_bad_input(sources, what):
    with pytest.raises(InputError, match=what):
        label_agreement(sources)
    with pytest.raises(InputError, match="weights"):
        label_agreement([{"q": {"d": 1}}] * 2, weights="cubic")
