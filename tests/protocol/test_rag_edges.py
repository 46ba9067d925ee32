"""Empty retrieved lists and empty ground truths under each RAG preset, through every route (issue 36).

Each framework's rule, read in its installed source (the parity extra) and
replayed by test_parity_differential.py: ragas' ID-based precision returns NaN
for an empty retrieved list and its mean skips it; LlamaIndex raises
ValueError on an empty retrieved or expected list, for every metric; Haystack
scores 0 a query with an empty ground truth or nothing retrieved and averages
it in. The routes: ``evaluate_rag`` (rows), ``rankproof rag`` (a file),
``evaluate`` (dicts) and TREC files.
"""

from __future__ import annotations

import json

import pytest

from rankproof import Protocol, Qrels, Run, evaluate, evaluate_rag, rag_inputs
from rankproof.cli import main
from rankproof.errors import InputError, MissingQueryError, ZeroIdealError
from rankproof.explain.why import why

# ragas rows: q1 retrieves d1 and an unjudged chunk (precision 1/2), q2 retrieves nothing.
RAGAS = [{"user_input": "q1", "retrieved_context_ids": ["d1", "c1"], "reference_context_ids": ["d1"]},
         {"user_input": "q2", "retrieved_context_ids": [], "reference_context_ids": ["d2"]}]
# LlamaIndex rows: q1 perfect, q2 with an empty expected list.
LLAMA = [{"query": "q1", "retrieved_ids": ["d1"], "expected_ids": ["d1"]},
         {"query": "q2", "retrieved_ids": ["d3"], "expected_ids": []}]


def test_ragas_skips_an_empty_retrieved_list():
    # ragas: precision(q1) = 1/2, precision(q2) = NaN, nanmean = 0.5 (rankproof said 0.25: q2 scored 0).
    results = evaluate_rag(RAGAS, ["set_p", "ap"], "ragas")
    assert results.means() == pytest.approx({"set_p": 0.5, "ap": 1.0})
    assert results.counts["queries_ranked_empty"] == 1
    assert results.counts["queries_missing_from_run"] == 1
    # ragas' ID-based recall (ragas_sets): 0 for an empty retrieved list, averaged in.
    assert evaluate_rag(RAGAS, ["set_r"], "ragas_sets").mean("set_r") == pytest.approx(0.5)
    # the default protocol scores the empty row 0 (missing_query=zero), counted the same way
    assert evaluate_rag(RAGAS, ["set_p"]).mean("set_p") == pytest.approx(0.25)


def test_ragas_recall_skips_an_empty_ground_truth():
    rows = [RAGAS[0], {"user_input": "q3", "retrieved_context_ids": ["d1"], "reference_context_ids": []}]
    results = evaluate_rag(rows, ["set_r", "set_p"], "ragas_sets")
    assert results.per_query("set_r") == {"q1": 1.0}      # NaN for q3, skipped
    assert results.per_query("set_p") == {"q1": 0.5, "q3": 0.0}
    assert results.counts["queries_without_judgments"] == 1


def test_llamaindex_refuses_an_empty_retrieved_or_expected_list():
    with pytest.raises(ZeroIdealError, match="q2.*nothing relevant"):
        evaluate_rag(LLAMA, ["hit", "rr"], "llamaindex")          # rankproof said hit 1.0: q2 vanished
    empty = [LLAMA[0], {"query": "q2", "retrieved_ids": [], "expected_ids": ["d2"]}]
    with pytest.raises(MissingQueryError, match="q2"):
        evaluate_rag(empty, ["hit"], "llamaindex")                # rankproof said hit 0.5
    assert evaluate_rag(LLAMA[:1], ["hit", "rr"], "llamaindex").means() == {"hit": 1.0, "rr": 1.0}


