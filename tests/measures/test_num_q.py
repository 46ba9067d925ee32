"""num_q: the number of queries evaluated (ir_measures' NumQ, trec_eval's num_q), summed under counts=sum."""

from __future__ import annotations

import pytest

from rankproof import Protocol, Qrels, Run, evaluate

QRELS = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
RUN = {"q1": {"a": 1.0}, "q2": {"x": 1.0}, "q9": {"a": 1.0}}


def test_by_hand_under_the_query_policies():
    qrels, run = Qrels.from_dict(QRELS), Run.from_dict(RUN)
    summed = evaluate(qrels, run, ["num_q", "NumQ"], protocol=Protocol(counts="sum"))
    assert summed.mean("num_q") == 3.0   # q1, q2 and q3 (judged, not in the run: missing_query=zero); q9 ignored
    assert summed.mean("NumQ") == 3.0
    assert evaluate(qrels, run, ["num_q"]).mean("num_q") == 1.0   # counts=mean: each query counts 1
    skipped = evaluate(qrels, run, ["num_q"], protocol=Protocol(counts="sum", missing_query="exclude"))
    assert skipped.mean("num_q") == 2.0


def test_equals_ir_measures_numq():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    peer = ir_measures.calc_aggregate([ir_measures.NumQ], qrels, run)[ir_measures.NumQ]
    ours = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN), ["NumQ"],
                    protocol=Protocol(counts="sum", missing_query="exclude")).mean("NumQ")
    assert ours == peer
