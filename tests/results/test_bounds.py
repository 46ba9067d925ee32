"""Bounds under unjudged documents: hand-computed intervals, the CLI's
``value [lower, upper]``, compare's verdict when the judged docs do not decide
the order of two runs, and a property: every completion of the judgments of a
gain sum (dcg, p, rr, hit, err) lies inside the interval."""

from __future__ import annotations

import math
import random

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import InputError, MeasureError
from rankproof.stats import compare

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1, "d": 0}}
RUN1 = {"q1": ["x", "a", "c"], "q2": ["a", "y"]}
RUN2 = {"q1": ["a", "c", "b"], "q2": ["z", "a"]}
D2 = 1 / math.log2(3)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_hand_computed_bounds(engine):
    results = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN1), ["ndcg@2", "p@2", "dcg@2"], bounds=True,
                       engine=engine)
    ndcg = results.bounds("ndcg@2")
    # q1: x unjudged, a (1), c (2). Lower: DCG = d2, ideal c, a = 2 + d2.
    # Upper: x at the highest grade 2: DCG = 2 + d2; ideal x, c = 2 + 2 d2.
    # q2: a (1), y unjudged. Lower = 1 (a perfect ranking of a alone); with y at 2:
    # DCG = 1 + 2 d2 over the ideal 2 + d2, below 1: the interval is [that, 1].
    q1 = (D2 / (2 + D2), (2 + D2) / (2 + 2 * D2))
    q2 = ((1 + 2 * D2) / (2 + D2), 1.0)
    assert ndcg.per_query() == {"q1": pytest.approx(q1, abs=1e-12), "q2": pytest.approx(q2, abs=1e-12)}
    assert ndcg.value == pytest.approx((q1[0] + 1.0) / 2, abs=1e-12)
    assert ndcg.lower == pytest.approx((q1[0] + q2[0]) / 2, abs=1e-12)
    assert ndcg.upper == pytest.approx((q1[1] + q2[1]) / 2, abs=1e-12)
    p = results.bounds("p@2")
    assert (p.value, p.lower, p.upper) == (0.5, 0.5, 1.0)
    dcg = results.bounds("dcg@2")
    assert dcg.per_query() == {"q1": pytest.approx((D2, 2 + D2)), "q2": pytest.approx((1.0, 1 + 2 * D2))}


def test_unjudged_docs_past_the_cutoff_do_not_move_the_bounds():
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 1}})
    results = evaluate(qrels, Run.from_dict({"q": ["a", "b", "x"]}), ["ndcg@2", "ap@2", "p@2"], bounds=True)
    for m in ("ndcg@2", "ap@2", "p@2"):
        b = results.bounds(m)
        assert b.lower == b.upper == b.value == 1.0, m


def test_ties_straddling_the_cutoff_count_their_unjudged_docs_inside():
    # a and x tie at rank 1..2 of a cutoff of 1: x can land inside, so the upper P@1 is 1
    # (both docs relevant), the lower 1/2 (the expectation over the two orders).
    qrels = Qrels.from_dict({"q": {"a": 1}})
    b = evaluate(qrels, Run.from_dict({"q": {"a": 1.0, "x": 1.0}}), "p@1", bounds=True).bounds("p@1")
    assert (b.lower, b.upper) == (0.5, 1.0)


def test_bounds_text_and_refusals():
    results = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN1), ["p@2"], bounds=True)
    assert results.bounds("p@2").format() == "0.500 [0.500, 1.000]"
    assert str(results.bounds("p@2")) == "p@2 0.500 [0.500, 1.000]"
    with pytest.raises(MeasureError, match="bounds=True"):
        evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN1), ["p@2"]).bounds("p@2")
    with pytest.raises(InputError, match="aggregation=macro"):
        evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN1), ["p@2"], Protocol(aggregation="micro"), bounds=True)


