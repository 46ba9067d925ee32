"""No silent infinities (issue 28, item 5): real grades whose gains would sum past float64 are refused
in one line, as integer grades and gain maps are; every JSON writer refuses a non-finite number instead
of writing a bare Infinity or NaN (invalid JSON that compare --results then refuses)."""

from __future__ import annotations

import json

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import InputError
from rankproof.io.json_text import json_text, non_finite_at
from rankproof.report.data import to_json


@pytest.fixture
def files(tmp_path):
    # Two grades of 1.5e308: each finite, their sum (the DCG) is not.
    (tmp_path / "q.qrels").write_text("q1 0 d1 1.5e308\nq1 0 d2 1.5e308\nq1 0 d3 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\n")
    return tmp_path


@pytest.mark.parametrize("output", ["table", "json"])
def test_real_grades_that_overflow_are_one_line(files, capsys, output):
    code = main(["evaluate", str(files / "q.qrels"), str(files / "r.run"), "-m", "dcg@10", "-m", "ndcg@10",
                 "--policy", "grades=real", "--format", output])
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert "q.qrels line 1" in captured.err and "1.5e+308" in captured.err and "1e+300" in captured.err
    assert "Infinity" not in captured.out and "inf" not in captured.out


def test_the_python_api_refuses_them_too():
    qrels = Qrels.from_dict({"q1": {"d1": 1.5e308, "d2": 1.5e308}}, grades="real")
    run = Run.from_dict({"q1": ["d1", "d2"]})
    with pytest.raises(InputError, match=r"beyond 1e\+300"):
        evaluate(qrels, run, "dcg@10", Protocol(grades="real"))
    # 1e300 itself is the largest allowed, as for a gain map: the sum stays finite.
    qrels = Qrels.from_dict({"q1": {"d1": 1e300, "d2": 1e300}}, grades="real")
    assert evaluate(qrels, run, "dcg@10", Protocol(grades="real")).mean("dcg@10") == pytest.approx(
        1e300 + 1e300 / 1.584962500721156)


def test_json_writer_names_a_non_finite_value():
    assert json.loads(json_text({"a": [1.5, None]})) == {"a": [1.5, None]}
    assert non_finite_at({"runs": {"r": {"means": [0.5, float("-inf")]}}}) == ("runs.r.means[1]", float("-inf"))
    with pytest.raises(InputError, match=r"^runs\.r\.dcg@10 is inf, which JSON cannot hold"):
        json_text({"runs": {"r": {"dcg@10": float("inf")}}})


def test_results_json_is_strict_json():
    qrels = Qrels.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 0}})
    run = Run.from_dict({"q1": ["d1", "d2"], "q2": ["d3"]})
    text = to_json([evaluate(qrels, run, ["ndcg@10", "dcg@10"])])
    json.loads(text, parse_constant=lambda name: pytest.fail(f"bare {name} in the JSON"))
