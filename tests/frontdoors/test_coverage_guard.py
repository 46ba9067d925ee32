"""One coverage guard in every front door (issue 36): the same refusal and the same warning text.

Before, evaluate_frame returned ndcg@10 0.0 with no warning when no user id
matched, and 0.0458 when the predictions covered 100 of 1,237 users, where
``rankproof evaluate`` refused the same data and ``evaluate`` raised
CoverageError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from rankproof import Qrels, Run, evaluate, evaluate_frame, evaluate_rag, evaluate_scores
from rankproof.errors import CoverageError, RankproofWarning
from rankproof.results import coverage_warning, guard_coverage

USERS = 1237
TRUTH = pd.DataFrame({"user": np.arange(USERS), "item": np.arange(USERS) % 7})
SOME = pd.DataFrame({"user": np.arange(100), "item": np.arange(100) % 7, "score": np.ones(100)})


def _refusal(call) -> str:
    with pytest.raises(CoverageError) as caught:
        call()
    return str(caught.value)


def test_evaluate_frame_refuses_as_evaluate_does():
    frame = _refusal(lambda: evaluate_frame(TRUTH, SOME, "ndcg@10", rating=None))
    qrels = Qrels.from_dict({str(u): {str(i): 1} for u, i in zip(TRUTH.user, TRUTH.item)})
    run = Run.from_dict({str(u): {str(i): 1.0} for u, i in zip(SOME.user, SOME.item)}, source="predictions")
    core = _refusal(lambda: evaluate(qrels, run, "ndcg@10"))
    # the same text, in the words of each front door (users against queries), from one place
    assert "ranks 100 of the 1237 judged users (8.1%)" in frame
    assert core.replace("queries", "users").split(": ", 1)[1] == frame.split(": ", 1)[1]


def test_evaluate_frame_refuses_when_no_user_matches():
    shifted = SOME.assign(user=SOME.user + 10_000)
    assert "ranks none of the 1237 judged users" in _refusal(
        lambda: evaluate_frame(TRUTH, shifted, "ndcg@10", rating=None))


def test_allow_partial_evaluates_and_warns_with_the_one_text():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluate_frame(TRUTH, SOME, "ndcg@10", rating=None, allow_partial=True)
    said = [str(w.message) for w in caught if issubclass(w.category, RankproofWarning)]
    assert said == [coverage_warning(results)]
    assert said[0].startswith("the run ranks 100 of the 1237 judged queries (8.1%)")
    assert results.mean("ndcg@10") == pytest.approx(100 / USERS)   # the 100 users rank their item first
    assert f"warning: {said[0]}" in results.summary()


def test_min_coverage_is_a_parameter_of_every_front_door():
    assert evaluate_frame(TRUTH, SOME, "hit@10", rating=None, min_coverage=0.05).mean("hit@10") == \
        pytest.approx(100 / USERS)
    rows = [{"query_id": f"q{i}", "retrieved": ["d"] if i < 1 else [], "relevant": ["d"]} for i in range(3)]
    # an empty list is an answer: the rows are all ranked, the guard passes
    assert evaluate_rag(rows, ["hit"]).mean("hit") == pytest.approx(1 / 3)


def test_scores_always_pass_and_the_guard_refuses_bad_shares():
    assert evaluate_scores([[1, 0]], [[0.2, 0.1]], "ndcg").mean("ndcg") == 1.0
    results = evaluate(Qrels.from_dict({"a": {"x": 1}}), Run.from_dict({"a": ["x"]}), "rr")
    with pytest.raises(Exception, match="min_coverage"):
        guard_coverage(results, min_coverage=2)


def test_a_covered_run_passes_without_reading_the_counts(monkeypatch):
    # A score matrix counts its ties on first use (a sort of the whole matrix, as long as the
    # evaluation itself at 100k x 50): the guard must not ask for the counts when the coverage passes.
    from rankproof.frontdoors.scores import DenseAlignment

    def refuse(self):
        raise AssertionError("the counts were read")

    class Covered:
        query_coverage = 1.0
        counts = property(refuse)

    guard_coverage(Covered())
    y_true, y_score = [[1, 0, 2], [0, 1, 1]], [[0.2, 0.1, 0.3], [0.5, 0.5, 0.1]]
    expected = evaluate_scores(y_true, y_score, "ndcg@2")
    assert expected.counts["tied_groups"] == 1   # counted when asked
    monkeypatch.setattr(DenseAlignment, "counts", property(refuse))
    assert evaluate_scores(y_true, y_score, "ndcg@2").mean("ndcg@2") == expected.mean("ndcg@2")
