"""CSV and TSV files without a header line: header=False and --no-header (issue 28)."""

from __future__ import annotations

import math

import pytest

import rankproof
from rankproof.cli import main
from rankproof.data.qrels import Qrels
from rankproof.data.run import Run
from rankproof.errors import InputError, ParseError
from rankproof.io.formats import read_qrels_columns, read_run_columns


def _write(path, text: str):
    path.write_text(text)
    return str(path)


def test_columns_by_position(tmp_path):
    path = _write(tmp_path / "run.csv", "1,184,2.0\n1,29,1.0\n\n2,7,0.5\n")
    columns = read_run_columns(path, header=False)
    assert list(columns.query_vocab[columns.query_codes]) == ["1", "1", "2"]
    assert list(columns.doc_vocab[columns.doc_codes]) == ["184", "29", "7"]
    assert list(columns.score) == [2.0, 1.0, 0.5]
    assert list(columns.line) == [1, 2, 4]   # the first line is data


def test_named_by_position(tmp_path):
    path = _write(tmp_path / "qrels.tsv", "x\t1\td1\t2\nx\t1\td2\t0\n")
    columns = read_qrels_columns(path, header=False, query="1", doc="3", grade="4")
    assert list(columns.doc_vocab[columns.doc_codes]) == ["d1", "d2"] and list(columns.grade) == [2, 0]


def test_values_by_hand(tmp_path):
    qrels = Qrels.read(_write(tmp_path / "q.csv", "1,184,1\n1,29,2\n"), header=False)
    run = Run.read(_write(tmp_path / "r.csv", "1,184,2.0\n1,29,1.0\n"), header=False)
    # DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3).
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert rankproof.evaluate(qrels, run, ["ndcg@10"]).mean("ndcg@10") == pytest.approx(expected, abs=1e-12)


def test_a_name_without_a_header_is_refused(tmp_path):
    path = _write(tmp_path / "run.csv", "1,184,2.0\n")
    with pytest.raises(InputError, match="query='qid' names a column"):
        read_run_columns(path, header=False, query="qid")


def test_two_roles_on_one_position_are_refused(tmp_path):
    path = _write(tmp_path / "run.csv", "1,184,2.0\n")
    with pytest.raises(InputError, match="column 2 is taken for two roles, query and doc"):
        read_run_columns(path, header=False, query="2")


def test_no_header_is_for_csv_and_tsv(tmp_path):
    path = _write(tmp_path / "run.jsonl", '{"query": "1", "doc": "a", "score": 1}\n')
    with pytest.raises(InputError, match="for CSV and TSV files"):
        read_run_columns(path, header=False)


def test_a_missing_position_names_the_columns(tmp_path):
    path = _write(tmp_path / "run.csv", "1,184\n")
    with pytest.raises(ParseError, match="no column '3'.*the columns are '1', '2'"):
        read_run_columns(path, header=False)
    assert read_run_columns(path, header=False, score=None).has_scores is False


def test_a_row_wider_than_the_first_names_its_line(tmp_path):
    path = _write(tmp_path / "run.csv", "1,184,2.0\n1,29,1.0,x\n")
    with pytest.raises(ParseError, match="line 2: expected 3 columns like the first line"):
        read_run_columns(path, header=False)


def test_a_headerless_file_read_with_a_header_points_to_the_option(tmp_path):
    path = _write(tmp_path / "run.csv", "1,184,2.0\n")
    with pytest.raises(ParseError, match=r"no header line.*header=False \(--no-header"):
        read_run_columns(path)


# -- the command line -----------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    return (_write(tmp_path / "qrels.txt", "1 0 184 1\n1 0 29 2\n"),
            _write(tmp_path / "run.csv", "1,184,2.0\n1,29,1.0\n"))


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    return capsys.readouterr().err


def test_cli_no_header(files, capsys):
    qrels, run = files
    assert main(["evaluate", qrels, run, "--no-header", "-m", "ndcg@10", "--format", "csv"]) == 0
    value = float(capsys.readouterr().out.splitlines()[1].split(",")[-1])
    assert value == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)), abs=1e-12)


def test_cli_help_says_the_positions(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--no-header" in out and "query 1, doc 2, grade (qrels) or score (run) 3" in out


def test_cli_names_are_refused(files, capsys):
    qrels, run = files
    err = _error(capsys, ["evaluate", qrels, run, "--no-header", "--query-col", "qid"])
    assert "--query-col" in err and "with --no-header the columns have no names" in err
    err = _error(capsys, ["evaluate", qrels, run, "--no-header", "--columns", "doc=docno"])
    assert "--columns" in err and "'docno'" in err


def test_cli_two_roles_on_one_position_are_refused(files, capsys):
    qrels, run = files
    err = _error(capsys, ["evaluate", qrels, run, "--no-header", "--columns", "query=2"])
    assert "column '2' is named for two roles, query and doc" in err


def test_cli_no_header_leaves_trec_files_alone(files, capsys):
    qrels, run = files   # the qrels are TREC: --columns doc=... does not apply there by position
    assert main(["evaluate", qrels, run, "--no-header", "--columns", "doc=2,score=3", "-m", "p@1",
                 "--format", "csv"]) == 0
