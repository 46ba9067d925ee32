"""Beyond-accuracy measures of recommendation lists (issue 17, item 5): ILD@k,
novelty@k, long-tail share@k and the per-session mean.

Oracles: scipy.spatial.distance (cosine, jaccard) over every pair by brute
force for ILD on random lists; hand-computed values for the others.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial import distance as scipy_distance

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.recsys.beyond import ild, long_tail_share, novelty, session_mean
from rankproof.errors import InputError, TieError


def random_lists(seed: int, users: int = 60, catalogue: int = 40, longest: int = 12):
    rng = np.random.default_rng(seed)
    lists = {}
    for u in range(users):
        n = int(rng.integers(0, longest + 1))
        items = rng.choice(catalogue, size=n, replace=False)
        lists[f"u{u}"] = {f"i{i}": float(s) for i, s in zip(items, rng.permutation(n))}
    return lists


def brute_ild(lists: dict, k: int, distance) -> dict:
    """Mean distance over every pair of the top k (scores descending, no ties here)."""
    result = {}
    for user, scored in lists.items():
        top = sorted(scored, key=lambda i: -scored[i])[:k]
        pairs = list(itertools.combinations(top, 2))
        if pairs:
            result[user] = sum(distance(a, b) for a, b in pairs) / len(pairs)
    return result


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 5, 10])
def test_ild_cosine_against_scipy(seed, k):
    lists = random_lists(seed)
    rng = np.random.default_rng(100 + seed)
    vectors = {f"i{i}": rng.normal(size=6) for i in range(40)}
    expected = brute_ild(lists, k, lambda a, b: scipy_distance.cosine(vectors[a], vectors[b]))
    result = ild(Run.from_dict(lists), k, features=vectors)
    got = result.per_query()
    assert got.keys() == expected.keys()
    for user, value in expected.items():
        assert got[user] == pytest.approx(value, abs=1e-12)
    assert result.undefined == len(lists) - len(expected)
    # The (ids, matrix) form gives the same values.
    ids = list(vectors)
    same = ild(Run.from_dict(lists), k, features=(ids, np.array([vectors[i] for i in ids])))
    assert same.per_query() == pytest.approx(got)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("labels", [3, 70])  # 70 labels: bitsets of two 64-bit words
def test_ild_jaccard_against_scipy(seed, labels):
    lists = random_lists(seed)
    rng = np.random.default_rng(200 + seed)
    sets = {f"i{i}": set(rng.choice(labels, size=int(rng.integers(1, 4)), replace=False).tolist())
            for i in range(40)}

    def as_bool(s):
        v = np.zeros(labels, dtype=bool)
        v[list(s)] = True
        return v

    expected = brute_ild(lists, 10, lambda a, b: scipy_distance.jaccard(as_bool(sets[a]), as_bool(sets[b])))
    got = ild(Run.from_dict(lists), 10, categories=sets).per_query()
    assert got == pytest.approx(expected, abs=1e-12)


def test_ild_single_categories_by_hand():
    # Top 3 of u: rock, rock, jazz -> pairs (rock, rock) 0, (rock, jazz) 1 twice: 2/3.
    run = Run.from_dict({"u": ["a", "b", "c", "d"]})
    genre = {"a": "rock", "b": "rock", "c": "jazz", "d": "pop"}
    assert ild(run, 3, categories=genre).per_query() == {"u": pytest.approx(2 / 3)}
    # Top 4 adds d: pairs with d all 1 -> (0 + 1 + 1 + 1 + 1 + 1) / 6.
    assert ild(run, 4, categories=genre).per_query() == {"u": pytest.approx(5 / 6)}


def test_ild_refusals():
    run = Run.from_dict({"u": ["a", "b"]})
    with pytest.raises(InputError, match="user u, item b: has no feature vector"):
        ild(run, 2, features={"a": [1.0, 0.0]})
    with pytest.raises(InputError, match="zero feature vector"):
        ild(run, 2, features={"a": [1.0, 0.0], "b": [0.0, 0.0]})
    with pytest.raises(InputError, match="give exactly one"):
        ild(run, 2)
    with pytest.raises(InputError, match="cutoff k of ild"):
        ild(run, 0, features={"a": [1.0], "b": [2.0]})
    # A tie across the cutoff: the top-1 set is not determined under ties=expected.
    tied = Run.from_dict({"u": {"a": 1.0, "b": 1.0}})
    with pytest.raises(TieError):
        ild(tied, 1, categories={"a": "x", "b": "y"})
    assert ild(tied, 1, categories={"a": "x", "b": "y"}, protocol=Protocol(ties="input")).undefined == 1


def test_ild_from_a_table():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"user": ["u", "u", "u"], "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    vectors = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    assert ild(frame, 2, features=vectors).per_query() == {"u": pytest.approx(1.0)}  # a, b orthogonal


# -- novelty and the long tail ---------------------------------------------------------
TRAIN = ["a"] * 4 + ["b"] * 2 + ["c", "d"]  # p = 1/2, 1/4, 1/8, 1/8


def test_novelty_by_hand():
    run = Run.from_dict({"u": {"a": 0.9, "b": 0.5, "c": 0.1}, "v": {"d": 1.0}})
    result = novelty(run, 2, training=TRAIN)
    assert result.per_query() == {"u": 1.5, "v": 3.0}  # (1 + 2) / 2 and 3 bits
    assert result.mean == 2.25
    assert novelty(run, 3, training={"a": 4, "b": 2, "c": 1, "d": 1}).per_query()["u"] == 2.0  # (1 + 2 + 3) / 3


def test_novelty_of_unseen_items():
    run = Run.from_dict({"u": ["a", "x"]})
    with pytest.raises(InputError, match="item x: has no interaction in the training log.*unseen='laplace'"):
        novelty(run, 2, training=TRAIN)
    # Add-one over I = {a, b, c, d, x} (5 items), N = 8: p(a) = 5/13, p(x) = 1/13.
    value = novelty(run, 2, training=TRAIN, unseen="laplace").per_query()["u"]
    assert value == pytest.approx((-math.log2(5 / 13) - math.log2(1 / 13)) / 2)


def test_novelty_when_training_counts_sum_past_int64():
    # Issue 36 #3: counts of 2**62 per row; item a's two rows add to 2**63 and the total N to
    # 1.5 x 2**63 + 1, both past int64 (they wrapped: novelty -0.0735 for log2(3) = 1.585).
    import pyarrow as pa
    from rankproof.recsys.registry import compute_side, parse_side_measure
    from rankproof.recsys.side import SideData
    from rankproof.recsys.side_io import read_train

    big = 2**62
    train = read_train(pa.table({"user": ["x", "y", "z", "w"], "item": ["a", "a", "b", "c"],
                                 "n": [big, big, big, 1]}), count="n")
    ids, counts = train.popularity()
    assert ids.tolist() == ["a", "b", "c"] and (counts >= 0).all()
    run = Run.from_dict({"u": ["b"], "v": ["a"]})
    got = compute_side(parse_side_measure("novelty@1"), run, SideData(train=train))
    # p(b) = 2**62 / (3 x 2**62 + 1) = 1/3 and p(a) = 2/3 to float precision.
    assert got.per_query() == {"u": pytest.approx(math.log2(3)), "v": pytest.approx(math.log2(1.5))}
    assert novelty(run, 1, training={"a": 2 * big, "b": big, "c": 1}).per_query()["u"] == pytest.approx(math.log2(3))


def test_long_tail_share_by_hand():
    train = {"a": 5, "b": 3, "c": 3, "d": 1, "e": 1}
    run = Run.from_dict({"u": ["a", "b", "d", "x"], "v": ["c", "a"], "w": []})
    result = long_tail_share(run, 4, training=train)  # head {a}
    assert result.per_query() == {"u": 0.75, "v": 0.5}
    assert result.undefined == 1  # w's empty list
    # head=0.4: ceil(2) items, a and b, and c tied with b -> head {a, b, c}.
    assert long_tail_share(run, 4, training=train, head=0.4).per_query() == {"u": 0.5, "v": 0.0}
    assert long_tail_share(run, 1, training=train).per_query() == {"u": 0.0, "v": 1.0}
    with pytest.raises(InputError, match="head must be a share"):
        long_tail_share(run, 4, training=train, head=1.5)


# -- per session -------------------------------------------------------------------------
def test_session_mean_through_evaluate():
    # Four rankings (requests) of two users; ndcg@1 of each is 1 or 0 by hand.
    qrels = Qrels.from_dict({"r1": {"a": 1}, "r2": {"a": 1}, "r3": {"a": 1}, "r4": {"a": 1}})
    run = Run.from_dict({"r1": ["a"], "r2": ["b"], "r3": ["b"], "r4": ["a"]})
    results = evaluate(qrels, run, ["ndcg@1"])
    sessions = {"r1": ("x", "s1"), "r2": ("x", "s1"), "r3": ("x", "s2"), "r4": ("y", "t")}
    result = session_mean(results.per_query("ndcg@1"), sessions)
    # x: s1 (1 + 0) / 2 = 0.5, s2 0 -> 0.25; y: 1 -> mean 0.625 (plain mean 0.5).
    assert result.sessions == {("x", "s1"): 0.5, ("x", "s2"): 0.0, ("y", "t"): 1.0}
    assert result.users == {"x": 0.25, "y": 1.0}
    assert result.mean == 0.625
    assert results.mean("ndcg@1") == 0.5


def test_session_mean_from_a_table_and_refusals():
    pandas = pytest.importorskip("pandas")
    table = pandas.DataFrame({"query": ["r1", "r2"], "user": ["x", "x"], "session": ["s", "t"]})
    assert session_mean({"r1": 1.0, "r2": 0.0, "r3": None}, table).mean == 0.5
    assert session_mean({"r1": 1.0, "r2": 0.0, "r3": None}, table).left_out == 1
    with pytest.raises(InputError, match="query r9: has no"):
        session_mean({"r9": 1.0}, table)


def test_rankproof_measures_lists_the_side_data_measures(capsys):
    from rankproof.cli.app import main

    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for name in ("rankproof.recsys.ild", "rankproof.recsys.novelty", "rankproof.recsys.long_tail_share",
                 "rankproof.recsys.coverage", "rankproof.recsys.session_mean"):
        assert name in out