def test_haystack_averages_an_empty_ground_truth_in():
    # Haystack's evaluators: the empty-truth query scores 0, so (1 + 0) / 2 (rankproof said 1.0).
    rows = [{"query_id": "q1", "retrieved": ["d1"], "relevant": ["d1"]},
            {"query_id": "q2", "retrieved": ["d3"], "relevant": []}]
    results = evaluate_rag(rows, ["rr", "ap", "hit", "set_r", "ndcg"], "haystack")
    assert results.means() == pytest.approx({"rr": 0.5, "ap": 0.5, "hit": 0.5, "set_r": 0.5, "ndcg": 0.5})
    assert results.counts["queries_without_judgments"] == 1
    assert results.counts["zero_ideal_queries"]["ndcg"] == 1
    # the same through evaluate with a query declared without judgments
    qrels = Qrels.from_dict({"q1": {"d1": 1}, "q2": {}})
    assert evaluate(qrels, Run.from_dict({"q1": ["d1"], "q2": ["d3"]}), ["rr"], "haystack").mean("rr") == 0.5
    # and an empty retrieved list scores 0 too, averaged in
    rows[1] = {"query_id": "q2", "retrieved": [], "relevant": ["d2"]}
    assert evaluate_rag(rows, ["rr"], "haystack").mean("rr") == 0.5


def test_the_cli_rag_command_applies_the_same_rules(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in RAGAS))
    assert main(["rag", str(path), "-m", "set_p", "--preset", "ragas", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"]["rows.jsonl"]["mean"]["set_p"] == pytest.approx(0.5)
    llama = tmp_path / "llama.jsonl"
    llama.write_text("".join(json.dumps(row) + "\n" for row in LLAMA))
    assert main(["rag", str(llama), "-m", "hit", "--preset", "llamaindex"]) == 2
    assert "nothing relevant" in capsys.readouterr().err


def test_trec_files_route(tmp_path):
    # A query judged but absent from the run file is the run's empty list; q2 judges only a non-relevant doc.
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d9 0\nq3 0 d3 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 c1 2 1.0 r\nq2 Q0 d9 1 1.0 r\n")
    qrels, run = Qrels.read_trec(tmp_path / "qrels"), Run.read_trec(tmp_path / "run")
    assert evaluate(qrels, run, ["set_p"], "ragas").per_query("set_p") == {"q1": 0.5, "q2": 0.0}
    assert evaluate(qrels, run, ["rr"], "haystack").per_query("rr") == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    with pytest.raises(MissingQueryError):
        evaluate(qrels, run, ["rr"], "llamaindex")
    (tmp_path / "qrels2").write_text("q1 0 d1 1\nq2 0 d9 0\n")
    with pytest.raises(ZeroIdealError, match="q2"):
        evaluate(Qrels.read_trec(tmp_path / "qrels2"), run, ["rr"], "llamaindex")


def test_why_names_the_empty_list_policy():
    qrels, run, _ = rag_inputs(RAGAS)
    found = why(qrels, run, ["set_p"], "ragas").get("set_p")
    assert (found.ours, found.peer) == pytest.approx((0.25, 0.5))
    shift = next(p for p in found.policies if p.policy == "missing_query")
    assert shift.shift == pytest.approx(0.25)   # "no effect on this data" before


def test_a_query_universe_in_the_qrels():
    qrels = Qrels.from_dict({"q1": {"d1": 1}, "q2": {}})
    assert qrels.queries.tolist() == ["q1", "q2"] and qrels.empty_queries.tolist() == ["q2"]
    assert qrels.to_dict() == {"q1": {"d1": 1}, "q2": {}}
    assert qrels.with_queries(["q3", "q1"]).to_dict() == {"q1": {"d1": 1}, "q2": {}, "q3": {}}
    assert Qrels.from_dict({"q1": {}}).num_queries == 1 and len(Qrels.from_dict({"q1": {}})) == 0
    with pytest.raises(InputError, match="no judgments"):
        Qrels.from_dict({})
    # the default protocol keeps a declared query in the mean, scored 0 and counted
    results = evaluate(qrels, Run.from_dict({"q1": ["d1"]}), ["ndcg", "p@1"], allow_partial=True)
    assert results.means() == {"ndcg": 0.5, "p@1": 0.5}
    assert results.counts["queries_without_judgments"] == 1
    # zero_ideal=exclude leaves it out of ndcg's mean (not of p@1's); the ids policy keeps it
    excluded = evaluate(qrels, Run.from_dict({"q1": ["d1"]}), ["ndcg", "p@1"],
                        Protocol().replace(zero_ideal="exclude"), allow_partial=True)
    assert excluded.means() == {"ndcg": 1.0, "p@1": 0.5}
    folded = evaluate(qrels, Run.from_dict({"Q1": ["D1"]}), ["ndcg"], Protocol().replace(ids="casefold"),
                      allow_partial=True)
    assert folded.counts["queries_in_qrels"] == 2 and folded.mean("ndcg") == 0.5
