"""conftest's markers come from what a test uses: a peer library -> parity, trec_eval or ../shared -> oracle."""

from __future__ import annotations

import types

import pytest

from conftest import tiers
from paths import SHARED
from trec_oracle import build_trec_eval

NIST = SHARED / "data" / "trec_eval_test"
sklearn_metrics = types.ModuleType("sklearn.metrics")  # a name bound to a peer's module


def item(function, *fixtures: str):
    return types.SimpleNamespace(function=function, fixturenames=["request", *fixtures])


def peer_through_importorskip():
    return pytest.importorskip("ranx")


def peer_imported_inside():
    from statsmodels.stats.multitest import multipletests
    return multipletests


def peer_bound_at_module_level():
    return sklearn_metrics


def helper_of_this_module():
    return peer_through_importorskip()


def peer_through_a_helper():
    return helper_of_this_module()


def binary_built():
    return build_trec_eval()


def shared_data():
    return NIST / "qrels.test"


def nothing_outside():
    return sum(range(3))


@pytest.mark.parametrize("function", [peer_through_importorskip, peer_imported_inside, peer_bound_at_module_level,
                                      peer_through_a_helper])
def test_a_peer_library_makes_a_parity_test(function):
    assert tiers(item(function)) == {"parity"}


@pytest.mark.parametrize("function, fixtures", [
    (binary_built, ()), (shared_data, ()), (nothing_outside, ("trec_eval_binary",)),
    (nothing_outside, ("trec_eval9_binary",)), (nothing_outside, ("trec_eval_tests",)),
])
def test_trec_eval_or_shared_data_make_an_oracle_test(function, fixtures):
    assert tiers(item(function, *fixtures)) == {"oracle"}


def test_a_test_of_rankproof_alone_has_no_tier():
    assert tiers(item(nothing_outside, "tmp_path")) == set()
    assert tiers(types.SimpleNamespace(fixturenames=[])) == set()  # a doctest

