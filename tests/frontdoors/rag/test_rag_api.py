"""The Python front door of RAG rows (issue 27): ``rankproof.evaluate_rag`` and ``rankproof.rag_inputs``.

The rows are test_rag_cli.py's, worked by hand there (binary relevance):
"What is BM25?" retrieves d3, d1, d7 with d1 and d2 relevant: rr 1/2,
recall@3 1/2, nDCG@3 = (1/log2 3) / (1 + 1/log2 3); "Who wrote trec_eval?"
finds its one relevant doc first: 1; "What is a qrel?" retrieves nothing: 0.
The same values come from a file, a list of dicts, a pandas and a polars
table, in the ragas and the LlamaIndex layouts.
"""

from __future__ import annotations

import json
import math

import pytest

import rankproof
from rankproof import evaluate_rag, rag_inputs
from rankproof.errors import CoverageError, ParseError, ProtocolError

RAGAS = [
    {"user_input": "What is BM25?", "retrieved_context_ids": ["d3", "d1", "d7"], "reference_context_ids": ["d1", "d2"]},
    {"user_input": "Who wrote trec_eval?", "retrieved_context_ids": ["d5", "d9"], "reference_context_ids": ["d5"]},
    {"user_input": "What is a qrel?", "retrieved_context_ids": [], "reference_context_ids": ["d8"]},
]
LLAMAINDEX = [{"query": r["user_input"], "retrieved_ids": r["retrieved_context_ids"],
               "expected_ids": r["reference_context_ids"]} for r in RAGAS]
EXPECTED = {
    "What is BM25?": {"ndcg@3": (1 / math.log2(3)) / (1 + 1 / math.log2(3)), "r@3": 0.5, "rr": 0.5},
    "Who wrote trec_eval?": {"ndcg@3": 1.0, "r@3": 1.0, "rr": 1.0},
    "What is a qrel?": {"ndcg@3": 0.0, "r@3": 0.0, "rr": 0.0},
}
MEASURES = ["ndcg@3", "r@3", "rr"]


def check(results) -> None:
    for measure in MEASURES:
        per_query = results.per_query(measure)
        assert per_query.keys() == EXPECTED.keys()
        for query, expected in EXPECTED.items():
            assert per_query[query] == pytest.approx(expected[measure], abs=1e-12), (measure, query)


def test_exported_and_documented():
    assert {"evaluate_rag", "rag_inputs"} <= set(rankproof.__all__)
    assert evaluate_rag.__doc__ and rag_inputs.__doc__


@pytest.mark.parametrize("rows", [RAGAS, LLAMAINDEX], ids=["ragas", "llamaindex"])
def test_list_of_dicts_and_frames(rows):
    check(evaluate_rag(rows, MEASURES))
    pandas = pytest.importorskip("pandas")
    check(evaluate_rag(pandas.DataFrame(rows), MEASURES))
    polars = pytest.importorskip("polars")
    check(evaluate_rag(polars.DataFrame(rows), MEASURES))


def test_file_and_rows_give_one_result(tmp_path):
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in RAGAS))
    from_file = evaluate_rag(path, MEASURES)
    check(from_file)
    assert from_file.run_name == "ragas.jsonl"
    qrels, run, rows = rag_inputs(str(path))
    assert (rows.layout, rows.rows, rows.empty, len(rows.judgments), run.name) == ("ragas", 3, 1, 3, "ragas.jsonl")
    assert len(qrels) == 4  # judgment rows: d1 and d2, d5, d8


def test_preset_and_judgments_from_elsewhere():
    # llamaindex_sets: Precision over set(retrieved); rows' own ids replaced by a mapping.
    rows = [{"query": "q", "retrieved_ids": ["a", "a", "b"], "expected_ids": []}]
    found = evaluate_rag(rows, ["set_p", "rr"], "llamaindex_sets", judgments={"q": ["b"]})
    assert found.per_query("set_p") == {"q": 0.5} and found.per_query("rr") == {"q": 0.5}
    graded = evaluate_rag(rows, ["ndcg@2"], "haystack", judgments={"q": {"a": 2, "b": 1}})
    assert graded.mean("ndcg@2") == pytest.approx((2 + 0) / (2 + 1 / math.log2(3)))  # the copy of a earns nothing


def test_chunks_refused_with_the_mapping_then_mapped():
    rows = [{"qid": "q1", "retrieved": ["A#0", "B#2"], "relevant": ["B"]},
            {"qid": "q2", "retrieved": ["C#1"], "relevant": ["C"]}]
    with pytest.raises(CoverageError) as caught:
        evaluate_rag(rows, ["rr"])
    text = str(caught.value)
    assert "none of the 3 retrieved ids is a relevant id" in text and "chunk_map='sep:#'" in text
    assert "allow_partial=True" in text and "\n" not in text
    assert evaluate_rag(rows, ["rr"], allow_partial=True).mean("rr") == 0.0
    assert evaluate_rag(rows, ["rr"], chunk_map="sep:#").per_query("rr") == {"q1": 0.5, "q2": 1.0}
    with pytest.raises(ProtocolError, match="given twice"):
        evaluate_rag(rows, ["rr"], rankproof.Protocol(chunk_map="sep:_"), chunk_map="sep:#")


def test_bad_rows_named():
    with pytest.raises(ParseError, match="line 2.*is a str, not a dict"):
        evaluate_rag([RAGAS[0], "q"], ["rr"])
    with pytest.raises(ParseError, match="not rows"):
        evaluate_rag({"user_input": "q"}, ["rr"])
    with pytest.raises(ParseError, match="holds no relevant ids"):
        evaluate_rag([{"query": "q", "retrieved_ids": ["a"], "expected_ids": []}], ["rr"])
