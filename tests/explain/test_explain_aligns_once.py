"""explain aligns the run once when no other policy needs comparing."""

import numpy as np

import rankproof.evaluation
import rankproof.explain.explanation
from rankproof import Qrels, Run
from rankproof.explain import explain


def test_explain_aligns_once(monkeypatch):
    # No unjudged doc, tie or negative grade: explain compares no other policy,
    # so one alignment serves both the value and the rows shown.
    qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2}})
    run = Run.from_dict({"q1": {"B": 2.0, "A": 1.0}})
    calls = []
    for module in (rankproof.evaluation, rankproof.explain.explanation):
        original = module.align

        def counted(*args, _original=original, **kwargs):
            calls.append(1)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, "align", counted)
    e = explain(qrels, run, "q1", "ndcg@2")
    assert len(calls) == 1
    # DCG = 2 + 3 / log2(3); ideal = 3 + 2 / log2(3)
    assert np.isclose(e.value, (2 + 3 / np.log2(3)) / (3 + 2 / np.log2(3)))
    assert e.policies == ()
