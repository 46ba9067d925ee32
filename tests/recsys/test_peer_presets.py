"""Presets of Evidently (gini, arp, novelty, ild; its coverage is rankproof's) and LensKit (gini):
Evidently's own metric code, and LensKit worked by hand.

Evidently 0.7.23 (the test extra) installs but does not import beside pandas 3 (its
``evidently.legacy.tests`` imports ``pandas.core.dtypes.common.infer_dtype_from_object``,
gone in pandas 3), so its metric methods are read from its installed source and run
alone (``evidently_method``): Evidently's own arithmetic, none of its package's import.
LensKit: not installed: 2025.8.1, the last release for Python 3.11, would downgrade pandas
3.1 to 2.3; its ListGini and ExposureGini (lenskit/metrics/ranking/_gini.py, lenskit.stats.gini)
are worked by hand below.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import os

import numpy as np
import pytest

from rankproof import Run
from rankproof.errors import InputError
from rankproof.recsys.concentration import gini, item_exposure
from rankproof.recsys.coverage import coverage
from rankproof.recsys.registry import compute_side, parse_side_measure
from rankproof.recsys.side import Features, Interactions, SideData

# Top 2 of three lists: a, b | a, c | a, b. Slots: a 3, b 2, c 1 (6 in all); catalogue a..e.
RUN = Run.from_dict({"u": ["a", "b", "z"], "v": ["a", "c"], "w": ["a", "b"]})
CATALOGUE = list("abcde")


def evidently_method(relative: str, cls: str, name: str):
    """Evidently's method `cls.name` from its installed source file, compiled alone (numpy, pandas)."""
    spec = importlib.util.find_spec("evidently")
    if spec is None or spec.origin is None:
        pytest.skip("evidently is not installed (the test extra installs it)")
    path = os.path.join(os.path.dirname(spec.origin), relative)
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for function in node.body:
                if isinstance(function, ast.FunctionDef) and function.name == name:
                    import pandas as pd

                    # RecomType stands in for Evidently's enum: the frames here hold ranks ("rank"), not scores
                    space = {"np": np, "pd": pd, "combinations": itertools.combinations,
                             "RecomType": type("RecomType", (), {"SCORE": "score", "RANK": "rank"})}
                    exec(compile(ast.Module(body=[function], type_ignores=[]), path, "exec"), space)
                    return space[name]
    raise AssertionError(f"{cls}.{name} is not in {path}: Evidently's source changed")


def _frame(lists: dict[str, list[str]]):
    import pandas as pd

    rows = [(user, item, rank) for user, items in lists.items() for rank, item in enumerate(items, 1)]
    return pd.DataFrame(rows, columns=["user", "item", "rank"])


# -- Evidently: PopularityBias.get_gini over the recommended items, divided by (n - 1) ----------------


def test_evidently_gini_worked_by_hand():
    # counts 1, 2, 3 over the n = 3 recommended items: (-2 x 1 + 0 x 2 + 2 x 3) / (2 x 6) = 1/3
    assert gini(RUN, 2, preset="evidently").value == pytest.approx(1 / 3, abs=1e-15)
    assert gini(RUN, 2, preset="evidently").measure == "gini(universe=recommended,normaliser=n-1)@2"


def test_evidently_gini_equals_evidentlys_own_code():
    get_gini = evidently_method("legacy/metrics/recsys/popularity_bias.py", "PopularityBias", "get_gini")
    rng = np.random.default_rng(26)
    items = [f"i{j}" for j in range(40)]
    for trial in range(20):
        k = int(rng.integers(1, 8))
        lists = {f"u{u}": list(rng.choice(items, size=int(rng.integers(1, 10)), replace=False,
                                          p=np.r_[[0.3], np.full(39, 0.7 / 39)]))
                 for u in range(int(rng.integers(2, 30)))}
        theirs = get_gini(None, k, _frame(lists), "rank", "item")
        ours = gini(Run.from_dict(lists), k, preset="evidently").value
        assert ours == pytest.approx(float(theirs), abs=1e-12), (trial, k)


# -- LensKit 2025.8.1: ListGini and ExposureGini over the item count, divided by n ------------------------


def test_lenskit_list_gini_worked_by_hand():
    # counts [0, 0, 1, 2, 3] over the 5 items; weights 2j - n - 1 = -4, -2, 0, 2, 4: 16 / (5 x 6)
    result = gini(RUN, 2, catalogue=CATALOGUE, preset="lenskit")
    assert result.value == pytest.approx(16 / 30, abs=1e-15)
    assert result.measure == "gini(universe=catalogue,normaliser=n)@2"


