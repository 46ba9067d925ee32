"""Layered qrels: precedence, provenance in the protocol, and the judged docs inside each cutoff per source."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rankproof
from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.data.layering import layer_lookup
from rankproof.errors import InputError, ProtocolError

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"


def _sources():
    human = Qrels.from_dict({"q1": {"a": 2, "b": 0}, "q2": {"x": 1}})
    judge = Qrels.from_dict({"q1": {"a": 0, "c": 1, "d": 1}, "q3": {"y": 1}})
    return human, judge


def test_first_source_wins_and_each_row_knows_its_source():
    human, judge = _sources()
    layered = Qrels.layer(human, judge, names=("human", "judge"))
    assert layered.to_dict() == {"q1": {"a": 2, "b": 0, "c": 1, "d": 1}, "q2": {"x": 1}, "q3": {"y": 1}}
    lookup = layer_lookup(layered)
    assert lookup == {("q1", "a"): 0, ("q1", "b"): 0, ("q1", "c"): 1, ("q1", "d"): 1, ("q2", "x"): 0,
                      ("q3", "y"): 1}
    # the other order: the judge wins on a
    assert Qrels.layer(judge, human).to_dict()["q1"]["a"] == 0
    assert str(Qrels.layer(judge, human).layers) == "layers:layer1>layer2"


def test_evaluation_records_the_layering_and_counts_by_hand():
    human, judge = _sources()
    layered = Qrels.layer(human, judge, names=("human", "judge"))
    # q1 ranks c (judge), z (unjudged), a (human), d (judge); q2 ranks x (human).
    run = Run.from_dict({"q1": {"c": 4.0, "z": 3.0, "a": 2.0, "d": 1.0}, "q2": {"x": 1.0}})
    results = evaluate(layered, run, ["p@2", "p@3", "ap"])
    assert str(results.protocol.judgments) == "layers:human>judge"
    assert "judgments=layers:human>judge" in str(results.protocol)
    assert results.protocol.fingerprint != evaluate(Qrels.from_dict(layered.to_dict()), run, ["p@2"]).protocol.fingerprint
    by_layer = results.counts["judged_in_cutoff_by_layer"]
    # top 2: q1 c (judge), z (unjudged); q2 x (human) -> human 1, judge 1
    assert by_layer["p@2"] == {"human": 1, "judge": 1}
    # top 3 adds a (human)
    assert by_layer["p@3"] == {"human": 2, "judge": 1}
    # whole ranking: human a, x; judge c, d
    assert by_layer["ap"] == {"human": 2, "judge": 2}


def test_tied_group_starting_inside_the_cutoff_counts_as_the_unjudged_count_does():
    layered = Qrels.layer(Qrels.from_dict({"q": {"a": 1}}), Qrels.from_dict({"q": {"b": 1, "c": 0}}),
                          names=("human", "judge"))
    # c first, then a and b tied across the cutoff of 2: the tied group starts at rank 2, inside
    run = Run.from_dict({"q": {"c": 3.0, "a": 1.0, "b": 1.0}})
    counts = evaluate(layered, run, ["p@1", "p@2"]).counts["judged_in_cutoff_by_layer"]
    assert counts["p@1"] == {"human": 0, "judge": 1}
    assert counts["p@2"] == {"human": 1, "judge": 2}


def test_counts_add_up_with_the_unjudged_on_cranfield():
    human = Qrels.read_trec(CRANFIELD / "human_sample.qrels")
    judge = Qrels.read_trec(CRANFIELD / "llm_judge.qrels")
    layered = Qrels.layer(human, judge, names=("human", "llm"))
    run = Run.read_trec(CRANFIELD / "bm25.run")
    results = evaluate(layered, run, ["p@10"], Protocol(ties="docid"))
    counts = results.counts
    inside = sum(counts["judged_in_cutoff_by_layer"]["p@10"].values()) + counts["unjudged_in_cutoff"]["p@10"]
    assert inside == sum(min(10, len(docs)) for docs in run.to_dict().values())
    # the human layer's docs inside the top 10 are exactly those of the human sample's topics
    lookup = Qrels.read_trec(CRANFIELD / "human_sample.qrels").to_dict()
    top = {q: sorted(docs, key=lambda d: (-docs[d], d), reverse=False)[:10] for q, docs in run.to_dict().items()}
    by_hand = sum(d in lookup.get(q, {}) for q, docs in top.items() for d in docs)
    assert counts["judged_in_cutoff_by_layer"]["p@10"]["human"] == by_hand


def test_refusals():
    human, judge = _sources()
    with pytest.raises(InputError, match="two or more"):
        Qrels.layer(human)
    with pytest.raises(InputError, match="one name per"):
        Qrels.layer(human, judge, names=("only",))
    with pytest.raises(ProtocolError, match="judgments"):
        Qrels.layer(human, judge, names=("same", "same"))
    with pytest.raises(InputError, match="mix integer and real"):
        Qrels.layer(human, Qrels.from_dict({"q1": {"a": 0.5}}, grades="real"))
    run = Run.from_dict({"q1": ["a"]})
    with pytest.raises(InputError, match="not layered"):
        evaluate(human, run, ["p@1"], Protocol(judgments="layers:human>judge"))
    with pytest.raises(InputError, match="ids policy"):
        evaluate(Qrels.layer(human, judge), run, ["p@1"], Protocol(ids="strip"))


def test_cli_layer_option(capsys):
    qrels, judge, bm25 = (str(CRANFIELD / name) for name in ("human_sample.qrels", "llm_judge.qrels", "bm25.run"))
    assert main(["evaluate", qrels, bm25, "--layer", f"llm={judge}", "-m", "ndcg@10"]) == 0
    captured = capsys.readouterr()
    assert "judgments=layers:human_sample>llm" in captured.out
    expected = evaluate(Qrels.layer(Qrels.read_trec(qrels), Qrels.read_trec(judge), names=("a", "b")),
                        Run.read_trec(bm25), ["ndcg@10"])
    human_count, llm_count = expected.counts["judged_in_cutoff_by_layer"]["ndcg@10"].values()
    assert f"ndcg@10 human_sample {human_count} / llm {llm_count}" in captured.err
    assert f"{expected.mean('ndcg@10'):.4f}" in captured.out
    assert main(["agree", qrels, judge, "--layer", judge]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert np.isfinite(expected.mean("ndcg@10"))


def test_saved_results_keep_the_layering(tmp_path, capsys):
    from rankproof.stats.saved import load_results

    qrels, judge, bm25 = (str(CRANFIELD / name) for name in ("human_sample.qrels", "llm_judge.qrels", "bm25.run"))
    for fmt in ("json", "parquet"):
        saved = tmp_path / f"saved.{fmt}"
        assert main(["evaluate", qrels, bm25, "--layer", f"llm={judge}", "-m", "ndcg@10", "--format", fmt,
                     "-o", str(saved)]) == 0
        loaded = load_results(str(saved))[0]
        assert str(loaded.protocol.judgments) == "layers:human_sample>llm"
        assert loaded.protocol.fingerprint == Protocol(judgments="layers:human_sample>llm").fingerprint
