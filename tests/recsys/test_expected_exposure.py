"""Expected exposure (EE-L, EE-D, EE-R; Diaz et al. 2020) against brute-force enumeration of rankings.

The expected values come from enumerating every ranking with its probability (a Plackett-Luce policy, or
every order of a tie) and the ideal policy's rankings (every order of each grade's items), with the
exposure gamma^rank written out by hand; never from the code under test.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.cli import main
from rankproof.errors import InputError, TieError
from rankproof.protocol import Protocol
from rankproof.recsys.expected_exposure import expected_exposure, plackett_luce, target_exposure

GRADES = {"q1": {"a": 2, "b": 1, "c": 1, "d": 0}, "q2": {"b": 1, "e": 3}}
ITEMS = {"q1": ["a", "b", "c", "d", "e"], "q2": ["b", "e", "f"]}
WEIGHTS = {"a": 1.0, "b": 3.0, "c": 0.5, "d": 2.0, "e": 1.5, "f": 0.2}


def _attention(position: int, gamma: float, k) -> float:
    return gamma ** position if k is None or position < k else 0.0


def _pl_probability(ranking) -> float:
    p, left = 1.0, sum(WEIGHTS[d] for d in ranking)
    for d in ranking:
        p *= WEIGHTS[d] / left
        left -= WEIGHTS[d]
    return p


def _by_hand(grades: dict, policy: list, gamma: float, k) -> tuple[float, float, float]:
    """EE-L, EE-D, EE-R of one query from its policy [(ranking, probability)], all by enumeration."""
    eps: dict[str, float] = {}
    for ranking, p in policy:
        for i, d in enumerate(ranking):
            eps[d] = eps.get(d, 0.0) + p * _attention(i, gamma, k)
    relevant = [d for d, g in grades.items() if g >= 1]
    ideal = [r for r in itertools.permutations(relevant)
             if all(grades[x] >= grades[y] for x, y in zip(r, r[1:]))]   # every order within a grade
    star = {d: 0.0 for d in relevant}
    for r in ideal:
        for i, d in enumerate(r):
            star[d] += _attention(i, gamma, k) / len(ideal)
    items = set(eps) | set(star)
    loss = sum((eps.get(d, 0.0) - star.get(d, 0.0)) ** 2 for d in items)
    return loss, sum(v * v for v in eps.values()), sum(eps.get(d, 0.0) * star[d] for d in star)


@pytest.fixture(scope="module")
def pl_policy():
    """Every ranking of q1 (120) paired with every ranking of q2 (6), with their Plackett-Luce probabilities."""
    policies = {q: [(r, _pl_probability(r)) for r in itertools.permutations(items)] for q, items in ITEMS.items()}
    pairs = list(itertools.product(policies["q1"], policies["q2"]))
    samples = [Run.from_dict({"q1": list(r1), "q2": list(r2)}) for (r1, _), (r2, _) in pairs]
    return policies, samples, [p1 * p2 for (_, p1), (_, p2) in pairs]   # independent queries


@pytest.mark.parametrize("gamma,k", [(0.5, None), (0.8, 2), (0.9, 3)])
def test_a_plackett_luce_policy_equals_enumeration_over_every_ranking(pl_policy, gamma, k):
    policies, samples, weights = pl_policy
    got = expected_exposure(GRADES, samples, weights=weights, gamma=gamma, k=k)
    assert got.queries.tolist() == ["q1", "q2"] and got.samples == 720
    for i, q in enumerate(got.queries.tolist()):
        loss, disparity, relevance = _by_hand(GRADES[q], policies[q], gamma, k)
        assert got.loss[i] == pytest.approx(loss, abs=1e-12)
        assert got.disparity[i] == pytest.approx(disparity, abs=1e-12)
        assert got.relevance[i] == pytest.approx(relevance, abs=1e-12)
        assert got.loss[i] == pytest.approx(got.disparity[i] - 2 * got.relevance[i] + got.target[i], abs=1e-12)


def test_a_tie_under_ties_expected_equals_every_order_of_it():
    run = Run.from_dict({"q1": {"a": 1.0, "e": 2.0, "b": 2.0, "c": 2.0, "d": 0.5}})
    tied = [["a", "d"]]   # the tie b, c, e comes first, in any order
    policy = [(list(order) + tied[0], 1 / 6) for order in itertools.permutations(["b", "c", "e"])]
    for gamma, k in ((0.5, None), (0.7, 2)):
        got = expected_exposure(GRADES, run, gamma=gamma, k=k)
        loss, disparity, relevance = _by_hand({"a": 2, "b": 1, "c": 1, "d": 0}, policy, gamma, k)
        assert (got.loss[0], got.disparity[0], got.relevance[0]) == pytest.approx((loss, disparity, relevance))
    with pytest.raises(TieError, match="q1"):
        expected_exposure(GRADES, run, protocol=Protocol(ties="error"))


def test_the_target_by_hand_and_the_queries_without_a_ranking_or_a_relevant_item():
    # q1 tiers: a (grade 2) at position 0; b, c (grade 1) share positions 1, 2: (0.5 + 0.25) / 2.
    _, docs, target = target_exposure(Qrels.from_dict(GRADES), gamma=0.5, k=2)
    assert dict(zip(docs.tolist()[:3], target.tolist()[:3])) == {"a": 1.0, "b": 0.25, "c": 0.25}
    got = expected_exposure(GRADES, Run.from_dict({"q1": ["a"], "z": ["a", "b"]}), gamma=0.5)
    q2 = got.queries.tolist().index("q2")   # judged, never ranked: no exposure, loss = the target's norm
    assert (got.disparity[q2], got.relevance[q2], got.loss[q2]) == (0.0, 0.0, 1.0 + 0.25)
    assert math.isnan(got.loss[got.queries.tolist().index("z")])   # no relevant item: undefined
    assert got.mean("loss") == pytest.approx(np.nanmean(got.loss))
    with pytest.raises(InputError, match="gamma"):
        expected_exposure(GRADES, Run.from_dict({"q1": ["a"]}), gamma=1.0)
    with pytest.raises(InputError, match="weights"):
        expected_exposure(GRADES, [Run.from_dict({"q1": ["a"]})] * 2, weights=[0.5, 0.6])


def test_plackett_luce_draws_the_first_item_with_its_probability():
    run = Run.from_dict({"q": {"a": math.log(3.0), "b": 0.0, "c": math.log(0.5)}})   # weights 3 : 1 : 0.5
    draws = plackett_luce(run, 1500, seed=7)
    first = [d.docs[d.doc_codes[int(np.argmax(d.scores))]] for d in draws]
    for doc, weight in (("a", 3.0), ("b", 1.0), ("c", 0.5)):
        assert first.count(doc) / len(first) == pytest.approx(weight / 4.5, abs=0.04)
    assert [d.scores.tolist() for d in plackett_luce(run, 3, seed=7)] == [d.scores.tolist() for d in draws[:3]]


def test_the_cli_evaluates_ee_l_d_r_from_the_judgments(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n")
    code = main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "ndcg", "-m", "ee_l@2", "-m", "ee_d",
                 "-m", "ee_r(gamma=0.8)", "--format", "json", "--quiet"])
    side = json.loads(capsys.readouterr().out)["runs"]["run"]["side"]
    assert code == 0
    # gamma 0.5, k 2: exposures 1, 0.5, 0; targets 1, 0.25, 0.25 -> loss 0.0625 + 0.0625
    assert side["ee_l@2"]["value"] == pytest.approx(0.125) and side["ee_l@2"]["per_query"] == {"q1": 0.125}
    assert side["ee_d"]["value"] == pytest.approx(1 + 0.25 + 0.0625)
    # gamma 0.8: exposures 1, 0.8, 0.64; targets 1, (0.8 + 0.64) / 2 twice
    assert side["ee_r(gamma=0.8)"]["value"] == pytest.approx(1 + 0.72 * 1.44)


def test_the_draws_of_a_query_do_not_depend_on_the_rest_of_the_run():
    # What a Spark partition draws for a user is what one machine draws: (seed, query, doc) alone.
    whole = Run.from_dict({"q1": {"a": 1.0, "b": 0.5, "c": 0.2}, "q2": {"a": 0.3, "d": 0.9}})
    part = Run.from_dict({"q2": {"d": 0.9, "a": 0.3}})
    for mine, theirs in zip(plackett_luce(whole, 5, seed=3), plackett_luce(part, 5, seed=3)):
        assert mine.to_dict()["q2"] == theirs.to_dict()["q2"]
    assert plackett_luce(Run.from_dict({}), 2) != []


def test_a_run_file_with_a_sample_per_iteration(tmp_path):
    from rankproof.errors import ParseError
    from rankproof.recsys.expected_exposure import read_samples

    path = tmp_path / "samples.run"
    path.write_text("q1 0 a 1 2 r\nq1 0 b 2 1 r\nq1 1 b 1 2 r\nq1 1 a 2 1 r\n")
    samples = read_samples(path)
    assert [s.to_dict() for s in samples] == [{"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 2.0, "a": 1.0}}]
    # a and b alternate: each gets (1 + 0.5) / 2, their target under grades b 1, a 1 -> loss 0
    got = expected_exposure({"q1": {"a": 1, "b": 1}}, samples, gamma=0.5)
    assert got.loss[0] == pytest.approx(0.0)
    path.write_text("q1 0 a 1 x r\n")
    with pytest.raises(ParseError, match="line 1"):
        read_samples(path)
