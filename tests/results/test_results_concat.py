"""Results.concat: evaluating disjoint parts and joining them equals evaluating the whole."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Results, Run, evaluate
from rankproof.errors import InputError

MEASURES = ["ndcg@5", "ap", "rr@3", "p@2", "judged@4"]


def _data(seed: int):
    rng = random.Random(seed)
    judgments, rankings = {}, {}
    for q in range(30):
        docs = [f"d{i}" for i in range(rng.randint(2, 9))]
        judgments[f"q{q:02d}"] = {d: rng.choice([0, 0, 1, 2]) for d in docs if rng.random() < 0.7} or {"d0": 0}
        rankings[f"q{q:02d}"] = {d: float(rng.randint(0, 3)) for d in docs + ["u1"]}
    return judgments, rankings


@pytest.mark.parametrize("protocol", [Protocol(), Protocol(zero_ideal="exclude"), Protocol(aggregation="micro")])
def test_concat_of_parts_equals_the_whole(protocol):
    judgments, rankings = _data(3)
    measures = [m for m in MEASURES if protocol.aggregation.value != "micro" or m.split("@")[0] in ("ndcg", "p", "judged")]
    whole = evaluate(Qrels.from_dict(judgments), Run.from_dict(rankings), measures, protocol)
    names = sorted(judgments)
    parts = [evaluate(Qrels.from_dict({q: judgments[q] for q in chunk}),
                      Run.from_dict({q: rankings[q] for q in chunk}), measures, protocol)
             for chunk in (names[:7], names[7:19], names[19:])]
    joined = Results.concat(parts)
    for m in measures:
        assert joined.per_query(m) == pytest.approx(whole.per_query(m), abs=1e-12)
        assert joined.mean(m) == pytest.approx(whole.mean(m), abs=1e-12)
    assert joined.counts == whole.counts


def test_concat_refuses_what_cannot_be_joined():
    judgments, rankings = _data(4)
    qrels, run = Qrels.from_dict(judgments), Run.from_dict(rankings)
    a = evaluate(qrels, run, "ndcg@5")
    with pytest.raises(InputError, match="a query appears in two parts"):
        Results.concat([a, a])
    with pytest.raises(InputError, match="same measures"):
        Results.concat([a, evaluate(qrels, run, "ap")])
    with pytest.raises(InputError, match="one protocol"):
        Results.concat([a, evaluate(qrels, run, "ndcg@5", Protocol(gain="exp2"))])
    assert np.isnan(Results.concat([a]).values("ndcg@5")).sum() == 0


def _with_side(judgments, rankings, chunk, measures):
    from rankproof.recsys import SideData, evaluate_with_side
    from rankproof.recsys.side import Features

    features = {f"d{i}": ["g1"] if i % 2 else ["g2"] for i in range(9)} | {"u1": ["g1", "g2"]}
    side = SideData(features=Features(categories={d: frozenset(f) for d, f in features.items()}),
                    items=np.array(sorted(features)))
    return evaluate_with_side(Qrels.from_dict({q: judgments[q] for q in chunk}),
                              Run.from_dict({q: rankings[q] for q in chunk}), measures, side, Protocol(ties="docid"))


def test_concat_joins_per_list_side_values_as_the_whole_gives_them():
    # Results.concat dropped the side-data values: a sharded evaluation lost its ILD column.
    judgments, rankings = _data(5)
    names = sorted(judgments)
    measures = ["ndcg@5", "ild@4"]
    whole = _with_side(judgments, rankings, names, measures)
    joined = Results.concat([_with_side(judgments, rankings, chunk, measures)
                             for chunk in (names[20:], names[:6], names[6:20])], sort=True)
    (expected,), (got,) = whole.side, joined.side
    assert got.measure == "ild@4" and got.kind == "list"
    assert got.queries.tolist() == expected.queries.tolist() == names
    np.testing.assert_array_equal(got.values, expected.values)
    assert got.value == expected.value   # the same mean to the last bit: the same values in the same order
    assert dict(got.detail) == dict(expected.detail)


def test_concat_refuses_a_catalogue_side_value():
    judgments, rankings = _data(5)
    names = sorted(judgments)
    parts = [_with_side(judgments, rankings, chunk, ["ndcg@5", "coverage@3"]) for chunk in (names[:9], names[9:])]
    with pytest.raises(InputError, match="coverage@3 is one value for the whole catalogue"):
        Results.concat(parts)
