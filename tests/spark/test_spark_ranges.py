"""The Spark pass without a shuffle (rankproof.spark.ranges): Parquet grouped by query is cut
into ranges of query ids by its row groups' statistics.

The plan is pure pyarrow (no JVM): every row lands in exactly one range, each
range's rows are in input order with their places, and the plan is refused
where it would not be safe or would read too much. On Spark, an error found in
a range names the row of the whole input; the partition-invariance test of
test_spark.py compares the ranges (Parquet) with the hashed buckets (DataFrames).
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof.spark.inputs import Columns, describe
from rankproof.spark.pack import ROW
from rankproof.spark.ranges import plan_ranges, read_range

QRELS = {"query": "user", "doc": "item", "grade": "rating"}
RUN = {"query": "user", "doc": "item", "score": "score"}
COLUMNS = Columns(query="user", doc="item", grade="rating", score="score")


def _log(users: int, seed: int = 3, shuffled: bool = False):
    """Truth (3 items a user) and predictions (5 a user) grouped by user (or in random order)."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    # Items distinct within a user: slot j of a user holds an item of [10j, 10j + 10).
    truth = pa.table({"user": np.repeat(np.arange(users, dtype=np.int64), 3),
                      "item": (np.arange(3) * 10 + rng.integers(0, 10, (users, 3))).reshape(-1),
                      "rating": rng.integers(0, 4, users * 3)})
    predictions = pa.table({"user": np.repeat(np.arange(users, dtype=np.int64), 5),
                            "item": (np.arange(5) * 10 + rng.integers(0, 10, (users, 5))).reshape(-1),
                            "score": rng.random(users * 5)})
    if shuffled:
        truth = truth.take(pa.array(rng.permutation(truth.num_rows)))
        predictions = predictions.take(pa.array(rng.permutation(predictions.num_rows)))
    return truth, predictions


def _write(tmp_path, truth, predictions, truth_group: int = 7, predictions_group: int = 11, qrels=QRELS):
    import pyarrow.parquet as pq

    (tmp_path / "predictions").mkdir(parents=True)
    pq.write_table(truth, tmp_path / "truth.parquet", row_group_size=truth_group)
    half = predictions.num_rows // 2  # two files: places run on across them
    pq.write_table(predictions.slice(0, half), tmp_path / "predictions" / "part-0.parquet",
                   row_group_size=predictions_group)
    pq.write_table(predictions.slice(half), tmp_path / "predictions" / "part-1.parquet",
                   row_group_size=predictions_group)
    return [describe(str(tmp_path / "truth.parquet"), qrels, "qrels"),
            describe(str(tmp_path / "predictions"), RUN, "run")]


@pytest.mark.parametrize("count", [1, 2, 7, 64])
def test_every_row_in_one_range_in_input_order(tmp_path, count):
    truth, predictions = _log(60)
    tables = _write(tmp_path, truth, predictions)
    plan = plan_ranges(tables, count)
    assert plan is not None and 1 <= len(plan) <= count
    for side, whole in ((0, truth), (1, predictions)):
        places, users = [], []
        for part in plan:
            table = read_range(part, COLUMNS)[side]
            if table is None:
                continue
            rows = table.column(ROW).to_numpy()
            assert (np.diff(rows) > 0).all()  # input order within a range
            # the rows are the input's rows at those places
            assert table.column("item").to_pylist() == whole.column("item").take(rows).to_pylist()
            places.append(rows)
            users.append(set(table.column("user").to_pylist()))
        assert sorted(np.concatenate(places).tolist()) == list(range(whole.num_rows))  # each row once
        assert sum(len(u) for u in users) == len(set().union(*users))  # each user in one range


def test_truth_without_grades_gets_grade_one(tmp_path):
    truth, predictions = _log(20)
    tables = _write(tmp_path, truth.drop_columns(["rating"]), predictions,
                    qrels={"query": "user", "doc": "item", "grade": None})
    plan = plan_ranges(tables, 3)
    assert plan is not None
    qrels = read_range(plan[0], Columns(query="user", doc="item", grade=None, score="score"))[0]
    assert set(qrels.column("grade").to_pylist()) == {1}


def test_refused_where_not_safe_or_too_costly(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, predictions = _log(60, shuffled=True)  # every row group spans nearly every user
    tables = _write(tmp_path, truth, predictions)
    assert plan_ranges(tables, 8) is None and plan_ranges(tables, 2) is None
    # Grouped by user, but the smaller table in one row group that every range must read.
    ordered = tmp_path / "ordered"
    ordered.mkdir()
    truth, predictions = _log(60)
    assert plan_ranges(_write(ordered, truth, predictions, truth_group=10**6), 2) is not None
    assert plan_ranges(_write(tmp_path / "ordered" / "x", truth, predictions, truth_group=10**6), 64) is None
    # Text ids, or a null id, or no statistics: hashed into buckets instead.
    text = tmp_path / "text"
    text.mkdir()
    truth, predictions = _log(30)
    as_text = [t.set_column(0, "user", t.column("user").cast(pa.string())) for t in (truth, predictions)]
    assert plan_ranges(_write(text, *as_text), 4) is None
    nulls = tmp_path / "nulls"
    nulls.mkdir()
    with_null = predictions.set_column(0, "user", pa.array([None] + predictions.column("user").to_pylist()[1:],
                                                           pa.int64()))
    assert plan_ranges(_write(nulls, truth, with_null), 4) is None
    bare = tmp_path / "bare"
    bare.mkdir()
    pq.write_table(truth, bare / "truth.parquet", write_statistics=False)
    pq.write_table(predictions, bare / "predictions.parquet")
    assert plan_ranges([describe(str(bare / "truth.parquet"), QRELS, "qrels"),
                        describe(str(bare / "predictions.parquet"), RUN, "run")], 4) is None


@pytest.mark.spark
@pytest.mark.slow
def test_a_range_names_the_row_of_the_whole_input(spark, tmp_path):
    """A bad score found in one range is named by its row in the whole input (second file)."""
    import pyarrow as pa

    from rankproof import spark as on_spark
    from rankproof.errors import ParseError

    truth, predictions = _log(40)
    bad = predictions.num_rows - 4
    scores = predictions.column("score").to_numpy().copy()
    scores[bad] = np.inf
    predictions = predictions.set_column(2, "score", pa.array(scores))
    tables = _write(tmp_path, truth, predictions)
    assert plan_ranges(tables, 3) is not None
    with pytest.raises(ParseError) as caught:
        on_spark.evaluate(str(tmp_path / "truth.parquet"), str(tmp_path / "predictions"), "ndcg@5", query="user",
                          doc="item", grade="rating", partitions=3, allow_partial=True, spark=spark)
    assert caught.value.row == bad + 1 and caught.value.query == str(predictions.column("user")[bad].as_py())


@pytest.mark.parametrize("kind, planned", [("int8", True), ("int32", True), ("uint32", False), ("int64", True)])
def test_integer_types_whose_statistics_order_as_signed(tmp_path, kind, planned):
    """Statistics of unsigned ids order by the unsigned value: no ranges cut by them."""
    import pyarrow as pa

    truth, predictions = _log(40)
    typed = [t.set_column(0, "user", t.column("user").cast(getattr(pa, kind)())) for t in (truth, predictions)]
    assert (plan_ranges(_write(tmp_path, *typed), 4) is not None) == planned
