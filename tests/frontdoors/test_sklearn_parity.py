"""The ``sklearn`` preset against scikit-learn's ndcg_score / dcg_score (a test-only dependency).

Random matrices with heavy ties (scores from 2-3 values), all-zero rows, k
beyond the row length, sample weights, log bases and real-valued relevance.
Values agree to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Protocol, evaluate_scores
from rankproof.errors import InputError

sklearn_metrics = pytest.importorskip("sklearn.metrics")
ndcg_score, dcg_score = sklearn_metrics.ndcg_score, sklearn_metrics.dcg_score

SKLEARN = Protocol.preset("sklearn")
TOL = 1e-12


def _matrices(seed, rows=120, columns=7, real=False):
    rng = np.random.default_rng(seed)
    y_true = rng.random((rows, columns)) * 3 if real else rng.integers(0, 4, (rows, columns))
    y_true[rng.random(rows) < 0.2] = 0  # rows with nothing relevant
    y_score = rng.integers(0, int(rng.integers(2, 4)), (rows, columns)) / 4  # heavy ties
    return y_true, y_score


def _per_row(function, y_true, y_score, **kwargs):
    return np.array([function(y_true[i:i + 1], y_score[i:i + 1], **kwargs) for i in range(len(y_true))])


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 3, 7, 12, None])
def test_ndcg_score_per_row_and_mean(seed, k):
    y_true, y_score = _matrices(seed)
    measure = "ndcg" if k is None else f"ndcg@{k}"
    results = evaluate_scores(y_true, y_score, measure, "sklearn")
    np.testing.assert_allclose(results.values(measure), _per_row(ndcg_score, y_true, y_score, k=k),
                               rtol=0, atol=TOL)
    assert results.mean(measure) == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=TOL)


@pytest.mark.parametrize("k", [2, 5, None])
@pytest.mark.parametrize("log_base", [2, 10, np.e, 1.5])
def test_dcg_score_with_log_base(k, log_base):
    y_true, y_score = _matrices(7)
    measure = "dcg" if k is None else f"dcg@{k}"
    protocol = SKLEARN.replace(discount=f"log:{log_base!r}")
    results = evaluate_scores(y_true, y_score, measure, protocol)
    expected = _per_row(dcg_score, y_true, y_score, k=k, log_base=log_base)
    np.testing.assert_allclose(results.values(measure), expected, rtol=TOL, atol=TOL)
    assert results.mean(measure) == pytest.approx(dcg_score(y_true, y_score, k=k, log_base=log_base),
                                                  rel=TOL, abs=TOL)


@pytest.mark.parametrize("measure, function", [("ndcg@3", ndcg_score), ("dcg@3", dcg_score)])
def test_sample_weight_is_weighted_aggregation(measure, function):
    y_true, y_score = _matrices(3)
    weights = np.random.default_rng(0).random(len(y_true)) * 5
    weights[:10] = 0
    results = evaluate_scores(y_true, y_score, measure, SKLEARN.replace(aggregation="weighted"), weights=weights)
    assert results.mean(measure) == pytest.approx(function(y_true, y_score, k=3, sample_weight=weights), abs=TOL)


def test_real_valued_relevance():
    y_true, y_score = _matrices(4, real=True)
    results = evaluate_scores(y_true, y_score, ["ndcg@4", "dcg@4"], "sklearn")
    assert results.mean("ndcg@4") == pytest.approx(ndcg_score(y_true, y_score, k=4), abs=TOL)
    assert results.mean("dcg@4") == pytest.approx(dcg_score(y_true, y_score, k=4), abs=TOL)


def test_general_path_agrees_too():
    # Asking a measure the dense fast path does not compute sends ndcg through the
    # reference kernels: they agree with scikit-learn as well.
    y_true, y_score = _matrices(5)
    results = evaluate_scores(y_true, y_score, ["ndcg@3", "rr"], "sklearn")
    assert results.mean("ndcg@3") == pytest.approx(ndcg_score(y_true, y_score, k=3), abs=TOL)


@pytest.mark.parametrize("ties", ["expected", "input", "docid"])
def test_ignore_ties_on_untied_scores_matches_every_tie_policy(ties):
    rng = np.random.default_rng(9)
    y_true = rng.integers(0, 4, (80, 6))
    y_score = rng.random((80, 6))  # continuous: no ties
    results = evaluate_scores(y_true, y_score, "ndcg@3", SKLEARN.replace(ties=ties))
    assert results.mean("ndcg@3") == pytest.approx(ndcg_score(y_true, y_score, k=3, ignore_ties=True), abs=TOL)


def test_negative_relevance_is_refused_like_ndcg_score():
    y_true, y_score = np.array([[1, -1, 0]]), np.array([[0.3, 0.2, 0.1]])
    with pytest.raises(ValueError, match="negative"):
        ndcg_score(y_true, y_score)
    with pytest.raises(InputError, match="negative relevance -1"):
        evaluate_scores(y_true, y_score, "ndcg", "sklearn")


def test_the_sklearn_preset_is_the_default_protocol():
    # scikit-learn's conventions on a score matrix are rankproof's defaults:
    # the preset has the same canonical text, hence the same fingerprint.
    assert SKLEARN == Protocol()
    assert SKLEARN.fingerprint == Protocol().fingerprint