def test_lenskit_exposure_gini_worked_by_hand():
    # GeometricRankWeight(0.85): rank 1 -> 1, rank 2 -> 0.85. a 3, b 1.7, c 0.85, d 0, e 0 (sum 5.55):
    # (2 x 1.7 + 4 x 3) / (5 x 5.55) = 15.4 / 27.75. LensKit sums in float32: equal within 1e-6.
    result = gini(RUN, 2, catalogue=CATALOGUE, preset="lenskit_exposure")
    assert result.value == pytest.approx(15.4 / 27.75, abs=1e-12)
    assert result.measure == "gini(universe=catalogue,normaliser=n,exposure=geometric,patience=0.85)@2"
    assert result.slots == 6 and result.items == 5


def test_exposure_weights_by_rank_and_is_uniform_by_default():
    ids, sums = item_exposure(RUN, 2, exposure="geometric", patience=0.5)
    assert ids.tolist() == ["a", "b", "c"] and sums.tolist() == [3.0, 1.0, 0.5]
    ids, sums = item_exposure(RUN, 2, exposure="log")
    assert sums.tolist() == pytest.approx([3.0, 2 / np.log2(3), 1 / np.log2(3)])
    ids, sums = item_exposure(RUN, 2)
    assert sums.tolist() == [3.0, 2.0, 1.0]
    # one item in every slot at any exposure: the Gini of one item holding everything
    one = Run.from_dict({"u": ["a"], "v": ["a"]})
    assert gini(one, 1, catalogue=list("abcd"), exposure="geometric").value == pytest.approx(3 / 4)


def test_presets_refuse_a_contradicting_choice():
    with pytest.raises(InputError, match="takes exposure='geometric'"):
        gini(RUN, 2, catalogue=CATALOGUE, preset="lenskit_exposure", exposure="uniform")
    with pytest.raises(InputError, match="takes normaliser='n-1'"):
        gini(RUN, 2, preset="evidently", normaliser="n")
    with pytest.raises(InputError, match="patience"):
        gini(RUN, 2, catalogue=CATALOGUE, exposure="geometric", patience=1.5)
    # a patience of one's own is taken with the preset (LensKit's GeometricRankWeight(patience))
    assert gini(RUN, 2, catalogue=CATALOGUE, preset="lenskit_exposure", patience=0.5).value == pytest.approx(
        (2 * 1.0 + 4 * 3.0) / (5 * 4.5))


# -- Evidently's popularity measures: each item's distinct training users, items never trained on left out ------


def _random_log(seed: int):
    """Random top-k lists (some items never trained on) and a training log with repeated (user, item) rows."""
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(30)]
    weights = np.r_[[0.25], np.full(29, 0.75 / 29)]
    lists = {f"u{u}": list(rng.choice(items + ["new1", "new2"], size=int(rng.integers(1, 9)), replace=False))
             for u in range(int(rng.integers(3, 25)))}
    rows = [(f"t{int(rng.integers(0, 15))}", str(rng.choice(items, p=weights))) for _ in range(int(rng.integers(20, 80)))]
    return lists, rows


def _train_side(rows) -> SideData:
    users, items = (np.array(column) for column in zip(*rows))
    return SideData(train=Interactions(users, items, np.ones(len(rows), dtype=np.int64)))


def test_evidently_arp_novelty_and_coverage_equal_evidentlys_own_code():
    import pandas as pd

    get_apr = evidently_method("legacy/metrics/recsys/popularity_bias.py", "PopularityBias", "get_apr")
    get_coverage = evidently_method("legacy/metrics/recsys/popularity_bias.py", "PopularityBias", "get_coverage")
    get_miuf = evidently_method("legacy/metrics/recsys/novelty.py", "NoveltyMetric", "get_miuf")
    for seed in range(12):
        lists, rows = _random_log(seed)
        k = 1 + seed % 6
        train = pd.DataFrame(rows, columns=["user", "item"])
        stats = train.groupby("item")["user"].nunique()       # Evidently's TrainStats
        frame, run, side = _frame(lists), Run.from_dict(lists), _train_side(rows)
        theirs, _ = get_apr(None, k, frame, stats, False, "rank", "user", "item")
        ours = compute_side(parse_side_measure(f"arp(preset=evidently)@{k}"), run, side)
        assert ours.mean == pytest.approx(float(theirs), rel=1e-12), seed
        _, theirs = get_miuf(None, frame, k, "rank", "user", "item", "rank", stats / train["user"].nunique())
        ours = compute_side(parse_side_measure(f"novelty(preset=evidently)@{k}"), run, side)
        assert ours.mean == pytest.approx(float(theirs), rel=1e-12), seed
        # coverage: rankproof's own, with the training items as the catalogue (as --train gives it)
        theirs = get_coverage(None, k, frame, stats, "rank", "item")
        assert coverage(run, k, side.catalogue()).value == pytest.approx(float(theirs), abs=1e-15), seed


