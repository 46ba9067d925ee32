"""ERR (and RBP with its residual) as ordinary measures: hand-computed cases,
the exact expectation under tied scores checked by enumerating every order,
gdeval's ERR (through ir_measures' gdeval provider, which runs gdeval.pl with
perl) on random cases, and the two engines against each other."""

from __future__ import annotations

import itertools
import random
import shutil

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import MeasureError
from rankproof.measures import parse_measure

ENGINES = ["numpy", "compiled"]


@pytest.mark.parametrize("engine", ENGINES)
def test_err_hand_computed(engine):
    # Grades 1, 2, 0 with g_max = 2: R = 1/4, 3/4, 0.
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 2, "c": 0}})
    run = Run.from_dict({"q": ["a", "b", "c"]})
    results = evaluate(qrels, run, ["err", "err@1", "err(max_grade=4)@3"], engine=engine)
    assert results.mean("err") == pytest.approx(1 / 4 + (3 / 4) * (3 / 4) / 2, abs=1e-15)
    assert results.mean("err@1") == pytest.approx(1 / 4, abs=1e-15)
    # gdeval's scale: R = 1/16, 3/16.
    assert results.mean("err(max_grade=4)@3") == pytest.approx(1 / 16 + (15 / 16) * (3 / 16) / 2, abs=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
def test_err_unjudged_docs_stop_nobody(engine):
    qrels = Qrels.from_dict({"q": {"a": 1}})
    run = Run.from_dict({"q": ["x", "a"]})
    # g_max = 1: R(a) = 1/2 at rank 2, behind an unjudged doc (R = 0).
    assert evaluate(qrels, run, "err", engine=engine).mean("err") == pytest.approx(0.25, abs=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
def test_err_real_grades(engine):
    # Real grades, g_max = 1.5: R(1.5) = (2^1.5 - 1) / 2^1.5, R(0.5) = (2^0.5 - 1) / 2^1.5.
    qrels = Qrels.from_dict({"q": {"a": 0.5, "b": 1.5}}, grades="real")
    run = Run.from_dict({"q": ["a", "b"]})
    r_a, r_b = (2**0.5 - 1) / 2**1.5, (2**1.5 - 1) / 2**1.5
    got = evaluate(qrels, run, "err", Protocol(grades="real"), engine=engine).mean("err")
    assert got == pytest.approx(r_a + (1 - r_a) * r_b / 2, abs=1e-15)


def test_err_max_grade_below_a_judged_grade_is_refused():
    qrels = Qrels.from_dict({"q": {"a": 5}})
    with pytest.raises(MeasureError, match="above max_grade=4"):
        evaluate(qrels, Run.from_dict({"q": ["a"]}), "err(max_grade=4)")
    with pytest.raises(MeasureError, match="max_grade must be"):
        parse_measure("err(max_grade=-1)")


def test_text_forms_round_trip():
    for text in ["err", "err@20", "err(max_grade=4)@20", "err(max_grade=2.5)", "rbp(p=0.8)", "rbp_resid(p=0.8)@10"]:
        assert str(parse_measure(text)) == text
    assert str(parse_measure("err(max_grade=4.0)")) == "err(max_grade=4)"


def _brute_err(groups, g_max, k):
    """Mean ERR@k over every order of each tied group (grade None: unjudged)."""
    total, count = 0.0, 0
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranking = [grade for group in combo for grade in group][:k]
        value, survival = 0.0, 1.0
        for i, grade in enumerate(ranking, 1):
            stop = 0.0 if grade is None else (2**grade - 1) / 2**g_max
            value += survival * stop / i
            survival *= 1 - stop
        total += value
        count += 1
    return total / count


def _brute_rbp(groups, p, k):
    """Mean RBP@k and its residual over every order of each tied group (grades 0/1, None: unjudged)."""
    values, residuals = [], []
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranking = [grade for group in combo for grade in group][:k]
        values.append((1 - p) * sum((grade or 0) * p**i for i, grade in enumerate(ranking)))
        unjudged = [i for i, grade in enumerate(ranking) if grade is None]
        residuals.append((1 - p) * sum(p**i for i in unjudged) + (p ** len(ranking) if unjudged else 0.0))
    return float(np.mean(values)), float(np.mean(residuals))


def _tied_case(rng):
    docs = [f"d{i}" for i in range(rng.randint(1, 7))]
    scores = {d: float(rng.randint(0, 2)) for d in docs}
    grades = {d: rng.choice([None, 0, 1, 2, 3]) for d in docs}
    judged = {d: g for d, g in grades.items() if g is not None}
    judged["unretrieved"] = rng.choice([0, 1, 3])
    levels = sorted(set(scores.values()), reverse=True)
    groups = [[grades[d] for d in docs if scores[d] == level] for level in levels]
    return judged, scores, grades, groups


@pytest.mark.parametrize("engine", ENGINES)
def test_err_under_ties_is_the_mean_over_every_order(engine):
    rng = random.Random(7)
    for _ in range(300):
        judged, scores, _, groups = _tied_case(rng)
        k = rng.randint(1, 8)
        want = _brute_err(groups, max(judged.values()), k)
        got = evaluate(Qrels.from_dict({"q": judged}), Run.from_dict({"q": scores}), f"err@{k}",
                       engine=engine).mean(f"err@{k}")
        assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_rbp_and_residual_under_ties_are_the_mean_over_every_order(engine):
    rng = random.Random(11)
    for _ in range(200):
        judged, scores, grades, groups = _tied_case(rng)
        binary = {d: (min(g, 1) if g is not None else None) for d, g in grades.items()}
        judged = {d: min(g, 1) for d, g in judged.items()}
        levels = sorted(set(scores.values()), reverse=True)
        groups = [[binary[d] for d in scores if scores[d] == level] for level in levels]
        k = rng.randint(1, 8)
        want_rbp, want_resid = _brute_rbp(groups, 0.8, k)
        results = evaluate(Qrels.from_dict({"q": judged}), Run.from_dict({"q": scores}),
                           [f"rbp(p=0.8)@{k}", f"rbp_resid(p=0.8)@{k}"], engine=engine)
        assert results.mean(f"rbp(p=0.8)@{k}") == pytest.approx(want_rbp, abs=1e-12)
        assert results.mean(f"rbp_resid(p=0.8)@{k}") == pytest.approx(want_resid, abs=1e-12)


def test_rbp_hand_computed():
    # a relevant at rank 1, x unjudged at 2, c relevant at 3, b non-relevant at 4; p = 1/2.
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    results = evaluate(qrels, Run.from_dict({"q": ["a", "x", "c", "b"]}), ["rbp(p=0.5)", "rbp_resid(p=0.5)"])
    assert results.mean("rbp(p=0.5)") == 0.5 * (1 + 0.25)
    # residual: the unjudged doc's weight (1 - p) p^1, plus the tail p^4 beyond the ranking.
    assert results.mean("rbp_resid(p=0.5)") == 0.5 * 0.5 + 0.5**4


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
def test_err_agrees_with_gdeval():
    """gdeval.pl (ir_measures' gdeval provider): g_max = 4, ties by doc id descending,
    negative grades gain 0, only topics with a positive judgment reported (to 5 decimals)."""
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(3)
    qrels_rows, run_rows, judgments, rankings = [], [], {}, {}
    for topic in range(1, 30):
        q = str(topic)
        docs = [f"doc{i}" for i in range(rng.randint(2, 25))]
        judged = {d: rng.choice([-2, 0, 0, 1, 2, 3, 4]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        judged[docs[0]] = rng.choice([1, 2, 3, 4])  # gdeval reports only topics with a positive grade
        judgments[q] = judged
        qrels_rows += [ir_measures.Qrel(q, d, g) for d, g in judged.items()]
        scores = {d: float(rng.randint(0, 6)) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        rankings[q] = scores
        run_rows += [ir_measures.ScoredDoc(q, d, s) for d, s in scores.items()]
    protocol = Protocol(ties="docid", negative_grades="zero")
    for k in (1, 5, 20):
        want = {m.query_id: m.value for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k], qrels_rows, run_rows)}
        got = evaluate(Qrels.from_dict(judgments), Run.from_dict(rankings), f"err(max_grade=4)@{k}",
                       protocol).per_query(f"err(max_grade=4)@{k}")
        assert set(want) == set(got)
        for q, value in want.items():
            assert got[q] == pytest.approx(value, abs=5.1e-6), (k, q)
