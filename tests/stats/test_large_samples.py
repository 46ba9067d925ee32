"""Statistics at scale: where a method switches with the size of the data, the two methods agree within
their stated error at the switch point; small data keeps the exact methods; the method used is stated.

The references are the resampling procedures themselves (run with method='resampling') and scipy's
studentized range distribution, never the large-sample code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rankproof import compare, evaluate_scores
from rankproof.stats.asymptotic import MIN_QUERIES
from rankproof.stats.large_systems import LARGE_TOPICS, range_sf
from rankproof.stats.maxt import max_t
from rankproof.stats.segments import by_segment
from rankproof.stats.tukey import tukey_hsd


def _results(users: int, seed: int):
    rng = np.random.default_rng(100)
    truth = rng.integers(0, 3, (users, 8))
    scores = np.random.default_rng(seed).random((users, 8)) + 0.15 * seed * truth
    return evaluate_scores(truth, scores, ["ndcg@5", "rr"], queries=[f"u{i}" for i in range(users)])


@pytest.fixture(scope="module")
def at_switch():
    """Three runs on exactly MIN_QUERIES users: the smallest size at which compare may switch."""
    return {f"r{seed}": _results(MIN_QUERIES, seed) for seed in (1, 2, 3)}


def test_at_the_switch_point_the_t_test_and_the_randomization_test_agree_within_the_stated_error(at_switch):
    auto = compare(None, at_switch, n_resamples=10_000, seed=4, allow_mismatch=True)
    exact = compare(None, at_switch, n_resamples=10_000, seed=4, method="resampling", allow_mismatch=True)
    assert auto.method == "auto" and exact.method == "resampling"
    assert all(p.startswith("randomization") and "bootstrap" in ci for p, ci in exact.methods)
    switched_p = [p.startswith("paired t-test") for p, _ in auto.methods]
    switched_ci = [ci.startswith("normal") for _, ci in auto.methods]
    assert sum(switched_p) >= 4 and sum(switched_ci) >= 3      # most rows pass the checks at this size
    allowed = 0.5 / np.sqrt(10_000)            # the stated bound on the approximation's error
    for ours, theirs, p_normal, ci_normal in zip(auto.rows, exact.rows, switched_p, switched_ci):
        monte_carlo = np.sqrt(max(theirs.p_value * (1 - theirs.p_value), 1e-4) / 10_000)
        if p_normal:
            assert abs(ours.p_value - theirs.p_value) <= allowed + 4 * monte_carlo, (ours, theirs)
        else:
            assert ours.p_value == theirs.p_value
        # The interval ends: within the stated skewness shift (0.027 se) plus 4 Monte Carlo sd
        # (0.027 se each at 10,000 resamples) of a bootstrap end.
        se = (theirs.ci_high - theirs.ci_low) / (2 * 1.96)
        for mine, peer in ((ours.ci_low, theirs.ci_low), (ours.ci_high, theirs.ci_high)):
            assert abs(mine - peer) <= (5 * 0.027 * se if ci_normal else 0.0), (ours, theirs)
        assert (ours.difference, ours.wins, ours.effect_size) == (theirs.difference, theirs.wins, theirs.effect_size)
    assert any("Edgeworth" in line for line in auto.method_checks)
    assert "paired t-test" in auto.summary() and "Edgeworth" in auto.summary()
    assert auto.settings()["method"] == "auto" and auto.settings()["method_checks"]


def test_below_the_switch_point_compare_keeps_the_resampled_numbers():
    runs = {f"r{seed}": _results(MIN_QUERIES - 1, seed) for seed in (1, 2)}
    auto = compare(None, runs, n_resamples=2000, seed=1, allow_mismatch=True)
    exact = compare(None, runs, n_resamples=2000, seed=1, method="resampling", allow_mismatch=True)
    assert auto.rows == exact.rows
    assert all(p.startswith("randomization") for p, _ in auto.methods)


def test_method_normal_gives_the_t_test_p_value_of_scipy(at_switch):
    table = compare(None, {"a": at_switch["r1"], "b": at_switch["r2"]}, "rr", method="normal",
                    allow_mismatch=True)
    d = at_switch["r2"].values("rr") - at_switch["r1"].values("rr")
    assert table.rows[0].p_value == pytest.approx(stats.ttest_rel(d, np.zeros_like(d)).pvalue, rel=1e-9)
    assert table.test_used == "t"


def test_an_unknown_method_is_refused_with_the_choices(at_switch):
    with pytest.raises(Exception, match="auto, resampling, normal"):
        compare(None, at_switch, method="fast", allow_mismatch=True)


@pytest.mark.parametrize("k", [3, 5, 10])
def test_the_range_distribution_equals_scipys_studentized_range_with_infinite_df(k):
    q = np.array([0.5, 1.5, 3.0, 4.5, 6.0])
    assert range_sf(q, k) == pytest.approx(stats.studentized_range.sf(q, k, np.inf), abs=1e-7)


def _topics(count: int, systems: int = 4):
    rng = np.random.default_rng(5)
    topic = rng.random((count, 1))
    return np.clip(topic + rng.normal(0, 0.2, (count, systems)) + np.array([0, 0.004, 0.008, 0.02])[:systems],
                   0, 1)


@pytest.mark.parametrize("procedure", [tukey_hsd, max_t])
def test_at_the_switch_point_the_limits_agree_with_the_permutation_procedures(procedure):
    scores = _topics(LARGE_TOPICS)
    permuted = procedure(scores, n_resamples=1000, seed=2, method="resampling")
    limit = procedure(scores, seed=2, method="auto")
    assert limit.method and "within" in limit.method and not permuted.method
    for ours, theirs in zip(limit.pairs, permuted.pairs):
        monte_carlo = np.sqrt(max(theirs.p_value * (1 - theirs.p_value), 1e-3) / 1000)
        assert abs(ours.p_value - theirs.p_value) <= 4 * monte_carlo + 0.01, (ours, theirs)


def test_below_the_switch_point_the_systems_procedures_keep_their_numbers():
    scores = _topics(200)
    for procedure in (tukey_hsd, max_t):
        assert procedure(scores, n_resamples=500, seed=1, method="auto") == procedure(scores, n_resamples=500,
                                                                                       seed=1)


def test_a_million_topics_are_analysed_not_refused():
    from rankproof.stats.systems import analyse_matrices

    scores = np.random.default_rng(0).random((1_000_000, 10))
    analysis = analyse_matrices({"ndcg@10": scores}, procedure="maxt")
    tests = analysis.measures[0].tests
    assert tests.topics == 1_000_000 and "large-sample" in tests.procedure and len(tests.pairs) == 45


def test_segments_switch_to_the_normal_interval_and_agree_with_the_bootstrap():
    users = MIN_QUERIES + 2999
    results = _results(users, 1)
    labels = {f"u{i}": ("small" if i < MIN_QUERIES - 1 else "big") for i in range(users)}
    auto = by_segment(results, labels, n_resamples=4000, seed=3)
    boot = by_segment(results, labels, n_resamples=4000, seed=3, interval="bootstrap")
    assert (auto.normal_rows, boot.normal_rows) == (2, 0)          # "big" on both measures; "small" resamples
    assert "normal" in str(auto) and "normal" in auto.method_check
    # Monte Carlo sd of a 95% bootstrap end from 4,000 resamples: sqrt(0.025 x 0.975 / 4000) / phi(1.96)
    # = 0.042 se; the stated skewness shift adds at most that much again.
    for ours, theirs in zip(auto.rows, boot.rows):
        assert ours.mean == theirs.mean and ours.count == theirs.count
        se = (theirs.high - theirs.low) / (2 * 1.96)
        assert abs(ours.low - theirs.low) <= 0.25 * se and abs(ours.high - theirs.high) <= 0.25 * se, (ours, theirs)


def test_segments_under_the_switch_point_keep_their_numbers():
    results = _results(MIN_QUERIES - 1, 2)
    labels = {f"u{i}": i % 2 for i in range(MIN_QUERIES - 1)}
    assert by_segment(results, labels, seed=1).rows == by_segment(results, labels, seed=1,
                                                                 interval="bootstrap").rows
