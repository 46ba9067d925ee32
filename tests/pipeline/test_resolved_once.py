"""Read and normalised once (issue 37, item 3): a policy that names a file is read when the
protocol is resolved, never during the join; the ids policy runs once per evaluation."""

from __future__ import annotations

import json

import pytest

import rankproof.io.chunk_map as chunk_map_io
from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import InputError
from rankproof.evaluation import resolve_protocol
from rankproof.pipeline import align, align_inputs
from rankproof.pipeline.ids import normalised_inputs
from rankproof.protocol import DiscountFile
from rankproof.protocol.ids import IdPolicy

QRELS = {"q1": {"d1": 1, "d2": 2}}
# Chunks c1 -> d2 (0.9), c2 -> d1 (0.5), c3 -> d9 (unjudged, 0.1).
RUN = {"q1": {"c1": 0.9, "c2": 0.5, "c3": 0.1}}


@pytest.fixture
def reads(monkeypatch):
    """Every read of a chunk-map file, by path."""
    seen: list[str] = []
    original = chunk_map_io.read_chunk_map

    def counted(path):
        seen.append(str(path))
        return original(path)

    monkeypatch.setattr(chunk_map_io, "read_chunk_map", counted)
    return seen


def test_a_chunk_map_file_is_read_once_when_the_protocol_is_resolved(tmp_path, reads):
    path = tmp_path / "chunks.txt"
    path.write_text("c1 d2\nc2 d1\nc3 d9\n", encoding="utf-8")
    protocol = Protocol(chunk_map=f"file:{path}")
    assert reads == []                       # making the protocol hashes the file, reads no table
    resolved = resolve_protocol(protocol)
    assert reads == [str(path)]
    assert resolved == protocol and resolved.fingerprint == protocol.fingerprint
    qrels, run = Qrels.from_dict(QRELS), Run.from_dict(RUN)
    align(qrels, run, resolved)
    results = evaluate(qrels, run, ["p@1", "ndcg@2"], resolved)
    assert reads == [str(path)]              # the join reads the table the protocol holds
    # Ranking d2, d1: P@1 = 1; DCG@2 = 2 + 1/log2(3) equals the ideal: NDCG@2 = 1.
    assert results.mean("p@1") == 1.0
    assert results.mean("ndcg@2") == pytest.approx(1.0, abs=1e-12)
    evaluate(qrels, run, "p@1", protocol)    # an unresolved protocol: read once, at its resolution
    assert reads == [str(path)] * 2


def test_a_resolved_chunk_map_still_refuses_a_changed_file_when_resolved_again(tmp_path, reads):
    path = tmp_path / "chunks.txt"
    path.write_text("c1 d2\nc2 d1\nc3 d9\n", encoding="utf-8")
    protocol = Protocol(chunk_map=f"file:{path}")
    path.write_text("c1 d1\nc2 d2\nc3 d9\n", encoding="utf-8")
    with pytest.raises(InputError, match="changed since the protocol was made"):
        resolve_protocol(protocol)
    assert reads == []


def test_a_discount_file_is_read_once_when_the_policy_is_made(tmp_path, monkeypatch):
    path = tmp_path / "discount.json"
    path.write_text(json.dumps({"discount": [1.0, 0.25]}), encoding="utf-8")
    calls: list[str] = []
    original = DiscountFile.read.__func__

    def counted(cls, *args, **kwargs):
        calls.append(args[0])
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(DiscountFile, "read", classmethod(counted))
    protocol = Protocol.from_text(f"discount=file:{path}")
    assert calls == [str(path)]
    results = evaluate(Qrels.from_dict(QRELS), Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5}}), "ndcg@2", protocol)
    assert calls == [str(path)]
    # DCG = 1 * 1 + 2 * 0.25 = 1.5; ideal 2 * 1 + 1 * 0.25 = 2.25.
    assert results.mean("ndcg@2") == pytest.approx(1.5 / 2.25, abs=1e-12)


def test_the_ids_policy_runs_once_per_evaluation(monkeypatch):
    calls: list[int] = []
    original = IdPolicy.apply

    def counted(self, ids):
        calls.append(1)
        return original(self, ids)

    monkeypatch.setattr(IdPolicy, "apply", counted)
    results = evaluate(Qrels.from_dict({"1": {"7": 1, "8": 1}}), Run.from_dict({"001": {"007": 0.5, "9": 0.9}}),
                       "ap", Protocol(ids="strip_zeros"))
    assert len(calls) == 4   # queries and docs of the qrels and of the run, each once
    # 001 -> 1, 007 -> 7: ranking 9 (unjudged), 7 (relevant); AP = (1/2) / 2.
    assert results.mean("ap") == pytest.approx(0.25, abs=1e-12)
    assert results.counts["ids_normalised"] == 2
    inputs = normalised_inputs(Qrels.from_dict({"1": {"7": 1}}), Run.from_dict({"001": ["007"]}),
                               Protocol(ids="strip_zeros"))
    calls.clear()
    alignment = align_inputs(inputs)         # inputs whose ids are normalised: not again
    assert calls == [] and alignment.counts["ids_normalised"] == 2
