"""Per-list side-data measures on Spark (rankproof.spark.side) equal the local engine's, user by user,
on the MovieLens-shaped log, on a local[2] session (shared with test_spark.py when both run)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from rankproof import Protocol, Run
from rankproof.errors import MeasureError
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import side_values as local_values
from rankproof.recsys.side_io import read_features, read_groups, read_train


sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "recsys"))
from movielens import movielens_like  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.slow]
MEASURES = ["novelty(unseen=laplace)@10", "long_tail_share@5", "ild@10", "ild(distance=jaccard)@3", "arp@10",
            "calibration@10", "calibration(rank_weight=log)@5"]


@pytest.fixture(scope="module")
def log():
    import pandas as pd

    tables = {name: pd.DataFrame(columns) for name, columns in movielens_like(seed=3, users=150, items=200).items()}
    side = SideData(train=read_train(tables["train"]), features=read_features(tables["features"]),
                    groups=read_groups(tables["groups"]))
    return tables, side


@pytest.mark.parametrize("name", ["pop", "taste"])
def test_per_list_measures_equal_the_local_engine(spark, log, name):
    from rankproof.spark.side import side_values

    tables, side = log
    frame = tables[name]
    run = Run.from_table(frame, query="user", doc="item", score="score")
    local = local_values(run, [*map(_parse, MEASURES)], side, Protocol())
    on_spark = side_values(spark.createDataFrame(frame), MEASURES, side, partitions=3)
    for a, b in zip(local, on_spark):
        assert a.measure == b.measure
        assert a.queries.tolist() == b.queries.tolist()
        np.testing.assert_allclose(b.values, a.values, rtol=1e-12, atol=0, equal_nan=True)
        assert b.value == pytest.approx(a.value, rel=1e-12)


def test_refuses_a_catalogue_measure_and_ties_input(spark, log):
    from rankproof.spark.side import side_values

    tables, side = log
    frame = spark.createDataFrame(tables["pop"])
    with pytest.raises(MeasureError, match="catalogue measure"):
        side_values(frame, ["coverage@10"], side)
    with pytest.raises(MeasureError, match="ties=input"):
        side_values(frame, ["novelty@10"], side, Protocol(ties="input"))


def _parse(text):
    from rankproof.recsys.registry import parse_side_measure

    return parse_side_measure(text)
