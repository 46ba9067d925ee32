"""rankproof.sklearn scorers inside scikit-learn's model selection, against make_scorer(ndcg_score)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.metrics import make_scorer, ndcg_score  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score  # noqa: E402
from sklearn.neighbors import KNeighborsRegressor  # noqa: E402

from rankproof.errors import MeasureError  # noqa: E402
from rankproof.sklearn import ndcg_scorer, scorer  # noqa: E402


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((60, 4))
    Y = rng.integers(0, 4, (60, 8))  # relevance of 8 candidates per row
    Y[::9] = 0  # rows with nothing relevant
    return X, Y


def test_cross_val_score_matches_sklearns_scorer():
    X, Y = _data()
    cv = KFold(4, shuffle=True, random_state=0)
    # k-NN averages neighbours' relevance: tied predictions are common.
    model = KNeighborsRegressor(n_neighbors=3)
    ours = cross_val_score(model, X, Y, cv=cv, scoring=ndcg_scorer(k=5))
    theirs = cross_val_score(model, X, Y, cv=cv, scoring=make_scorer(ndcg_score, k=5))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_grid_search_picks_the_same_model_with_the_same_scores():
    X, Y = _data(1)
    grid = {"n_neighbors": [1, 2, 4, 8]}
    cv = KFold(3, shuffle=True, random_state=1)
    ours = GridSearchCV(KNeighborsRegressor(), grid, cv=cv, scoring=ndcg_scorer(k=None)).fit(X, Y)
    theirs = GridSearchCV(KNeighborsRegressor(), grid, cv=cv, scoring=make_scorer(ndcg_score)).fit(X, Y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"],
                               rtol=0, atol=1e-12)


def test_any_measure_and_preset_and_the_scorer_pickles():
    X, Y = _data(2)
    model = KNeighborsRegressor(n_neighbors=2).fit(X, Y)
    lightgbm_ndcg = ndcg_scorer(k=3, protocol="lightgbm")
    # LightGBM scores rows with nothing relevant 1, scikit-learn 0.
    assert lightgbm_ndcg(model, X, Y) > ndcg_scorer(k=3)(model, X, Y)
    rr = pickle.loads(pickle.dumps(scorer("rr@3")))
    assert 0 < rr(model, X, Y) <= 1


def test_bad_measure_is_refused_when_the_scorer_is_made():
    with pytest.raises(MeasureError, match="ndcgg"):
        scorer("ndcgg@10")
