"""evaluate_frame: long logs as pandas, polars, pyarrow and Parquet; hand values,
agreement with evaluate() on the same Qrels/Run, query policies, bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof import Protocol, Qrels, Run, evaluate, evaluate_frame
from rankproof.pipeline.alignment import sort_within_queries
from rankproof.errors import (CoverageError, DuplicateError, InputError, MeasureError, MissingQueryError, ParseError,
                             ProtocolError, RankproofWarning)

from paths import README

LOG2_3 = math.log2(3)

# User 1: recommended 10, 11, 12, 13 (scores 4, 3, 2, 1); likes 11 (rating 2) and 14 (rating 1).
# User 2: recommended 20, 21 (scores 0.5, 0.9, so 21 first); likes 20 (rating 1).
TRUTH = {"user": [1, 1, 2], "item": [11, 14, 20], "rating": [2, 1, 1]}
PREDICTIONS = {"user": [1, 1, 1, 1, 2, 2], "item": [10, 11, 12, 13, 20, 21],
               "score": [4.0, 3.0, 2.0, 1.0, 0.5, 0.9]}
# Hand values.
# user 1 ranking 10, 11, 12, 13: the only hit (11, grade 2) at rank 2.
#   dcg@3 = 2 / log2(3); ideal: 11 (2), 14 (1) -> 2 + 1 / log2(3)
#   r@3 = 1/2, p@3 = 1/3, ap@3 = (1/2) / 2, rr@3 = 1/2, hit@3 = 1
# user 2 ranking 21, 20: hit 20 (grade 1) at rank 2.
#   dcg@3 = 1 / log2(3); ideal = 1. r@3 = 1, p@3 = 1/3, ap@3 = 1/2, rr@3 = 1/2
# Integer user ids come back as integers (issue 14, point 6).
HAND = {
    "ndcg@3": {1: (2 / LOG2_3) / (2 + 1 / LOG2_3), 2: 1 / LOG2_3},
    "r@3": {1: 0.5, 2: 1.0},
    "p@3": {1: 1 / 3, 2: 1 / 3},
    "ap@3": {1: 0.25, 2: 0.5},
    "rr@3": {1: 0.5, 2: 0.5},
    "hit@3": {1: 1.0, 2: 1.0},
}


def _as(kind: str, data: dict, tmp_path, label: str):
    if kind == "pandas":
        return pd.DataFrame(data)
    if kind == "polars":
        return pl.DataFrame(data)
    if kind == "arrow":
        return pa.table(data)
    path = tmp_path / f"{label}.parquet"
    pq.write_table(pa.table(data), path)
    return str(path) if kind == "parquet" else path


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow", "parquet", "parquet-pathlib"])
def test_hand_values_for_every_kind_of_table(kind, tmp_path):
    truth = _as(kind, TRUTH, tmp_path, "truth")
    predictions = _as(kind, PREDICTIONS, tmp_path, "predictions")
    results = evaluate_frame(truth, predictions, list(HAND))
    for measure, expected in HAND.items():
        got = results.per_query(measure)
        assert got.keys() == expected.keys()
        for user in expected:
            assert got[user] == pytest.approx(expected[user], abs=1e-15), (measure, user)


def test_string_ids_and_renamed_columns():
    truth = pd.DataFrame({"uid": ["u1", "u1", "u2"], "iid": ["a", "b", "c"], "stars": [2, 1, 1]})
    predictions = pd.DataFrame({"uid": ["u1", "u1", "u2"], "iid": ["b", "x", "c"], "p": [0.9, 0.1, 0.5]})
    results = evaluate_frame(truth, predictions, ["r@1"], user="uid", item="iid", rating="stars", score="p")
    assert results.per_query("r@1") == {"u1": 0.5, "u2": 1.0}


def test_rating_none_makes_every_truth_row_relevant_with_grade_1():
    truth = pd.DataFrame({"user": [1, 1], "item": [11, 12], "rating": [5, 0]})
    predictions = pd.DataFrame({"user": [1, 1], "item": [12, 11], "score": [2.0, 1.0]})
    graded = evaluate_frame(truth, predictions, ["ndcg@2", "r@1"])
    binary = evaluate_frame(truth.drop(columns="rating"), predictions, ["ndcg@2", "r@1"], rating=None)
    # With ratings, 12 has grade 0: dcg = 5 / log2(3), ideal 5. Without, both grade 1:
    # dcg = 1 + 1/log2(3) = ideal.
    assert graded.mean("ndcg@2") == pytest.approx(1 / LOG2_3)
    assert graded.mean("r@1") == 0.0
    assert binary.mean("ndcg@2") == pytest.approx(1.0)
    assert binary.mean("r@1") == 0.5


def test_score_none_takes_the_row_order_as_the_ranking():
    truth = pd.DataFrame({"user": [1], "item": [11], "rating": [1]})
    predictions = pd.DataFrame({"user": [1, 1, 1], "item": [12, 11, 13]})
    results = evaluate_frame(truth, predictions, ["rr@3"], score=None)
    assert results.mean("rr@3") == 0.5


def test_integer_and_text_ids_are_one_id():
    truth = pa.table({"user": ["7"], "item": ["11"], "rating": [1]})
    predictions = pa.table({"user": [7, 7], "item": [12, 11], "score": [2.0, 1.0]})
    assert evaluate_frame(truth, predictions, "rr@2").per_query("rr@2") == {"7": 0.5}


# -- agreement with evaluate() ---------------------------------------------------------

logs = st.integers(0, 2**32 - 1).map(lambda seed: np.random.default_rng(seed))


def _random_log(rng):
    users = int(rng.integers(1, 30))
    pred_users = np.repeat(np.arange(users), rng.integers(0, 12, size=users))
    pred_items = rng.permutation(len(pred_users) * 3)[: len(pred_users)] % 40
    predictions = pd.DataFrame({"user": pred_users, "item": pred_items,
                                "score": rng.integers(0, 4, size=len(pred_users)).astype(float)})
    predictions = predictions.drop_duplicates(["user", "item"]).sample(frac=1, random_state=int(rng.integers(1000)))
    truth_users = np.repeat(np.arange(users + 3), rng.integers(0, 5, size=users + 3))
    truth = pd.DataFrame({"user": truth_users, "item": rng.integers(0, 40, size=len(truth_users)),
                          "rating": rng.integers(0, 4, size=len(truth_users))})
    truth = truth.drop_duplicates(["user", "item"])
    return truth, predictions


@given(logs, st.sampled_from([Protocol(), Protocol.preset("trec_eval").replace(missing_query="zero"),
                              Protocol(ties="input", gain="exp2"), Protocol(missing_query="exclude")]))
@settings(max_examples=60, deadline=None)
def test_agrees_with_evaluate_on_the_equivalent_qrels_and_run(rng, protocol):
    truth, predictions = _random_log(rng)
    if truth.empty or predictions.empty or not set(truth.user) & set(predictions.user):
        return
    measures = ["ndcg@5", "r@5", "ap@5", "p@5", "rr@5", "hit@5", "ndcg"]
    got = evaluate_frame(truth, predictions, measures, protocol, allow_partial=True)
    qrels = Qrels.from_dict({str(u): {str(i): int(g) for i, g in zip(rows.item, rows.rating)}
                             for u, rows in truth.groupby("user")})
    run = Run.from_dict({str(u): {str(i): float(s) for i, s in zip(rows.item, rows.score)}
                         for u, rows in predictions.groupby("user")})
    # allow_partial: users without predictions score 0 whatever their share (the guard refuses by default).
    expected = evaluate(qrels, run, measures, protocol, allow_partial=True)
    # Integer user ids come back as integers in numeric order; the text run's in text order.
    assert got.queries == sorted(int(q) for q in expected.queries)
    position = {q: i for i, q in enumerate(expected.queries)}
    order = [position[str(q)] for q in got.queries]
    for measure in measures:
        np.testing.assert_allclose(got.values(measure), expected.values(measure)[order], rtol=0, atol=1e-12)
    assert got.counts == expected.counts


# -- the segmented sort the long logs rely on -----------------------------------------


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 5)), max_size=60))
@settings(max_examples=200)
def test_sort_within_queries_is_lexsort(rows):
    rows.sort(key=lambda r: r[0])  # grouped by query, input order kept within
    query = np.array([r[0] for r in rows], dtype=np.int64)
    key = np.array([r[1] for r in rows], dtype=np.float64)
    tiebreak = np.array([r[2] for r in rows], dtype=np.int64)
    num_queries = 7
    np.testing.assert_array_equal(sort_within_queries(query, num_queries, key),
                                  np.lexsort((key, query)))
    np.testing.assert_array_equal(sort_within_queries(query, num_queries, key, tiebreak),
                                  np.lexsort((tiebreak, key, query)))


def test_sort_within_queries_short_and_long_rankings():
    rng = np.random.default_rng(3)
    query = np.repeat(np.arange(50), 4)   # short rankings: insertion sort
    key = rng.integers(0, 3, size=200).astype(float)
    np.testing.assert_array_equal(sort_within_queries(query, 50, key), np.lexsort((key, query)))
    # Long rankings with many ties: the merge sort must keep tied rows in input order.
    query = np.r_[np.zeros(500, np.int64), np.arange(1, 4), np.full(1000, 4)]
    key = rng.integers(0, 7, size=len(query)).astype(float)
    tiebreak = rng.integers(0, 3, size=len(query))
    np.testing.assert_array_equal(sort_within_queries(query, 5, key), np.lexsort((key, query)))
    np.testing.assert_array_equal(sort_within_queries(query, 5, key, tiebreak),
                                  np.lexsort((tiebreak, key, query)))
    # Not grouped by query, and integer keys beyond float64's exact range: np.lexsort.
    ungrouped = np.array([1, 0, 1, 0])
    wide = np.array([2**60 + 1, 5, 2**60, 3])
    np.testing.assert_array_equal(sort_within_queries(ungrouped, 2, wide), np.lexsort((wide, ungrouped)))
    np.testing.assert_array_equal(sort_within_queries(np.array([0, 0, 0]), 1, wide[[0, 2, 1]]), [2, 1, 0])


# -- query policies -------------------------------------------------------------------


def _policy_log():
    truth = pd.DataFrame({"user": [1, 2], "item": [10, 20], "rating": [1, 1]})
    # user 2 has no predictions; user 3 is not in the truth.
    predictions = pd.DataFrame({"user": [1, 3], "item": [10, 30], "score": [1.0, 1.0]})
    return truth, predictions


def test_users_missing_from_predictions_follow_missing_query():
    truth, predictions = _policy_log()
    zero = evaluate_frame(truth, predictions, "r@5")
    assert zero.per_query("r@5") == {1: 1.0, 2: 0.0}
    assert zero.counts["queries_missing_from_run"] == 1
    excluded = evaluate_frame(truth, predictions, "r@5", Protocol(missing_query="exclude"))
    assert excluded.per_query("r@5") == {1: 1.0}
    with pytest.raises(MissingQueryError, match=r"no ranking for queries judged in truth: 2;"):
        evaluate_frame(truth, predictions, "r@5", Protocol(missing_query="error"))


def test_users_missing_from_truth_follow_extra_query():
    truth, predictions = _policy_log()
    results = evaluate_frame(truth, predictions, "r@5")
    assert results.counts["queries_missing_from_qrels"] == 1   # user 3, ignored and counted
    with pytest.raises(MissingQueryError, match=r"ranks queries the qrels truth do not judge: 3"):
        evaluate_frame(truth, predictions, "r@5", Protocol(extra_query="error"))


def test_duplicate_predictions_follow_the_duplicates_policy():
    truth = pd.DataFrame({"user": [1], "item": [10], "rating": [1]})
    predictions = pd.DataFrame({"user": [1, 1, 1], "item": [11, 10, 11], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(DuplicateError, match=r"user 1, item 11: the item is listed twice for this user; "
                                             r"set the policy duplicates=first"):
        evaluate_frame(truth, predictions, "rr@3")
    first = evaluate_frame(truth, predictions, "rr@3", Protocol(duplicates="first"))
    assert first.mean("rr@3") == 0.5 and first.counts["duplicates_dropped"] == 1


def test_weights_by_user_as_mapping_or_series():
    truth, predictions = _policy_log()
    weighted = Protocol(aggregation="weighted")
    # user 1 scores 1 with weight 3, user 2 scores 0 with weight 1: 3 / 4.
    assert evaluate_frame(truth, predictions, "r@5", weighted, weights={1: 3, 2: 1}).mean("r@5") == 0.75
    series = pd.Series([3.0, 1.0], index=[1, 2])
    assert evaluate_frame(truth, predictions, "r@5", weighted, weights=series).mean("r@5") == 0.75


# -- bad input: (truth, predictions, options, error class, expected message) ---------------

GOOD_TRUTH = {"user": [1, 1, 2], "item": [10, 11, 20], "rating": [1, 2, 1]}
GOOD_PREDICTIONS = {"user": [1, 1, 2], "item": [10, 12, 20], "score": [0.5, 0.4, 0.3]}


def _with(base: dict, **changes) -> dict:
    out = {k: list(v) for k, v in base.items()}
    out.update(changes)
    return out


BAD = [
    ("truth without the rating column",
     {"user": [1], "item": [10]}, GOOD_PREDICTIONS, {}, ParseError,
     r"truth: no column 'rating' \(named by rating=\); the columns are 'user', 'item'; "
     r"pass the right column names with rating="),
    ("predictions without the user column",
     GOOD_TRUTH, {"uid": [1], "item": [10], "score": [1.0]}, {}, ParseError,
     r"predictions: no column 'user' \(named by user=\)"),
    ("NaN rating",
     _with(GOOD_TRUTH, rating=[1.0, float("nan"), 1.0]), GOOD_PREDICTIONS, {}, ParseError,
     r"truth row 2: user 1, item 11: no grade \(the value is null or NaN\)"),
    ("fractional rating",
     _with(GOOD_TRUTH, rating=[1.0, 3.5, 1.0]), GOOD_PREDICTIONS, {}, ParseError,
     r"truth row 2: user 1, item 11: grade 3.5 is not an integer"),
    ("negative rating",
     _with(GOOD_TRUTH, rating=[1, -1, 1]), GOOD_PREDICTIONS, {}, InputError,
     r"truth: user 1, item 11: negative rating -1; set the policy negative_grades=zero"),
    ("null user in the truth",
     _with(GOOD_TRUTH, user=[1.0, None, 2.0]), GOOD_PREDICTIONS, {}, ParseError,
     r"truth row 2: item 11: no user id \(the value is null or NaN\); give every row a user id"),
    ("null item in the predictions",
     GOOD_TRUTH, _with(GOOD_PREDICTIONS, item=["10", None, "20"]), {}, ParseError,
     r"predictions row 2: user 1: no item id \(the value is null or NaN\)"),
    ("NaN score",
     GOOD_TRUTH, _with(GOOD_PREDICTIONS, score=[0.5, float("nan"), 0.3]), {}, ParseError,
     r"predictions row 2: user 1, item 12: no score"),
    ("duplicate truth row",
     _with(GOOD_TRUTH, item=[10, 10, 20]), GOOD_PREDICTIONS, {}, DuplicateError,
     r"truth: user 1, item 10: in the truth twice with different grades 1 and 2; keep one row per \(user, item\)"),
    ("duplicate prediction",
     GOOD_TRUTH, _with(GOOD_PREDICTIONS, item=[10, 10, 20]), {}, DuplicateError,
     r"predictions: user 1, item 10: the item is listed twice for this user"),
    ("no user in common",
     GOOD_TRUTH, _with(GOOD_PREDICTIONS, user=[5, 5, 6]), {"protocol": Protocol(missing_query="exclude")},
     InputError, r"predictions and truth share no user; check that the user ids match"),
]


@pytest.mark.parametrize("label, truth, predictions, options, error, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_gets_a_clear_error(label, truth, predictions, options, error, message):
    with pytest.raises(error, match=message):
        evaluate_frame(pd.DataFrame(truth), pd.DataFrame(predictions), ["ndcg@5"], **options)


def test_no_user_in_common_scores_every_truth_user_zero_under_missing_query_zero():
    # refused by the coverage guard, as evaluate and the CLI refuse it (issue 36); allowed, it scores 0
    with pytest.raises(CoverageError, match="ranks none of the 2 judged users"):
        evaluate_frame(pd.DataFrame(GOOD_TRUTH), pd.DataFrame(_with(GOOD_PREDICTIONS, user=[5, 5, 6])), "ndcg@5")
    with pytest.warns(RankproofWarning, match="the run ranks 0 of the 2 judged queries"):
        results = evaluate_frame(pd.DataFrame(GOOD_TRUTH), pd.DataFrame(_with(GOOD_PREDICTIONS, user=[5, 5, 6])),
                                 "ndcg@5", allow_partial=True)
    assert results.per_query("ndcg@5") == {1: 0.0, 2: 0.0}
    assert results.counts["queries_missing_from_run"] == 2


def test_bad_parquet_input_names_the_file_and_the_row(tmp_path):
    path = tmp_path / "truth.parquet"
    pq.write_table(pa.table(_with(GOOD_TRUTH, rating=[1.0, 2.5, 1.0])), path)
    with pytest.raises(ParseError, match=r"truth.parquet row 2: user 1, item 11: grade 2.5 is not an integer"):
        evaluate_frame(path, pd.DataFrame(GOOD_PREDICTIONS), "ndcg@5")


def test_readme_long_log_example_runs_as_shown():
    import doctest

    text = README.read_text()
    section = text.split("### Long logs", 1)[1].split("\n## ", 1)[0]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    test = doctest.DocTestParser().get_doctest(block, {}, "README long logs", "README.md", 0)
    assert test.examples, "the README's long-log example has no >>> lines"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def test_bad_measures_and_policies_fail_before_reading(tmp_path):
    missing = tmp_path / "absent.parquet"   # never opened: the measure is refused first
    with pytest.raises(MeasureError, match=r"unknown measure 'ndgc' \(did you mean ndcg"):
        evaluate_frame(missing, missing, ["ndgc@10"])
    with pytest.raises(ProtocolError, match=r"policy ties does not accept 'random'"):
        evaluate_frame(missing, missing, ["ndcg@10"], "ties=random")


def test_items_absent_from_the_truth_are_stated_non_relevant_not_warned_about():
    # In a log, the truth lists every relevant item: an item recommended but
    # absent from it is non-relevant by definition, so the "unjudged is not
    # non-relevant" warning of TREC evaluation would mislead. The summary says
    # what the convention is instead; evaluate() on the same data still warns.
    import pandas as pd

    from rankproof import evaluate
    from rankproof.report.table import warning_lines

    truth = pd.DataFrame({"user": [1, 1, 2], "item": [10, 13, 20], "rating": [5, 3, 4]})
    predictions = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 11, 21, 20], "score": [0.9, 0.8, 0.6, 0.5]})
    results = evaluate_frame(truth, predictions, ["ndcg@2"])
    assert results.counts["unjudged_in_cutoff"] == {"ndcg@2": 2}
    assert warning_lines(results) == []
    summary = results.summary()
    assert "warning" not in summary and "absent from a user's truth is non-relevant" in summary
    plain = evaluate(Qrels.from_dict({"1": {"10": 5, "13": 3}, "2": {"20": 4}}),
                     Run.from_dict({"1": {"10": 0.9, "11": 0.8}, "2": {"21": 0.6, "20": 0.5}}), ["ndcg@2"])
    assert plain.mean("ndcg@2") == results.mean("ndcg@2")
    assert warning_lines(plain) and "warning" in plain.summary()
    assert results.by({"1": "a", "2": "b"}).get("a", "ndcg@2").count == 1


# -- ids keep their dtype (issue 14, point 6) -------------------------------------------
def test_integer_user_ids_come_back_as_integers_in_numeric_order_and_merge():
    # Text order would be 1, 10, 2; a users table keyed by int would not merge.
    truth = pd.DataFrame({"user": [10, 2, 1], "item": [5, 5, 5]})
    predictions = pd.DataFrame({"user": [10, 2, 1], "item": [5, 6, 5], "score": [1.0, 1.0, 1.0]})
    results = evaluate_frame(truth, predictions, ["hit@1"], rating=None)
    assert results.queries == [1, 2, 10]
    assert all(type(q) is int for q in results.queries)
    assert results.per_query("hit@1") == {1: 1.0, 2: 0.0, 10: 1.0}
    assert results.values("hit@1").tolist() == [1.0, 0.0, 1.0]
    frame = results.to_pandas()
    assert frame["query"].dtype.kind == "i" and frame["query"].tolist() == [1, 2, 10]
    users = pd.DataFrame({"user": [1, 2, 10], "country": ["fr", "de", "it"]})
    merged = users.merge(frame, left_on="user", right_on="query")
    assert dict(zip(merged["country"], merged["hit@1"])) == {"fr": 1.0, "de": 0.0, "it": 1.0}
    # The segment labels still find integer users.
    assert results.by({1: "a", 2: "a", 10: "b"}, n_resamples=10).get("b", "hit@1").mean == 1.0


def test_text_user_ids_stay_text_in_text_order():
    truth = pd.DataFrame({"user": ["u10", "u2"], "item": [5, 5]})
    predictions = pd.DataFrame({"user": ["u10", "u2"], "item": [5, 6], "score": [1.0, 1.0]})
    results = evaluate_frame(truth, predictions, ["hit@1"], rating=None)
    assert results.queries == ["u10", "u2"]
    assert results.to_pandas()["query"].tolist() == ["u10", "u2"]


# -- ratings and rel (issue 14, point 15) -------------------------------------------------
def test_summary_says_when_rel_counts_every_rating_as_relevant():
    truth = pd.DataFrame({"user": [1, 1, 2, 3], "item": [10, 13, 20, 30], "rating": [5, 3, 4, 1]})
    predictions = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3], "item": [10, 11, 13, 21, 20, 31],
                                "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]})
    results = evaluate_frame(truth, predictions, ["ndcg@3", "r@1", "rr@3"])
    expected = ("rel=1: every judged grade (1 to 5 here, none 0) counts as relevant for r@1, rr@3, so a rating "
                "of 1 is a hit; if low ratings are dislikes, set e.g. Protocol(rel=4) or r(rel=4)@1")
    assert expected in results.notes
    assert f"note {expected}" in results.summary().splitlines()
    # Not said when it does not apply: a measure of gains only, rel above the lowest
    # rating, plain interactions (all grade 1), or judgments with explicit zeros (TREC).
    assert not any(n.startswith("rel=") for n in evaluate_frame(truth, predictions, "ndcg@3").notes)
    assert not any(n.startswith("rel=") for n in evaluate_frame(truth, predictions, "r@1", "rel=4").notes)
    assert not any(n.startswith("rel=") for n in evaluate_frame(truth, predictions, "r@1", rating=None).notes)
    zeros = truth.assign(rating=[5, 0, 4, 1])
    assert not any(n.startswith("rel=") for n in evaluate_frame(zeros, predictions, "r@1").notes)


# -- ids holding the words "doc" and "query" are reported intact (issue 22) ---------------
# Errors are worded for a log by field (errors.USERS_AND_ITEMS), never by
# rewriting their text: before, "item doc A" became "item item A" and
# "user query 7" became "user user 7".

def _raised(truth: dict, predictions: dict, **options) -> str:
    with pytest.raises(InputError) as caught:
        evaluate_frame(pd.DataFrame(truth), pd.DataFrame(predictions), ["ndcg@5"], **options)
    return str(caught.value)


def test_a_duplicate_prediction_names_ids_holding_doc_and_query_intact():
    truth = {"user": ["query 7"], "item": ["doc A"], "rating": [1]}
    predictions = {"user": ["query 7", "query 7"], "item": ["doc A", "doc A"], "score": [2.0, 1.0]}
    message = _raised(truth, predictions)
    assert "user query 7, item doc A: the item is listed twice for this user" in message
    assert "item item A" not in message and "user user 7" not in message


def test_a_duplicate_truth_row_names_ids_holding_doc_and_query_intact():
    truth = {"user": ["query 7", "query 7"], "item": ["doc A", "doc A"], "rating": [1, 2]}
    predictions = {"user": ["query 7"], "item": ["doc A"], "score": [1.0]}
    message = _raised(truth, predictions)
    assert message == ("truth: user query 7, item doc A: in the truth twice with different grades 1 and 2; "
                       "keep one row per (user, item)")


def test_a_bad_value_names_ids_holding_doc_and_query_intact():
    truth = {"user": ["query 7"], "item": ["doc A"], "rating": [1]}
    predictions = {"user": ["query 7", "query 7"], "item": ["doc B", "doc A"], "score": [1.0, float("nan")]}
    message = _raised(truth, predictions)
    assert message.startswith("predictions row 2: user query 7, item doc A: no score (the value is null or NaN)")
    assert "item item A" not in message and "user user 7" not in message


def test_ids_with_braces_are_not_read_as_words():
    truth = {"user": ["{query}"], "item": ["{doc}"], "rating": [1]}
    predictions = {"user": ["{query}", "{query}"], "item": ["{doc}", "{doc}"], "score": [2.0, 1.0]}
    assert "user {query}, item {doc}: the item is listed twice" in _raised(truth, predictions)
    named = {"user": ["u"], "item": ["i"], "{rating}": [1]}
    assert "no column 'rating' (named by rating=)" in _raised(named, predictions)


def test_reader_errors_carry_fields_worded_for_a_log():
    truth = {"user": ["u1"], "item": ["i1"], "rating": [1.5]}
    with pytest.raises(ParseError) as caught:
        evaluate_frame(pd.DataFrame(truth), pd.DataFrame(GOOD_PREDICTIONS), ["ndcg@5"])
    error = caught.value
    assert (error.source, error.row, error.line, error.query, error.doc) == ("truth", 1, None, "u1", "i1")
    assert error.value == 1.5
    assert str(error).startswith("truth row 1: user u1, item i1: grade 1.5 is not an integer")
    # The same error in the words of TREC files.
    assert error.render().startswith("truth row 1: query u1, doc i1: grade 1.5 is not an integer")


def test_plural_words_of_a_vocabulary():
    from rankproof.errors import QUERIES_AND_DOCS, USERS_AND_ITEMS, render

    assert render(what="no {queries}, {docs} or {grades}") == "no queries, docs or grades"
    assert render(what="no {queries}, {docs} or {grades}", vocabulary=USERS_AND_ITEMS) == "no users, items or ratings"
    assert render(what="give {a_query} and {a_doc} id", vocabulary=QUERIES_AND_DOCS) == "give a query and a doc id"
    assert render(what="give {a_query} and {a_doc} id", vocabulary=USERS_AND_ITEMS) == "give a user and an item id"
