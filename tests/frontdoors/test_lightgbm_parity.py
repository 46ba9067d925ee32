"""The ``lightgbm`` preset against LightGBM's own ndcg@k eval metric (a test-only dependency).

LightGBM reports its metric as a double (rank_metric.hpp sums double NDCG
values and divides by the number of queries); the per-query arithmetic
differs from rankproof's only in rounding (it multiplies by a cached
1 / ideal DCG), so the means agree to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Protocol, evaluate_scores

lgb = pytest.importorskip("lightgbm")

CUTOFFS = (1, 3, 5, 10)
MEASURES = [f"ndcg@{k}" for k in CUTOFFS]
TOL = 1e-12
PARAMS = dict(objective="lambdarank", metric="ndcg", eval_at=list(CUTOFFS), num_leaves=4, min_data_in_leaf=5,
              learning_rate=0.3, verbose=-1, num_threads=1, deterministic=True, seed=1)


def _groups(rng, count):
    """Group sizes 1-14 (many shorter than k = 10), labels 0-3, some all-zero groups."""
    sizes = rng.integers(1, 15, count)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = rng.integers(0, 4, offsets[-1])
    for g in range(0, count, 6):
        labels[offsets[g]:offsets[g + 1]] = 0
    return sizes, offsets, labels


def _train(rng, rounds, valid_init_score=None, valid_features=None):
    sizes, offsets, labels = _groups(rng, 80)
    features = rng.random((len(labels), 4))
    valid = valid_features if valid_features is not None else rng.random((len(labels), 4))
    train_set = lgb.Dataset(features, labels, group=sizes)
    valid_set = lgb.Dataset(valid, labels, group=sizes, init_score=valid_init_score, reference=train_set)
    recorded: dict = {}
    booster = lgb.train(PARAMS, train_set, num_boost_round=rounds, valid_sets=[train_set, valid_set],
                        valid_names=["train", "valid"], callbacks=[lgb.record_evaluation(recorded)])
    return booster, recorded, features, valid, labels, offsets


def test_random_groups_with_heavy_ties_and_all_zero_groups():
    # LightGBM evaluates the valid set at init_score + the model's output. With
    # constant features every valid row falls in the same leaf: the model adds
    # one constant, so the order and the ties are those of the init scores,
    # drawn from 3 values (heavy ties).
    _, _, labels = _groups(np.random.default_rng(0), 80)  # the groups _train draws with the same seed
    init = np.random.default_rng(5).integers(0, 3, len(labels)).astype(np.float64)
    booster, recorded, _, valid, labels, offsets = _train(
        np.random.default_rng(0), 1, valid_init_score=init, valid_features=np.zeros((len(labels), 4)))
    scores = init + booster.predict(valid)
    results = evaluate_scores(labels, scores, MEASURES, "lightgbm", offsets=offsets)
    assert results.counts["tied_groups"] > 50
    assert results.counts["zero_ideal_queries"]["ndcg@10"] >= 10
    for measure in MEASURES:
        assert results.mean(measure) == pytest.approx(recorded["valid"][measure][0], abs=TOL)
    # The tie order matters here: averaging over tied orders gives other values.
    expected_ties = evaluate_scores(labels, scores, MEASURES, Protocol.preset("lightgbm").replace(ties="expected"),
                                    offsets=offsets)
    assert any(abs(expected_ties.mean(m) - recorded["valid"][m][0]) > 1e-6 for m in MEASURES)


def test_eval_results_reported_while_training_lambdarank():
    rounds = 6
    booster, recorded, features, valid, labels, offsets = _train(np.random.default_rng(1), rounds)
    tied = 0
    for iteration in range(1, rounds + 1):
        for name, data in (("train", features), ("valid", valid)):
            scores = booster.predict(data, num_iteration=iteration)
            results = evaluate_scores(labels, scores, MEASURES, "lightgbm", offsets=offsets)
            tied += results.counts["tied_groups"]
            for measure in MEASURES:
                assert results.mean(measure) == pytest.approx(recorded[name][measure][iteration - 1], abs=TOL), (
                    name, iteration, measure)
    assert tied > 0  # a 4-leaf model gives tied predictions: the tie order is exercised
