"""rprec@k (Microsoft Recommenders' r_precision_at_k): relevant docs in the top min(R, k) / R, by
hand, against rprec where k >= R, the same on both engines, under tied scores, and explained."""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.measures import parse_measure

QRELS = {"q1": {"a": 1, "b": 1, "c": 1, "d": 0}, "q2": {"x": 2}}
RUN = {"q1": ["a", "d", "b", "e", "c"], "q2": ["y", "x"]}


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_by_hand(engine):
    results = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN), ["rprec", "rprec@2", "rprec@1", "rprec@9"],
                       engine=engine)
    # q1: R = 3. Top 3 (a, d, b) holds 2 -> 2/3; top min(3, 2) = 2 (a, d) holds 1 -> 1/3; top 1 -> 1/3.
    # q2: R = 1, top 1 (y) holds 0 -> 0 at every k.
    assert results.per_query("rprec") == {"q1": pytest.approx(2 / 3), "q2": 0.0}
    assert results.per_query("rprec@2") == {"q1": pytest.approx(1 / 3), "q2": 0.0}
    assert results.per_query("rprec@1") == {"q1": pytest.approx(1 / 3), "q2": 0.0}
    assert results.per_query("rprec@9") == results.per_query("rprec")


def test_ties_expected_and_engines_agree():
    rng = np.random.default_rng(4)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(10)} for q in range(30)}
    run = {q: {f"d{d}": float(rng.integers(0, 4)) for d in rng.permutation(12)[:9]} for q in qrels}
    names = ["rprec@3", "rprec@5", "rprec"]
    numpy = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names, engine="numpy")
    compiled = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names, engine="compiled")
    for name in names:
        np.testing.assert_allclose(numpy.values(name), compiled.values(name), atol=1e-12)
    # Under ties=expected, the mean over the orders: every order of q's tied docs, by enumeration
    # (ties=input on each permutation of the input).
    import itertools

    small_qrels = {"q": {"a": 1, "b": 1, "c": 0}}
    tied = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "z": 0.0}}
    expected = np.mean([evaluate(Qrels.from_dict(small_qrels), Run.from_dict({"q": list(order) + ["z"]}),
                                 ["rprec@1"], Protocol(ties="input")).mean("rprec@1")
                        for order in itertools.permutations("abc")])
    got = evaluate(Qrels.from_dict(small_qrels), Run.from_dict(tied), ["rprec@1"]).mean("rprec@1")
    assert got == pytest.approx(expected, abs=1e-15)


def test_microsoft_recommenders_name_and_the_working():
    from rankproof.explain import explain

    assert str(parse_measure("r_precision_at_k@5")) == "rprec@5"
    shown = explain(Qrels.from_dict(QRELS), Run.from_dict(RUN), "q1", "rprec@2")
    assert shown.value == pytest.approx(1 / 3)
    assert any("min(R, k) = 2" in line for line in shown.working)
