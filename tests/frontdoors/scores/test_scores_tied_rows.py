"""Score matrices: rows whose scores are all tied are named, with the policy that orders them (issue 28)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rankproof.errors import RankproofWarning
from rankproof.frontdoors.scores import evaluate_scores
from rankproof.sklearn import ndcg_scorer


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught if issubclass(w.category, RankproofWarning)]


def test_all_tied_rows_under_ties_input_are_counted_and_the_policy_named():
    # Row 0 is one tie of three, row 2 one tie of the two candidates it has (NaN: not a candidate).
    y_true = [[0, 1, 0], [1, 0, 0], [1, 0, 0]]
    y_score = [[1, 1, 1], [3, 2, 1], [2, 2, np.nan]]
    results, lines = _caught(lambda: evaluate_scores(y_true, y_score, "ndcg@3", "lightgbm"))
    assert len(lines) == 1 and lines[0].startswith("2 of 3 rows have all their scores equal")
    assert "column order" in lines[0] and "(ties=input)" in lines[0]
    assert results.warnings == tuple(lines)
    # Row 0 in column order puts its relevant candidate second: 1/log2(3).
    assert results.per_query("ndcg@3")[0] == pytest.approx(1 / np.log2(3), abs=1e-12)


@pytest.mark.parametrize("protocol, policy", [("ties=expected", "(ties=expected)"), ("ties=docid", "(ties=docid)")])
def test_every_ordering_policy_is_named(protocol, policy):
    _, lines = _caught(lambda: evaluate_scores([[1, 0]], [[0.5, 0.5]], "ndcg@2", protocol))
    assert len(lines) == 1 and lines[0].startswith("1 of 1 row has all") and policy in lines[0]


def test_ragged_rows():
    # Rows [1, 1, 1] (tied), [2, 2] (tied), [5] (one candidate: no tie), [3, 4].
    _, lines = _caught(lambda: evaluate_scores([0, 1, 0, 1, 0, 1, 1, 0], [1, 1, 1, 2, 2, 5, 3, 4], "ndcg@3",
                                               offsets=[0, 3, 5, 6, 8]))
    assert len(lines) == 1 and lines[0].startswith("2 of 4 rows have all")


def test_no_warning_without_an_all_tied_row():
    # A tie inside a row is not a row without order.
    _, lines = _caught(lambda: evaluate_scores([[1, 0, 0]], [[2, 2, 1]], "ndcg@3", "ties=input"))
    assert lines == []


def test_the_sklearn_scorer_warns_too():
    class Constant:
        def predict(self, X):
            return np.ones(len(X))

    scorer = ndcg_scorer(3, "ties=input", qid=0)   # column 0 of X holds the query
    X, y = np.array([[0, 7], [0, 7], [0, 7], [1, 7], [1, 7]]), np.array([0, 1, 0, 1, 0])
    _, lines = _caught(lambda: scorer(Constant(), X, y))
    assert len(lines) == 1 and lines[0].startswith("2 of 2 rows have all") and "(ties=input)" in lines[0]


@pytest.mark.parametrize("seed", range(4))
def test_tied_rows_counted_from_the_first_two_columns_equal_a_count_over_whole_rows(seed):
    # The count reads whole only the rows whose first two candidates may tie (issue 35); a brute force
    # over every row says the same, with NaN (no candidate) in the first columns too.
    from rankproof.frontdoors.scores._input import read_scores
    from rankproof.frontdoors.scores._tied import tied_rows
    from rankproof.protocol import Protocol

    rng = np.random.default_rng(seed)
    score = rng.integers(0, 2, (300, 4)).astype(float)
    score[rng.random(score.shape) < 0.2] = np.nan
    score[:40] = 1.0
    score[40:50, 0] = np.nan
    score[50:55] = np.nan
    scores = read_scores(np.zeros(score.shape, dtype=np.int64), score, None, None, Protocol())
    expected = sum(1 for row in score if (~np.isnan(row)).sum() >= 2 and len(set(row[~np.isnan(row)])) == 1)
    assert tied_rows(scores) == expected
