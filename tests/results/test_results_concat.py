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
