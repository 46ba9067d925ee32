"""The report's statistics change method with the data's size (compare(method='auto'), used by
rankproof.pages.statistics): at the switch point the two methods agree within their stated error.

Small rows resample (randomization test, percentile bootstrap); large rows take the paired t-test and the
normal interval. Expected agreement, computed here by hand: the Berry-Esseen bound of the sign-flip
distribution, B = 0.56 sum |d|^3 / (sum d^2)^1.5; the two p-values differ by at most 2B (two tails) plus 4
Monte Carlo standard errors of the randomization p; each bootstrap endpoint lies within the normal quantiles
at 0.025 +- (B + 4 Monte Carlo errors of that tail) of the normal interval's centre.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from rankproof import Qrels, Run, compare, evaluate
from rankproof.pages import statistics

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
    return [evaluate(qrels, run, ["ndcg@10"]).replace(run_name=name) for name, run in runs.items()]


@pytest.mark.slow
def test_the_t_test_and_interval_agree_with_randomization_and_bootstrap_at_the_switch():
    results = _results(5000)
    named = {r.run_name: r for r in results}
    normal = compare(None, named, ["ndcg@10"], baseline="a", correction="none", method="normal")
    resampled = compare(None, named, ["ndcg@10"], baseline="a", test="randomization", correction="none",
                        n_resamples=RESAMPLES, seed=1, method="resampling")
    t_row, r_row = normal.rows[0], resampled.rows[0]
    d = results[1].values("ndcg@10") - results[0].values("ndcg@10")
    bound = 0.56 * float(np.sum(np.abs(d) ** 3)) / float(np.sum(d * d)) ** 1.5
    assert bound < 0.02
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


def test_the_page_says_which_methods_it_used():
    small, note = statistics.baseline_comparison(_results(300), ["ndcg@10"], "a", test="randomization",
                                                 correction="holm", alpha=0.05, confidence=0.95, n_resamples=2000,
                                                 seed=0)
    # Fewer than 1,000 queries: resampled as before, and the Monte Carlo error stated.
    assert small.test == "randomization" and "Methods chosen for 300 queries" in note
    assert "Monte Carlo standard error of a resampled p-value at most 0.5 / sqrt(2,000) = 0.0112" in note
