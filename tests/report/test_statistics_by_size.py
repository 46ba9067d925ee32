"""The report's statistics change method with the data's size (rankproof.pages.statistics): at the switch
point the two methods agree within their stated error.

Below LARGE_QUERIES the page uses compare's randomization test and percentile bootstrap; from it, the paired
t-test and the t interval, licensed by the Berry-Esseen bound the page prints. Expected agreement: the two
p-values differ by at most twice the bound (a two-sided p adds two tails, each within the bound of the
normal's) plus 4 Monte Carlo standard errors of the randomization p; each bootstrap endpoint lies within the
normal quantiles at 0.025 +- (bound + 4 Monte Carlo errors of that tail) of the t interval's centre.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from rankproof import Qrels, Run, compare, evaluate
from rankproof.pages import statistics
from rankproof.stats.normal import normal_bound, normal_comparison

RESAMPLES = 10_000
SHIFT = -0.008   # b a little behind a's random advantage: p near 0.07 at 5,000 queries, worth comparing


def _results(queries: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(queries)]
    qrels = Qrels.from_dict({q: {f"d{j}": int(g) for j, g in enumerate(rng.integers(0, 3, 6))} for q in ids})
    runs = {}
    for name, shift in (("a", 0), ("b", 1)):
        # b ranks the relevant docs a little higher on average: a small, real difference.
        order = np.argsort(rng.random((queries, 10)) - shift * SHIFT * (np.arange(10) < 6), axis=1)
        runs[name] = Run.from_dict({q: [f"d{j}" for j in row] for q, row in zip(ids, order.tolist())})
    results = []
    for name, run in runs.items():
        result = evaluate(qrels, run, ["ndcg@10"])
        result.run_name = name
        results.append(result)
    return results


@pytest.mark.slow
def test_the_t_test_and_interval_agree_with_randomization_and_bootstrap_at_the_switch():
    results = _results(statistics.LARGE_QUERIES)
    normal, bounds = normal_comparison(results, ["ndcg@10"], "a", correction="none")
    resampled = compare(None, {r.run_name: r for r in results}, ["ndcg@10"], baseline="a", test="randomization",
                        correction="none", n_resamples=RESAMPLES, seed=1)
    t_row, r_row = normal.rows[0], resampled.rows[0]
    bound = bounds[("ndcg@10", "b")]
    d = results[1].values("ndcg@10") - results[0].values("ndcg@10")
    assert bound == pytest.approx(normal_bound(d)) and bound <= statistics.NORMAL_BOUND
    # The same point estimates, wins and losses: only the inference differs.
    assert (t_row.difference, t_row.wins, t_row.losses) == pytest.approx((r_row.difference, r_row.wins,
                                                                          r_row.losses))
    p = r_row.p_value
    mc = math.sqrt(max(p * (1 - p), 1 / RESAMPLES) / RESAMPLES)
    assert abs(t_row.p_value - p) <= 2 * bound + 4 * mc, (t_row.p_value, p, bound)
    # Interval ends: a percentile bootstrap's 2.5% and 97.5% quantiles against the t interval's.
    scale = (t_row.ci_high - t_row.difference) / NormalDist().inv_cdf(0.975)
    slack = bound + 4 * math.sqrt(0.025 * 0.975 / RESAMPLES)
    for end, level in ((r_row.ci_low, 0.025), (r_row.ci_high, 0.975)):
        low = t_row.difference + scale * NormalDist().inv_cdf(level - slack)
        high = t_row.difference + scale * NormalDist().inv_cdf(level + slack)
        assert low <= end <= high, (end, low, high)


def test_the_page_switches_at_the_stated_size_and_says_how(monkeypatch):
    results = _results(300)
    small, note = statistics.baseline_comparison(results, ["ndcg@10"], "a", test="randomization",
                                                 correction="holm", alpha=0.05, confidence=0.95, n_resamples=2000,
                                                 seed=0)
    assert small.test == "randomization" and "Monte Carlo standard error of each p-value at most" in note
    monkeypatch.setattr(statistics, "LARGE_QUERIES", 300)
    large, note = statistics.baseline_comparison(results, ["ndcg@10"], "a", test="randomization",
                                                 correction="holm", alpha=0.05, confidence=0.95, n_resamples=2000,
                                                 seed=0)
    if large.test == "t":
        assert "Berry-Esseen bound" in note and large.bootstrap_method == "normal"
    else:   # 300 queries may be too few for the bound: then resampling, and the page says why
        assert "too skewed for the normal approximation" in note


def test_the_bound_of_a_symmetric_sample_is_the_sign_flip_formula():
    d = np.array([1.0, -1.0] * 50)   # sum |d|^3 / (sum d^2)^1.5 = 100 / 1000: 0.056; the iid bound 0.04748
    assert normal_bound(d) == pytest.approx(0.5600 * 100 / 100 ** 1.5)
