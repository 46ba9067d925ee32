"""rankproof evaluate --tie-range: the range over tied orders in every output
format, and score_precision=bfloat16 counting the ties it makes."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from rankproof.cli.app import main

# q1: x (unjudged) and a (grade 2) tie at the top, b (grade 1) below. q2: z (relevant) and y tie.
# NDCG@2 of q1 (ideal a, b = 2 + 1/log2 3): a first 2 / ideal, x first (2 / log2 3) / ideal.
QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 z 1\n"
RUN = "q1 Q0 x 1 0.5 r\nq1 Q0 a 2 0.5 r\nq1 Q0 b 3 0.2 r\nq2 Q0 z 1 1.0 r\nq2 Q0 y 2 1.0 r\n"
IDEAL = 2 + 1 / math.log2(3)
Q1 = (2 / math.log2(3) / IDEAL, 2 / IDEAL)
Q2 = (1 / math.log2(3), 1.0)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def _run(capsys, *args) -> str:
    assert main(["evaluate", *args, "--quiet"]) == 0
    return capsys.readouterr().out


def test_csv_min_max_columns(files, capsys):
    rows = list(csv.DictReader(io.StringIO(_run(capsys, *files, "-m", "ndcg@2", "--tie-range", "--format", "csv",
                                                  "--per-query"))))
    by_query = {r["query"]: (float(r["min"]), float(r["max"])) for r in rows}
    assert by_query["q1"] == pytest.approx(Q1)
    assert by_query["q2"] == pytest.approx(Q2)
    assert by_query["all"] == pytest.approx(((Q1[0] + Q2[0]) / 2, (Q1[1] + Q2[1]) / 2))
    # Without --tie-range the columns are as before.
    assert _run(capsys, *files, "-m", "ndcg@2", "--format", "csv").splitlines()[0] == "run,query,measure,value"


def test_json_tie_range(files, capsys):
    document = json.loads(_run(capsys, *files, "-m", "p@1", "--tie-range", "--format", "json"))
    found = document["runs"]["run.txt"]["tie_range"]["p@1"]
    assert (found["min"], found["max"]) == (0.0, 1.0)
    assert found["per_query"] == {"q1": [0.0, 1.0], "q2": [0.0, 1.0]}


def test_table_and_markdown(files, capsys):
    table = _run(capsys, *files, "-m", "p@1", "--tie-range", "--per-query")
    assert "0.5000 ties [0.0000, 1.0000]" in table
    assert table.count("ties [0.0000, 1.0000]") == 3  # the mean, q1, q2
    markdown = _run(capsys, *files, "-m", "p@1", "--tie-range", "--format", "markdown")
    assert "| 0.5000 ties [0.0000, 1.0000] |" in markdown


def test_tie_range_refused_out_of_memory(files, capsys):
    assert main(["evaluate", *files, "--tie-range", "--memory-budget", "1GB"]) != 0
    assert "--tie-range evaluates on this machine, in memory" in capsys.readouterr().err


def test_bfloat16_counts_the_ties_it_makes(tmp_path, capsys):
    # 0.5001 and 0.5002 differ in float64 and float32, not in bfloat16 (steps of 2^-9 in [0.5, 1)).
    (tmp_path / "qrels.txt").write_text("q 0 a 1\n")
    (tmp_path / "run.txt").write_text("q Q0 b 1 0.5002 r\nq Q0 a 2 0.5001 r\n")
    args = [str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "-m", "p@1", "--format", "json"]
    assert main(["evaluate", *args, "--policy", "score_precision=bfloat16", "--tie-range"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["counts"]["run.txt"]["tied_groups_from_precision"] == 1
    assert document["runs"]["run.txt"]["mean"]["p@1"] == 0.5
    assert document["runs"]["run.txt"]["tie_range"]["p@1"]["per_query"]["q"] == [0.0, 1.0]
    assert "tied groups made by score_precision: 1" in captured.err
    assert main(["evaluate", *args]) == 0
    assert json.loads(capsys.readouterr().out)["runs"]["run.txt"]["mean"]["p@1"] == 0.0
