"""The side-measure values' common base and the catalogue results' detail (recsys/measure_value.py,
recsys/catalogue_value.py): what the registry reports is each result's declared numbers, by hand."""

from __future__ import annotations

import dataclasses

import pytest

from rankproof import Run
from rankproof.errors import InputError
from rankproof.recsys.auc import AUCValue
from rankproof.recsys.catalogue_value import CatalogueResult, CatalogueValue
from rankproof.recsys.concentration import Concentration, gini
from rankproof.recsys.list_values import ListValues
from rankproof.recsys.measure_value import MeasureValue
from rankproof.recsys.percentile import PercentileRank
from rankproof.recsys.popularity_bias import PopParity
from rankproof.recsys.side_params import one_of

RESULTS = (AUCValue, Concentration, PercentileRank, PopParity)


@pytest.mark.parametrize("result", RESULTS, ids=lambda cls: cls.__name__)
def test_a_result_declares_its_own_number_fields_as_detail(result):
    fields = [field.name for field in dataclasses.fields(result)]
    assert fields[:2] == ["measure", "value"] and result.DETAIL
    assert set(result.DETAIL) <= set(fields[2:])


def test_every_value_names_its_measure_first():
    for value in (*RESULTS, CatalogueValue, ListValues):
        assert issubclass(value, MeasureValue)
        assert dataclasses.fields(value)[0].name == "measure"


def test_gini_reports_its_counts_as_the_catalogue_detail():
    # Top 2 of a, b | a, c over the catalogue a..e: 3 items recommended, 4 slots, 5 items.
    run = Run.from_dict({"u": ["a", "b"], "v": ["a", "c"]})
    value = gini(run, 2, catalogue=list("abcde")).catalogue_value()
    assert isinstance(value, CatalogueValue) and value.measure.startswith("gini(")
    assert value.detail == (("items", 5), ("recommended", 3), ("slots", 4),
                            ("outside_catalogue", 0))


def test_the_detail_follows_the_declared_order_not_the_fields():
    @dataclasses.dataclass(frozen=True)
    class Toy(CatalogueResult):
        DETAIL = ("b", "a")
        a: int
        b: int

    expected = CatalogueValue("toy", 0.5, (("b", 2), ("a", 1)))
    assert Toy("toy", 0.5, 1, 2).catalogue_value() == expected


def test_one_of_refuses_a_choice_outside_the_list_naming_the_keyword():
    assert one_of("base", "2", ("e", "2")) == "2"
    with pytest.raises(InputError, match=r"base must be one of e, 2; got '10'"):
        one_of("base", "10", ("e", "2"))
