"""Results.by(segment): means and counts against hand values, every aggregation policy,
unlabelled queries, and the bootstrap interval's coverage on simulated data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rankproof import Protocol, Qrels, Run, evaluate, evaluate_frame
from rankproof.errors import InputError
from rankproof.stats.segments import UNLABELLED

# rr per query: a 1, b 1/2, c 0, d 1/4 (relevant doc x at rank 1, 2, absent, 4)
QRELS = Qrels.from_dict({q: {"x": 1} for q in "abcd"})
RUN = Run.from_dict({"a": ["x"], "b": ["y", "x"], "c": ["y"], "d": ["y", "z", "w", "x"]})
SEGMENT = {"a": "new", "b": "new", "c": "returning", "d": "returning"}


def test_means_and_counts_are_the_hand_values():
    table = evaluate(QRELS, RUN, ["rr", "hit@1"]).by(SEGMENT)
    assert [(r.segment, r.measure) for r in table] == [
        ("new", "rr"), ("new", "hit@1"), ("returning", "rr"), ("returning", "hit@1")]
    assert table.get("new", "rr").mean == 0.75 and table.get("new", "rr").count == 2
    assert table.get("returning", "rr").mean == 0.125
    assert table.get("new", "hit@1").mean == 0.5 and table.get("returning", "hit@1").mean == 0.0


def test_interval_of_two_values_spans_their_resample_means():
    # Resampling {0, 1/4} with replacement gives means 0, 1/8 or 1/4.
    row = evaluate(QRELS, RUN, "rr").by(SEGMENT).get("returning", "rr")
    assert (row.low, row.high) == (0.0, 0.25)
    assert row.low <= row.mean <= row.high


def test_weighted_aggregation_gives_weighted_segment_means():
    protocol = Protocol(aggregation="weighted")
    results = evaluate(QRELS, RUN, "rr", protocol, weights={"a": 1, "b": 3, "c": 1, "d": 1})
    # new: (1 * 1 + 3 * 1/2) / 4 = 0.625; returning: (0 + 1/4) / 2 = 0.125
    table = results.by(SEGMENT)
    assert table.get("new", "rr").mean == 0.625
    assert table.get("returning", "rr").mean == 0.125


def test_micro_aggregation_gives_the_ratio_of_sums_per_segment():
    qrels = Qrels.from_dict({"a": {"x": 1, "y": 1}, "b": {"x": 1}, "c": {"x": 1, "y": 1, "z": 1}})
    run = Run.from_dict({"a": ["x"], "b": ["x"], "c": ["w"]})
    results = evaluate(qrels, run, "r@5", Protocol(aggregation="micro"))
    # one segment {a, b}: hits 1 + 1 over R 2 + 1 = 2/3 (macro would be 3/4)
    table = results.by({"a": "s", "b": "s", "c": "t"})
    assert table.get("s", "r@5").mean == pytest.approx(2 / 3)
    assert table.get("t", "r@5").mean == 0.0


def test_excluded_queries_are_not_counted():
    qrels = Qrels.from_dict({"a": {"x": 1}, "b": {"x": 0}})
    run = Run.from_dict({"a": ["x"], "b": ["x"]})
    results = evaluate(qrels, run, "ndcg", Protocol(zero_ideal="exclude"))
    row = results.by({"a": "s", "b": "s"}).get("s", "ndcg")
    assert (row.mean, row.count) == (1.0, 1)
    assert math.isnan(row.low) and math.isnan(row.high)   # one query: no interval


@pytest.mark.parametrize("segment, options, message", [
    ({"a": "new", "b": "new"}, {},
     r"2 evaluated queries have no segment label \(c, d\); label them, or pass unlabelled='group'"),
    (["a", "b"], {}, r"a segment must be a mapping \{query: label\} or a pandas Series indexed by query; got list"),
    (pd.Series(["s", "t", "u", "v", "w"], index=["a", "b", "c", "d", "a"]), {},
     r"query a is labelled twice in the segment"),
    (SEGMENT, {"bootstrap_method": "bca"}, r"method must be one of percentile, basic, BCa; got 'bca'"),
    (SEGMENT, {"confidence": 95}, r"confidence must be between 0 and 1"),
    (SEGMENT, {"n_resamples": 0}, r"resamples must be a positive integer"),
    (SEGMENT, {"unlabelled": "skip"}, r"unlabelled must be 'error', 'group' or 'drop'; got 'skip'"),
])
def test_bad_segments_get_a_clear_error(segment, options, message):
    with pytest.raises(InputError, match=message):
        evaluate(QRELS, RUN, "rr").by(segment, **options)


def test_unlabelled_queries_grouped_or_dropped():
    results = evaluate(QRELS, RUN, "rr")
    grouped = results.by({"a": "new", "b": "new"}, unlabelled="group")
    assert grouped.get(UNLABELLED, "rr").count == 2 and grouped.get(UNLABELLED, "rr").mean == 0.125
    dropped = results.by({"a": "new", "b": "new"}, unlabelled="drop")
    assert [r.segment for r in dropped] == ["new"]


def test_series_and_integer_user_keys_and_to_pandas():
    truth = pd.DataFrame({"user": [1, 2, 3], "item": [10, 20, 30]})
    predictions = pd.DataFrame({"user": [1, 2, 3], "item": [10, 21, 30], "score": [1.0, 1.0, 1.0]})
    results = evaluate_frame(truth, predictions, "hit@1", rating=None)
    frame = results.by(pd.Series(["head", "tail", "tail"], index=[1, 2, 3])).to_pandas()
    assert list(frame.columns) == ["segment", "measure", "mean", "count", "low", "high"]
    assert frame.set_index("segment")["mean"].to_dict() == {"head": 1.0, "tail": 0.5}
    assert results.by({1: 0, 2: 1, 3: 1}).get(1, "hit@1").count == 2   # integer labels too


def test_the_seed_makes_the_interval_reproducible():
    results = evaluate(QRELS, RUN, "rr")
    first = results.by({q: "all" for q in "abcd"}, seed=3)
    assert first == results.by({q: "all" for q in "abcd"}, seed=3)


def test_interval_coverage_is_near_the_nominal_rate():
    # 300 segments of 60 queries; each query's relevant doc sits at a uniform
    # rank 1..5, so rr has the known mean (1 + 1/2 + 1/3 + 1/4 + 1/5) / 5.
    # Each segment's 90% interval is one independent trial of covering it.
    rng = np.random.default_rng(11)
    segments, size = 300, 60
    n = segments * size
    rank = rng.integers(1, 6, size=n)
    query = np.repeat(np.arange(n), 5).astype(str)
    position = np.tile(np.arange(1, 6), n)
    doc = np.where(position == np.repeat(rank, 5), "rel", np.char.add("d", position.astype(str)))
    run = Run.from_table(pd.DataFrame({"query": query, "doc": doc}), score=None)
    qrels = Qrels.from_table(pd.DataFrame({"query": np.arange(n).astype(str), "doc": "rel", "grade": 1}))
    results = evaluate(qrels, run, "rr")
    labels = pd.Series(np.arange(n) // size, index=np.arange(n).astype(str))
    table = results.by(labels, confidence=0.9, n_resamples=999, seed=5)
    true_mean = sum(1 / r for r in range(1, 6)) / 5
    covered = np.mean([r.low <= true_mean <= r.high for r in table])
    # Binomial(300, 0.9) has sd 1.7%; the percentile bootstrap runs a little
    # narrow at n = 60, so the band is 0.84-0.95 (over 3 sd either way).
    assert 0.84 <= covered <= 0.95, covered
    assert all(r.count == size for r in table)


@pytest.mark.parametrize("method", ["percentile", "basic"])
def test_numpy_bootstrap_agrees_with_scipys(method):
    # The chunked numpy resampling must give scipy.stats.bootstrap's interval (up to Monte Carlo error).
    from scipy.stats import bootstrap

    rng = np.random.default_rng(3)
    values = rng.exponential(size=300)          # skewed: percentile and basic differ
    qrels = Qrels.from_dict({f"q{i}": {"a": 1} for i in range(300)})
    # rr of q_i = 1 / rank of "a": put "a" at rank 1 + round(value) so per-query values are skewed too.
    ranks = 1 + np.round(values * 3).astype(int)
    run = Run.from_dict({f"q{i}": [f"x{j}" for j in range(r - 1)] + ["a"] for i, r in enumerate(ranks)})
    results = evaluate(qrels, run, "rr")
    row = results.by({q: "all" for q in results.queries}, n_resamples=20000, bootstrap_method=method, seed=1).get("all", "rr")
    reference = bootstrap((results.values("rr"),), np.mean, n_resamples=20000, method=method,
                          vectorized=True, random_state=np.random.default_rng(2)).confidence_interval
    assert row.low == pytest.approx(reference.low, abs=0.004)
    assert row.high == pytest.approx(reference.high, abs=0.004)


def test_a_segment_matched_once_gives_each_run_the_rows_of_the_mapping():
    from rankproof.stats.segments import by_segment, segment_groups

    results = evaluate(QRELS, RUN, ["rr", "hit@1"])
    other = evaluate(QRELS, Run.from_dict({q: ["x"] for q in "abcd"}, name="best"), ["rr", "hit@1"])
    grouped = segment_groups(SEGMENT, results.table.queries)
    for run in (results, other):   # one matching, every run on the same queries
        assert by_segment(run, grouped, n_resamples=200).rows == by_segment(run, SEGMENT, n_resamples=200).rows
    assert by_segment(other, grouped, n_resamples=200).get("returning", "rr").mean == 1.0
    fewer = evaluate(Qrels.from_dict({q: {"x": 1} for q in "abc"}), RUN, ["rr"], allow_partial=True)
    with pytest.raises(InputError, match="matched to other queries"):
        by_segment(fewer, grouped)
