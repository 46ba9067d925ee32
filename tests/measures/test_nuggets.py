"""Nugget scores (issue 27) against nuggetizer's formulas, on the examples of its repository.

The hand-worked table (nuggetizer cannot be installed here: it requires Python >= 3.12) is in
tests/support/nugget_table.py, shared with the tests of nugget Results, compare and the report.
"""

from __future__ import annotations

import json

import pytest

from rankproof.cli.app import main
from rankproof.measures.nuggets import NUGGET_SCORES, nugget_values

from nugget_table import EXPECTED, MEANS, RECORDS, nugget, write


def test_values_equal_nuggetizer_formulas():
    values = nugget_values([[(n["importance"], n["assignment"]) for n in r["nuggets"]] for r in RECORDS])
    for i, expected in enumerate(EXPECTED.values()):
        assert tuple(float(values[s][i]) for s in NUGGET_SCORES) == expected
    assert MEANS == (0.5, 0.5, 0.625, 0.59375)


def test_command_per_query_and_mean(tmp_path, capsys):
    path = write(tmp_path / "assign.jsonl", RECORDS)
    assert main(["nuggets", str(path), "--per-query", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"]["assign.jsonl"]
    assert tuple(run["mean"][s] for s in NUGGET_SCORES) == pytest.approx(MEANS, abs=1e-15)
    for query, expected in EXPECTED.items():
        assert tuple(run["per_query"][query][s] for s in NUGGET_SCORES) == expected
    assert main(["nuggets", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split() == ["assign.jsonl", "0.5000", "0.5000", "0.6250", "0.5938", "4"]


def test_two_files_one_row_each(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", RECORDS[:1])
    b = write(tmp_path / "b.jsonl", RECORDS[2:3])
    assert main(["nuggets", str(a), str(b), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run,query," + ",".join(NUGGET_SCORES)
    assert "a.jsonl,all,1.0,0.5,1.0,0.625" in lines and "b.jsonl,all,0.0,0.5,0.5,0.75" in lines


@pytest.mark.parametrize("record, said", [
    ({"qid": "q1", "nuggets": [{"importance": "high", "assignment": "support"}]}, "importance 'high'"),
    ({"qid": "q1", "nuggets": [{"importance": "vital", "assignment": "yes"}]}, "assignment 'yes'"),
    ({"qid": "q1"}, "has no nuggets field"),
    ({"nuggets": []}, "has no qid"),
])
def test_bad_records_refused_with_line(tmp_path, capsys, record, said):
    path = write(tmp_path / "bad.jsonl", [RECORDS[1], record])
    assert main(["nuggets", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and said in err and err.count("\n") == 1


def test_query_answered_twice_refused(tmp_path, capsys):
    path = write(tmp_path / "twice.jsonl", [RECORDS[0], RECORDS[1], RECORDS[0]])
    assert main(["nuggets", str(path)]) == 2
    assert "line 3: query q1: answers the query of line 1 again" in capsys.readouterr().err


def test_compare_two_files_paired_on_shared_queries(tmp_path, capsys):
    """B supports every nugget of the four answers: all scores 1 (q4 has no vital nugget: its vital scores stay 0).

    all_score differences B - A per query: 0.375, 0.5, 0.25, 0.5, all positive: the exact randomization test
    over the 2**4 sign assignments gives p = 2 x 1/16 = 0.125; wins 4.
    """
    a = write(tmp_path / "a.jsonl", RECORDS)
    full = [dict(r, nuggets=[dict(n, assignment="support") for n in r["nuggets"]]) for r in RECORDS]
    b = write(tmp_path / "b.jsonl", full + [{"qid": "q9", "nuggets": [nugget("vital", "support")]}])
    # Through rankproof compare's path: B answers a query A does not, so the query sets (and the nuggets
    # judging them) differ, refused as compare refuses runs on other queries, naming the option.
    assert main(["nuggets", str(a), str(b), "--compare", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "query sets differ: 1 only in b (q9)" in err and "--allow-mismatch" in err and err.count("\n") == 1
    assert main(["nuggets", str(a), str(b), "--compare", "--format", "json", "--allow-mismatch"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["measure"]: row for row in document["rows"]}
    assert document["settings"]["test"] == "randomization" and document["settings"]["correction"] == "holm"
    all_score = rows["all_score"]
    assert all_score["queries"] == 4 and all_score["mean_a"] == MEANS[3] and all_score["mean_b"] == 1.0
    assert all_score["difference"] == pytest.approx((0.375 + 0.5 + 0.25 + 0.5) / 4)
    assert all_score["p_value"] == pytest.approx(0.125) and (all_score["wins"], all_score["ties"]) == (4, 0)
    vital = rows["vital_score"]  # q1, q2 already 1; q3 0.5 -> 1; q4 0 -> 0
    assert (vital["wins"], vital["ties"], vital["losses"]) == (1, 3, 0)
    assert main(["nuggets", str(a), "--compare"]) == 2
