"""Catalogue side-data measures on Spark (rankproof.spark.catalogue) equal the local engine's bit for bit, on the
MovieLens-shaped log, with 1, 2 and 7 partitions, on the shared local[2] session.

The measures are every catalogue measure of the registry (read when the test runs, so a measure registered by
another module is held here too), some with their parameters, and one registered by this test: the top item's
share of the slots, which reads only the slot counts. PopRSP and PopREO (each user's list; PopREO the judgments,
given in the side data), exposure and the exposure-weighted Gini (the ranks) read more, so they take the top-k
rows."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run
from rankproof.errors import MeasureError, TieError
from rankproof.recsys.registry import CATALOGUE, SIDE_REGISTRY, CatalogueValue, SideSpec, parse_side_measure
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import side_values as local_values
from rankproof.recsys.side_io import read_features, read_groups, read_train

from movielens import movielens_like

pytestmark = [pytest.mark.spark, pytest.mark.slow]
VARIANTS = ["coverage@1", "gini(universe=recommended)@5", "gini(preset=elliot)@10", "entropy(base=e)@3",
            "entropy(preset=recbole)@10", "gini(preset=lenskit_exposure)@10"]


def _top_share(run, k, side, params, protocol):
    from rankproof.recsys.concentration import item_counts

    ids, counts = item_counts(run, k, protocol)
    return CatalogueValue(f"top_share@{k}", int(counts.max()) / int(counts.sum()), (("items", len(ids)),))


@pytest.fixture(scope="module")
def log():
    import pandas as pd

    tables = {name: pd.DataFrame(columns) for name, columns in movielens_like(seed=5, users=120, items=150).items()}
    side = SideData(items=np.array([f"m{i}" for i in range(160)]), train=read_train(tables["train"]),
                    features=read_features(tables["features"]), groups=read_groups(tables["groups"]),
                    judgments=Qrels.from_table(tables["truth"], query="user", doc="item"))
    SIDE_REGISTRY["top_share"] = SideSpec("top_share", "Top share", "the top item's share of the slots", CATALOGUE,
                                          (), _top_share)
    yield tables, side
    del SIDE_REGISTRY["top_share"]


def _measures() -> list[str]:
    """Every catalogue measure of the registry at @10 (one without a cutoff Spark refuses), and the variants."""
    return [f"{name}@10" for name, spec in SIDE_REGISTRY.items() if spec.kind == CATALOGUE and spec.cutoff] + VARIANTS


def _same(local, on_spark) -> None:
    assert [v.measure for v in on_spark] == [v.measure for v in local]
    for a, b in zip(local, on_spark):
        assert (a.value == b.value) or (math.isnan(a.value) and math.isnan(b.value)), (a.measure, a.value, b.value)
        assert a.detail == b.detail and a.kind == b.kind == CATALOGUE


@pytest.mark.parametrize("partitions", [1, 2, 7])
def test_catalogue_measures_equal_the_local_engine_bit_for_bit(spark, log, partitions):
    from rankproof.spark.side import side_values

    tables, side = log
    measures = _measures()
    assert {"coverage@10", "gini@10", "entropy@10", "pop_rsp@10", "pop_reo@10", "exposure@10",
            "top_share@10"} <= set(measures)
    frame = tables["taste"]
    local = local_values(Run.from_table(frame, query="user", doc="item", score="score"),
                         [parse_side_measure(m) for m in measures], side, Protocol())
    beside = ["novelty@5"] if partitions == 2 else []   # a per-list measure among them keeps its place
    on_spark = side_values(spark.createDataFrame(frame), [*beside, *measures], side, partitions=partitions)
    assert [v.kind for v in on_spark[:len(beside)]] == ["list"] * len(beside)
    _same(local, on_spark[len(beside):])


def test_tied_scores_under_docid_and_error(spark, log):
    """Scores (20 down to 1 in each list) floored by thirds tie across ranks 5 and 7: ties=docid picks the same
    top k as locally;
    ties=error is refused in the driver with the partition's TieError."""
    from rankproof.spark.side import side_values

    tables, side = log
    frame = tables["pop"].assign(score=tables["pop"]["score"] // 3)
    measures = ["coverage@5", "gini@5", "entropy(base=e)@7", "pop_rsp@5"]
    protocol = Protocol(ties="docid")
    local = local_values(Run.from_table(frame, query="user", doc="item", score="score"),
                         [parse_side_measure(m) for m in measures], side, protocol)
    _same(local, side_values(spark.createDataFrame(frame), measures, side, protocol, partitions=3))
    with pytest.raises(TieError, match="across rank 5"):
        side_values(spark.createDataFrame(frame), ["gini@5"], side, Protocol(ties="error"), partitions=2)


def test_refused_before_spark_starts(log):
    """A catalogue measure without a cutoff (it reads every row), missing side data, a measure
    whose judgments are not given: refused with no session (the frame is never touched)."""
    from rankproof.spark.side import side_values

    _, side = log
    SIDE_REGISTRY["rows_read"] = SideSpec("rows_read", "Rows", "every row", CATALOGUE, (), _top_share, cutoff=False,
                                          needs_cutoff=False)
    try:
        with pytest.raises(MeasureError, match="takes no cutoff k"):
            side_values(None, ["rows_read"], side)
    finally:
        del SIDE_REGISTRY["rows_read"]
    with pytest.raises(MeasureError, match="--items or --train"):
        side_values(None, ["coverage@10"], SideData())
    with pytest.raises(MeasureError, match="needs the judgments"):   # PopREO without them: asked on the driver
        side_values(None, ["pop_reo@10"], dataclasses.replace(side, judgments=None))
    with pytest.raises(MeasureError, match="needs the judgments"):   # GAUC (per-user parts) too
        side_values(None, ["gauc"], dataclasses.replace(side, judgments=None))
    with pytest.raises(MeasureError, match="needs the judgments"):   # pooled AUC (pairs across users) too
        side_values(None, ["pooled_auc"], dataclasses.replace(side, judgments=None))


BY_USER_VARIANTS = ["gauc(weights=clicks)", "gauc(weights=uniform)", "percentile_rank(preset=hu)",
                    "percentile_rank(average=users,scale=fraction)"]


@pytest.mark.parametrize("partitions", [1, 2, 7])
def test_measures_without_a_cutoff_equal_the_local_engine_bit_for_bit(spark, log, partitions):
    """GAUC and percentile rank without a cutoff read every row: on Spark each partition gives its users'
    numbers and the driver puts them together in the local engine's user order, so the value is the local one
    to the last bit; users of the judgments without a list (percentile rank counts them) and a partition with
    no user (7 partitions of a few users' rows) included. Pooled AUC compares scores across users: from counts
    per distinct score, in ranges of scores, its U is exact, so its value is the local one to the last bit too;
    every score tied across users (each list scores 20 down to 1)."""
    from rankproof.spark.side import side_values

    tables, side = log
    measures = [name for name, spec in SIDE_REGISTRY.items() if spec.per_user or spec.pairs] + BY_USER_VARIANTS
    assert {"gauc", "percentile_rank", "pooled_auc"} <= set(measures)
    users = sorted(set(tables["taste"]["user"]))
    kept = users[5:9] if partitions == 7 else users[5:]   # 7 partitions of 4 users: some get none
    frame = tables["taste"][tables["taste"]["user"].isin(kept)]
    assert frame["score"].nunique() <= 20 < len(frame)   # each list scores 20 down to 1: ties across users
    run = Run.from_table(frame, query="user", doc="item", score="score")
    truth = set(tables["truth"]["user"])
    assert truth - set(run.queries.tolist()), "a judged user without a list"
    local = local_values(run, [parse_side_measure(m) for m in measures], side, Protocol())
    assert all(np.isfinite(v.value) for v in local)
    _same(local, side_values(spark.createDataFrame(frame), measures, side, partitions=partitions))


def test_gauc_and_pooled_auc_by_hand_on_spark(spark):
    """The module's example (u: 3.5 of 4 pairs over 4 impressions; w: 0 of 1 over 2) spread over partitions."""
    import pandas as pd

    from rankproof.spark.side import side_values

    frame = pd.DataFrame({"user": ["u"] * 4 + ["w"] * 2, "item": list("abcdyz"),
                          "score": [0.9, 0.5, 0.5, 0.1, 0.2, 0.8]})
    side = SideData(judgments=Qrels.from_dict({"u": {"a": 1, "c": 1}, "w": {"y": 1}}))
    for partitions in (1, 3):
        impressions, uniform, pooled = side_values(spark.createDataFrame(frame),
                                                   ["gauc", "gauc(weights=uniform)", "pooled_auc"], side,
                                                   partitions=partitions)
        assert impressions.value == pytest.approx((4 * 0.875 + 2 * 0) / 6, abs=1e-15)
        assert uniform.value == 0.4375
        # positives 0.9, 0.5, 0.2 against negatives 0.5, 0.1, 0.8: 3 + 1.5 + 1 of 9 pairs
        assert pooled.value == 5.5 / 9 and dict(pooled.detail) == {"users": 2, "positives": 3, "negatives": 3}
