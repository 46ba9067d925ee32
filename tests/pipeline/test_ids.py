"""The ids policy (issue 28): query and doc ids of both sides normalised before they are matched."""

from __future__ import annotations

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import InputError, ProtocolError
from rankproof.protocol import IdPolicy


def test_steps_apply_in_one_order_whatever_the_order_written():
    assert str(Protocol(ids="strip_zeros,strip").ids) == "strip,strip_zeros"
    assert Protocol(ids="casefold,strip") == Protocol(ids="strip,casefold")
    policy = IdPolicy(("strip", "casefold", "strip_zeros"))
    # ' 007 ' -> '007' -> '007' -> '7'; zeros of an id that is not all digits stay.
    assert policy.apply([" 007 ", "D01", "0", "000", "10", "100", "0x1"]) == ["7", "d01", "0", "0", "10", "100", "0x1"]


def test_the_default_leaves_the_protocol_text_and_fingerprint_as_they_were():
    assert "ids" not in str(Protocol())
    assert Protocol().fingerprint == "1c0253228810"  # the fingerprint printed before the policy existed
    changed = Protocol(ids="strip,casefold")
    assert str(changed).endswith(" ids=strip,casefold") and Protocol.from_text(str(changed)) == changed
    assert changed.fingerprint != Protocol().fingerprint


def test_unknown_steps_are_refused_listing_them():
    with pytest.raises(ProtocolError, match="strip, casefold, strip_zeros"):
        Protocol(ids="lower")
    with pytest.raises(ProtocolError):
        Protocol(ids="strip,,casefold")


def test_both_sides_are_normalised_and_counted():
    # qrels: query ' Q1' judges D01 (2) and d2 (1); run: query 'q1' ranks d01, D2.
    qrels = Qrels.from_dict({" Q1": {"D01": 2, "d2": 1}})
    run = Run.from_dict({"q1": ["d01", "D2"]})
    results = evaluate(qrels, run, "ndcg@2", Protocol(ids="strip,casefold"), allow_partial=True)
    # Matched: the ideal order exactly, so 1.
    assert results.mean("ndcg@2") == 1.0
    # Changed: ' Q1' and 'D01' in the qrels, 'D2' in the run (q1, d01, d2 were already so).
    assert results.counts["ids_normalised"] == 3


def test_two_ids_made_one_are_refused_naming_both():
    qrels = Qrels.from_dict({"1": {"a": 1}, "01": {"b": 1}})
    with pytest.raises(InputError, match="'01' and '1' one"):
        evaluate(qrels, Run.from_dict({"1": ["a"]}), "ndcg@2", Protocol(ids="strip_zeros"))


def test_spark_refuses_the_ids_policy_before_starting():
    # Spark spreads queries by their ids as written, so '001' and '1' would never meet: refused
    # before any session or file is touched.
    pytest.importorskip("pyspark")
    from rankproof.spark import evaluate as spark_evaluate

    with pytest.raises(InputError, match="ids=strip_zeros is not applied on Spark"):
        spark_evaluate("missing-qrels.parquet", "missing-run.parquet", "ndcg@10", "ids=strip_zeros")
