"""The C/W/L measures by hand, their files, their refusals and the command line (the values
against cwl_eval itself: test_cwl_parity.py)."""

from __future__ import annotations

import json
import math

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli import main
from rankproof.errors import MeasureError, ParseError, TieError
from rankproof.measures import parse_measure

ORDERED = Protocol(ties="input")


def _means(qrels, run, names, protocol=ORDERED):
    """{name as given: mean}."""
    results = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names, protocol)
    return {name: results.mean(name) for name in names}


def test_precision_by_hand():
    # Gains 1, 0, 1; the user reads exactly 2 documents: EU = 1/2, ETU = 1, EC = 1, ETC = 2, ED = 2.
    got = _means({"q": {"a": 1, "b": 0, "c": 1}}, {"q": ["a", "b", "c"]},
                 [f"cwl_p(quantity={q})@2" for q in ("eu", "etu", "ec", "etc", "ed")])
    assert list(got.values()) == [0.5, 1.0, 1.0, 2.0, 2.0]


def test_rbp_by_hand_at_depth_two():
    # C = 1/2 at both ranks, max_n = 2: reach 1, 1/2, so W = 2/3, 1/3; L = 1/2, 1/4 (the user stops
    # at rank 1 with 1/2, at rank 2 with 1/2 * 1/2; the last quarter reads on past the cut).
    names = [f"cwl_rbp(p=0.5,max_n=2,quantity={q})" for q in ("eu", "etu", "ed")]
    got = _means({"q": {"a": 1, "b": 0}}, {"q": ["b", "a"]}, names)
    assert got[names[0]] == pytest.approx(1 / 3, abs=1e-15)
    assert got[names[1]] == pytest.approx(0.5 * 0 + 0.25 * 1, abs=1e-15)
    assert got[names[2]] == pytest.approx(1.5, abs=1e-15)


def test_rr_stops_at_the_first_gain():
    # Gain at rank 3: the user reads 3 documents, EU = 1/3, ETU = 1.
    names = ["cwl_rr", "cwl_rr(quantity=ed)", "cwl_rr(quantity=etu)"]
    got = _means({"q": {"c": 1}}, {"q": ["a", "b", "c", "d"]}, names)
    assert got == {"cwl_rr": pytest.approx(1 / 3), "cwl_rr(quantity=ed)": 3.0, "cwl_rr(quantity=etu)": 1.0}


def test_integer_grades_scale_to_the_top_grade_or_max_rel():
    # Grades 0..3: gains g / 3 by default; max_rel=4 gives g / 4; rel=2 gives binary gains.
    qrels, run = {"q": {"a": 3, "b": 1}}, {"q": ["a", "b"]}
    got = _means(qrels, run, ["cwl_p@2", "cwl_p(max_rel=4)@2", "cwl_p(rel=2)@2", "cwl_p(min_rel=1,max_rel=3)@2"])
    assert list(got.values()) == [pytest.approx((1 + 1 / 3) / 2), pytest.approx((3 / 4 + 1 / 4) / 2), 0.5, 0.5]


def test_costs_per_document_weigh_tbg(tmp_path):
    # Half-life 1: the second document starts after a cost of 3, so W is proportional to 1, 2^-3.
    costs = tmp_path / "costs.txt"
    costs.write_text("q a 3\nq b 2\n")
    name = f"tbg(halflife=1,max_n=2,costs={costs})"
    got = _means({"q": {"a": 0, "b": 1}}, {"q": ["a", "b"]}, [name, name.replace("(", "(quantity=ec,")])
    w2 = 2**-3 / (1 + 2**-3)
    assert got[name] == pytest.approx(w2, abs=1e-15)
    assert got[name.replace("(", "(quantity=ec,")] == pytest.approx((1 - w2) * 3 + w2 * 2, abs=1e-15)


def test_element_types_price_documents(tmp_path):
    # cwl_eval's files: element types in the run's second column, their costs in the cost file.
    (tmp_path / "run.txt").write_text("q E1 a 1 2.0 r\nq E2 b 2 1.0 r\n")
    (tmp_path / "costs.txt").write_text("E1 1.5\nE2 4\n")
    name = f"cwl_p(quantity=etc,costs={tmp_path / 'costs.txt'},elements={tmp_path / 'run.txt'})@2"
    results = evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.read_trec(tmp_path / "run.txt"), [name], ORDERED)
    assert results.mean(name) == 5.5


