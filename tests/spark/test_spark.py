"""The Spark engine (rankproof.spark): the same numbers as the local engine, and as MLlib.

One local[2] session serves every test (starting Spark costs tens of
seconds); each test batches its cases into few Spark jobs. Without java the
tests skip, saying so in one line (and fail under RANKPROOF_REQUIRE_ORACLES=1, as in CI).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from rankproof import Qrels, Run, evaluate


pytestmark = pytest.mark.spark

MEASURES = ["ndcg@5", "ndcg", "ap", "ap@5", "rr", "p@3", "r@10", "rprec", "bpref", "hit@3", "judged@5",
            "num_rel_ret"]
RATIO_MEASURES = ["ndcg@5", "ndcg", "p@3", "r@10", "rprec", "judged@5"]


def test_import_rankproof_loads_no_pyspark():
    code = ("import sys, rankproof, rankproof.cli.parser; rankproof.cli.parser.build_parser(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j') "
            "or m.startswith('rankproof.spark')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cli_engines_are_the_library_engines_and_spark():
    from rankproof.cli.commands.evaluate import engine_choices
    from rankproof.engines import ENGINES

    assert set(engine_choices()) == {name for name, entry in ENGINES.items() if entry.choice} | {"spark"}


def _log(seed: int, integer_ids: bool):
    """Judgments and a run full of edge cases, as pandas frames.

    Queries 0-2 are judged but not ranked (missing), 30-34 ranked but not
    judged (extra); every 7th query judges nothing relevant (zero ideal);
    some grades are negative; scores are small integers (ties); the run ranks
    unjudged docs and, in every 5th query, a doc twice.
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    judged = []
    for q in range(30):
        docs = rng.choice(20, size=rng.integers(1, 9), replace=False)
        for d in docs:
            grade = 0 if q % 7 == 0 else int(rng.choice([0, 1, 2, 3, -1], p=[0.35, 0.3, 0.15, 0.1, 0.1]))
            judged.append((q, int(d), grade))
    ranked = []
    for q in range(3, 35):
        docs = rng.choice(25, size=rng.integers(1, 13), replace=False).tolist()
        if q % 5 == 0:
            docs.insert(int(rng.integers(0, len(docs) + 1)), docs[0])
        for d in docs:
            ranked.append((q, int(d), float(rng.integers(0, 4))))
    qrels = pd.DataFrame(judged, columns=["query", "doc", "grade"])
    run = pd.DataFrame(ranked, columns=["query", "doc", "score"])
    if not integer_ids:
        for frame in (qrels, run):
            frame["query"] = "q" + frame["query"].astype(str)
            frame["doc"] = "d" + frame["doc"].astype(str)
    return qrels, run


def _local(qrels, run, measures, protocol, *, grade="grade", score="score", weights=None):
    return evaluate(Qrels.from_table(qrels, grade=grade), Run.from_table(run, score=score), measures, protocol,
                    weights=weights, allow_partial=True)


def _assert_same(on_spark, local):
    assert on_spark.counts == local.counts
    assert on_spark.protocol == local.protocol and on_spark.fingerprint == local.protocol.fingerprint
    for measure, mean in local.means().items():
        got = on_spark.mean(measure)
        assert (math.isnan(got) and math.isnan(mean)) or abs(got - mean) <= 1e-12, (measure, got, mean)
    collected = on_spark.to_results()
    assert collected.queries == local.queries
    assert collected.counts == local.counts
    for measure in local.measures:
        np.testing.assert_allclose(collected.values(measure), local.values(measure), rtol=0, atol=1e-12)
    for measure, mean in local.means().items():
        got = collected.mean(measure)
        assert (math.isnan(got) and math.isnan(mean)) or abs(got - mean) <= 1e-12


