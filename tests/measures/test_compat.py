"""Compat (Clarke, Vtyurina and Smucker 2021) against ir_measures' Compat on random cases, by hand,
and refused under tied scores."""

from __future__ import annotations

import random

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import TieError


def test_by_hand():
    # Ideal: a (2), b (1). Ranking x, a: a enters the overlap at depth 2 (its rank in the ranking).
    # p = 1/2, depth 2: RBO = (1 * 0/1 + 1/2 * 1/2) / (1 + 1/2) = 1/6; the ideal's own RBO is 1.
    qrels = Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    got = evaluate(qrels, Run.from_dict({"q": ["x", "a"]}), ["compat(p=0.5)", "compat(p=0.5,normalize=0)"],
                   Protocol(ties="input"))
    assert got.mean("compat(p=0.5,normalize=0)") == pytest.approx(1 / 6)
    assert got.mean("compat(p=0.5)") == pytest.approx(1 / 6)
    with pytest.raises(TieError):
        evaluate(qrels, Run.from_dict({"q": {"a": 1.0, "b": 1.0}}), ["compat"])


def test_equals_ir_measures_compat():
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(20)
    qrels, run = {}, {}
    for q in range(60):
        docs = [f"d{i}" for i in range(rng.randint(1, 25))]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in docs if rng.random() < 0.7} or {"d0": 1}
        ranked = rng.sample(docs, rng.randint(1, len(docs)))
        run[f"q{q}"] = {d: float(len(ranked) - i) + rng.random() / 10 for i, d in enumerate(ranked)}
    names = ["Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=False)"]
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), [n.replace("False", "0") for n in names])
    for name in names:
        expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, run)}
        got = ours.per_query(name.replace("False", "0"))
        assert set(got) == set(expected)
        for query, value in expected.items():
            assert got[query] == pytest.approx(value, abs=1e-12), (name, query)
