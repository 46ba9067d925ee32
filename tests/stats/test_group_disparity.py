"""Group disparity: the groups' means by hand, the interval against scipy's stratified bootstrap and the
normal approximation's closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rankproof.errors import InputError
from rankproof.stats import group_disparity


def test_means_and_spread_by_hand():
    values = {"u1": 1.0, "u2": 0.0, "u3": 0.5, "u4": 0.25, "u5": float("nan"), "u6": 0.75}
    groups = {"u1": "a", "u2": "a", "u3": "b", "u4": "b", "u5": "c"}   # u6: no label
    d = group_disparity(values, groups, n_resamples=50)
    assert d.means == {"a": 0.5, "b": 0.375} and d.counts == {"a": 2, "b": 2}   # u5 nan, u6 left out
    assert (d.disparity, d.highest, d.lowest) == (0.125, "a", "b")
    kept = group_disparity(values, groups, unlabelled="(none)", n_resamples=50)
    assert kept.means["(none)"] == 0.75 and kept.disparity == 0.75 - 0.375
    with pytest.raises(InputError, match="two groups"):
        group_disparity({"u1": 1.0}, {"u1": "a"})


def test_the_bootstrap_interval_is_scipys_stratified_percentile_bootstrap():
    rng = np.random.default_rng(5)
    samples = [rng.beta(2, 5, 40), rng.beta(3, 3, 25), rng.beta(2, 2, 60)]
    values = {f"{g}-{i}": v for g, s in enumerate(samples) for i, v in enumerate(s)}
    groups = {user: user.split("-")[0] for user in values}
    ours = group_disparity(values, groups, n_resamples=4000, seed=1)
    assert ours.method == "bootstrap"

    def spread(*groups, axis=-1):
        means = np.stack([g.mean(axis=axis) for g in groups])
        return means.max(axis=0) - means.min(axis=0)

    theirs = scipy_stats.bootstrap(samples, spread, n_resamples=4000, method="percentile", random_state=2,
                                   vectorized=True).confidence_interval
    assert ours.disparity == pytest.approx(spread(*samples))
    assert ours.low == pytest.approx(theirs.low, abs=0.015) and ours.high == pytest.approx(theirs.high, abs=0.015)


def test_large_groups_take_the_normal_approximation():
    rng = np.random.default_rng(8)
    a, b = rng.normal(0.6, 0.2, 1200), rng.normal(0.4, 0.3, 1500)
    values = {**{f"a{i}": v for i, v in enumerate(a)}, **{f"b{i}": v for i, v in enumerate(b)}}
    d = group_disparity(values, {u: u[0] for u in values}, n_resamples=40000)
    assert d.method == "normal"
    # Far from 0, the spread of two groups is their difference: mean +- z se (Welch's standard error).
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    z = scipy_stats.norm.ppf(0.975)
    assert d.low == pytest.approx(d.disparity - z * se, abs=0.002)
    assert d.high == pytest.approx(d.disparity + z * se, abs=0.002)


def test_each_group_takes_its_own_method_by_size():
    rng = np.random.default_rng(9)
    values = {**{f"a{i}": v for i, v in enumerate(rng.random(1000))}, **{f"b{i}": v for i, v in enumerate(rng.random(30))}}
    groups = {u: u[0] for u in values}
    assert group_disparity(values, groups, n_resamples=100).method == "bootstrap+normal"
    assert group_disparity(values, groups, n_resamples=100, method="bootstrap").method == "bootstrap"