CASES = [
    # (integer ids, protocol, measures, weighted)
    (True, "duplicates=first negative_grades=zero", MEASURES, False),
    (False, "ties=docid negative_grades=unjudged missing_query=exclude duplicates=first zero_ideal=exclude "
            "score_precision=float32", MEASURES, False),
    (True, "ties=input unjudged=condense zero_ideal=one gain=exp2 ideal=retrieved aggregation=micro "
           "duplicates=first negative_grades=zero", RATIO_MEASURES, False),
    (False, "aggregation=weighted negative_grades=zero duplicates=first discount=reciprocal rel=2 ties=docid "
            "precision_denominator=retrieved recall_denominator=min_k ap_denominator=min_k", MEASURES, True),
]


@pytest.mark.parametrize("integer_ids, protocol, measures, weighted", CASES)
def test_values_and_counts_equal_the_local_engine(spark, integer_ids, protocol, measures, weighted):
    from rankproof import spark as on_spark

    qrels, run = _log(hash(protocol) % 1000, integer_ids)
    weights = None
    if weighted:
        queries = sorted(set(qrels["query"].astype(str)))
        weights = {q: float(i % 4 + (i == 0)) for i, q in enumerate(queries)}
    local = _local(qrels, run, measures, protocol, weights=weights)
    got = on_spark.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), measures, protocol,
                            weights=weights, allow_partial=True, spark=spark)
    _assert_same(got, local)
    got.unpersist()


def test_rank_ordered_runs_and_truth_without_grades(spark, tmp_path):
    """score=None: the input order is the ranking; grade=None: every truth row is relevant;
    text ids on one side, integer ids on the other. Read from Parquet directories, and the
    per-query values written back to Parquet."""
    import pyarrow.parquet as pq

    from rankproof import spark as on_spark

    qrels, run = _log(7, True)
    qrels = qrels[qrels["grade"] > 0][["query", "doc"]]
    # Text ids in the truth, integers in the run: 7 and "7" are one id (Spark partitions by the text).
    qrels = qrels.astype({"query": str, "doc": str})
    run = run.sample(frac=1.0, random_state=3).reset_index(drop=True)  # interleaved queries, rank = row order
    protocol = "duplicates=first"
    local = _local(qrels.assign(grade=1), run, MEASURES, protocol, score=None)
    spark.createDataFrame(qrels).coalesce(1).write.parquet(str(tmp_path / "truth"))
    spark.createDataFrame(run).coalesce(1).write.parquet(str(tmp_path / "predictions"))
    got = on_spark.evaluate(str(tmp_path / "truth"), str(tmp_path / "predictions"), MEASURES, protocol,
                            grade=None, score=None, allow_partial=True, spark=spark)
    _assert_same(got, local)
    got.write_parquet(str(tmp_path / "per_query"))
    written = pq.read_table(str(tmp_path / "per_query")).to_pandas().sort_values("query").reset_index(drop=True)
    expected = local.to_pandas()
    assert list(written.columns) == list(expected.columns)
    assert written["query"].tolist() == expected["query"].tolist()
    np.testing.assert_allclose(written["ndcg@5"], expected["ndcg@5"], rtol=0, atol=1e-12)
    got.unpersist()


def test_errors_are_raised_in_the_driver_as_locally(spark):
    import pandas as pd

    from rankproof import spark as on_spark
    from rankproof.errors import DuplicateError, MissingQueryError, ParseError

    qrels, run = _log(11, False)
    qrels_frame, run_frame = spark.createDataFrame(qrels), spark.createDataFrame(run)
    # A duplicate (every 5th query ranks a doc twice), found inside a partition.
    with pytest.raises(DuplicateError, match="listed twice"):
        on_spark.evaluate(qrels_frame, run_frame, "ndcg@5", "negative_grades=zero", allow_partial=True, spark=spark)
    # Query policies, by the join over all queries, before any partition is evaluated.
    with pytest.raises(MissingQueryError, match="do not judge: q30, q31, q32 and more"):
        on_spark.evaluate(qrels_frame, run_frame, "ndcg@5", "extra_query=error", spark=spark)
    with pytest.raises(MissingQueryError, match="no ranking for queries judged in qrels: q0, q1, q2;"):
        on_spark.evaluate(qrels_frame, run_frame, "ndcg@5", "missing_query=error", spark=spark)
    # Real-valued ids are refused, as by the local readers.
    floats = spark.createDataFrame(pd.DataFrame({"query": [1.5], "doc": [2.0], "score": [1.0]}))
    with pytest.raises(ParseError, match="ids must be strings or integers"):
        on_spark.evaluate(spark.createDataFrame(pd.DataFrame({"query": [1.5], "doc": [2.0], "grade": [1]})),
                          floats, "ndcg@5", spark=spark)


