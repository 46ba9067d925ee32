"""The bounded bootstrap (stats/resampling.py) against scipy.stats.bootstrap, its peer: same draws, same
interval, while the jackknife is computed in closed form (linear) instead of n leave-one-out samples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rankproof import Qrels, Run, compare, evaluate
from rankproof.stats.resampling import leave_one_out, resampled_statistics


def _mean(values, axis=-1):
    return np.mean(values, axis=axis)


def _ratio(numerators, denominators, axis=-1):
    return np.sum(numerators, axis=axis) / np.sum(denominators, axis=axis)


def test_leave_one_out_is_each_statistic_without_one_query():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    w = np.array([1.0, 3.0, 1.0, 0.5])
    assert leave_one_out(x).tolist() == [14 / 3, 13 / 3, 11 / 3, 7 / 3]
    expected = [(np.sum(x) - x[i]) / (np.sum(w) - w[i]) for i in range(4)]
    assert leave_one_out(x, w) == pytest.approx(expected, rel=1e-15)
    assert np.isnan(leave_one_out(np.array([1.0, 2.0]), np.array([0.0, 1.0]))[1])


def test_chunked_draws_are_scipys_draws():
    data = (np.random.default_rng(1).random(50),)
    ours = resampled_statistics(data, _mean, 1000, np.random.default_rng(4))
    index = np.random.default_rng(4).integers(0, 50, (1000, 50))   # scipy's one call
    assert np.array_equal(ours, data[0][index].mean(axis=-1))


@pytest.mark.parametrize("paired", [False, True])
def test_segment_bca_equals_scipys(paired):
    rng = np.random.default_rng(3)
    values = rng.random(40).round(2)
    docs = {f"q{i}": ["d"] if v > 0.5 else ["x", "d"] for i, v in enumerate(values)}
    qrels = Qrels.from_dict({q: {"d": 1} for q in docs})
    results = evaluate(qrels, Run.from_dict(docs), "rr")
    row = results.by({q: "all" for q in docs}, n_resamples=999, bootstrap_method="BCa", seed=7).get("all", "rr")
    sample = results.values("rr")
    peer = stats.bootstrap((sample,), _mean, n_resamples=999, method="BCa", vectorized=True,
                           rng=np.random.default_rng(7)).confidence_interval
    assert (row.low, row.high) == pytest.approx((peer.low, peer.high), rel=1e-12)
    if paired:   # a ratio of sums (micro, weighted) resamples pairs: scipy's paired bootstrap
        w = rng.random(40) + 0.1
        from rankproof.stats.segments import _interval
        ours = _interval((sample, w), _ratio, 0.9, 999, "BCa", np.random.default_rng(2))
        peer = stats.bootstrap((sample, w), _ratio, paired=True, n_resamples=999, method="BCa", vectorized=True,
                               confidence_level=0.9, rng=np.random.default_rng(2)).confidence_interval
        assert ours == pytest.approx((peer.low, peer.high), rel=1e-12)


def test_compare_bca_equals_scipys():
    rng = np.random.default_rng(5)
    queries = [f"q{i}" for i in range(60)]
    qrels = Qrels.from_dict({q: {"d": 1} for q in queries})
    a = Run.from_dict({q: ["d"] if rng.random() < 0.6 else ["x", "d"] for q in queries})
    b = Run.from_dict({q: ["d"] if rng.random() < 0.4 else ["x", "y", "d"] for q in queries})
    table = compare(qrels, {"a": a, "b": b}, "rr", bootstrap_method="BCa", n_resamples=999, seed=11)
    row = table.rows[0]
    assert (row.run_a, row.run_b) == ("a", "b")
    d = evaluate(qrels, b, "rr").values("rr") - evaluate(qrels, a, "rr").values("rr")   # difference = b - a
    peer = stats.bootstrap((d,), _mean, n_resamples=999, method="BCa", vectorized=True,
                           rng=np.random.default_rng(11)).confidence_interval
    assert (row.ci_low, row.ci_high) == pytest.approx((peer.low, peer.high), rel=1e-12)


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_compare_in_blocks_of_rows_equals_compare_at_once(monkeypatch, test):
    # Many runs: rows are computed in blocks; each row's statistics depend on that row
    # alone and the correction runs once over all p-values, so the blocks change nothing.
    from rankproof.stats import comparison

    rng = np.random.default_rng(9)
    queries = [f"q{i}" for i in range(30)]
    qrels = Qrels.from_dict({q: {"d": 1} for q in queries})
    runs = {f"r{j}": Run.from_dict({q: [f"x{k}" for k in range(int(rng.integers(0, 4)))] + ["d"] for q in queries}) for j in range(5)}
    at_once = compare(qrels, runs, "rr", test=test, n_resamples=500, seed=3)
    monkeypatch.setattr(comparison, "_ROW_VALUES", 60)   # two rows of 30 queries per block
    in_blocks = compare(qrels, runs, "rr", test=test, n_resamples=500, seed=3)
    assert len(at_once.rows) == 10 and in_blocks.rows == at_once.rows