def test_condensed_lists_have_nothing_unjudged_to_bound():
    results = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN1), ["ndcg@2"], Protocol(unjudged="condense"),
                       bounds=True)
    b = results.bounds("ndcg@2")
    assert b.lower == b.value == b.upper


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_every_completion_of_a_gain_sum_lies_within_its_bounds(engine):
    rng = random.Random(4)
    measures = ["dcg@3", "p@3", "rr@3", "hit@2", "err@3", "num_rel_ret@4", "dcg", "err"]
    for _ in range(60):
        docs = [f"d{i}" for i in range(rng.randint(1, 8))]
        judged = {d: rng.choice([0, 1, 2]) for d in docs if rng.random() < 0.5}
        judged["pool"] = 2  # fixes the highest grade, and err's g_max, for every completion
        scores = {d: float(rng.randint(0, 3)) for d in docs}
        results = evaluate(Qrels.from_dict({"q": judged}), Run.from_dict({"q": scores}), measures, bounds=True,
                           engine=engine)
        unjudged = [d for d in docs if d not in judged]
        for _ in range(5):
            completed = {**judged, **{d: rng.choice([0, 1, 2]) for d in unjudged}}
            values = evaluate(Qrels.from_dict({"q": completed}), Run.from_dict({"q": scores}), measures,
                              engine=engine)
            for m in measures:
                b = results.bounds(m)
                assert b.lower - 1e-12 <= values.mean(m) <= b.upper + 1e-12, (m, judged, scores, completed)


def test_compare_says_when_the_judged_docs_do_not_decide():
    qrels = Qrels.from_dict(QRELS)
    comparison = compare(qrels, {"one": Run.from_dict(RUN1), "two": Run.from_dict(RUN2)}, ["p@2"], bounds=True)
    assert len(comparison.undecided) == 1 and comparison.undecided[0].startswith("p@2: one 0.500 [0.500, 1.000]")
    # Fully judged runs: the intervals are points, and distinct points decide.
    judged = Qrels.from_dict({"q1": {"a": 1, "b": 0}, "q2": {"a": 1, "b": 0}, "q3": {"a": 1, "b": 0}})
    good = Run.from_dict({q: ["a", "b"] for q in ("q1", "q2", "q3")})
    bad = Run.from_dict({q: ["b", "a"] for q in ("q1", "q2", "q3")})
    assert compare(judged, {"good": good, "bad": bad}, ["rr"], bounds=True).undecided == ()
    # Without bounds, nothing is said.
    assert compare(qrels, {"one": Run.from_dict(RUN1), "two": Run.from_dict(RUN2)}, ["p@2"]).undecided == ()


def _write(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    paths = []
    for name, run in (("one", RUN1), ("two", RUN2)):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {i} {10 - i} t\n" for q, docs in run.items()
                                for i, d in enumerate(docs, 1)))
        paths.append(str(path))
    return str(qrels), paths


def test_cli_prints_value_and_bounds(tmp_path, capsys):
    qrels, (one, _) = _write(tmp_path)
    assert main(["evaluate", qrels, one, "-m", "p@2", "--bounds", "--precision", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "0.500 [0.500, 1.000]" in out


def test_cli_compare_names_the_undecided_pairs(tmp_path, capsys):
    qrels, (one, two) = _write(tmp_path)
    assert main(["compare", qrels, one, two, "-m", "p@2", "--bounds"]) == 0
    out = capsys.readouterr().out
    assert "not decided by the judged docs alone: p@2: one 0.500 [0.500, 1.000] and two 0.750 [0.750, 1.000]" in out


def test_json_output_holds_the_bounds(tmp_path, capsys):
    import json

    qrels, (one, _) = _write(tmp_path)
    assert main(["evaluate", qrels, one, "-m", "p@2", "--bounds", "--format", "json", "--quiet"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"]["one.run"]
    assert run["bounds"]["p@2"]["lower"] == 0.5 and run["bounds"]["p@2"]["upper"] == 1.0
    assert run["bounds"]["p@2"]["per_query"]["q1"] == [0.5, 1.0]
