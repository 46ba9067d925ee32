"""Protocol: defaults, canonical text, fingerprint, replace, presets, immutability."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof import PRESETS, Protocol
from rankproof.errors import ProtocolError, RankproofError
from rankproof.protocol import (
    Aggregation, Discount, DiscountVector, Duplicates, ExtraQuery, Gain, GainMap, Grades, Ideal,
    IprecRounding, MissingQuery, NegativeGrades, ScorePrecision, Ties, Unjudged, ZeroIdeal,
)

# The canonical text of Protocol(), written out from the documented policy table
# (policies in table order, each at its default).
DEFAULT_TEXT = (
    "gain=linear discount=log2 ideal=judged unjudged=zero zero_ideal=zero "
    "missing_query=zero extra_query=ignore ties=expected duplicates=error "
    "negative_grades=error aggregation=macro rel=1 score_precision=float64 iprec_rounding=round"
)
# First 12 hex digits of sha256(DEFAULT_TEXT), computed once with
# hashlib.sha256(DEFAULT_TEXT.encode("utf-8")).hexdigest()[:12]; hard-coded so
# that any change to the canonical text or the hashing rule shows up here.
DEFAULT_FINGERPRINT = "1c0253228810"

# Every option of every policy, including explicit gain maps and discount vectors.
GAINS = ["linear", "exp2", {0: 0, 1: 1.5, 2: 3}, {0: 0, 1: 1, 2: 3, 3: 7}, {-1: -0.5, 2: 2.25}]
DISCOUNTS = ["log2", "reciprocal", [1.0, 0.5, 0.25], [1, 0.6309, 0.5, 0.4307], [0.1], [2.5, 0.0]]
OPTIONS = {
    "gain": GAINS,
    "discount": DISCOUNTS,
    "ideal": [o.value for o in Ideal],
    "unjudged": [o.value for o in Unjudged],
    "zero_ideal": [o.value for o in ZeroIdeal],
    "missing_query": [o.value for o in MissingQuery],
    "extra_query": [o.value for o in ExtraQuery],
    "ties": [o.value for o in Ties],
    "duplicates": [o.value for o in Duplicates],
    "negative_grades": [o.value for o in NegativeGrades],
    "aggregation": [o.value for o in Aggregation],
    "rel": [0, 1, 2, 3],
    "score_precision": [o.value for o in ScorePrecision],
    "iprec_rounding": [o.value for o in IprecRounding],
    "precision_denominator": ["k", "retrieved"],
    "recall_denominator": ["relevant", "min_k"],
    "ap_denominator": ["relevant", "min_k", "hits"],
    "chunk_map": ["none", "sep:#"],
    "chunks": ["first", "max"],
    "grades": ["integer", "real"],
    "ids": ["none", "strip_zeros", "casefold", "strip,casefold"],
    "identical_ids": ["keep", "drop"],
    "subqueries": ["none", "max"],
    "nuggets": ["none", "partial_support:0.5"],
    "judgments": ["none", "layers:A>B"],
}

protocols = st.builds(Protocol, **{name: st.sampled_from(values) for name, values in OPTIONS.items()})

finite = st.floats(allow_nan=False, allow_infinity=False)
# Gains are bounded by LARGEST_GAIN (1e300) so that DCG sums stay finite (issue 13).
gain_values = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
gain_maps = st.dictionaries(st.integers(-5, 10), gain_values, min_size=1, max_size=5)
discount_vectors = st.lists(st.floats(min_value=0, allow_nan=False, allow_infinity=False),
                            min_size=1, max_size=6)


def test_policy_options_match_the_documented_table():
    assert [o.value for o in Gain] == ["linear", "exp2"]
    assert [o.value for o in Discount] == ["log2", "reciprocal"]
    assert OPTIONS["ideal"] == ["judged", "retrieved", "expanded"]
    assert OPTIONS["unjudged"] == ["zero", "error", "condense"]
    assert OPTIONS["zero_ideal"] == ["zero", "one", "exclude", "error", "drop"]
    assert OPTIONS["missing_query"] == ["zero", "exclude", "error"]
    assert OPTIONS["extra_query"] == ["ignore", "error"]
    assert OPTIONS["ties"] == ["expected", "docid", "input", "error"]
    assert OPTIONS["duplicates"] == ["error", "first", "count", "once"]
    assert OPTIONS["identical_ids"] == ["keep", "drop"]
    assert OPTIONS["subqueries"] == ["none", "max"]
    assert OPTIONS["nuggets"] == ["none", "partial_support:0.5"]
    assert OPTIONS["negative_grades"] == ["error", "zero", "unjudged"]
    assert OPTIONS["aggregation"] == ["macro", "micro", "weighted"]
    assert OPTIONS["score_precision"] == ["float64", "float32", "bfloat16", "float16"]
    assert OPTIONS["iprec_rounding"] == ["round", "legacy"]
    assert OPTIONS["grades"] == [o.value for o in Grades]
    assert set(OPTIONS) == set(Protocol.policy_names())


def test_defaults_are_the_documented_ones():
    p = Protocol()
    assert p.gain is Gain.LINEAR
    assert p.discount is Discount.LOG2
    assert p.ideal is Ideal.JUDGED
    assert p.unjudged is Unjudged.ZERO
    assert p.zero_ideal is ZeroIdeal.ZERO
    assert p.missing_query is MissingQuery.ZERO
    assert p.extra_query is ExtraQuery.IGNORE
    assert p.ties is Ties.EXPECTED
    assert p.duplicates is Duplicates.ERROR
    assert p.negative_grades is NegativeGrades.ERROR
    assert p.aggregation is Aggregation.MACRO
    assert p.rel == 1


def test_canonical_text_of_the_default_protocol():
    assert str(Protocol()) == DEFAULT_TEXT


def test_strings_and_enums_give_equal_protocols():
    assert Protocol(gain="exp2", ties="docid") == Protocol(gain=Gain.EXP2, ties=Ties.DOCID)
    assert Protocol(ties="  DocID ") == Protocol(ties="docid")


def test_gain_map_and_discount_vector_text_forms():
    p = Protocol(gain={2: 3, 0: 0, 1: 1.5}, discount=[1, 0.5, 0.25])
    assert p.gain == GainMap(((0, 0.0), (1, 1.5), (2, 3.0)))
    assert p.discount == DiscountVector((1.0, 0.5, 0.25))
    assert "gain=map:0=0/1=1.5/2=3" in str(p)
    assert "discount=vector:1/0.5/0.25" in str(p)


# -- text round trip ---------------------------------------------------------
@given(protocols)
@settings(max_examples=300)
def test_text_round_trips_for_every_policy_option(protocol):
    assert Protocol.from_text(str(protocol)) == protocol
    assert str(Protocol.from_text(str(protocol))) == str(protocol)


@given(gain_maps, discount_vectors)
def test_text_round_trips_for_arbitrary_gain_maps_and_discount_vectors(gains, discounts):
    protocol = Protocol(gain=gains, discount=discounts)
    parsed = Protocol.from_text(str(protocol))
    assert parsed == protocol
    assert parsed.fingerprint == protocol.fingerprint


def test_from_text_fills_missing_policies_with_defaults():
    assert Protocol.from_text("") == Protocol()
    assert Protocol.from_text("ties=docid rel=2") == Protocol(ties="docid", rel=2)


def test_from_text_refuses_a_policy_given_twice():
    with pytest.raises(ProtocolError, match="ties"):
        Protocol.from_text("ties=docid ties=input")


def test_from_text_refuses_an_item_without_equals():
    with pytest.raises(ProtocolError, match="key=value"):
        Protocol.from_text("ties")


# -- fingerprint -------------------------------------------------------------
def test_fingerprint_of_the_default_protocol_is_sha256_of_its_text():
    by_rule = hashlib.sha256(DEFAULT_TEXT.encode("utf-8")).hexdigest()[:12]
    assert by_rule == DEFAULT_FINGERPRINT
    assert Protocol().fingerprint == DEFAULT_FINGERPRINT


@given(protocols)
def test_fingerprint_follows_the_documented_rule(protocol):
    assert protocol.fingerprint == hashlib.sha256(str(protocol).encode("utf-8")).hexdigest()[:12]


def test_fingerprint_is_stable_across_equal_protocols():
    assert Protocol(ties="docid").fingerprint == Protocol.from_text("ties=docid").fingerprint
    assert Protocol(ties="docid").fingerprint == Protocol().replace(ties=Ties.DOCID).fingerprint


def test_every_single_policy_change_gives_a_new_fingerprint():
    variants = [Protocol()]
    for name, values in OPTIONS.items():
        for value in values:
            candidate = Protocol(**{name: value})
            if candidate != Protocol():
                variants.append(candidate)
    fingerprints = [p.fingerprint for p in variants]
    assert len(set(fingerprints)) == len(variants)


@given(protocols, protocols)
def test_different_protocols_have_different_fingerprints(a, b):
    assert (a == b) == (a.fingerprint == b.fingerprint)


# -- replace -----------------------------------------------------------------
def test_replace_changes_only_the_named_policies():
    base = Protocol()
    changed = base.replace(ties="docid", rel=2)
    assert changed.ties is Ties.DOCID and changed.rel == 2
    assert base == Protocol()  # the original is untouched
    assert changed.differences(base) == {"ties": ("docid", "expected"), "rel": ("2", "1")}


def test_replace_refuses_an_unknown_policy_and_suggests_the_near_one():
    with pytest.raises(ProtocolError) as caught:
        Protocol().replace(tie="docid")
    message = str(caught.value)
    assert "'tie'" in message
    assert "did you mean ties" in message


def test_replace_validates_the_new_value():
    with pytest.raises(ProtocolError):
        Protocol().replace(ties="random")


# -- unknown values ----------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in OPTIONS if n not in ("gain", "discount", "rel")])
def test_unknown_value_is_refused_listing_every_option(name):
    with pytest.raises(ProtocolError) as caught:
        Protocol(**{name: "nonsense"})
    message = str(caught.value)
    assert name in message and "'nonsense'" in message
    for option in OPTIONS[name]:
        assert option in message


def test_unknown_gain_lists_the_named_gains_and_the_map_form():
    with pytest.raises(ProtocolError) as caught:
        Protocol(gain="exp3")
    message = str(caught.value)
    assert "linear" in message and "exp2" in message and "map:" in message


def test_unknown_value_in_text_is_refused_too():
    with pytest.raises(ProtocolError, match="choose one of"):
        Protocol.from_text("aggregation=median")


@pytest.mark.parametrize("rel", [True, 1.5, "high"])
def test_rel_must_be_an_integer(rel):
    with pytest.raises(ProtocolError):
        Protocol(rel=rel)


@pytest.mark.parametrize("discount", [[], [1, -0.5], [1, float("inf")]])
def test_bad_discount_vectors_are_refused(discount):
    with pytest.raises(ProtocolError):
        Protocol(discount=discount)


def test_non_finite_gain_map_value_is_refused():
    with pytest.raises(ProtocolError):
        Protocol(gain={1: float("nan")})


def test_protocol_errors_are_value_errors():
    with pytest.raises(ValueError):
        Protocol(ties="random")
    assert issubclass(ProtocolError, RankproofError)


# -- presets -----------------------------------------------------------------
def test_rankproof_preset_is_the_default_protocol():
    assert Protocol.preset("rankproof") == Protocol()
    assert PRESETS["rankproof"] == Protocol()


def test_trec_eval_preset_breaks_ties_by_doc_id():
    assert Protocol.preset("trec_eval").ties is Ties.DOCID


def test_unknown_preset_is_refused_with_a_suggestion():
    with pytest.raises(ProtocolError) as caught:
        Protocol.preset("trec-eval")
    assert "trec_eval" in str(caught.value)


# -- immutability and hashing ---------------------------------------------------
def test_protocol_is_frozen():
    p = Protocol()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.ties = Ties.DOCID
    assert p.ties is Ties.EXPECTED


@given(protocols)
def test_equal_protocols_hash_equal(protocol):
    twin = Protocol.from_text(str(protocol))
    assert twin == protocol
    assert hash(twin) == hash(protocol)
    assert {protocol: "x"}[twin] == "x"
