"""Sampled evaluation (rankproof.recsys.sampled): ranks, the measured bias, the Krichene-Rendle correction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rankproof import evaluate_scores
from rankproof.errors import InputError, MeasureError
from rankproof.recsys.sampled import Sampled, evaluate_sampled, sampled_rank_law


def known_ranks(users: int, items: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A log whose full ranking is known: user u's one positive has exactly ranks[u] - 1 negatives above it.

    Negatives score 1..items-1 (distinct), the positive sits just below the
    ranks[u] - 1 highest; ranks follow a long-tailed law, as a fair model's do.
    """
    rng = np.random.default_rng(seed)
    negatives = items - 1
    ranks = np.minimum(1 + rng.geometric(0.02, size=users) - 1, negatives + 1)
    scores = np.empty((users, items))
    truth = np.zeros((users, items))
    order = np.argsort(rng.random((users, negatives)), axis=1) + 1.0     # a shuffled 1..negatives per user
    scores[:, 1:] = order
    scores[:, 0] = negatives - (ranks - 1) + 0.5       # above exactly ranks - 1 of them
    truth[:, 0] = 1
    return truth, scores, ranks


def test_corrected_estimate_is_closer_to_the_full_value_than_the_sampled_one():
    truth, scores, ranks = known_ranks(4000, 1000, seed=7)
    result = evaluate_sampled(truth, scores, ["ndcg@10", "hit@10", "rr"], sampled=Sampled(negatives=100, seed=1))
    assert result.full_ranks.tolist() == ranks.tolist()
    by_hand = {"ndcg@10": np.where(ranks <= 10, 1 / np.log2(ranks + 1), 0).mean(),
               "hit@10": (ranks <= 10).mean(), "rr": (1 / ranks).mean()}
    for name, full in by_hand.items():
        assert result.full[name] == pytest.approx(full, rel=1e-12)
        raw, corrected = result.sampled[name], result.corrected[name]
        figures = f"{name}: full {full:.4f}, sampled {raw:.4f} (bias {raw - full:+.4f}), corrected {corrected:.4f} " \
                  f"(bias {corrected - full:+.4f})"
        assert abs(corrected - full) < abs(raw - full) / 3, figures
        assert result.bias(name) == pytest.approx(raw - full)


def test_seeded_draws_repeat_and_another_seed_differs():
    truth, scores, _ = known_ranks(500, 400, seed=3)
    first = evaluate_sampled(truth, scores, "ndcg@10", sampled=Sampled(negatives=50, seed=11))
    again = evaluate_sampled(truth, scores, "ndcg@10", sampled=Sampled(negatives=50, seed=11))
    other = evaluate_sampled(truth, scores, "ndcg@10", sampled=Sampled(negatives=50, seed=12))
    assert np.array_equal(first.sampled_ranks, again.sampled_ranks)
    assert first.corrected == again.corrected and str(first) == str(again)
    assert not np.array_equal(first.sampled_ranks, other.sampled_ranks)


def test_full_ranking_agrees_with_evaluate_scores():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(200, 60))
    truth = np.zeros_like(scores)
    truth[np.arange(200), rng.integers(0, 60, 200)] = 1
    result = evaluate_sampled(truth, scores, ["ndcg@10", "rr", "hit@5"], sampled=Sampled(negatives=10))
    peer = evaluate_scores(truth, scores, ["ndcg@10", "rr", "hit@5"])
    for name in ("ndcg@10", "rr", "hit@5"):
        assert result.full[name] == pytest.approx(peer.mean(name), rel=1e-12)


def test_the_law_of_the_sampled_rank_is_scipys_hypergeometric():
    n, m = 120, 30
    expected = stats.hypergeom.pmf(np.arange(m + 1)[None, :], n, np.arange(n + 1)[:, None], m)
    assert np.allclose(sampled_rank_law(n, m), expected, atol=1e-12, rtol=0)


def test_hand_worked_ranks_and_all_negatives_drawn():
    # Item 0 is positive; 0.9 and 0.8 are above it: full rank 3. Drawing all 4 negatives gives rank 3 too.
    result = evaluate_sampled([[1, 0, 0, 0, 0]], [[0.5, 0.9, 0.8, 0.1, 0.2]], ["hit@2", "rr", "ndcg"],
                              sampled=Sampled(negatives=10))
    assert result.full_ranks.tolist() == [3] and result.sampled_ranks.tolist() == [3]
    assert result.full == {"hit@2": 0.0, "rr": 1 / 3, "ndcg": 0.5}
    # A tie with a negative counts against the positive; NaN is not a candidate.
    tied = evaluate_sampled([[1, 0, 0]], [[0.5, 0.5, np.nan]], "rr", sampled=Sampled(negatives=1))
    assert tied.full_ranks.tolist() == [2]
    # Two positives: each is ranked among the negatives only (leave-one-out), the other positive left out.
    two = evaluate_sampled([[1, 1, 0, 0]], [[0.9, 0.5, 0.7, 0.1]], "rr", sampled=Sampled(negatives=5))
    assert two.full_ranks.tolist() == [1, 2] and two.users.tolist() == [0, 0] and two.full["rr"] == 0.75


def test_popularity_sampling_draws_only_popular_items_and_gives_no_correction():
    # The negatives above the positive have popularity 0: never drawn, so the sampled rank is always 1.
    truth = np.zeros((50, 8))
    truth[:, 0] = 1
    scores = np.tile([0.5, 0.9, 0.8, 0.1, 0.2, 0.3, 0.05, 0.0], (50, 1))
    result = evaluate_sampled(truth, scores, "rr", popularity=[5, 0, 0, 1, 1, 1, 1, 1],
                              sampled=Sampled(negatives=3, sampling="popularity"))
    assert set(result.sampled_ranks.tolist()) == {1}
    assert np.isnan(result.corrected["rr"]) and "no correction" in str(result)


@pytest.mark.parametrize("make, error", [
    (lambda: Sampled(gamma=0), InputError), (lambda: Sampled(negatives=0), InputError),
    (lambda: Sampled(sampling="stratified"), InputError),
    (lambda: evaluate_sampled([[1, 0]], [[1.0, 0.0]], "ndcg@x"), MeasureError),
    (lambda: evaluate_sampled([[1, 0]], [[1.0, 0.0]], "hit"), MeasureError),
    (lambda: evaluate_sampled([[1, 0]], [[1.0, 0.0]], "rr", sampled=Sampled(sampling="popularity")), InputError),
    (lambda: evaluate_sampled([[0, 0]], [[1.0, 0.0]], "rr"), InputError),
])
def test_bad_settings_are_refused_in_one_line(make, error):
    with pytest.raises(error) as raised:
        make()
    assert "\n" not in str(raised.value)
