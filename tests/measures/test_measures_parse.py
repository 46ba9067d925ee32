"""Measures as values: canonical text, parsing, round trips and refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankproof.measures as measures
from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import MeasureError
from rankproof.measures import REGISTRY, Measure, ndcg, num_rel, p, parse_measure, parse_measures, rprec

# Values every parameter accepts, in Python and text forms.
PARAM_VALUES = {
    "gain": ["linear", "exp2", {0: 0, 1: 1.5, 2: 3}, "map:0=0/1=1/2=3/3=7"],
    "discount": ["log2", "reciprocal", [1.0, 0.5, 0.25], "vector:1/0.6309/0.5"],
    "ideal": ["judged", "retrieved"],
    "rel": [0, 1, 2, 3, "2", 1.5, "2.5"],
    "precision_denominator": ["k", "retrieved"],
    "recall_denominator": ["relevant", "min_k"],
    "ap_denominator": ["relevant", "min_k", "hits", "HITS"],
    "max_grade": [0, 2, 4, 2.5, "4"],  # err: its default (None, the highest judged grade) has no text
    "max_rel": [1, 3, 2.5, "4"],  # the C/W/L measures: the same
    "quantity": ["eu", "etu", "ec", "etc", "ed", "ETU"],
}
# Parameters that name files (the C/W/L costs): round trips with files in test_cwl.py.
FILE_PARAMS = {"costs", "elements"}


@st.composite
def any_measure(draw) -> Measure:
    name = draw(st.sampled_from(sorted(REGISTRY)))
    spec = REGISTRY[name]
    cutoff = draw(st.none() | st.integers(1, 1000)) if spec.cutoff else None
    drawable = [name for name in spec.params if name not in FILE_PARAMS]
    chosen = draw(st.lists(st.sampled_from(drawable), unique=True)) if drawable else []
    # Parameters of a measure's own (not protocol policies) are drawn around their default.
    defaults = dict(spec.defaults)
    params = tuple((key, draw(st.sampled_from(PARAM_VALUES.get(key) or [defaults[key]]))) for key in chosen)
    return Measure(name, cutoff, params)


# -- round trips -------------------------------------------------------------
@given(any_measure())
@settings(max_examples=400)
def test_text_round_trips(measure):
    parsed = parse_measure(str(measure))
    assert parsed == measure
    assert str(parsed) == str(measure)
    assert hash(parsed) == hash(measure)


@given(any_measure())
def test_measures_work_as_dict_keys(measure):
    table = {measure: "value"}
    assert table[parse_measure(str(measure))] == "value"


def test_every_registered_measure_is_a_module_attribute():
    for name, spec in REGISTRY.items():
        if not spec.defined_by_user:   # a measure defined later (rankproof.measures.define) is no attribute
            assert getattr(measures, name) == Measure(name)


# -- canonical text ------------------------------------------------------------
def test_text_omits_what_is_not_set():
    assert str(Measure("ndcg")) == "ndcg"
    assert str(ndcg @ 10) == "ndcg@10"
    assert str(ndcg(gain="exp2")) == "ndcg(gain=exp2)"
    assert str(p(rel=2) @ 5) == "p(rel=2)@5"


def test_text_lists_parameters_sorted_by_name():
    assert str(ndcg(ideal="retrieved", gain="exp2") @ 10) == "ndcg(gain=exp2,ideal=retrieved)@10"
    assert ndcg(ideal="retrieved", gain="exp2") == ndcg(gain="exp2", ideal="retrieved")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ndcg@10", Measure("ndcg", 10)),
        ("ndcg(gain=exp2)@10", Measure("ndcg", 10, (("gain", "exp2"),))),
        ("p(rel=2)@5", Measure("p", 5, (("rel", 2),))),
        ("ap", Measure("ap")),
        (" ndcg ( gain = exp2 , ideal = retrieved ) @ 10 ", ndcg(gain="exp2", ideal="retrieved") @ 10),
        ("ndcg(gain=map:0=0/1=1.5/2=3)@10", ndcg(gain={0: 0, 1: 1.5, 2: 3}) @ 10),
        ("dcg(discount=vector:1/0.5)@2", measures.dcg(discount=[1, 0.5]) @ 2),
    ],
)
def test_text_forms_parse_to_the_expected_measure(text, expected):
    assert parse_measure(text) == expected


def test_call_and_matmul_equal_the_parsed_text():
    measure = ndcg(gain="exp2") @ 10
    assert measure == parse_measure("ndcg(gain=exp2)@10")
    assert measure == parse_measure(str(measure))
    assert str(measure) == "ndcg(gain=exp2)@10"


def test_calling_a_measure_returns_a_new_one_and_keeps_the_cutoff():
    base = ndcg @ 10
    changed = base(gain="exp2")
    assert changed.cutoff == 10
    assert base == Measure("ndcg", 10)  # unchanged
    assert changed(gain="linear") == ndcg(gain="linear") @ 10


def test_parse_measure_passes_a_measure_through():
    measure = p(rel=2) @ 5
    assert parse_measure(measure) is measure


def test_parse_measures_accepts_a_single_text():
    assert parse_measures("ndcg@10") == [ndcg @ 10]


# -- unknown names -------------------------------------------------------------
def test_unknown_name_suggests_the_nearest_valid_name():
    with pytest.raises(MeasureError) as caught:
        parse_measure("ndgc@10")
    message = str(caught.value)
    assert "'ndgc'" in message
    assert "did you mean ndcg" in message


def test_unknown_name_mapp_suggests_ap():
    with pytest.raises(MeasureError) as caught:
        parse_measure("mapp")
    message = str(caught.value)
    # difflib: 'mapp' vs 'ap' has ratio 2 * 2 / (4 + 2) = 0.67, above the 0.5 cutoff.
    assert "did you mean ap" in message


def test_all_unknown_names_are_reported_in_one_error():
    with pytest.raises(MeasureError) as caught:
        parse_measures(["ndgc@10", "ap", "mapp", "precison@5"])
    message = str(caught.value)
    for name in ("'ndgc'", "'mapp'", "'precison'"):
        assert name in message
    assert "ndcg" in message


def test_evaluate_reports_every_unknown_name_at_once():
    qrels = Qrels.from_dict({"q1": {"A": 1}})
    run = Run.from_dict({"q1": ["A"]})
    with pytest.raises(MeasureError) as caught:
        evaluate(qrels, run, ["ndgc@10", "mapp"], Protocol())
    assert "'ndgc'" in str(caught.value) and "'mapp'" in str(caught.value)


def test_no_measure_at_all_is_refused():
    with pytest.raises(MeasureError):
        parse_measures([])


# -- parameters ------------------------------------------------------------------
def test_unknown_parameter_is_refused_naming_the_accepted_ones():
    with pytest.raises(MeasureError) as caught:
        parse_measure("ap(gain=exp2)")
    message = str(caught.value)
    assert "'gain'" in message and "rel" in message


def test_ndcg_refuses_rel_naming_its_parameters():
    with pytest.raises(MeasureError) as caught:
        ndcg(rel=2)
    message = str(caught.value)
    for accepted in ("gain", "discount", "ideal"):
        assert accepted in message


def test_measure_without_parameters_says_so():
    with pytest.raises(MeasureError, match="none"):
        parse_measure("num_ret(rel=2)@10")


def test_bad_parameter_value_is_a_measure_error():
    with pytest.raises(MeasureError, match="exp3"):
        parse_measure("ndcg(gain=exp3)@10")


@pytest.mark.parametrize("text", ["ndcg(@10", "ndcg(gain)@10", "ndcg(gain=)@10", "@10", "nd cg@10"])
def test_unreadable_text_is_refused(text):
    with pytest.raises(MeasureError):
        parse_measure(text)


# -- cutoffs -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["num_rel", "cwl_rr"])
def test_measures_without_cutoff_refuse_one(name):
    assert not REGISTRY[name].cutoff
    with pytest.raises(MeasureError, match="cutoff"):
        parse_measure(f"{name}@10")
    with pytest.raises(MeasureError, match="cutoff"):
        Measure(name, 10)


def test_matmul_on_measures_without_cutoff_is_refused():
    with pytest.raises(MeasureError):
        measures.cwl_rr @ 10
    with pytest.raises(MeasureError):
        num_rel @ 5
    assert str(rprec @ 10) == "rprec@10"   # Microsoft Recommenders' r_precision_at_k
