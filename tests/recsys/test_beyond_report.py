"""The report's beyond-accuracy data, vectorised over item codes, against the plain loops over rows
(one dict lookup per recommended item) it replaced: the same numbers, to the last bit where the sums
add in the same order, to 1e-12 where the vectorised sum adds per item first (exposure)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankproof import Run
from rankproof.recsys.beyond_report import NO_GROUP, accuracy_by_group, beyond_data
from rankproof.recsys.registry import parse_side_measure
from rankproof.recsys.side import Features, Groups, Interactions, SideData

K = 4


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(35)
    items = np.array([f"i{n:02d}" for n in range(40)])
    lists = {f"u{u}": {str(d): float(s) for d, s in zip(rng.choice(np.r_[items, ["x1", "x2"]], rng.integers(1, 8),
                                                                     replace=False), rng.permutation(8) + 1.0)}
             for u in range(60)}
    run = Run.from_dict(lists)
    catalogue = np.sort(items[:30])                               # some recommended items are not in it
    trained = rng.choice(items[:35], 300)                         # some are never trained on
    train = Interactions(rng.choice([f"u{u}" for u in range(60)], 300), trained, np.ones(300, np.int64))
    genres = np.array(["Action", "Drama", "Comedy"])
    categories = {str(i): frozenset(rng.choice(genres, rng.integers(1, 3), replace=False).tolist())
                  for i in items[:25]}                            # some have none
    users = np.sort(np.array([f"u{u}" for u in range(50)]))       # some users have no group
    groups = Groups(users, rng.choice(["new", "power"], users.size), "groups")
    side = SideData(items=catalogue, train=train, features=Features(categories=categories), groups=groups)
    return lists, run, side


def _top(lists):
    """(rank 0-based, item) of every top-K row, list by list, best first (scores are distinct)."""
    rows = []
    for user in sorted(lists):
        ranked = sorted(lists[user].items(), key=lambda pair: -pair[1])[:K]
        rows += [(r, item) for r, (item, _) in enumerate(ranked)]
    return rows


def test_the_curves_are_the_loops(case):
    lists, run, side = case
    data = beyond_data({"A": run}, [parse_side_measure("novelty(unseen=laplace)@4")], side, k=K)
    rows = _top(lists)
    first: dict[str, int] = {}
    for rank, item in rows:
        if item in set(side.items.tolist()) and rank < first.get(item, K):
            first[item] = rank
    reached = [sum(1 for r in first.values() if r <= k) / side.items.size for k in range(K)]
    assert data["coverage_curve"]["A"] == pytest.approx(reached, abs=1e-15)
    ids, counts = np.unique(side.train.items, return_counts=True)
    percentile = {i: 100.0 * sum(c2 < c for c2 in counts) / (len(ids) - 1) for i, c in zip(ids.tolist(), counts)}
    total, shown = [0.0] * K, [0] * K
    for rank, item in rows:
        total[rank] += percentile.get(item, 0.0)
        shown[rank] += 1
    assert data["popularity_curve"]["A"] == pytest.approx([t / n for t, n in zip(total, shown)], rel=1e-14)
    labels = data["exposure"]["groups"]
    assert labels == ["Action", "Comedy", "Drama", NO_GROUP]
    share = dict.fromkeys(labels, 0.0)
    for rank, item in rows:
        found = side.features.categories.get(item) or frozenset([NO_GROUP])
        for label in found:
            share[label] += 1 / math.log2(rank + 2) / len(found)
    assert data["exposure"]["A"] == pytest.approx([share[g] / sum(share.values()) for g in labels], abs=1e-12)


def test_the_group_means_are_the_loops(case):
    lists, run, side = case
    data = beyond_data({"A": run}, [parse_side_measure("novelty(unseen=laplace)@4")], side, k=K)
    novelty = next(v for v in _side(run, side) if v.measure == "novelty(unseen=laplace)@4")
    label = dict(zip(side.groups.users.tolist(), side.groups.labels.tolist()))
    per: dict[str, list[float]] = {}
    for user, value in zip(novelty.queries.tolist(), novelty.values.tolist()):
        if value == value:
            per.setdefault(label.get(user, NO_GROUP), []).append(value)
    assert list(data["by_group"]["A"]["novelty(unseen=laplace)@4"].items()) == [(g, sum(v) / len(v)) for g, v in per.items()]
    accuracy = {"A": {"ndcg@4": {"u1": 0.5, "u3": 0.25, "u55": 1.0, "u7": 0.125}}}
    got = accuracy_by_group({"by_group": {"A": {}}}, accuracy, side)["by_group"]["A"]["ndcg@4"]
    expected: dict[str, list[float]] = {}
    for user, value in accuracy["A"]["ndcg@4"].items():
        expected.setdefault(label.get(user, NO_GROUP), []).append(value)
    assert list(got.items()) == [(g, sum(v) / len(v)) for g, v in expected.items()]


def _side(run, side):
    from rankproof.recsys.side_eval import side_values

    return side_values(run, [parse_side_measure("novelty(unseen=laplace)@4")], side)
