"""Numbers and texts too long for what reads them: one line naming the input, exit 2 (issue 28, items 3 and 5).

Python's int() refuses more than 4,300 digits with an error that names nothing
of the input; these reached the user as "internal error" (exit 1). An inline
--grade-map of 100 grades was taken for a file name (OSError: file name too long).
"""

from __future__ import annotations

import json

import pytest

from rankproof import Protocol
from rankproof.cli.app import main
from rankproof.errors import ProtocolError

HUGE = "9" * 5000


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    return tmp_path


def _one_line_error(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err, err
    assert len(err) < 400, err   # the 5,000 digits are not echoed whole
    return err


def test_a_trec_grade_of_5000_digits(files, capsys):
    (files / "big.qrels").write_text(f"q1 0 d1 {HUGE}\n")
    err = _one_line_error(capsys, ["evaluate", str(files / "big.qrels"), str(files / "r.run")])
    assert "big.qrels line 1" in err and "64-bit" in err


def test_a_cutoff_of_5000_digits(files, capsys):
    err = _one_line_error(capsys, ["evaluate", str(files / "q.qrels"), str(files / "r.run"), "-m", f"ndcg@{HUGE}"])
    assert "5,000 digits" in err and "without @k" in err


def test_grade_map_inline_forms(files, capsys):
    hundred = ",".join(f"{g}:{g}" for g in range(100))
    code = main(["evaluate", str(files / "q.qrels"), str(files / "r.run"), "--grade-map", hundred, "-m", "p@1"])
    out, err = capsys.readouterr()
    assert code == 0 and "1.0000" in out, err
    err = _one_line_error(capsys, ["evaluate", str(files / "q.qrels"), str(files / "r.run"),
                                   "--grade-map", "1=" + HUGE])
    assert "--grade-map" in err and "no ':'" in err
    err = _one_line_error(capsys, ["evaluate", str(files / "q.qrels"), str(files / "r.run"),
                                   "--grade-map", "1:" + HUGE])
    assert "5,000 digits" in err and "64-bit" in err


def test_a_saved_result_whose_rel_has_5000_digits(files, capsys):
    saved = files / "saved.json"
    assert main(["evaluate", str(files / "q.qrels"), str(files / "r.run"), "--format", "json",
                 "-o", str(saved)]) == 0
    document = json.loads(saved.read_text())
    text = json.dumps(document).replace('"rel": 1', '"rel": ' + HUGE, 1).replace(" rel=1 ", f" rel={HUGE} ")
    (files / "bad.json").write_text(text)
    capsys.readouterr()
    err = _one_line_error(capsys, ["compare", "--results", str(saved), str(files / "bad.json")])
    assert "bad.json" in err and "rel" in err


@pytest.mark.parametrize("text, words", [
    ("map:0=0/0=1", "grade 0 is given twice"),          # last one silently won
    ("map:1=1e400", "finite"),                          # the precise message, not "cannot read"
    ("map:1=1/2=x", "'x', not a number"),
    ("map:1", "not grade=gain"),
    (f"map:{HUGE}=1", "5,004 characters"),
])
def test_gain_maps_are_read_exactly(text, words):
    with pytest.raises(ProtocolError) as caught:
        Protocol(gain=text)
    assert words in str(caught.value) and len(str(caught.value)) < 300
