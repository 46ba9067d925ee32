"""A TREC grade written ``3.0`` is 3, as trec_eval reads it (issue 28: refused here, accepted in a CSV)."""

from __future__ import annotations

import pytest

from rankproof import Qrels, Run, evaluate
from rankproof.errors import ParseError


def test_integral_decimals_are_integers(tmp_path):
    path = tmp_path / "q.qrels"
    path.write_text("1 0 a 3.0\n1 0 b 1.\n1 0 c -0.00\n1 0 d 2\n")
    qrels = Qrels.read_trec(path)
    assert qrels.to_dict() == {"1": {"a": 3, "b": 1, "c": 0, "d": 2}}
    # dcg@2 of a (3) then b (1): 3 / log2(2) + 1 / log2(3), by hand.
    run = Run.from_dict({"1": ["a", "b"]})
    assert evaluate(qrels, run, ["dcg@2"]).mean("dcg@2") == pytest.approx(3 + 1 / 1.5849625007211562)


def test_the_same_grades_as_csv_agree(tmp_path):
    trec, csv = tmp_path / "q.qrels", tmp_path / "q.csv"
    trec.write_text("1 0 a 3.0\n1 0 b 1\n")
    csv.write_text("query,doc,grade\n1,a,3.0\n1,b,1\n")
    assert Qrels.read(trec).to_dict() == Qrels.read(csv).to_dict()


@pytest.mark.parametrize("grade", ["3.5", "3.01", "1e2", ".0", "3.0.0"])
def test_fractional_or_odd_grades_stay_refused(tmp_path, grade):
    path = tmp_path / "q.qrels"
    path.write_text(f"1 0 a {grade}\n")
    with pytest.raises(ParseError, match="line 1"):
        Qrels.read_trec(path)
