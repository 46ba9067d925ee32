"""The RAG evaluation file reader (rankproof.io.rag): layouts, and bad or hostile rows refused by line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankproof.errors import ParseError
from rankproof.io.rag import detect_layout, read_rag


def jsonl(tmp_path: Path, *rows, name: str = "rows.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def refused(path: Path, said: str, line: int | None = None) -> str:
    with pytest.raises(ParseError) as caught:
        read_rag(path)
    text = str(caught.value)
    assert said in text, text
    if line is not None:
        assert f"line {line}" in text, text
    return text


def test_layouts_detected_and_rows_kept(tmp_path):
    rows = read_rag(jsonl(tmp_path, {"id": 7, "user_input": "q?", "retrieved_context_ids": ["a", 3, "a"],
                                     "reference_context_ids": ["a"]},
                          {"id": 8, "user_input": "q?", "retrieved_context_ids": [], "reference_context_ids": []}))
    assert rows.layout == "ragas" and rows.rows == 2 and rows.empty == 1 and rows.unjudged == 1
    assert rows.rankings == {"7": ["a", "3", "a"], "8": []}  # the id field names the query; duplicates kept for the policy
    assert rows.judgments == {"7": {"a": 1}, "8": {}}  # 8: an empty ground truth, kept (issue 36)
    assert detect_layout(["retrieved", "relevant", "query_id"], "x") == "rankproof"


def test_scores_keep_first_of_repeated_id_and_grades(tmp_path):
    rows = read_rag(jsonl(tmp_path, {"qid": "q", "retrieved": ["a", "b", "a"], "scores": [3, 2.5, 1],
                                     "relevant": ["a", "b"], "grades": [2, 0]}))
    assert rows.rankings == {"q": {"a": 3.0, "b": 2.5}} and rows.judgments == {"q": {"a": 2, "b": 0}}


@pytest.mark.parametrize("row, said", [
    ({"qid": "q", "retrieved": "a b", "relevant": ["a"]}, "retrieved is a str, not a list"),
    ({"qid": "q", "retrieved": ["a", None], "relevant": ["a"]}, "the doc id None"),
    ({"qid": "q", "retrieved": ["a"], "relevant": {"a": 1.5}}, "the grade 1.5 of a is not an integer"),
    ({"qid": "q", "retrieved": ["a"], "relevant": ["a"], "grades": [1, 2]}, "1 relevant ids but 2 grades"),
    ({"qid": "q", "retrieved": ["a", "b"], "scores": [1], "relevant": ["a"]}, "scores must hold 2 numbers"),
    ({"qid": "q", "retrieved": ["a"], "scores": ["high"], "relevant": ["a"]}, "scores must hold 1 numbers"),
    ({"retrieved": ["a"], "relevant": ["a"]}, "has no query id"),
    ({"qid": "q2", "contexts": ["a"]}, "has no retrieved field (rankproof layout)"),
])
def test_bad_rows_refused_with_their_line(tmp_path, row, said):
    refused(jsonl(tmp_path, {"qid": "ok", "retrieved": ["a"], "relevant": ["a"]}, row), said, line=2)


def test_hostile_input(tmp_path):
    refused(jsonl(tmp_path, "{" * 3 + "not json"), "is not valid JSON", line=1)
    refused(jsonl(tmp_path, '{"qid": "q", "retrieved": ' + "[" * 200 + "]" * 200 + ', "relevant": ["a"]}'),
            "nested deeper", line=1)
    refused(jsonl(tmp_path, {"qid": "q", "retrieved": ["x" * 5000], "relevant": ["a"]}), "id length", line=1)
    refused(jsonl(tmp_path, "[1, 2]"), "not an object", line=1)
    refused(jsonl(tmp_path, ""), "holds no rows")
    refused(jsonl(tmp_path, {"question": "q", "contexts": ["a"]}), "names no known RAG layout", line=1)
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(ParseError, match="is not a Parquet file"):
        read_rag(tmp_path / "bad.parquet")
    with pytest.raises(ParseError, match="the layout dspy is not known"):
        read_rag(jsonl(tmp_path, {"qid": "q"}), layout="dspy")
