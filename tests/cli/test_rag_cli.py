"""``rankproof rag FILE`` (issue 27): ragas and LlamaIndex rows read as they are, the chunk mismatch refused.

Expected values are worked by hand from the rows below (binary relevance):
"What is BM25?" retrieves d3, d1, d7 with d1 and d2 relevant: rr 1/2,
recall@3 1/2, P@3 1/3, nDCG@3 = (1/log2 3) / (1 + 1/log2 3) = 0.386853;
"Who wrote trec_eval?" finds its one relevant doc first: 1 everywhere;
"What is a qrel?" retrieves nothing: 0 everywhere.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from rankproof.cli.app import main

RAGAS = [
    {"user_input": "What is BM25?", "retrieved_contexts": ["...", "...", "..."],
     "retrieved_context_ids": ["d3", "d1", "d7"], "reference_context_ids": ["d1", "d2"], "response": "..."},
    {"user_input": "Who wrote trec_eval?", "retrieved_context_ids": ["d5", "d9"], "reference_context_ids": ["d5"]},
    {"user_input": "What is a qrel?", "retrieved_context_ids": [], "reference_context_ids": ["d8"]},
]
LLAMAINDEX = [
    {"query": row["user_input"], "expected_ids": row["reference_context_ids"],
     "retrieved_ids": row["retrieved_context_ids"], "retrieved_texts": ["..."] * len(row["retrieved_context_ids"]),
     "mode": "text"}
    for row in RAGAS
]
NDCG_1 = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
PER_QUERY = {"What is BM25?": {"ndcg@3": NDCG_1, "r@3": 0.5, "rr": 0.5, "p@3": 1 / 3},
             "Who wrote trec_eval?": {"ndcg@3": 1.0, "r@3": 1.0, "rr": 1.0, "p@3": 1 / 3},  # P@k divides by k
             "What is a qrel?": {"ndcg@3": 0.0, "r@3": 0.0, "rr": 0.0, "p@3": 0.0}}
MEASURES = ["-m", "ndcg@3", "-m", "recall@3", "-m", "rr", "-m", "P@3"]


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def values(capsys, *args) -> dict:
    code, out, err = cli(capsys, *args, *MEASURES, "--format", "json")
    assert code == 0, err
    return next(iter(json.loads(out)["runs"].values()))


def check(run: dict, ids: "dict[str, str] | None" = None) -> None:
    for query, expected in PER_QUERY.items():
        assert run["per_query"][(ids or {}).get(query, query)] == pytest.approx(expected, abs=1e-12)
    for measure in ("ndcg@3", "r@3", "rr", "p@3"):
        assert run["mean"][measure] == pytest.approx(sum(v[measure] for v in PER_QUERY.values()) / 3, abs=1e-12)


def test_ragas_rows(tmp_path, capsys):
    path = jsonl(tmp_path / "ragas.jsonl", RAGAS)
    check(values(capsys, "rag", path))
    code, out, err = cli(capsys, "rag", path, *MEASURES)
    assert code == 0
    assert out.splitlines()[1].split() == ["ragas.jsonl", "0.4623", "0.5000", "0.5000", "0.2222", "3"]
    assert "protocol     " in out and "fingerprint  " in out
    assert "ragas layout, 3 rows, 1 with nothing retrieved; 3 queries with relevant ids" in err
    assert "queries evaluated: 3" in err


def test_llamaindex_rows_jsonl_and_parquet(tmp_path, capsys):
    check(values(capsys, "rag", jsonl(tmp_path / "results.jsonl", LLAMAINDEX)))
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "results.parquet"
    pq.write_table(pa.Table.from_pylist(LLAMAINDEX), path)
    check(values(capsys, "rag", path))
    code, _, err = cli(capsys, "rag", path, "--layout", "llamaindex")
    assert code == 0 and "llamaindex layout" in err


def test_llamaindex_json_list_and_dataset_judgments(tmp_path, capsys):
    """Results dumped as a JSON list; the relevant ids from the dataset JSON (EmbeddingQAFinetuneDataset)."""
    ids = {row["query"]: f"uuid-{i}" for i, row in enumerate(LLAMAINDEX)}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(LLAMAINDEX))
    check(values(capsys, "rag", path))
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps({"queries": {ids[r["query"]]: r["query"] for r in LLAMAINDEX},
                                   "corpus": {d: "..." for d in "d1 d2 d3 d5 d7 d8 d9".split()},
                                   "relevant_docs": {ids[r["query"]]: r["expected_ids"] for r in LLAMAINDEX},
                                   "mode": "text"}))
    path.write_text(json.dumps([{k: v for k, v in r.items() if k != "expected_ids"} for r in LLAMAINDEX]))
    check(values(capsys, "rag", path, "--judgments", dataset), ids)


def test_rankproof_rows_with_scores_and_grades(tmp_path, capsys):
    rows = [{"query_id": "q1", "retrieved": ["a", "b", "c"], "scores": [0.2, 0.9, 0.5], "relevant": {"a": 2, "c": 1}},
            {"query_id": "q2", "retrieved": ["x"], "scores": [1.0], "relevant": ["x"], "grades": [3]}]
    run = values(capsys, "rag", jsonl(tmp_path / "rows.jsonl", rows))
    # q1 by score: b, c, a; gains 0, 1, 2: DCG = 1/log2 3 + 2/2; ideal 2 + 1/log2 3; AP = (1/2 + 2/3) / 2.
    assert run["per_query"]["q1"]["ndcg@3"] == pytest.approx((1 / math.log2(3) + 1) / (2 + 1 / math.log2(3)))
    assert run["per_query"]["q1"]["rr"] == 0.5
    assert run["per_query"]["q2"]["ndcg@3"] == 1.0


def test_layout_unknown_and_repeated_query_refused(tmp_path, capsys):
    err = cli(capsys, "rag", jsonl(tmp_path / "x.jsonl", [{"question": "q", "contexts": []}]))[2]
    assert "names no known RAG layout" in err and "--layout" in err and err.count("\n") == 1
    err = cli(capsys, "rag", jsonl(tmp_path / "y.jsonl", RAGAS[:2] + RAGAS[:1]))[2]
    assert "line 3" in err and "repeats the query of line 1" in err


def test_duplicates_refused_then_counted_once(tmp_path, capsys):
    rows = [dict(RAGAS[1], retrieved_context_ids=["d5", "d5", "d9"])]
    code, out, err = cli(capsys, "rag", jsonl(tmp_path / "dup.jsonl", rows))
    assert (code, out) == (2, "") and "duplicates=first" in err
    run = values(capsys, "rag", tmp_path / "dup.jsonl", "--policy", "duplicates=first")
    assert run["per_query"]["Who wrote trec_eval?"]["p@3"] == pytest.approx(1 / 3)  # d5 once, not twice


def test_chunk_ids_against_doc_ids_refused_in_one_line(tmp_path, capsys):
    rows = [{"query_id": "q1", "retrieved": ["d3#0", "d1#2", "d1#0"], "relevant": ["d1", "d2"]},
            {"query_id": "q2", "retrieved": ["d5#1", "d9#0"], "relevant": ["d5"]}]
    path = jsonl(tmp_path / "chunks.jsonl", rows)
    code, out, err = cli(capsys, "rag", path)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err
    assert "none of the 5 retrieved ids is a relevant id" in err and "--chunk-map sep:#" in err
    assert "--allow-partial" in err
    # --allow-partial evaluates the ids as written (all zero); --chunk-map maps each chunk to its doc.
    assert values(capsys, "rag", path, "--allow-partial")["mean"]["rr"] == 0.0
    mapped = values(capsys, "rag", path, "--chunk-map", "sep:#")
    assert mapped["per_query"]["q1"]["rr"] == 0.5 and mapped["per_query"]["q2"]["rr"] == 1.0


def test_case_difference_named(tmp_path, capsys):
    rows = [{"query_id": "q1", "retrieved": ["D1", "D2"], "relevant": ["d1"]}]
    err = cli(capsys, "rag", jsonl(tmp_path / "case.jsonl", rows))[2]
    assert "ids=casefold" in err


def test_chunk_map_option_shown_and_single(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "--chunk-map SPEC" in capsys.readouterr().out
    code, _, err = cli(capsys, "evaluate", "q.txt", "r.txt", "--chunk-map", "sep:#", "--policy", "chunk_map=sep:_")
    assert code == 2 and "given twice" in err


def test_rag_and_evaluate_take_the_same_output_options(tmp_path, capsys):
    """--format, --precision, --names, -o and --quiet: one definition (cli.render.add_output_options), one output."""
    import argparse

    from rankproof.cli.commands import evaluate as evaluate_command, rag as rag_command

    def options(command) -> tuple:
        parser = argparse.ArgumentParser(prog="x")
        command.add_arguments(parser)
        given = ["--format", "csv", "--precision", "3", "--names", "a=b", "-o", "f", "--quiet"]
        parsed = vars(parser.parse_known_args(["in.txt", *given])[0])
        helps = re.findall(r"(?ms)^  (--format|--precision|--names|-o|--quiet)\b.*?(?=^  -|\Z)",
                           parser.format_help())
        blocks = re.findall(r"(?ms)^  (?:--format|--precision|--names|-o|--quiet)\b.*?(?=^  -|\Z)",
                            parser.format_help())
        return {k: parsed[k] for k in ("format", "precision", "names", "output", "quiet")}, helps, blocks

    assert options(evaluate_command) == options(rag_command)
    assert options(rag_command)[1] == ["--format", "--precision", "--names", "-o", "--quiet"]
    path = jsonl(tmp_path / "ragas.jsonl", RAGAS)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{r['user_input'].replace(' ', '_')} 0 {d} 1\n"
                             for r in RAGAS for d in r["reference_context_ids"]))
    run.write_text("".join(f"{r['user_input'].replace(' ', '_')} Q0 {d} {i + 1} {10 - i} t\n"
                           for r in RAGAS for i, d in enumerate(r["retrieved_context_ids"])))
    shown = ("--format", "markdown", "--precision", "2", "--names", "R=r@3", "--quiet")
    code, out, err = cli(capsys, "rag", path, "-m", "r@3", *shown, "-o", tmp_path / "rag.md")
    assert (code, out, err) == (0, "", "")
    code, out, err = cli(capsys, "evaluate", qrels, run, "-m", "r@3", *shown, "-o", tmp_path / "evaluate.md")
    assert (code, out, err) == (0, "", "")
    rag_lines = (tmp_path / "rag.md").read_text().splitlines()
    evaluate_lines = (tmp_path / "evaluate.md").read_text().splitlines()
    assert "R" in rag_lines[0] and rag_lines[0] == evaluate_lines[0]
    assert rag_lines[2].split("|")[2:] == evaluate_lines[2].split("|")[2:]  # the mean (1/2 + 1 + 0) / 3 = 0.50
    assert "0.50" in rag_lines[2]
