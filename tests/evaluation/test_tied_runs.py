"""A run whose scores are all equal (issue 28): a warning naming ties=input, and unjudged docs counted
inside a cutoff only up to the slots a tie crossing it has there."""

from __future__ import annotations

import warnings

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import RankproofWarning


def test_unjudged_docs_of_a_tie_crossing_the_cutoff_count_up_to_its_slots():
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    # q1: a, x, y, z all at 1.0: one tie over ranks 1-4 with 3 unjudged docs (x, y, z).
    #     Top 2: 2 slots, so at most 2 of them inside (the count was 3).
    # q2: b at 2.0 at rank 1, then u, v, w tied at 1.0 over ranks 2-4: 1 slot inside the top 2, so 1.
    run = Run.from_dict({"q1": {"a": 1.0, "x": 1.0, "y": 1.0, "z": 1.0}, "q2": {"b": 2.0, "u": 1.0, "v": 1.0, "w": 1.0}})
    results = evaluate(qrels, run, ["p@2", "p@5", "ap"])
    assert results.counts["unjudged_in_cutoff"] == {"p@2": 2 + 1, "p@5": 3 + 3, "ap": 6}
    # Broken by doc id descending (trec_eval), each doc is its own group: q1 ranks z, y, x, a (2 unjudged
    # in the top 2), q2 ranks b, w, v, u (1).
    docid = evaluate(qrels, run, ["p@2"], Protocol(ties="docid"))
    assert docid.counts["unjudged_in_cutoff"] == {"p@2": 2 + 1}


def _tied_run(queries: int) -> tuple[Qrels, Run]:
    qrels = Qrels.from_dict({f"q{i}": {"a": 1} for i in range(queries)})
    return qrels, Run.from_dict({f"q{i}": {"x": 0.5, "a": 0.5, "y": 0.5} for i in range(queries)})


def test_a_run_of_equal_scores_is_warned_about_naming_ties_input():
    qrels, run = _tied_run(12)
    with pytest.warns(RankproofWarning, match="every ranking is one tie") as caught:
        results = evaluate(qrels, run, "rr")
    assert "ties=input" in str(caught[0].message)
    assert results.warnings == (str(caught[0].message),)
    # Listed order (a second): rr 1/2 per query under ties=input, as the warning says it would be.
    assert evaluate(qrels, run, "rr", Protocol(ties="input")).mean("rr") == 0.5


def test_a_few_ties_on_purpose_or_ties_input_raise_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankproofWarning)
        qrels, run = _tied_run(3)
        assert evaluate(qrels, run, "rr").warnings == ()
        qrels, run = _tied_run(12)
        assert evaluate(qrels, run, "rr", Protocol(ties="input")).warnings == ()