def test_text_with_files_round_trips(tmp_path):
    costs = tmp_path / "c.txt"
    costs.write_text("E1 2\n")
    measure = parse_measure(f"inst(T=2,costs={costs},quantity=etc)")
    assert str(measure) == f"inst(T=2,costs={costs},quantity=etc)"
    assert parse_measure(str(measure)) == measure and hash(parse_measure(str(measure))) == hash(measure)


@pytest.mark.parametrize("lines, words", [
    ("E1 0\n", "finite number > 0"), ("E1 -2\n", "finite number > 0"), ("E1 x\n", "finite number > 0"),
    ("E1 1\nq d 2\n", "3 fields"), ("a b c d\n", "4 fields"), ("", "empty"),
])
def test_bad_cost_files_are_refused_with_their_line(tmp_path, lines, words):
    path = tmp_path / "costs.txt"
    path.write_text(lines)
    with pytest.raises((ParseError, MeasureError)) as caught:
        parse_measure(f"tbg(costs={path})")
    assert words in str(caught.value)
    if lines:
        assert f"{path}" in str(caught.value) and "line" in str(caught.value)


@pytest.mark.parametrize("text, words", [
    ("inst(T=0)", "T must be a number > 0"), ("cwl_p(max_n=1)@1", "max_n must be"),
    ("inst(quantity=mean)", "quantity must be one of"), ("bpm_dynamic(gain_med=2)", "gain_med must be"),
    ("tbg(costs=no_such_file.txt)", "cannot read the costs file"),
])
def test_bad_parameters_are_refused(text, words):
    with pytest.raises(MeasureError, match=words):
        parse_measure(text)


def test_refusals_at_evaluation():
    qrels = Qrels.from_dict({"q": {"a": 3, "b": 1}})
    with pytest.raises(MeasureError, match="above max_rel=2"):
        evaluate(qrels, Run.from_dict({"q": ["a", "b"]}), ["inst(max_rel=2)"], ORDERED)
    with pytest.raises(MeasureError, match="needs a cutoff"):
        evaluate(qrels, Run.from_dict({"q": ["a", "b"]}), ["sdcg"], ORDERED)
    with pytest.raises(MeasureError, match="beyond max_n=5"):
        evaluate(qrels, Run.from_dict({"q": ["a", "b"]}), ["cwl_p(max_n=5)@6"], ORDERED)
    # No closed form over tied orders: under ties=expected tied scores are refused.
    with pytest.raises(TieError):
        evaluate(qrels, Run.from_dict({"q": {"a": 1.0, "b": 1.0}}), ["inst"])


def test_every_model_is_a_distribution_over_the_ranks():
    # ED >= 1, EU within [0, 1]; with every cost 1, EC = 1 and ETC = the expected stopping depth.
    names = ["cwl_p@3", "cwl_rr", "cwl_ap", "cwl_rbp", "sdcg@4", "inst", "insq", "bpm", "bpm_dynamic", "tbg",
             "umeasure", "ift_goal", "ift_rate", "ift_goal_rate", "nerr8@3", "nerr9@3", "nerr10", "nerr11"]
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 1}}
    run = {"q": ["b", "a", "x", "c", "d"]}
    for name in names:
        with_q = (lambda q: name.replace("@", f"(quantity={q})@") if "@" in name else f"{name}(quantity={q})")
        got = _means(qrels, run, [with_q(q) for q in ("eu", "ec", "ed")])
        eu, ec, ed = got.values()
        assert 0 <= eu <= 1 and ed >= 1 and math.isclose(ec, 1.0, rel_tol=1e-12), name


def test_command_line_with_cwl_files(tmp_path, capsys):
    (tmp_path / "gains.txt").write_text("q 0 a 1.0\nq 0 b 0.5\n")
    (tmp_path / "run.txt").write_text("q E1 a 1 2.0 r\nq E2 b 2 1.0 r\n")
    (tmp_path / "costs.txt").write_text("E1 1\nE2 3\n")
    files = f"costs={tmp_path / 'costs.txt'},elements={tmp_path / 'run.txt'}"
    code = main(["evaluate", str(tmp_path / "gains.txt"), str(tmp_path / "run.txt"), "--policy", "grades=real",
                 "--policy", "ties=input", "-m", f"cwl_p(quantity=etc,{files})@2", "-m", "INST(T=1,max_rel=1)",
                 "--format", "json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert "4" in json.dumps(printed) and "inst(T=1,max_rel=1)" in json.dumps(printed)
    code = main(["evaluate", str(tmp_path / "gains.txt"), str(tmp_path / "run.txt"), "-m", "tbg(costs=missing.txt)"])
    err = capsys.readouterr().err
    assert code == 2 and "costs file" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
