"""Column options on the command line: contradictions refused, errors worded as options (issue 28, items 2 and 9).

A CSV whose columns have other names was met with "pass the right column names
with query=, doc=" (Python's keywords) on the command line; ``--columns
query=doc`` (one column for two roles) and ``--columns query=qid --query-col
query`` (two columns for one role, the first silently dropped) were accepted.
"""

from __future__ import annotations

import pytest

from rankproof.cli.app import main

from paths import CRANFIELD

QRELS = str(CRANFIELD / "qrels.txt")


@pytest.fixture
def csv_run(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("qid,docno,sim\n1,184,2.0\n1,29,1.0\n2,12,1.0\n")
    return str(path)


def _error(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_missing_columns_are_worded_as_options_with_a_guess(csv_run, capsys):
    err = _error(capsys, ["evaluate", QRELS, csv_run])
    assert "no column 'query' (--query-col) and no column 'doc' (--doc-col)" in err
    assert "--columns query=qid,doc=docno" in err and "query=," not in err


def test_the_guess_it_gives_runs(csv_run, capsys):
    assert main(["evaluate", QRELS, csv_run, "--columns", "query=qid,doc=docno,score=sim",
                 "--allow-partial", "-m", "p@1"]) == 0


def test_one_column_for_two_roles_is_refused(csv_run, capsys):
    err = _error(capsys, ["evaluate", QRELS, csv_run, "--columns", "query=doc"])
    assert "column 'doc' is named for two roles, query and doc" in err
    err = _error(capsys, ["evaluate", QRELS, csv_run, "--query-col", "qid", "--doc-col", "qid"])
    assert "column 'qid' is named for two roles" in err


def test_two_columns_for_one_role_are_refused(csv_run, capsys):
    err = _error(capsys, ["evaluate", QRELS, csv_run, "--columns", "query=qid", "--query-col", "query"])
    assert "'qid'" in err and "--query-col names 'query'" in err
