"""Ids that would break or forge output lines (issue 28, hostile round item 4).

A query id read from CSV as ``"q1\\nndcg@10 all 0.9999"`` was written raw into
``--format trec``: the second half became a line a trec_eval parser reads as a
mean. The trec layout cannot hold blanks or control characters in ids, so it
refuses them in one line; text tables escape them; CSV and JSON quote them.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from rankproof import Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import InputError
from rankproof.report.data import to_trec
from rankproof.report.table import to_markdown, to_table

FORGED = "q1\nndcg@10 all 0.9999"


@pytest.fixture
def results():
    qrels = Qrels.from_dict({FORGED: {"d1": 1}, "q2": {"d2": 1}})
    run = Run.from_dict({FORGED: ["d1"], "q2": ["x", "d2"]}, name="r")
    return [evaluate(qrels, run, ["rr"])]


def test_trec_format_refuses_what_it_cannot_hold(results):
    with pytest.raises(InputError, match="cannot hold"):
        to_trec(results, per_query=True)
    assert "all\t0.7500" in to_trec(results)            # the means alone name no query


def test_text_tables_escape_and_never_forge_a_line(results):
    for text in (to_table(results, per_query=True), to_markdown(results, per_query=True)):
        assert not any(line.startswith("ndcg@10 all") for line in text.splitlines()), text
        assert "q1\\nndcg@10 all 0.9999" in text.replace("\\\\", "\\")


def test_csv_and_json_round_trip_the_id(tmp_path, capsys):
    (tmp_path / "q.csv").write_text(f'query,doc,grade\n"{FORGED}",d1,1\nq2,d2,1\n')
    (tmp_path / "r.csv").write_text(f'query,doc,score\n"{FORGED}",d1,1\nq2,d2,1\n')
    argv = ["evaluate", str(tmp_path / "q.csv"), str(tmp_path / "r.csv"), "-m", "rr", "--per-query"]
    assert main(argv + ["--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert any(FORGED in row for row in rows)
    assert main(argv + ["--format", "json"]) == 0
    assert FORGED in json.loads(capsys.readouterr().out)["runs"]["r.csv"]["per_query"]
    assert main(argv + ["--format", "trec"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "query id 'q1\\nndcg@10" in err and "--format csv or json" in err


def test_csv_ids_round_trip_unless_made_spreadsheet_safe(tmp_path, capsys):
    # issue 28 (item 6): ids starting with = + - @ were written as they are without a word; they
    # still are (so they read back), and --spreadsheet-safe puts a ' before them for spreadsheets.
    (tmp_path / "q.csv").write_text('query,doc,grade\n"=1+1",d1,1\n-q2,d2,1\n')
    (tmp_path / "r.csv").write_text('query,doc,score\n"=1+1",d1,1\n-q2,d2,1\n')
    argv = ["evaluate", str(tmp_path / "q.csv"), str(tmp_path / "r.csv"), "-m", "rr", "--per-query",
            "--format", "csv"]
    assert main(argv) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert {row[1] for row in rows[1:]} == {"=1+1", "-q2", "all"}
    assert main(argv + ["--spreadsheet-safe"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert {row[1] for row in rows[1:]} == {"'=1+1", "'-q2", "all"}
