"""The run3 format: 'query doc score' lines, as many RAG and MTEB dumps write (issue 28)."""

from __future__ import annotations

import math

import pytest

import rankproof
from rankproof.cli import main
from rankproof.data.qrels import Qrels
from rankproof.data.run import Run
from rankproof.errors import ParseError
from rankproof.io.formats import FORMATS, read_qrels_columns, read_run_columns


def _write(path, text: str):
    path.write_text(text)
    return str(path)


def test_run3_is_a_named_format():
    assert "run3" in FORMATS


def test_a_three_column_file_is_detected_and_read(tmp_path):
    path = _write(tmp_path / "run.txt", "# dump\n\nq1 d2 2.5\r\nq1\td1   1.0\nq2 d3 -0.5\n")
    columns = read_run_columns(path)
    assert list(columns.query_vocab[columns.query_codes]) == ["q1", "q1", "q2"]
    assert list(columns.doc_vocab[columns.doc_codes]) == ["d2", "d1", "d3"]
    assert list(columns.score) == [2.5, 1.0, -0.5]
    assert list(columns.line) == [3, 4, 5]
    assert columns.tag is None


def test_format_run3_is_taken_whatever_the_extension(tmp_path):
    path = _write(tmp_path / "run.tsv", "q1 d1 3\n")
    columns = read_run_columns(path, "run3")
    assert list(columns.doc_vocab[columns.doc_codes]) == ["d1"] and list(columns.score) == [3.0]


def test_values_by_hand(tmp_path):
    # q1: d2 (not judged) above d1 (grade 1): ndcg@10 = (1 / log2(3)) / 1; q2: d3 first: 1.
    qrels = Qrels.read(_write(tmp_path / "qrels.txt", "q1 0 d1 1\nq2 0 d3 1\n"))
    run = Run.read(_write(tmp_path / "run.txt", "q1 d2 2.5\nq1 d1 1.0\nq2 d3 0.5\n"))
    results = rankproof.evaluate(qrels, run, ["ndcg@10"])
    expected = (1 / math.log2(3) + 1.0) / 2
    assert results.mean("ndcg@10") == pytest.approx(expected, abs=1e-12)


def test_a_short_line_names_file_and_line(tmp_path):
    path = _write(tmp_path / "run.txt", "q1 d1 2\nq1 d2\n")
    with pytest.raises(ParseError) as caught:
        read_run_columns(path)
    message = str(caught.value)
    assert "run.txt line 2" in message and "expected 3 columns (query doc score), found 2" in message


def test_a_trec_line_under_run3_says_so(tmp_path):
    path = _write(tmp_path / "run.txt", "q1 Q0 d1 1 2.0 tag\n")
    with pytest.raises(ParseError) as caught:
        read_run_columns(path, "run3")
    assert "line 1" in str(caught.value) and "format 'trec'" in str(caught.value)


def test_a_bad_score_under_run3_names_the_line(tmp_path):
    path = _write(tmp_path / "run.txt", "q1 d1 2\nq1 d2 high\n")
    with pytest.raises(ParseError) as caught:
        read_run_columns(path, "run3")
    assert "line 2" in str(caught.value) and "'high' is not a number" in str(caught.value)


def test_three_columns_without_a_numeric_third_are_asked_for(tmp_path):
    # Not unambiguous: read as TREC, and the message asks for run3.
    path = _write(tmp_path / "run.txt", "q1 d1 high\n")
    with pytest.raises(ParseError) as caught:
        read_run_columns(path)
    message = str(caught.value)
    assert "line 1" in message and "expected 6 columns" in message and "format 'run3'" in message


def test_an_explicit_trec_format_is_not_overridden(tmp_path):
    path = _write(tmp_path / "run.txt", "q1 d1 2\n")
    with pytest.raises(ParseError, match="expected 6 columns"):
        read_run_columns(path, "trec")


def test_run3_qrels_are_refused(tmp_path):
    path = _write(tmp_path / "qrels.txt", "q1 d1 1\n")
    with pytest.raises(ParseError, match="holds a run, not judgments"):
        read_qrels_columns(path, "run3")


def test_cli_reads_run3(tmp_path, capsys):
    qrels = _write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    run = _write(tmp_path / "run.tsv", "q1 d2 2.5\nq1 d1 1.0\n")
    assert main(["evaluate", qrels, run, "--run-format", "run3", "-m", "p@1", "--format", "csv"]) == 0
    assert "run.tsv,all,p@1,0.0" in capsys.readouterr().out.splitlines()   # d2 first, not judged
    assert main(["evaluate", qrels, run, "--run-format", "run3", "-m", "rr", "--format", "csv"]) == 0
    assert "run.tsv,all,rr,0.5" in capsys.readouterr().out.splitlines()     # d1 second


def test_run3_cut_into_parts_reads_as_a_whole(tmp_path, monkeypatch):
    # Big files are scanned in parts, in threads, their id tables merged: force four parts.
    import rankproof.io.trec as trec

    monkeypatch.setattr(trec, "_PART_BYTES", 1)
    monkeypatch.setattr(trec.os, "cpu_count", lambda: 4)
    lines = [f"q{i % 3} d{i % 7} {i}.25" for i in range(40)]
    path = _write(tmp_path / "run.txt", "\n".join(lines) + "\n")
    columns = read_run_columns(path)
    assert list(columns.query_vocab[columns.query_codes]) == [f"q{i % 3}" for i in range(40)]
    assert list(columns.doc_vocab[columns.doc_codes]) == [f"d{i % 7}" for i in range(40)]
    assert list(columns.score) == [i + 0.25 for i in range(40)]
    assert list(columns.line) == list(range(1, 41))
