"""One vocabulary: the ranking and side-data registries read by one parser, with the same capabilities."""

from __future__ import annotations

import pytest

import rankproof.recsys  # noqa: F401  (registers the side-data measures)
from rankproof import engines
from rankproof.errors import MeasureError
from rankproof.measures import REGISTRY, Measure
from rankproof.measures.base import EXECUTORS
from rankproof.measures.parse import parse_any, parse_measures, read_measure_text
from rankproof.measures.vocabulary import VOCABULARIES, kind_of, known_names, spec_of
from rankproof.protocol import Protocol
from rankproof.recsys.registry import SIDE_REGISTRY, SideMeasure, SideSpec, CATALOGUE


def test_both_registries_are_in_the_vocabulary_and_share_no_name():
    assert VOCABULARIES["rank"].specs is REGISTRY and VOCABULARIES["side"].specs is SIDE_REGISTRY
    assert len(known_names()) == len(REGISTRY) + len(SIDE_REGISTRY)
    assert kind_of("ndcg") == "rank" and kind_of("coverage") == "side" and kind_of("nope") is None
    assert spec_of("coverage") is SIDE_REGISTRY["coverage"]
    with pytest.raises(KeyError):
        spec_of("nope")


@pytest.mark.parametrize("text, kind, shown", [
    ("ndcg(gain=exp2)@10", Measure, "ndcg(gain=exp2)@10"), ("P_10", Measure, "p@10"),
    ("ild(distance=jaccard)@10", SideMeasure, "ild(distance=jaccard)@10"), ("coverage @ 5", SideMeasure, "coverage@5")])
def test_one_parser_reads_every_name(text, kind, shown):
    measure = parse_any(text)
    assert isinstance(measure, kind) and str(measure) == shown
    assert parse_any(measure) is measure


@pytest.mark.parametrize("text, message", [
    ("coverage(distance=x)@3", "coverage does not take the parameter 'distance'"),
    ("ndcg(distance=x)@3", "ndcg does not take the parameter 'distance'"),
    ("coverage(head=1,head=2)@3", "parameter head is given twice"),
    ("ndcg(gain=1,gain=2)@3", "parameter gain is given twice"),
    ("coverage@x", "the cutoff k of coverage must be an integer >= 1"),
    ("ndcg@x", "the cutoff k of ndcg must be an integer >= 1"),
    ("coverge@10", "did you mean coverage@10"), ("ndgc@10", "did you mean ndcg@10")])
def test_both_registries_refuse_alike(text, message):
    with pytest.raises(MeasureError) as caught:
        parse_any(text)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_an_unknown_name_is_reported_before_its_cutoff():
    with pytest.raises(MeasureError, match="unknown measure 'nope'"):
        parse_any("nope@x")
    assert read_measure_text("nope@x").name == "nope"


def test_a_ranking_evaluation_points_a_side_measure_to_its_side_data():
    with pytest.raises(MeasureError, match="coverage@10 is a side-data measure.*evaluate_with_side"):
        parse_measures(["ndcg@10", "coverage@10"])


def test_capabilities_name_executors_of_the_table():
    declared = [spec.executors for spec in [*REGISTRY.values(), *SIDE_REGISTRY.values()]]
    assert all(set(executors) <= set(EXECUTORS) for executors in declared)
    assert set(engines.EXECUTORS) <= set(EXECUTORS)
    assert REGISTRY["ndcg"].executors == EXECUTORS and REGISTRY["hole"].executors == ("memory", "outofcore")
    assert REGISTRY["alpha_ndcg"].executors == ("memory",) and REGISTRY["alpha_ndcg"].needs == (("intents",),)
    assert REGISTRY["strict_vital_score"].executors == ()          # read from files, never computed
    assert SIDE_REGISTRY["coverage"].needs == (("items", "train"),) and REGISTRY["ndcg"].needs == ()


def _refused_on_spark(measure) -> bool:
    from rankproof.spark.side import check_side_measures

    try:
        check_side_measures([measure], Protocol())
    except MeasureError:
        return True
    return False


def test_the_spark_capability_is_what_spark_takes():
    for name, spec in SIDE_REGISTRY.items():
        measure = parse_any(f"{name}@10" if spec.needs_cutoff else name)
        assert ("spark" in spec.executors) == (not _refused_on_spark(measure)), name
    rows = SideSpec("rows_read", "Rows", "every row", CATALOGUE, (), lambda *a: None, cutoff=False,
                    needs_cutoff=False)
    assert rows.executors == ("memory",)
    SIDE_REGISTRY["rows_read"] = rows
    try:
        assert _refused_on_spark(parse_any("rows_read"))
    finally:
        del SIDE_REGISTRY["rows_read"]