def test_a_partition_error_names_the_row_of_the_whole_input_with_its_fields(spark):
    """A bad row found inside a partition is named by its row in the input, as the
    local reader names it, not by its row in the partition that met it (issue 22)."""
    from rankproof import spark as on_spark
    from rankproof.errors import ParseError

    qrels, run = _log(5, False)
    bad = len(run) - 3                                  # 0-based: the fourth row from the end
    run.loc[bad, "score"] = float("inf")
    run_frame = spark.createDataFrame(run)
    assert run_frame.rdd.getNumPartitions() > 1      # the row is not in the first input partition
    with pytest.raises(ParseError) as local:
        Run.from_table(run, source="run")
    with pytest.raises(ParseError) as caught:
        on_spark.evaluate(spark.createDataFrame(qrels), run_frame, "ndcg@5", "duplicates=first negative_grades=zero", spark=spark,
                          allow_partial=True)
    error = caught.value
    assert (error.source, error.row, error.query, error.doc) == ("run", bad + 1, run["query"][bad], run["doc"][bad])
    assert error.what == local.value.what and error.fix == local.value.fix
    assert str(error) == str(local.value)
    assert str(error).startswith(f"run row {bad + 1}: query {run['query'][bad]}, doc {run['doc'][bad]}: ")
    # The same row of the qrels side.
    qrels["grade"] = qrels["grade"].astype(float)
    qrels.loc[len(qrels) - 2, "grade"] = 1.5
    with pytest.raises(ParseError, match=f"qrels row {len(qrels) - 1}: .*grade 1.5 is not an integer"):
        on_spark.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(_log(5, False)[1]), "ndcg@5",
                          "duplicates=first negative_grades=zero", spark=spark, allow_partial=True)


# -- against Spark's own evaluators ------------------------------------------------------------------


def _binary_log(seed: int):
    """Per user: predicted items in order, and the relevant items (some users none: one
    item judged 0 keeps them in the truth; some users have no predictions)."""
    rng = np.random.default_rng(seed)
    predictions, relevant = {}, {}
    for user in range(40):
        if user < 36:
            predictions[user] = rng.choice(30, size=rng.integers(0, 13), replace=False).tolist()
        relevant[user] = rng.choice(30, size=rng.integers(0, 7), replace=False).tolist()
    return predictions, relevant


def test_binary_measures_equal_mllib_under_the_spark_preset(spark):
    import pandas as pd
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.mllib.evaluation import RankingMetrics

    from rankproof import spark as on_spark

    predictions, relevant = _binary_log(5)
    pairs = [([float(i) for i in predictions.get(u, [])], [float(i) for i in relevant[u]]) for u in relevant]
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2).cache())
    expected = {"ap": metrics.meanAveragePrecision}
    for k in (3, 10):
        expected.update({f"p@{k}": metrics.precisionAt(k), f"r@{k}": metrics.recallAt(k),
                         f"ap@{k}": metrics.meanAveragePrecisionAt(k), f"ndcg@{k}": metrics.ndcgAt(k)})
    frame = spark.createDataFrame(pairs, "prediction array<double>, label array<double>")
    evaluator = RankingEvaluator(predictionCol="prediction", labelCol="label")
    assert abs(evaluator.setMetricName("ndcgAtK").setK(10).evaluate(frame) - expected["ndcg@10"]) <= 1e-12
    assert abs(evaluator.setMetricName("meanAveragePrecision").evaluate(frame) - expected["ap"]) <= 1e-12

    truth = pd.DataFrame([(u, i, 1) for u, items in relevant.items() for i in items]
                         + [(u, 99, 0) for u, items in relevant.items() if not items],
                         columns=["user", "item", "rating"])
    log = pd.DataFrame([(u, i) for u, items in predictions.items() for i in items], columns=["user", "item"])
    got = on_spark.evaluate(spark.createDataFrame(truth), spark.createDataFrame(log), list(expected), "spark",
                            query="user", doc="item", grade="rating", score=None, allow_partial=True, spark=spark)
    for measure, value in expected.items():
        assert abs(got.mean(measure) - value) <= 1e-12, (measure, got.mean(measure), value)
    assert got.counts["queries_evaluated"] == 40 and got.counts["zero_ideal_queries"]["ndcg@10"] > 0
    got.unpersist()


