"""Errors of the pipeline, stats and report carry fields, so each front door words them its own way."""

import pytest

from rankproof import Protocol, Qrels, Run
from rankproof.errors import USERS_AND_ITEMS, InputError, MissingQueryError, TieError
from rankproof.pipeline.alignment import align
from rankproof.pipeline.cuts import top_rows


def test_a_tie_refusal_names_where_by_field():
    qrels = Qrels.from_dict({"q1": {"a": 1}})
    run = Run.from_dict({"q1": {"a": 1.0, "b": 1.0, "c": 0.5}})
    with pytest.raises(TieError) as caught:
        align(qrels, run, Protocol(ties="error"))
    error = caught.value
    assert (error.query, error.value) == ("q1", 1.0)
    assert str(error).endswith("query q1: docs a, b tie at score 1.0 (1 tied groups in all); set the policy "
                               "ties=expected for the exact mean over their orders, or ties=docid for trec_eval's order")
    assert "user q1: items a, b tie at score 1.0" in error.render(USERS_AND_ITEMS)


def test_a_tie_across_the_top_k_names_where_by_field():
    run = Run.from_dict({"u": {"a": 3.0, "x": 1.0, "b": 1.0}})
    with pytest.raises(TieError) as caught:
        top_rows(run, 2, Protocol())
    assert caught.value.query == "u" and caught.value.value == 1.0
    assert "user u: items tie at score 1.0 across rank 2" in caught.value.render(USERS_AND_ITEMS)


def test_ids_with_braces_stay_as_they_are():
    # User text goes into a template through errors.literal: braces are not vocabulary words.
    qrels = Qrels.from_dict({"{q}": {"a": 1}})
    run = Run.from_dict({"{q}": ["a"], "{x}": ["a"]})
    with pytest.raises(MissingQueryError, match=r"ranks queries the qrels .* do not judge: \{x\}"):
        align(qrels, run, Protocol(extra_query="error"))
    with pytest.raises(InputError) as caught:
        align(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"{x}": ["a"]}), Protocol(missing_query="exclude"))
    assert caught.value.has_fields and "share no user" in caught.value.render(USERS_AND_ITEMS)


def test_stats_errors_carry_the_offending_value():
    from rankproof.stats.corrections import correct

    with pytest.raises(InputError) as caught:
        correct([0.1], "holmes")
    assert caught.value.value == "holmes"
    assert str(caught.value) == "unknown correction 'holmes'; did you mean holm? choose one of holm, bonferroni, bh, none"
