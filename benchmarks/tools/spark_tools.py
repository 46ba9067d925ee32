"""The tools of benchmarks/spark_bench.py, each run as its own process (whole process timed).

Usage: python spark_tools.py TOOL TRUTH.parquet PREDICTIONS.parquet OUT [PARTITIONS]

TOOL:
  local        rankproof.evaluate_frame on the two files (the compiled engine, one machine)
  spark1       rankproof.spark.evaluate on a local[1] session, per-user values written to Parquet
  spark2       the same on local[2]
  evaluator    Spark's RankingEvaluator (ndcgAtK, k=10) on per-user arrays built in Spark

rankproof's tools compute graded ndcg@10 (linear gain of the rating) and the
binary one (every truth item gains 1); the evaluator only the binary one.
Each prints one JSON line of means on stdout.
"""

from __future__ import annotations

import json
import os
import sys

GRADED = "ndcg@10"
BINARY = "ndcg(gain=map:1=1/2=1/3=1/4=1/5=1)@10"


def _session(master: str, partitions: int):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master(master).appName("rankproof-bench")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "6g")
               # Both tools' JVMs with the quick JIT only, as rankproof's own local sessions start
               # (spark/session.py LOCAL_JAVA_OPTIONS): the evaluator gains a little from it too
               # (63.8 -> 60.6 CPU s on 1M users), so neither tool is timed with a handicap.
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
               .config("spark.sql.shuffle.partitions", str(partitions))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def local(truth: str, predictions: str, out: str) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rankproof import evaluate_frame

    results = evaluate_frame(truth, predictions, [GRADED, BINARY], "spark")
    pq.write_table(pa.table({"user": results.queries, GRADED: results.values(GRADED)}), out)
    return results.means()


def on_spark(master: str, truth: str, predictions: str, out: str, partitions: int) -> dict:
    from rankproof import spark as rankproof_spark

    session = _session(master, partitions)
    results = rankproof_spark.evaluate(truth, predictions, [GRADED, BINARY], "spark", query="user", doc="item",
                                       grade="rating", score="score", allow_partial=True, spark=session)
    results.write_parquet(out)
    return results.means()


def evaluator(truth: str, predictions: str, out: str, partitions: int) -> dict:
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import functions as F

    session = _session("local[2]", partitions)
    predicted = (session.read.parquet(predictions).groupBy("user")
                 .agg(F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("negated"), F.col("item").cast("double").alias("item"))))
                      .alias("ranked"))
                 .select("user", F.col("ranked.item").alias("prediction")))
    relevant = (session.read.parquet(truth).groupBy("user")
                .agg(F.collect_list(F.col("item").cast("double")).alias("label")))
    # Every truth user, with an empty prediction list when nothing was predicted (scored 0).
    frame = relevant.join(predicted, "user", "left").select(
        "user", F.coalesce("prediction", F.array().cast("array<double>")).alias("prediction"), "label")
    value = RankingEvaluator(predictionCol="prediction", labelCol="label", metricName="ndcgAtK", k=10).evaluate(frame)
    return {BINARY: value}


def main(tool: str, truth: str, predictions: str, out: str, partitions: str = "16") -> None:
    count = int(partitions)
    if tool == "local":
        means = local(truth, predictions, out)
    elif tool in ("spark1", "spark2"):
        means = on_spark(f"local[{tool[-1]}]", truth, predictions, out, count)
    elif tool == "evaluator":
        means = evaluator(truth, predictions, out, count)
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    print(json.dumps(means))


if __name__ == "__main__":
    main(*sys.argv[1:])