def test_mllib_ignores_graded_relevance(spark):
    """MLlib's RankingMetrics takes (prediction, labels, relevance) triples, but its ndcgAt
    equals the binary one (relevance ignored): [b, a, c] and [c, b, a] both score 1.0.
    rankproof's graded ndcg tells the orderings apart, and its binary ndcg equals MLlib's."""
    import pandas as pd
    from pyspark.mllib.evaluation import RankingMetrics

    from rankproof import spark as on_spark

    grades = {1: 1, 2: 3, 3: 2}  # items a=1, b=2, c=3 with grades a:1, b:3, c:2
    orders = [[1, 2], [2, 1, 3], [3, 2, 1]]
    labels, relevance = [float(i) for i in grades], [float(g) for g in grades.values()]
    triples = [([float(i) for i in order], labels, relevance) for order in orders]
    pairs = [(order, labels) for order, labels, _ in triples]
    # Means over one RDD each (few Spark jobs): ndcg is at most 1, so a mean of 1.0 is 1.0 for both.
    context = spark.sparkContext
    with_relevance = RankingMetrics(context.parallelize(triples, 1)).ndcgAt(3)
    binary_mean = RankingMetrics(context.parallelize(pairs, 1)).ndcgAt(3)
    assert with_relevance == binary_mean
    assert RankingMetrics(context.parallelize(triples[1:], 1)).ndcgAt(3) == 1.0
    ideal = 1 + 1 / math.log2(3) + 1 / 2  # three relevant items; [a, b] finds two of them
    binary = [(1 + 1 / math.log2(3)) / ideal, 1.0, 1.0]
    assert abs(binary_mean - sum(binary) / 3) <= 1e-12

    def dcg(gains):
        return sum(g / math.log2(i + 2) for i, g in enumerate(gains))

    graded = [dcg([grades[i] for i in order]) / dcg([3, 2, 1]) for order in orders]
    assert [round(v, 4) for v in graded] == [0.6075, 0.9725, 0.9225]
    truth = pd.DataFrame([(u, i, g) for u in range(3) for i, g in grades.items()], columns=["query", "doc", "grade"])
    run = pd.DataFrame([(u, i) for u, order in enumerate(orders) for i in order], columns=["query", "doc"])
    # Graded (linear gain) and binary (every grade gains 1) in one evaluation.
    binary_ndcg = "ndcg(gain=map:1=1/2=1/3=1)@3"
    got = on_spark.evaluate(spark.createDataFrame(truth), spark.createDataFrame(run), ["ndcg@3", binary_ndcg],
                            score=None, spark=spark).to_results()
    for measure, expected in (("ndcg@3", graded), (binary_ndcg, binary)):
        assert got.per_query(measure) == pytest.approx({str(u): v for u, v in enumerate(expected)}, abs=1e-12)


# -- the command line -----------------------------------------------------------------------------


