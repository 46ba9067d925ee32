"""Per-list side-data measures on Spark (rankproof.spark.side) equal the local engine's, user by user,
on the MovieLens-shaped log, on a local[2] session (shared with test_spark.py when both run)."""

from __future__ import annotations


import numpy as np
import pytest

from rankproof import Protocol, Run
from rankproof.errors import MeasureError
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import side_values as local_values
from rankproof.recsys.side_io import read_features, read_groups, read_train


from movielens import movielens_like

pytestmark = [pytest.mark.spark, pytest.mark.slow]
MEASURES = ["novelty(unseen=laplace)@10", "long_tail_share@5", "ild@10", "ild(distance=jaccard)@3", "arp@10",
            "calibration@10", "calibration(rank_weight=log)@5", "aplt@10", "aclt(ratio=0.5)@5"]


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


TIED = ["exposure@10", "gini(preset=lenskit_exposure)@10", "calibration(rank_weight=log)@5", "percentile_rank@10",
        "ips_ndcg(exponent=0.5,normaliser=ideal)@5", "novelty@5"]


@pytest.mark.parametrize("ties", ["expected", "input"])
def test_tied_scores_keep_the_input_order_as_on_one_machine(spark, log, ties):
    """Scores tied inside the top k (ranks 1-2 and 3-4 of every list) and across users: the measures that weigh
    ranks (exposure, rank-weighted calibration, percentile rank, IPS nDCG) see tied rows in input order on
    Spark as on one machine, under ties=expected and ties=input (once refused on Spark); per-list values to
    1e-12, catalogue ones exactly."""
    from rankproof import Qrels
    from rankproof.spark.side import side_values

    tables, side = log
    score = tables["taste"]["score"].to_numpy()
    frame = tables["taste"].assign(score=np.where(score >= 19, 19.0, np.where(score >= 17, 17.0, score)))
    judged = side.with_judgments(Qrels.from_table(tables["truth"], query="user", doc="item"))
    protocol = Protocol(ties=ties)
    run = Run.from_table(frame, query="user", doc="item", score="score")
    local = local_values(run, [*map(_parse, TIED)], judged, protocol)
    on_spark = side_values(spark.createDataFrame(frame), TIED, judged, protocol, partitions=3)
    for a, b in zip(local, on_spark):
        assert a.measure == b.measure
        if a.kind == "catalogue":
            assert a.value == b.value and a.detail == b.detail, a.measure
        else:
            np.testing.assert_allclose(b.values, a.values, rtol=1e-12, atol=1e-15, equal_nan=True)


def _parse(text):
    from rankproof.recsys.registry import parse_side_measure

    return parse_side_measure(text)


def test_cli_engine_spark_prints_the_local_side_values(spark, log, tmp_path, capsys):
    """rankproof evaluate --engine spark with per-list and catalogue side-data measures, among them those that
    read the judgments (AUC, IPS, PopREO): the local table, each user's value the local one and each catalogue
    value the local one exactly (JSON)."""
    import json

    import pandas as pd

    from rankproof.cli.app import main

    tables, _ = log
    paths = {}
    tables = {**tables, "items": pd.DataFrame({"item": [f"m{i}" for i in range(220)]})}   # 20 never rated
    for name in ("truth", "taste", "train", "features", "items"):
        paths[name] = tmp_path / f"{name}.parquet"
        tables[name].to_parquet(paths[name], index=False)
    args = ["evaluate", paths["truth"], paths["taste"], "--columns", "query=user,doc=item", "-m", "ndcg@10",
            "-m", "arp@10", "-m", "calibration@10", "-m", "ild@5", "-m", "coverage@10", "-m", "gini@10",
            "-m", "entropy@5", "-m", "pop_rsp@10", "--train", paths["train"],
            # the measures that read the judgments (QRELS, read once on the driver with --engine spark)
            "-m", "auc", "-m", "ips_hit_rate@10", "-m", "pop_reo@10", "-m", "aplt@10", "-m", "gauc",
            "-m", "percentile_rank", "-m", "pooled_auc",
            "--features", paths["features"], "--items", paths["items"], "--quiet"]
    outputs = []
    for extra in ([], ["--engine", "spark"]):
        capsys.readouterr()
        assert main([str(a) for a in [*args, *extra]]) == 0
        table = capsys.readouterr().out
        assert main([str(a) for a in [*args, *extra, "--format", "json"]]) == 0
        outputs.append((table, json.loads(capsys.readouterr().out)["runs"]["taste.parquet"]["side"]))
    assert outputs[1][0] == outputs[0][0] and "calibration@10" in outputs[0][0] and "gini@10" in outputs[0][0]
    catalogue = {"coverage@10", "gini@10", "entropy@5", "pop_rsp@10", "pop_reo@10", "gauc",
                 "percentile_rank", "pooled_auc"}
    assert catalogue < set(outputs[0][1]) and {"auc", "ips_hit_rate@10", "aplt@10"} < set(outputs[0][1])
    assert dict(outputs[0][1]["coverage@10"]["detail"])["catalogue_size"] == 220   # --items, not --train's items
    for measure, local in outputs[0][1].items():
        on_spark = outputs[1][1][measure]
        if measure in catalogue:   # one value for the run, from the same local function: equal exactly
            assert on_spark == local, measure
            continue
        assert list(on_spark["per_query"]) == list(local["per_query"])
        assert on_spark["per_query"] == pytest.approx(local["per_query"], abs=1e-12), measure


SERENDIPITY = ["serendipity(relevance=one)@10", "serendipity(similarity=cooccurrence,relevance=one)@5",
               "serendipity(preset=recommenders)@10"]
JUDGED = ["serendipity@10", "ips_hit_rate@10", "ips_ndcg(exponent=0.5,normaliser=ideal)@5", "auc"]


def test_serendipity_and_ips_equal_the_local_engine(spark, log):
    """Serendipity and the IPS measures per user on Spark (each partition reads the whole --train,
    --features and judgments); without the judgments, the measures that read them say so in one line,
    on the driver."""
    from rankproof import Qrels
    from rankproof.spark.side import side_values

    tables, side = log
    frame = tables["taste"]
    run = Run.from_table(frame, query="user", doc="item", score="score")
    judged = side.with_judgments(Qrels.from_table(tables["truth"], query="user", doc="item"))
    for measures, given in ((SERENDIPITY, side), (JUDGED, judged)):
        local = local_values(run, [*map(_parse, measures)], given, Protocol())
        on_spark = side_values(spark.createDataFrame(frame), measures, given, partitions=3)
        for a, b in zip(local, on_spark):
            assert a.measure == b.measure and a.queries.tolist() == b.queries.tolist()
            assert np.isfinite(a.values).sum() > 20, a.measure
            np.testing.assert_allclose(b.values, a.values, rtol=1e-12, atol=1e-15, equal_nan=True)
    with pytest.raises(MeasureError, match="needs the judgments"):
        side_values(spark.createDataFrame(frame), ["ips_hit_rate@10"], side)
    with pytest.raises(MeasureError, match="no judgments"):
        side_values(spark.createDataFrame(frame), ["serendipity@10"], side)
