"""Real-valued grades (the grades=real policy): every front door reads them,
gains and the rel threshold apply to the real values (hand-computed), the
default grades=integer keeps refusing them with a hint naming the policy, and
`rankproof trec-eval` reads them as trec_eval 10 does (atol: 1.5 -> 1), byte
for byte against the built trec_eval binary."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import InputError, ParseError, ProtocolError

REAL = Protocol(grades="real")
QRELS_TEXT = "q1 0 a 1.5\nq1 0 b 0.7\nq1 0 c 2\nq1 0 f 2.9\nq1 0 g 0\n"
RUN_TEXT = "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq1 Q0 f 4 0.5 t\nq1 Q0 x 5 0.4 t\n"
EXPECTED = {"q1": {"a": 1.5, "b": 0.7, "c": 2.0, "f": 2.9, "g": 0.0}}


def _log2(i: int) -> float:
    return math.log2(i + 1)


def test_every_front_door_reads_real_grades(tmp_path):
    import pandas as pd
    import pyarrow as pa

    trec = tmp_path / "qrels.txt"
    trec.write_text(QRELS_TEXT)
    frame = pd.DataFrame([(q, d, g) for q, docs in EXPECTED.items() for d, g in docs.items()],
                         columns=["query", "doc", "grade"])
    csv = tmp_path / "qrels.csv"
    frame.to_csv(csv, index=False)
    text_frame = frame.astype({"grade": str})
    readers = {
        "trec": lambda: Qrels.read_trec(trec, grades="real"),
        "read": lambda: Qrels.read(trec, grades="real"),
        "csv": lambda: Qrels.read(csv, grades="real"),
        "pandas": lambda: Qrels.from_pandas(frame, grades="real"),
        "table": lambda: Qrels.from_table(pa.Table.from_pandas(frame), grades="real"),
        "text table": lambda: Qrels.from_table(text_frame, grades="real"),
        "dict": lambda: Qrels.from_dict(EXPECTED, grades="real"),
    }
    for name, read in readers.items():
        qrels = read()
        assert qrels.real_grades, name
        assert qrels.to_dict() == EXPECTED, name


def test_integer_grades_refuse_fractions_and_name_the_policy(tmp_path):
    import pandas as pd

    trec = tmp_path / "qrels.txt"
    trec.write_text(QRELS_TEXT)
    frame = pd.DataFrame({"query": ["q1"], "doc": ["a"], "grade": [1.5]})
    for read in (lambda: Qrels.read_trec(trec), lambda: Qrels.from_table(frame),
                 lambda: Qrels.from_pandas(frame), lambda: Qrels.from_dict({"q1": {"a": 1.5}})):
        with pytest.raises(ParseError, match=r"grade '?1\.5'? is not an integer.*grades=real"):
            read()


def test_real_grades_refuse_what_is_not_a_finite_number(tmp_path):
    bad = tmp_path / "qrels.txt"
    bad.write_text("q1 0 a 1.5\nq1 0 b nan\n")
    with pytest.raises(ParseError, match="line 2.*not a finite number"):
        Qrels.read_trec(bad, grades="real")
    with pytest.raises(ParseError, match="not a finite number"):
        Qrels.from_dict({"q": {"a": float("inf")}}, grades="real")
    with pytest.raises(ParseError, match="not a number"):
        Qrels.from_dict({"q": {"a": "high"}}, grades="real")


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_gains_and_threshold_on_real_grades_hand_computed(engine):
    qrels = Qrels.from_dict(EXPECTED, grades="real")
    run = Run.from_dict({"q1": ["a", "b", "c", "f", "x"]})
    results = evaluate(qrels, run, ["ndcg@3", "ndcg(gain=exp2)@2", "ap", "ap(rel=1.6)", "p@2", "r@2"], REAL,
                       engine=engine)
    # Linear: DCG@3 = 1.5 + 0.7 / log2(3) + 2 / 2; ideal 2.9, 2, 1.5.
    dcg = 1.5 + 0.7 / _log2(2) + 2 / _log2(3)
    ideal = 2.9 + 2 / _log2(2) + 1.5 / _log2(3)
    assert results.mean("ndcg@3") == pytest.approx(dcg / ideal, abs=1e-12)
    # exp2: 2^g - 1 on the real grade.
    dcg2 = (2**1.5 - 1) + (2**0.7 - 1) / _log2(2)
    ideal2 = (2**2.9 - 1) + (2**2 - 1) / _log2(2)
    assert results.mean("ndcg(gain=exp2)@2") == pytest.approx(dcg2 / ideal2, abs=1e-12)
    # rel = 1: a, c, f relevant (R = 3) at ranks 1, 3, 4: (1 + 2/3 + 3/4) / 3.
    assert results.mean("ap") == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, abs=1e-12)
    # rel = 1.6: c and f (R = 2) at ranks 3 and 4: (1/3 + 2/4) / 2.
    assert results.mean("ap(rel=1.6)") == pytest.approx((1 / 3 + 2 / 4) / 2, abs=1e-12)
    assert results.mean("p@2") == 0.5
    assert results.mean("r@2") == pytest.approx(1 / 3, abs=1e-15)


def test_protocol_rel_threshold_may_be_real_only_under_grades_real():
    assert Protocol(grades="real", rel=2.5).rel == 2.5
    assert Protocol.from_text("grades=real rel=2.5") == Protocol(grades="real", rel=2.5)
    with pytest.raises(ProtocolError, match="grades=real"):
        Protocol(rel=2.5)
    qrels = Qrels.from_dict({"q": {"a": 1}})
    with pytest.raises(InputError, match="grades=real"):
        evaluate(qrels, Run.from_dict({"q": ["a"]}), "p(rel=0.5)@1")


def test_real_qrels_under_integer_protocol_name_the_policy():
    qrels = Qrels.from_dict({"q": {"a": 1.5, "b": 1}}, grades="real")
    with pytest.raises(InputError, match=r"grade 1\.5 is not an integer.*grades=real"):
        evaluate(qrels, Run.from_dict({"q": ["a"]}), "ndcg")
    # Whole numbers read as reals evaluate under grades=integer as the integers they are.
    whole = Qrels.from_dict({"q": {"a": 2.0, "b": 1}}, grades="real")
    run = Run.from_dict({"q": ["b", "a"]})
    assert evaluate(whole, run, "ndcg").mean("ndcg") == evaluate(
        Qrels.from_dict({"q": {"a": 2, "b": 1}}), run, "ndcg").mean("ndcg")


def test_default_protocol_text_and_fingerprint_do_not_name_grades():
    assert " grades=" not in str(Protocol())
    assert " grades=" not in str(Protocol.preset("trec_eval"))
    assert str(REAL).endswith("grades=real")
    assert Protocol.from_text(str(REAL)) == REAL


def test_cli_reads_real_grades_under_the_policy(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS_TEXT)
    run.write_text(RUN_TEXT)
    assert main(["evaluate", str(qrels), str(run), "-m", "ap", "--policy", "grades=real"]) == 0
    out = capsys.readouterr().out
    assert "0.8056" in out and "grades=real" in out
    assert main(["evaluate", str(qrels), str(run), "-m", "ap"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "grades=real" in err[0] and "line 1" in err[0]


def test_trec_eval_preset_refuses_real_grades_rather_than_truncating():
    qrels = Qrels.from_dict({"q": {"a": 1.5}}, grades="real")
    with pytest.raises(InputError, match="grades=real"):
        evaluate(qrels, Run.from_dict({"q": ["a"]}), "ndcg", "trec_eval")


def test_trec_eval_drop_in_reads_fractional_grades_as_trec_eval(tmp_path):
    """trec_eval 10 reads a grade with atol (get_qrels.c): 1.5 -> 1, 0.7 -> 0, 2.9 -> 2,
    -0.5 -> 0, 1e2 -> 1. The drop-in prints the same bytes."""
    from trec_oracle import build_trec_eval

    binary = build_trec_eval()
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1.5\nq1 0 b 0.7\nq1 0 c 2\nq1 0 e -0.5\nq1 0 f 2.9\nq1 0 h 1e2\n"
                     "q2 0 a .5\nq2 0 b +3.25\nq2 0 c 1\n")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq1 Q0 f 4 0.5 t\nq1 Q0 e 5 0.4 t\n"
                   "q1 Q0 h 6 0.3 t\nq2 Q0 b 1 2 t\nq2 Q0 a 2 1 t\nq2 Q0 c 3 1 t\n")
    for options in (["-q", "-m", "all_trec"], ["-q", "-m", "relstring", "-m", "ndcg_cut.3"], ["-l2", "-m", "map"]):
        want = subprocess.run([str(binary), *options, str(qrels), str(run)], capture_output=True, check=True).stdout
        got = subprocess.run([sys.executable, "-m", "rankproof.cli", "trec-eval", *options, str(qrels), str(run)],
                             capture_output=True, check=True).stdout
        assert got == want, options
    # trec_eval 9.0.8 reads grades with atol too (its get_qrels.c): --v9 matches it.
    from trec_oracle import build_trec_eval9

    binary9 = build_trec_eval9()
    for options in (["-q", "-m", "all_trec"], ["-m", "map", "-m", "ndcg_cut.3"]):
        want = subprocess.run([str(binary9), *options, str(qrels), str(run)], capture_output=True, check=True).stdout
        got = subprocess.run([sys.executable, "-m", "rankproof.cli", "trec-eval", "--v9", *options, str(qrels),
                              str(run)], capture_output=True, check=True).stdout
        assert got == want, options
    relstring = subprocess.run([sys.executable, "-m", "rankproof.cli", "trec-eval", "-q", "-m", "relstring",
                                str(qrels), str(run)], capture_output=True, check=True).stdout.decode()
    assert "'102201'" in relstring.replace(" ", "")  # a=1, b=0, c=2, f=2, e=0, h=1


def test_score_matrices_keep_real_relevance_as_scikit_learn_does():
    from rankproof import evaluate_scores

    y_true = np.array([[0.5, 2.5, 0.0]])
    y_score = np.array([[3.0, 2.0, 1.0]])
    got = evaluate_scores(y_true, y_score, "ndcg").mean("ndcg")
    assert got == pytest.approx((0.5 + 2.5 / _log2(2)) / (2.5 + 0.5 / _log2(2)), abs=1e-12)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_rbp_rescales_real_gains_by_the_top_real_grade(engine):
    # Top grade 2.9 > 1: gains rescaled by 2.9 (trec_eval's rbp rule), so a (1.5) then b (2.9), p = 1/2.
    qrels = Qrels.from_dict({"q": {"a": 1.5, "b": 2.9}}, grades="real")
    got = evaluate(qrels, Run.from_dict({"q": ["a", "b"]}), "rbp(p=0.5)", REAL, engine=engine).mean("rbp(p=0.5)")
    assert got == pytest.approx(0.5 * (1.5 / 2.9 + 0.5 * 1.0), abs=1e-15)


def test_explain_shows_real_grades():
    from rankproof.explain.explanation import explain

    qrels = Qrels.from_dict({"q": {"a": 1.5, "b": 2}}, grades="real")
    shown = explain(qrels, Run.from_dict({"q": ["a", "b"]}), "q", "ndcg@2", REAL)
    assert [row.grade for row in shown.ranking] == [1.5, 2]
    assert [row.grade for row in shown.ideal] == [2, 1.5]


def test_evaluate_frame_reads_ratings_under_the_grades_policy():
    import pandas as pd

    from rankproof import evaluate_frame

    truth = pd.DataFrame({"user": [1, 1], "item": [10, 11], "rating": [4.5, 2.0]})
    predictions = pd.DataFrame({"user": [1, 1], "item": [11, 10], "score": [0.9, 0.1]})
    results = evaluate_frame(truth, predictions, ["dcg@2"], Protocol(grades="real"))
    assert results.mean("dcg@2") == pytest.approx(2.0 + 4.5 / _log2(2), abs=1e-12)
    with pytest.raises(ParseError, match="grades=real"):
        evaluate_frame(truth, predictions, ["dcg@2"])
