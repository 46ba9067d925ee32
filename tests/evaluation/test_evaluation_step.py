"""The public evaluation step: what front doors call, and the options they pass as arguments."""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate, evaluate_scores
from rankproof.evaluation import evaluate_alignment, resolve_measures, resolve_protocol
from rankproof.errors import InputError
from rankproof.pipeline.alignment import align
from rankproof.results import Counts

QRELS = Qrels.from_dict({"10": {"a": 1, "b": 0}, "9": {"c": 2}})
RUN = Run.from_dict({"10": ["x", "a"], "9": ["c"]})


def test_resolve_protocol_and_measures():
    assert resolve_protocol(None) == Protocol()
    assert resolve_protocol("trec_eval") == Protocol.preset("trec_eval")
    assert resolve_protocol("ties=docid") == Protocol(ties="docid")
    with pytest.raises(InputError, match="protocol must be"):
        resolve_protocol(3)
    # Once each, in the order first asked for.
    assert [str(m) for m in resolve_measures(["p@1", "ndcg@2", "p@1"], Protocol())] == ["p@1", "ndcg@2"]


def test_the_step_over_an_alignment_is_evaluate():
    protocol = Protocol()
    measures = resolve_measures(["ndcg@2", "rr"], protocol)
    step = evaluate_alignment(align(QRELS, RUN, protocol), measures, protocol, run_name="run")
    whole = evaluate(QRELS, RUN, measures, protocol)
    # Query 10: a at rank 2, so RR 1/2 and NDCG@2 = (1/log2(3)) / 1; query 9: c first, 1.
    assert step.per_query("rr") == whole.per_query("rr") == {"10": 0.5, "9": 1.0}
    assert step.per_query("ndcg@2") == pytest.approx({"10": 1 / np.log2(3), "9": 1.0}, abs=1e-12)
    assert step.counts == whole.counts


def test_query_ids_notes_and_complete_judgments_are_arguments():
    def integers(queries):
        ids = queries.astype(np.int64)
        return ids, np.argsort(ids, kind="stable")

    plain = evaluate(QRELS, RUN, "p@2")
    assert plain.queries == ["10", "9"]  # text ids, text order
    assert "unjudged docs inside the top 2 (p@2) count as non-relevant" in plain.summary()
    shown = evaluate(QRELS, RUN, "p@2", query_ids=integers, notes=("truth: complete",), complete_judgments=True)
    assert shown.queries == [9, 10]  # integers, numeric order
    assert shown.per_query("p@2") == {9: 0.5, 10: 0.5}
    assert shown.notes == ("truth: complete",)
    assert "note truth: complete" in shown.summary()
    assert shown.complete_judgments and "unjudged is not non-relevant" not in shown.summary()
    # Given ids, aligned with the evaluated queries.
    named = evaluate(QRELS, RUN, "p@2", query_ids=["ten", "nine"])
    assert named.per_query("p@2") == {"ten": 0.5, "nine": 0.5}


def test_counts_is_a_typed_dict_holding_every_key_a_front_door_gives():
    known = set(Counts.__annotations__)
    results = evaluate(QRELS, RUN, ["ndcg@2", "ap"])
    assert isinstance(results.counts, dict)
    assert results.counts["queries_in_qrels"] == 2
    assert set(results.counts) <= known
    scores = evaluate_scores([[1, 0], [0, 1]], [[0.5, 0.5], [1.0, float("nan")]], ["ndcg@1", "r@1"],
                             num_relevant=[2, 1])
    assert set(scores.counts) <= known
