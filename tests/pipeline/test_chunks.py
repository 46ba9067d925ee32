"""RAG chunks judged at document level: the chunk_map and chunks policies (issue 17, item 7).

Expected values are computed by hand in the comments. Qrels of every case:
d1 grade 1, d2 grade 2, d3 grade 0, so the ideal DCG@3 is
2 + 1/log2(3) = 2.630930.
"""

from __future__ import annotations

import json
import math

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import DuplicateError, InputError, ProtocolError
from rankproof.explain.explanation import explain

QRELS = {"q1": {"d1": 1, "d2": 2, "d3": 0}}
IDEAL = 2 + 1 / math.log2(3)
# File order: d3#0 0.5, d1#0 0.9, d3#1 0.95, d2#5 0.4, d1#2 0.3.
CHUNKS = {"q1": {"d3#0": 0.5, "d1#0": 0.9, "d3#1": 0.95, "d2#5": 0.4, "d1#2": 0.3}}


def results(policy: str, run=CHUNKS, measures=("ndcg@3", "rr", "p@2")):
    return evaluate(Qrels.from_dict(QRELS), Run.from_dict(run), list(measures), Protocol.from_text(policy))


def test_first_keeps_the_first_listed_chunk():
    # first: d3 at 0.5 (d3#0), d1 at 0.9 (d1#0), d2 at 0.4 -> ranking d1, d3, d2.
    # DCG@3 = 1/1 + 0 + 2/log2(4) = 2.
    r = results("chunk_map=sep:# chunks=first")
    assert r.mean("ndcg@3") == pytest.approx(2 / IDEAL)  # 0.760188
    assert r.mean("rr") == 1.0
    assert r.mean("p@2") == 0.5
    assert r.counts["chunks_merged"] == 2  # d3#1 and d1#2


def test_max_keeps_the_best_scored_chunk():
    # max: d3 at 0.95 (d3#1), d1 at 0.9, d2 at 0.4 -> ranking d3, d1, d2.
    # DCG@3 = 0 + 1/log2(3) + 2/log2(4) = 1.630930.
    r = results("chunk_map=sep:# chunks=max")
    assert r.mean("ndcg@3") == pytest.approx((1 / math.log2(3) + 1) / IDEAL)  # 0.619905
    assert r.mean("rr") == 0.5
    assert r.counts["chunks_merged"] == 2


def test_without_a_chunk_map_chunks_are_unjudged_docs():
    r = results("")
    assert r.mean("ndcg@3") == 0.0
    assert "chunks_merged" not in r.counts


def test_later_documents_move_up():
    # An ordered list d1#0, d1#1, d2#0 with only d2 relevant: d2 ranks 2nd once
    # d1#1 leaves the ranking, so RR = 1/2 (it would be 1/3 with d1#1 kept).
    qrels = Qrels.from_dict({"q1": {"d2": 1}})
    run = Run.from_dict({"q1": ["d1#0", "d1#1", "d2#0"]})
    r = evaluate(qrels, run, ["rr", "p@2"], Protocol(chunk_map="sep:#"))
    assert r.mean("rr") == 0.5
    assert r.mean("p@2") == 0.5
    assert r.counts["chunks_merged"] == 1


def test_separator_splits_at_the_last_one_and_ids_without_it_are_docs():
    # "a#b#c1" is chunk c1 of doc "a#b"; "d2" is a doc id as it is.
    qrels = Qrels.from_dict({"q1": {"a#b": 1, "d2": 1}})
    run = Run.from_dict({"q1": ["a#b#c1", "d2", "a#b#c2"]})
    r = evaluate(qrels, run, ["p@2"], Protocol(chunk_map="sep:#"))
    assert r.mean("p@2") == 1.0
    assert r.counts["chunks_merged"] == 1


def test_regex_takes_its_one_group():
    run = {"q1": {k.replace("#", "_p"): v for k, v in CHUNKS["q1"].items()}}
    r = results(r"chunk_map=regex:^(d[0-9]+)_p[0-9]+$ chunks=max", run=run)
    assert r.mean("ndcg@3") == pytest.approx((1 / math.log2(3) + 1) / IDEAL)


def test_regex_must_match_every_chunk():
    run = {"q1": {"d1_p0": 1.0, "other": 0.5}}
    with pytest.raises(InputError, match=r"chunk id 'other' does not match"):
        results(r"chunk_map=regex:^(d[0-9]+)_p[0-9]+$", run=run)


@pytest.mark.parametrize("groups", ["^d1$", "^(d)(1)$"])
def test_regex_needs_exactly_one_group(groups):
    with pytest.raises(ProtocolError, match="give exactly one"):
        Protocol(chunk_map=f"regex:{groups}")


