"""Errors of measures, protocols, results and the front doors are raised with
fields (what, where, fix), so each front door words them in its own
vocabulary, and text the user typed comes back as typed, braces included."""

from __future__ import annotations

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import (QUERIES_AND_DOCS, USERS_AND_ITEMS, CoverageError, InputError, MeasureError,
                              ProtocolError, RankproofError)
from rankproof.measures import parse_measure
from rankproof.protocol.policies import literal
from rankproof.recsys.beyond import ild


def test_literal_doubles_braces_and_format_gives_them_back():
    assert literal("a{b}c") == "a{{b}}c"
    assert literal("a{b}c").format() == "a{b}c"


@pytest.mark.parametrize("text, shown", [("nd{cg", "'nd{cg'"), ("ndcg}@10", "'ndcg}@10'"),
                                         ("{query}", "'{query}'"), ("p(rel={0})@5", "got '{0}'")])
def test_measure_text_with_braces_is_shown_as_typed(text, shown):
    with pytest.raises(MeasureError) as caught:
        parse_measure(text)
    assert caught.value.has_fields
    assert shown in str(caught.value)


@pytest.mark.parametrize("text, shown", [("ties={x}", "'{x}'"), ("{gain}=linear", "'{gain}'"),
                                         ("gain=map:{1}", "'map:{1}'")])
def test_protocol_text_with_braces_is_shown_as_typed(text, shown):
    with pytest.raises(ProtocolError) as caught:
        Protocol.from_text(text)
    assert caught.value.has_fields and shown in str(caught.value)


def test_measure_errors_split_what_from_fix():
    with pytest.raises(MeasureError) as caught:
        parse_measure("ndcg(gain)@10")
    error = caught.value
    assert error.what == "cannot read parameter 'gain' of 'ndcg(gain)@10'"
    assert error.fix == "write key=value"
    assert str(error) == "cannot read parameter 'gain' of 'ndcg(gain)@10'; write key=value"


def test_coverage_error_is_worded_per_vocabulary():
    qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}})
    with pytest.raises(CoverageError) as caught:
        evaluate(qrels, Run.from_dict({"q1": ["a"]}), "ndcg@10")
    error = caught.value
    assert "check that the query ids match" in error.render(QUERIES_AND_DOCS)
    assert "check that the user ids match" in error.render(USERS_AND_ITEMS)
    assert error.source == "run against qrels" and error.value == 0.0


def test_recsys_errors_name_users_and_items_as_fields():
    run = Run.from_dict({"u": ["a", "b"]})
    with pytest.raises(InputError) as caught:
        ild(run, 2, features={"a": [1.0, 0.0]})
    error = caught.value
    assert (error.query, error.doc) == ("u", "b")
    assert "user u, item b: has no feature vector (1 recommended items lack one)" in str(error)
    # The same fields in a TREC file's words.
    assert "query u, doc b: has no feature vector (1 recommended docs lack one)" in error.render(QUERIES_AND_DOCS)


def test_tie_refusal_names_its_query_as_a_field():
    qrels = Qrels.from_dict({"u": {"a": 1, "b": 1}})
    run = Run.from_dict({"u": {"a": 1.0, "b": 1.0, "c": 1.0}})
    with pytest.raises(RankproofError) as caught:
        evaluate(qrels, run, "ap(ap_denominator=hits)@2", protocol="ties=expected", engine="numpy")
    error = caught.value
    assert error.query == "u"
    assert error.render(USERS_AND_ITEMS).startswith("user u: ap(ap_denominator=hits)@2 divides by the relevant items")


def test_trec_eval_drop_in_names_the_file_given_not_its_temporary_copy():
    from rankproof.errors import DuplicateError
    from rankproof.trec.command import _relabelled, _without_policy_hint

    error = DuplicateError(what="the {doc} is listed twice for this {query}", source="/tmp/rankproof-trec-x.run",
                           line=3, query="7", doc="d3", fix="set the policy duplicates=first to keep the first")
    shown = _without_policy_hint(_relabelled(error, {"/tmp/rankproof-trec-x.run": "stdin"}))
    assert type(shown) is DuplicateError and (shown.source, shown.line, shown.query, shown.doc) == ("stdin", 3, "7", "d3")
    assert str(shown) == ("stdin line 3: query 7, doc d3: the doc is listed twice for this query; fix the input "
                          "(trec_eval 10 refuses it too), or evaluate with rankproof evaluate --policy "
                          "duplicates=first")