def test_evidently_arp_and_novelty_worked_by_hand():
    # training: a by x, y (x twice), b by x; 2 users. u gets a, b, new: new left out.
    side = _train_side([("x", "a"), ("x", "a"), ("y", "a"), ("x", "b")])
    run = Run.from_dict({"u": ["a", "b", "new"], "v": ["new"]})
    arp = compute_side(parse_side_measure("arp(preset=evidently)@3"), run, side)
    assert arp.per_query() == {"u": 1.5} and arp.undefined == 1 and arp.mean == 1.5   # v: new only
    assert compute_side(parse_side_measure("arp@3"), run, side).per_query()["u"] == pytest.approx(4 / 3)
    novelty = compute_side(parse_side_measure("novelty(preset=evidently)@3"), run, side)
    assert novelty.per_query()["u"] == pytest.approx((0.0 + 1.0) / 2)   # p(a) = 2/2, p(b) = 1/2


def test_evidently_ild_equals_evidentlys_own_code():
    from sklearn.metrics import pairwise_distances

    get_ild = evidently_method("legacy/metrics/recsys/diversity.py", "DiversityMetric", "get_ild")
    rng = np.random.default_rng(7)
    ids = [f"i{j}" for j in range(20)]
    vectors = rng.random((20, 4))
    matrix = pairwise_distances(vectors, metric="cosine")
    for trial in range(8):
        k = int(rng.integers(1, 7))
        lists = {f"u{u}": list(rng.choice(ids, size=int(rng.integers(1, 8)), replace=False)) for u in range(6)}
        _, theirs = get_ild(None, _frame(lists), k, "rank", "user", "item", "rank", matrix,
                            {item: j for j, item in enumerate(ids)})
        side = SideData(features=Features(vectors=(np.array(ids), vectors)))
        ours = compute_side(parse_side_measure(f"ild(preset=evidently)@{k}"), Run.from_dict(lists), side)
        assert ours.mean == pytest.approx(float(theirs), abs=1e-12), trial


def test_evidently_ild_divides_the_pairs_sum_by_the_list_length():
    # a, b orthogonal (distance 1), c = a: pairs ab 1, ac 0, bc 1: sum 2; rankproof 2/3, Evidently 2/3 too
    # over 3 items; over 4 items (d = b): pairs sum 1 + 0 + 1 + 1 + 0 + 1 = 4: 4/6 against 4/4
    side = SideData(features=Features(vectors=(np.array(list("abcd")), np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))))
    run = Run.from_dict({"u": list("abcd"), "v": ["a"]})
    assert compute_side(parse_side_measure("ild@4"), run, side).per_query()["u"] == pytest.approx(4 / 6)
    evidently = compute_side(parse_side_measure("ild(preset=evidently)@4"), run, side).per_query()
    assert evidently["u"] == pytest.approx(1.0) and evidently["v"] == 0.0   # one item: 0, not undefined


def test_presets_on_the_command_line(tmp_path, capsys):
    import json
    import math

    from rankproof.cli.app import main

    files = {"truth.csv": "user,item,grade\nu,a,1\nv,d,1\n",
             "recs.csv": "user,item,score\nu,a,3\nu,b,2\nu,c,1\nv,a,3\nv,d,2\nv,z,1\n",
             "train.csv": "user,item\nx,a\nx,b\ny,a\ny,c\nz,d\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert main(["evaluate", str(tmp_path / "truth.csv"), str(tmp_path / "recs.csv"), "--columns",
                 "query=user,doc=item", "-m", "ndcg@2", "-m", "gini(preset=lenskit_exposure)@2",
                 "-m", "gini(preset=evidently)@2", "-m", "arp(preset=evidently)@2",
                 "-m", "novelty(preset=evidently)@2", "--train", str(tmp_path / "train.csv"),
                 "--format", "json", "--quiet"]) == 0
    side = json.loads(capsys.readouterr().out)["runs"]["recs.csv"]["side"]
    # top 2: u a, b; v a, d. Catalogue (the training items) a..d; exposure a 2, b 0.85, d 0.85, c 0:
    # (-3 x 0 - 1 x 0.85 + 1 x 0.85 + 3 x 2) / (4 x 3.7)
    assert side["gini(preset=lenskit_exposure)@2"]["value"] == pytest.approx(6 / 14.8, abs=1e-12)
    # slots a 2, b 1, d 1 over the 3 recommended items: (-2 x 1 + 0 x 1 + 2 x 2) / (2 x 4)
    assert side["gini(preset=evidently)@2"]["value"] == pytest.approx(2 / 8, abs=1e-12)
    # training users per item: a 2, b 1, c 1, d 1, of 3 users
    assert side["arp(preset=evidently)@2"]["value"] == pytest.approx(1.5)
    assert side["novelty(preset=evidently)@2"]["value"] == pytest.approx((math.log2(3 / 2) + math.log2(3)) / 2)