def _trec_to_parquet(path, target, kind):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [line.split() for line in open(path) if line.strip()]
    if kind == "qrels":
        table = pa.table({"query": [r[0] for r in rows], "doc": [r[2] for r in rows],
                          "grade": [int(r[3]) for r in rows]})
    else:
        table = pa.table({"query": [r[0] for r in rows], "doc": [r[2] for r in rows],
                          "score": [float(r[4]) for r in rows]})
    pq.write_table(table, target)
    return str(target)


def test_cli_numpy_engine_prints_the_compiled_table(cranfield, capsys):
    from rankproof.cli.app import main

    outputs = []
    for engine in ("compiled", "numpy"):
        assert main(["evaluate", str(cranfield / "qrels.txt"), str(cranfield / "bm25.run"), "--engine", engine]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "bm25.run" in outputs[0]
    assert main(["evaluate", str(cranfield / "qrels.txt"), str(cranfield / "bm25.run"),
                 "--spark-master", "local[1]"]) == 2
    assert "--spark-master is for --engine spark" in capsys.readouterr().err


def test_cli_spark_engine_prints_the_local_table_on_cranfield(spark, cranfield, tmp_path, capsys):
    from rankproof.cli.app import main

    qrels = _trec_to_parquet(cranfield / "qrels.txt", tmp_path / "qrels.parquet", "qrels")
    run = _trec_to_parquet(cranfield / "bm25.run", tmp_path / "bm25.parquet", "run")
    outputs = []
    for extra in ([], ["--engine", "spark"]):
        capsys.readouterr()
        assert main(["evaluate", qrels, run, "-m", "ndcg@10", "-m", "ap", "-m", "rr", "-m", "p@10",
                     "--per-query", "--format", "csv", *extra]) == 0
        csv = capsys.readouterr().out
        assert main(["evaluate", qrels, run, *extra]) == 0
        outputs.append((csv, capsys.readouterr().out))
    assert outputs[1] == outputs[0]
    assert "bm25.parquet" in outputs[1][1]
    assert main(["evaluate", str(cranfield / "qrels.txt"), run, "--engine", "spark"]) == 2
    assert "reads Parquet files or directories" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "part.parquet").write_text("not parquet")
    assert main(["evaluate", qrels, str(tmp_path / "empty"), "--engine", "spark"]) == 2
    err = capsys.readouterr().err
    assert "part.parquet: cannot be read as Parquet" in err and len(err.strip().splitlines()) == 1


