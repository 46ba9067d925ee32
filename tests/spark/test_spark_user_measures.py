"""A measure defined in this test file (rankproof.measures.define), computed on Spark: the
per-query function runs on the executors, which never import this file (the measure travels
with its function), and gives the local engine's values."""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.measures import define

pytestmark = pytest.mark.spark


def _graded_top(query, floor=1):
    """The sum of the grades >= floor among the judged docs of the top k."""
    k = query.k or len(query.grades)
    top, judged = query.grades[:k], query.judged[:k]
    return float(np.sum(top[judged & (top >= floor)]))


define("graded_top_spark", _graded_top, params={"floor": 1}, value_range=(0, float("inf")), replace=True)


def test_user_measure_on_spark_equals_local(spark):
    import pandas as pd

    from rankproof import spark as on_spark

    rng = np.random.default_rng(5)
    qrels_rows, run_rows = [], []
    for q in range(40):
        docs = rng.permutation(25)[:12]
        qrels_rows += [(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for d in docs[:8]]
        run_rows += [(f"q{q}", f"d{d}", float(s)) for s, d in zip(rng.permutation(12), docs)]
    qrels = pd.DataFrame(qrels_rows, columns=["query", "doc", "grade"])
    run = pd.DataFrame(run_rows, columns=["query", "doc", "score"])
    names = ["graded_top_spark@5", "graded_top_spark(floor=2)@3", "ndcg@5"]
    protocol = Protocol(ties="input")
    local = evaluate(Qrels.from_pandas(qrels), Run.from_pandas(run), names, protocol)
    got = on_spark.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), names, protocol, spark=spark)
    results = got.to_results()
    for name in names:
        mine, theirs = results.per_query(name), local.per_query(name)
        assert mine.keys() == theirs.keys()
        assert all(abs(mine[q] - theirs[q]) <= 1e-12 for q in theirs), name
    got.unpersist()
