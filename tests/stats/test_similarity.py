"""Similarity: RBO against hand-worked cases of Webber et al.'s definitions and properties;
tau-b against scipy; tau_AP by hand; overlap/Jaccard and repro measures by hand."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import kendalltau

from rankproof.errors import InputError
from rankproof.stats.similarity import (delta_relative_improvement, effect_ratio, jaccard_at, kendall_tau_b,
                                        overlap_at, rbo, rmse, tau_ap)


def test_rbo_uneven_hand_worked():
    # S = [a, b], L = [a, c, b], p = 1/2: X_1 = 1, X_2 = 1, X_3 = 2 (eq. 32 of Webber et al. 2010)
    # ext = 1/2 + 1/8 + 1/12 + 1*(3-2)/(2*3)/8 + (1/3 + 1/2)/8 = 5/6
    result = rbo("ab", "acb", p=0.5)
    assert result.ext == pytest.approx(5 / 6)
    assert result.min == pytest.approx(17 / 24 + 2 * (math.log(2) - (1 / 2 + 1 / 8 + 1 / 24)))


def test_rbo_identical_and_disjoint():
    for n in (1, 3, 10):
        items = list(range(n))
        result = rbo(items, items, p=0.8)
        assert result.ext == pytest.approx(1.0)
        assert result.max == pytest.approx(1.0)   # seen prefix identical: upper bound 1
    assert rbo("abc", "xyz").ext == 0.0 and rbo("abc", "xyz").min == 0.0
    # a prefix of the long list extrapolates to full agreement
    assert rbo("abc", "abcdefg").ext == pytest.approx(1.0)


def test_rbo_properties_random():
    rng = random.Random(7)
    for _ in range(300):
        universe = list(range(12))
        a = rng.sample(universe, rng.randint(1, 10))
        b = rng.sample(universe, rng.randint(1, 10))
        p = rng.choice([0.5, 0.8, 0.9, 0.95])
        ab, ba = rbo(a, b, p), rbo(b, a, p)
        assert (ab.min, ab.ext, ab.residual) == pytest.approx((ba.min, ba.ext, ba.residual))
        assert ab.min - 1e-12 <= ab.ext <= ab.max + 1e-12
        assert 0 <= ab.min and ab.max <= 1 + 1e-12


def test_rbo_even_residual_closed_form():
    # even lengths k: RBO_res = p^k - (1-p)/p * X_k * sum_{d>k} p^d/d  when X_k = k (identical prefixes)
    p, k = 0.9, 4
    tail = -math.log(1 - p) - sum(p ** d / d for d in range(1, k + 1))
    assert rbo("abcd", "abcd", p).residual == pytest.approx(p ** k - (1 - p) / p * k * tail)


def test_rbo_rejects_ties_and_bad_p():
    with pytest.raises(InputError):
        rbo("aab", "abc")
    with pytest.raises(InputError):
        rbo("ab", "ab", p=1.0)


def test_tau_b_matches_scipy_with_ties():
    rng = random.Random(3)
    for _ in range(50):
        n = rng.randint(3, 15)
        x = {i: rng.randint(0, 4) for i in range(n)}
        y = {i: rng.randint(0, 4) for i in range(n)}
        expected = kendalltau([x[i] for i in range(n)], [y[i] for i in range(n)], variant="b").statistic
        got = kendall_tau_b(x, y)
        assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected)


def test_tau_ap_hand_worked():
    truth = {"a": 3, "b": 2, "c": 1}
    assert tau_ap(truth, {"a": 3, "b": 2, "c": 1}) == 1.0
    assert tau_ap(truth, {"a": 1, "b": 2, "c": 3}) == -1.0
    assert tau_ap(truth, {"b": 3, "a": 2, "c": 1}) == pytest.approx(0.0)    # swap at the top
    assert tau_ap(truth, {"a": 3, "c": 2, "b": 1}) == pytest.approx(0.5)    # swap at the bottom
    assert kendall_tau_b(truth, {"b": 3, "a": 2, "c": 1}) == pytest.approx(1 / 3)
    with pytest.raises(InputError):
        tau_ap(truth, {"a": 1, "b": 1, "c": 0})


def test_tau_ap_mean_over_permutations_is_tau_mean():
    # over all orderings the errors are uniform: mean tau_AP = mean tau = 0
    import itertools
    truth = {i: 5 - i for i in range(5)}
    values = [tau_ap(truth, {item: -rank for rank, item in enumerate(perm)})
              for perm in itertools.permutations(range(5))]
    assert sum(values) / len(values) == pytest.approx(0.0, abs=1e-12)


def test_overlap_and_jaccard():
    assert overlap_at("abcd", "bxay", 2) == 0.5
    assert jaccard_at("abcd", "bxay", 2) == pytest.approx(1 / 3)
    assert jaccard_at("abcd", "bxay", 3) == pytest.approx(2 / 4)


def test_repro_measures():
    original_b, original_a = {1: 0.2, 2: 0.4}, {1: 0.4, 2: 0.6}
    reproduced_b, reproduced_a = {1: 0.2, 2: 0.4}, {1: 0.3, 2: 0.5}
    assert rmse(original_a, reproduced_a) == pytest.approx(0.1)
    assert effect_ratio(original_b, original_a, reproduced_b, reproduced_a) == pytest.approx(0.5)
    # RI = 0.2/0.3, RI' = 0.1/0.3
    assert delta_relative_improvement(original_b, original_a, reproduced_b, reproduced_a) == pytest.approx(1 / 3)
