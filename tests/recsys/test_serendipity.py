"""Serendipity: hand-worked values, Microsoft Recommenders' definition, and the command line.

Microsoft Recommenders 1.2.1 (the peer) is not installed: it would downgrade pandas (the venv has 3.x).
The table below is worked by hand from its ``python_evaluation.serendipity``, ``user_serendipity`` and
``_get_cooccurrence_similarity``, and stands in.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rankproof import Run
from rankproof.cli.app import main
from rankproof.errors import InputError, MeasureError
from rankproof.recsys.registry import SIDE_REGISTRY, compute_side, parse_side_measure
from rankproof.recsys.serendipity import serendipity
from rankproof.recsys.side import Interactions, SideData

# Training histories; users per item: a {x, y}, b {x, z}, c {y, z}, d {z}.
TRAIN = {"x": ["a", "b"], "y": ["a", "c"], "z": ["b", "c", "d"]}
# Co-occurrence cosine |U_i & U_j| / sqrt(|U_i| |U_j|): a-b, a-c, b-c 1/2; b-d, c-d 1/sqrt(2); a-d 0.
R2 = 1 / math.sqrt(2)
RUN = Run.from_dict({"x": {"c": 2.0, "d": 1.0}, "y": {"b": 3.0, "d": 2.0, "e": 1.0}, "w": {"a": 1.0}})


def test_cooccurrence_as_microsoft_recommenders_computes_it():
    # x (history a, b): c: 1 - (1/2 + 1/2)/2 = 1/2; d: 1 - (0 + 1/sqrt 2)/2
    # y (history a, c): b: 1 - (1/2 + 1/2)/2 = 1/2; d: 1 - (0 + 1/sqrt 2)/2; e (never trained on): 1
    # w has no history: Recommenders' inner join drops it (nan, out of the mean)
    x = (0.5 + 1 - R2 / 2) / 2
    y = (0.5 + 1 - R2 / 2 + 1) / 3
    for result in (serendipity(RUN, 3, history=TRAIN, similarity="cooccurrence"),
                   serendipity(RUN, 3, history=TRAIN, preset="recommenders")):
        assert result.per_query() == pytest.approx({"x": x, "y": y}, abs=1e-15)
        assert result.mean == pytest.approx((x + y) / 2, abs=1e-15)
        assert result.undefined == 1
    assert (x + y) / 2 == pytest.approx(0.6443528, abs=1e-7)


def test_relevance_column_equals_the_judgments():
    # Recommenders' col_relevance 1/0 = relevance=binary: x's d, y's b and e are relevant
    relevant = {"x": ["d"], "y": ["b", "e"]}
    result = serendipity(RUN, 3, history=TRAIN, similarity="cooccurrence", relevant=relevant)
    assert result.per_query() == pytest.approx({"x": (1 - R2 / 2) / 2, "y": (0.5 + 1) / 3}, abs=1e-15)
    assert "relevance=binary" in result.measure


def test_feature_similarities_by_hand():
    # cosine: a (1, 0), b (0, 1), c (1, 1): x's c against a and b: cos 1/sqrt 2 each -> 1 - 1/sqrt 2
    features = (np.array(["a", "b", "c", "d", "e"]), np.array([[1, 0], [0, 1], [1, 1], [0, 0], [2, 0]]))
    run = Run.from_dict({"x": ["c", "d"], "y": ["e"]})
    result = serendipity(run, 2, history={"x": ["a", "b"], "y": ["a"]}, features=features)
    # d is a zero vector: similar to nothing (unexpectedness 1); y's e points as a: 0
    assert result.per_query() == pytest.approx({"x": ((1 - R2) + 1) / 2, "y": 0.0}, abs=1e-15)
    assert result.per_query() == serendipity(run, 2, history={"x": ["a", "b"], "y": ["a"]}, features=features,
                                             preset="recommenders_features").per_query()
    # the cutoff: x's top 1 is c only
    assert serendipity(run, 1, history={"x": ["a", "b"]}, features=features).per_query()["x"] == \
        pytest.approx(1 - R2, abs=1e-15)


def test_features_as_a_mapping_as_ild_takes_them():
    """Issue 36: features={item: vector} crashed with "too many values to unpack"; ild takes it."""
    vectors = {"a": [1, 0], "b": [0, 1], "c": [1, 1], "d": [0, 0], "e": [2, 0]}
    run = Run.from_dict({"x": ["c", "d"], "y": ["e"]})
    result = serendipity(run, 2, history={"x": ["a", "b"], "y": ["a"]}, features=vectors)
    assert result.per_query() == pytest.approx({"x": ((1 - R2) + 1) / 2, "y": 0.0}, abs=1e-15)
    with pytest.raises(InputError, match="two feature vectors|mapping"):
        serendipity(run, 2, history={"x": ["a"]}, features=[1, 2, 3])


def test_errors_in_users_and_items_words():
    with pytest.raises(InputError, match="item 'e' has no category"):
        serendipity(RUN, 3, history=TRAIN, categories={"a": "A", "b": "B", "c": "C", "d": "D"})
    with pytest.raises(InputError, match="relevance=binary needs"):
        serendipity(RUN, 3, history=TRAIN, similarity="cooccurrence", relevance="binary")
    with pytest.raises(InputError, match="preset=recommenders sets similarity=cooccurrence"):
        serendipity(RUN, 3, history=TRAIN, similarity="cosine", preset="recommenders")
    with pytest.raises(InputError, match="cutoff"):
        serendipity(RUN, 0, history=TRAIN, similarity="cooccurrence")


def _side() -> SideData:
    users = [u for u, items in TRAIN.items() for _ in items]
    items = [i for its in TRAIN.values() for i in its]
    return SideData(train=Interactions(np.array(users), np.array(items), np.ones(len(items), dtype=np.int64)))


def test_registered_with_its_side_data():
    spec = SIDE_REGISTRY["serendipity"]
    assert spec.kind == "list" and spec.needs == (("train",),) and spec.reads_side("features")
    value = compute_side(parse_side_measure("serendipity(preset=recommenders)@3"), RUN, _side())
    assert value.per_query()["x"] == pytest.approx((0.5 + 1 - R2 / 2) / 2, abs=1e-15)
    with pytest.raises(MeasureError, match="no --features"):
        compute_side(parse_side_measure("serendipity(relevance=one)@3"), RUN, _side())
    with pytest.raises(MeasureError, match="no judgments"):
        compute_side(parse_side_measure("serendipity(similarity=cooccurrence)@3"), RUN, _side())


FILES = {
    "truth.csv": "user,item,grade\nx,d,1\ny,b,1\ny,e,1\n",
    "recs.csv": "user,item,score\nx,c,2\nx,d,1\ny,b,3\ny,d,2\ny,e,1\n",
    "train.csv": "user,item\nx,a\nx,b\ny,a\ny,c\nz,b\nz,c\nz,d\n",
    "genres.csv": "item,category\na,X|Y\nb,Z\nc,X\nd,Z\ne,Y\n",
}


def test_cli_evaluate_with_train_and_features(tmp_path, capsys):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    code = main([str(a) for a in ("evaluate", tmp_path / "truth.csv", tmp_path / "recs.csv", "--columns",
                                  "query=user,doc=item", "-m", "ndcg@3", "-m", "serendipity@3",
                                  "-m", "serendipity(preset=recommenders)@3", "--train", tmp_path / "train.csv",
                                  "--features", tmp_path / "genres.csv", "--format", "json", "--quiet")])
    out, err = capsys.readouterr()
    assert code == 0, err
    side = json.loads(out)["runs"]["recs.csv"]["side"]
    # Jaccard over genres, relevance binary: x's d (Z) against a (X, Y) 0 and b (Z) 1 -> 1/2, relevant;
    # c not relevant. y: b (Z) against a 0, c (X) 0 -> 1, relevant; d not relevant; e (Y) against a 1/2, c 0 -> 3/4
    assert side["serendipity@3"]["per_query"] == pytest.approx({"x": 0.5 / 2, "y": (1 + 0.75) / 3}, abs=1e-15)
    x = (0.5 + 1 - R2 / 2) / 2
    y = (0.5 + 1 - R2 / 2 + 1) / 3
    assert side["serendipity(preset=recommenders)@3"]["value"] == pytest.approx((x + y) / 2, abs=1e-15)