def test_mapping_file(tmp_path):
    mapping = tmp_path / "chunks.txt"
    mapping.write_text("# chunk doc\nc1 d3\nc2 d1\nc3 d3\nc4 d2\nc5 d1\n")
    run = {"q1": {"c1": 0.5, "c2": 0.9, "c3": 0.95, "c4": 0.4, "c5": 0.3}}  # as CHUNKS, renamed
    r = results(f"chunk_map=file:{mapping} chunks=first", run=run)
    assert r.mean("ndcg@3") == pytest.approx(2 / IDEAL)
    text = str(r.protocol)
    assert f"chunk_map=file:{mapping}@sha256:" in text and "chunks=first" in text
    assert Protocol.from_text(text) == r.protocol
    # The digest names the file's contents: a changed file is refused.
    mapping.write_text("c1 d1\n")
    with pytest.raises(ProtocolError, match="changed since the protocol was written"):
        Protocol.from_text(text)


def test_mapping_file_as_csv(tmp_path):
    mapping = tmp_path / "chunks.csv"
    mapping.write_text("chunk,doc\nc1,d3\nc2,d1\nc3,d3\nc4,d2\nc5,d1\n")
    run = {"q1": {"c1": 0.5, "c2": 0.9, "c3": 0.95, "c4": 0.4, "c5": 0.3}}
    assert results(f"chunk_map=file:{mapping} chunks=max", run=run).mean("ndcg@3") == pytest.approx(
        (1 / math.log2(3) + 1) / IDEAL)


def test_mapping_file_must_list_every_ranked_chunk(tmp_path):
    mapping = tmp_path / "chunks.txt"
    mapping.write_text("c1 d1\n")
    with pytest.raises(InputError, match="chunk 'c2' is not in the chunk map"):
        results(f"chunk_map=file:{mapping}", run={"q1": ["c1", "c2"]})


def test_a_chunk_listed_twice_is_still_a_duplicate():
    run = Run.from_dict({"q1": ["d1#0", "d2#0", "d1#0"]})
    with pytest.raises(DuplicateError):
        evaluate(Qrels.from_dict(QRELS), run, ["p@2"], Protocol(chunk_map="sep:#"))
    r = evaluate(Qrels.from_dict(QRELS), run, ["p@2"], Protocol(chunk_map="sep:#", duplicates="first"))
    assert r.mean("p@2") == 1.0 and r.counts["duplicates_dropped"] == 1


def test_protocol_text_names_both_policies_only_when_a_map_is_set():
    assert "chunk" not in str(Protocol())
    assert str(Protocol(chunk_map="sep:#")).endswith("chunk_map=sep:# chunks=first")
    assert Protocol.from_text(str(Protocol(chunk_map="sep:#"))) == Protocol(chunk_map="sep:#")
    assert Protocol().fingerprint == Protocol.from_text(str(Protocol())).fingerprint


def test_summary_and_explain_show_the_merge():
    r = results("chunk_map=sep:# chunks=max")
    assert "chunks_merged=2" in r.summary()
    assert "chunk_map=sep:# chunks=max" in r.summary()
    e = explain(Qrels.from_dict(QRELS), Run.from_dict(CHUNKS), "q1", "ndcg@3", Protocol(chunk_map="sep:#"))
    assert [row.doc for row in e.ranking] == ["d1", "d3", "d2"]
    assert any("2 chunks merged" in note and "first-listed" in note for note in e.policies)


# -- the command line -----------------------------------------------------------------
@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\n")
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q1 Q0 {doc} {i} {score} sys\n" for i, (doc, score) in enumerate(CHUNKS["q1"].items())))
    return qrels, run


def test_cli_evaluate_and_explain(files, capsys):
    qrels, run = files
    code = main(["evaluate", str(qrels), str(run), "-m", "ndcg@3", "--format", "json",
                 "--policy", "chunk_map=sep:#", "--policy", "chunks=max"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert "chunk_map=sep:# chunks=max" in data["protocol_text"]
    assert next(iter(data["counts"].values()))["chunks_merged"] == 2
    assert next(iter(data["runs"].values()))["mean"]["ndcg@3"] == pytest.approx((1 / math.log2(3) + 1) / IDEAL)
    assert "chunks merged: 2" in err
    code = main(["explain", str(qrels), str(run), "-q", "q1", "-m", "ndcg@3", "--policy", "chunk_map=sep:#"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "2 chunks merged" in out


def test_cli_bad_pattern_is_one_line(files, capsys):
    qrels, run = files
    code = main(["evaluate", str(qrels), str(run), "--policy", "chunk_map=regex:^x(y)$"])
    out, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "does not match" in err and "Traceback" not in err