def test_cli_without_java_says_so_and_exits_2(tmp_path):
    pytest.importorskip("pyspark")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"query": ["1"], "doc": ["a"], "grade": [1]}), tmp_path / "q.parquet")
    pq.write_table(pa.table({"query": ["1"], "doc": ["a"], "score": [1.0]}), tmp_path / "r.parquet")
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-java")}
    done = subprocess.run([sys.executable, "-m", "rankproof.cli", "evaluate", str(tmp_path / "q.parquet"),
                           str(tmp_path / "r.parquet"), "--engine", "spark"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("rankproof evaluate: could not start Spark") and "Java 17 runtime" in last


# -- the same numbers whatever the partitioning --------------------------------------------------


def _identical(a, b):
    """Two Results with the same queries, bit-identical values, the same counts and means."""
    assert a.queries == b.queries and a.counts == b.counts
    for measure in a.measures:
        np.testing.assert_array_equal(a.values(measure), b.values(measure))


@pytest.mark.slow
def test_partitions_and_files_change_no_number(spark, tmp_path):
    """One log evaluated with 1, 2, 7 and 64 partitions: from one Parquet file, from a
    DataFrame, and from the same rows split across several files (small row groups):
    identical per-query values, counts and means (exact sums, rounded once), equal to the
    local engine's. Four evaluations (each costs a few seconds of Spark jobs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rankproof import spark as on_spark

    qrels, run = _log(17, True)
    protocol = "duplicates=first negative_grades=zero ties=input"
    local = _local(qrels, run, MEASURES, protocol)
    pq.write_table(pa.Table.from_pandas(qrels, preserve_index=False), tmp_path / "qrels.parquet")
    pq.write_table(pa.Table.from_pandas(run, preserve_index=False), tmp_path / "run.parquet")
    for name, frame in (("qrels", qrels), ("run", run)):
        (tmp_path / f"{name}_parts").mkdir()
        table = pa.Table.from_pandas(frame, preserve_index=False)
        cuts = [0, len(frame) // 5, len(frame) // 2, len(frame) - 3, len(frame)]
        for i, (start, stop) in enumerate(zip(cuts, cuts[1:])):  # names in row order: part-0, part-1, ...
            pq.write_table(table.slice(start, stop - start), tmp_path / f"{name}_parts" / f"part-{i}.parquet",
                           row_group_size=17)
    parts = (str(tmp_path / "qrels_parts"), str(tmp_path / "run_parts"))
    inputs = [(str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), 1),
              (spark.createDataFrame(qrels), spark.createDataFrame(run), 2), (*parts, 7), (*parts, 64)]
    first = None
    for qrels_input, run_input, count in inputs:
        got = on_spark.evaluate(qrels_input, run_input, MEASURES, protocol, partitions=count, allow_partial=True,
                                spark=spark)
        collected = got.to_results()
        got.unpersist()
        if first is None:
            first = (got.means(), collected)
            _assert_same(got, local)
            continue
        assert got.means() == first[0] or all(
            a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(got.means().values(), first[0].values()))
        _identical(collected, first[1])
        assert got.counts == local.counts


def test_columns_and_formats_are_refused_before_the_jvm_starts(tmp_path):
    """A missing column or a file that is not Parquet: one line naming the file and the
    column, exit 2, before any JVM (no java on the way: JAVA_HOME points nowhere)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pytest.importorskip("pyspark")
    pq.write_table(pa.table({"user": [1], "item": [2], "rating": [1]}), tmp_path / "truth.parquet")
    (tmp_path / "predictions").mkdir()
    pq.write_table(pa.table({"user": [1], "item": [2], "sim": [0.5]}), tmp_path / "predictions" / "part-1.parquet")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "part-0.parquet").write_text("not parquet")
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-java"), "PATH": "/usr/bin:/bin"}
    base = [sys.executable, "-m", "rankproof.cli", "evaluate", "--engine", "spark", "--query-col", "user",
            "--doc-col", "item", "--grade-col", "rating", str(tmp_path / "truth.parquet")]
    missing_column = subprocess.run(base + [str(tmp_path / "predictions")], capture_output=True, text=True,
                                    env=env, timeout=120)
    broken = subprocess.run(base + [str(tmp_path / "broken")], capture_output=True, text=True, env=env, timeout=120)
    for done in (missing_column, broken):
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "could not start Spark" not in done.stderr  # refused before Spark was asked to start
    assert "predictions/part-1.parquet" in missing_column.stderr and "no column 'score'" in missing_column.stderr
    assert "broken/part-0.parquet: cannot be read as Parquet" in broken.stderr
    # ERR's default max_grade is the highest grade of every evaluated query, which no partition knows.
    from rankproof import spark as on_spark
    from rankproof.errors import MeasureError

    with pytest.raises(MeasureError, match=r"err@10 on Spark needs max_grade="):
        on_spark.evaluate(str(tmp_path / "truth.parquet"), str(tmp_path / "predictions"), "err@10")


@pytest.mark.slow
def test_cli_quiet_prints_nothing_on_stderr(spark, tmp_path):
    """--quiet on a fresh process that starts its own local session: stdout holds the
    table, stderr nothing (no log4j profile, no native-hadoop warning, no pyspark warning)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"query": ["1", "1", "2"], "doc": ["a", "b", "a"], "grade": [1, 0, 2]}),
                   tmp_path / "q.parquet")
    pq.write_table(pa.table({"query": ["1", "1", "2"], "doc": ["a", "b", "c"], "score": [2.0, 1.0, 3.0]}),
                   tmp_path / "r.parquet")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYSPARK", "SPARK"))}
    done = subprocess.run([sys.executable, "-m", "rankproof.cli", "evaluate", str(tmp_path / "q.parquet"),
                           str(tmp_path / "r.parquet"), "--engine", "spark", "--quiet", "-m", "p@1"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "r.parquet" in done.stdout and "0.5000" in done.stdout


def _padded_run(cranfield, target, pad_all: bool):
    """Cranfield's bm25 run with zero-padded query ids: all of 1-99 ('001'), or 1-30 padded and 31-99
    renamed to ids no qrels judge (a half match the guard warns about without refusing)."""
    lines = []
    for line in open(cranfield / "bm25.run"):
        query, *rest = line.split()
        number = int(query)
        if number < 100 and (pad_all or number <= 30):
            query = f"{number:03d}"
        elif number < 100:
            query = str(number + 1000)
        lines.append(" ".join([query, *rest]))
    target.write_text("\n".join(lines) + "\n")
    return target


@pytest.mark.slow
def test_spark_partial_match_guard_as_evaluate(spark, cranfield, tmp_path, capsys):
    # issue 28: the partial-match guard's warning reached evaluate only, not the Spark engine
    import warnings

    from rankproof.cli.app import main
    from rankproof.errors import CoverageError, RankproofWarning
    from rankproof.spark import evaluate as spark_evaluate

    qrels = _trec_to_parquet(cranfield / "qrels.txt", tmp_path / "qrels.parquet", "qrels")
    half = _trec_to_parquet(_padded_run(cranfield, tmp_path / "half.run", False), tmp_path / "half.parquet", "run")
    whole = _trec_to_parquet(_padded_run(cranfield, tmp_path / "all.run", True), tmp_path / "all.parquet", "run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankproofWarning)
        local = evaluate(Qrels.read(qrels), Run.read(half), ["ndcg@10"])   # the local engine's warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankproofWarning)
        on_spark = spark_evaluate(qrels, half, ["ndcg@10"], spark=spark)
    assert on_spark.warnings == local.warnings and "zero padding" in local.warnings[0]
    assert [str(w.message) for w in caught if w.category is RankproofWarning] == list(local.warnings)
    assert on_spark.to_results().warnings == local.warnings
    with pytest.raises(CoverageError, match="zero padding"):     # strong evidence: refused, as evaluate does
        spark_evaluate(qrels, whole, ["ndcg@10"], spark=spark)
    capsys.readouterr()
    assert main(["evaluate", qrels, half, "-m", "ndcg@10", "--engine", "spark"]) == 0
    err = capsys.readouterr().err
    assert "half.parquet: warning: query ids differ by zero padding" in err and "ids=strip_zeros" in err


def test_spark_coverage_warning_keeps_the_callers_share(spark):
    # Five judged queries, the run ranks three (60%): below the 75% asked for, said on Spark and
    # by its collected Results (which keep the share), as evaluate says it
    # (tests/results/test_coverage.py).
    import warnings

    import pandas as pd

    from rankproof import spark as on_spark
    from rankproof.errors import RankproofWarning

    qrels = pd.DataFrame({"query": [f"q{i}" for i in range(1, 6)], "doc": ["d"] * 5,
                          "grade": [1] * 5})
    run = pd.DataFrame({"query": ["q1", "q2", "q3"], "doc": ["d"] * 3, "score": [1.0] * 3})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankproofWarning)
        found = on_spark.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), "rr",
                                  spark=spark, min_coverage=0.75, allow_partial=True)
    said = [str(w.message) for w in caught if w.category is RankproofWarning]
    assert said == ["the run ranks 3 of the 5 judged queries (60.0%), below the 75% asked for; the "
                    "other 2 are scored 0 (missing_query=zero)"]
    assert found.mean("rr") == pytest.approx(0.6) and found.to_results().min_coverage == 0.75
    assert said[0] in found.to_results().summary()
