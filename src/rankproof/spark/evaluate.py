"""``rankproof.spark.evaluate``: the same protocol and numbers, where the data lives.

Spark does the distribution; rankproof does the evaluation, in one pass:

1. both inputs are described in the driver (a local Parquet path with
   pyarrow: its columns checked before Spark starts) and become one
   DataFrame of Arrow IPC blobs, one per table and bucket of queries
   (:func:`~rankproof.spark.inputs.packed`): rankproof's Python reads and
   hashes the rows, Spark moves a few large rows instead of every row;
2. the blobs are repartitioned by bucket, and every partition runs
   :func:`rankproof.evaluate` once, through Arrow
   (:class:`~rankproof.spark.partition.PartitionTask`): no Python call per
   row or per query; it also counts its queries (judged, ranked, missing,
   extra) and sums each measure's values exactly;
3. the driver adds the partitions' facts, applies the query policies that
   need every query (:func:`~rankproof.spark.queries.count_queries`), raises
   the first error a partition met, and takes the means from the exact sums
   (the same means whatever the partitioning); only ``aggregation=weighted``
   reduces the cached per-query values in Spark, joined with the weights.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import InputError, MeasureError, RankproofError, RankproofWarning, literal
from ..engines.options import MIN_COVERAGE, EvaluationOptions
from ..evaluation import guard_coverage, resolve_measures, resolve_protocol, weights_wanted
from ..measures.base import Measure, refuse_whole_evaluation_defaults
from ..protocol import Aggregation, Protocol, Subqueries
from ..results.matching import guard, query_mismatch
from .inputs import QRELS_SIDE, Columns, Table, describe, packed
from .pack import BUCKET, bucket_values
from .partition import EVALUATED_SCHEMA, SUMMARY, VALUES, PartitionTask
from .queries import count_queries
from .ranges import plan_ranges, read_ranges
from .results import SparkResults
from .sums import exact_ratio
from ..typing import MeasuresLike, ProtocolLike

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["evaluate"]


def _input_row(table: Table, place: int) -> int:
    """The 1-based row of an input whose place (:data:`~rankproof.spark.pack.ROW`) is `place`:
    for Parquet read here the place is the row's 0-based number; for a DataFrame,
    Spark's ``monotonically_increasing_id``, so the row is one more than the rows before it."""
    if table.frame is None:
        return place + 1
    from pyspark.sql import functions as F

    return table.frame.select(F.monotonically_increasing_id().alias("place")).filter(F.col("place") < place).count() + 1


def _raise_first(summaries: list[dict], tables: list[Table]) -> None:
    """Raise again, in the driver, the first rankproof error a partition met, with
    its fields; a row it names is the row of the whole input, not of the partition."""
    from .. import errors

    for summary in summaries:
        error = summary.get("error")
        if error:
            kind = getattr(errors, error["type"], None)
            if not (isinstance(kind, type) and issubclass(kind, RankproofError)):
                kind = RankproofError
            fields = error.get("fields")
            if not fields:  # raised as a finished message
                raise kind(error["message"])
            located = error.get("input_row")
            row = _input_row(tables[located[0]], located[1]) if located else fields["row"]
            raise kind(what=fields["what"], source=fields["source"], line=fields["line"], row=row,
                       query=fields["query"], doc=fields["doc"], value=fields["value"],
                       fix=fields["fix"])


# rows per partition when neither partitions= nor spark.sql.shuffle.partitions says
ROWS_PER_PARTITION = 1 << 20


def _partition_count(session: "SparkSession", tables: list[Table]) -> int:
    """``spark.sql.shuffle.partitions`` when the session sets it; otherwise, for Parquet read
    here, about a million rows per partition (at least the session's parallelism), and
    Spark's default (200) when the size is not known."""
    if session.sparkContext.getConf().contains("spark.sql.shuffle.partitions"):
        return int(session.conf.get("spark.sql.shuffle.partitions") or 200)
    sizes = [table.rows for table in tables]
    if any(size is None for size in sizes):
        return int(session.conf.get("spark.sql.shuffle.partitions") or 200)
    rows = sum(size or 0 for size in sizes)
    return max(session.sparkContext.defaultParallelism, -(-rows // ROWS_PER_PARTITION))


def _refuse_whole_evaluation_defaults(measures: list[Measure]) -> None:
    """A parameter whose default is read from every evaluated query (ERR's ``max_grade``: the
    highest judged grade) would be each partition's own on Spark: it must be given."""
    refuse_whole_evaluation_defaults(measures, "on Spark", "partition")


def _exact_means(summaries: list[dict], measures: list[Measure],
                 protocol: Protocol) -> dict[Measure, float]:
    """Each measure's macro or micro mean from the partitions' exact sums, rounded once."""
    means: dict[Measure, float] = {}
    for i, measure in enumerate(measures):
        parts = [s["sums"][i] for s in summaries if s.get("sums")]
        count = sum(p["count"] for p in parts)
        if not count:
            means[measure] = math.nan
            continue
        key = ("num", "den") if protocol.aggregation is Aggregation.MICRO else ("value", "value")
        if any(p[key[0]] is None or p[key[1]] is None for p in parts if p["count"]):
            means[measure] = math.nan  # a value that is not finite: as numpy's mean gives
            continue
        numerator = sum(int(p[key[0]]) for p in parts if p["count"])
        if protocol.aggregation is Aggregation.MICRO:
            denominator = sum(int(p[key[1]]) for p in parts if p["count"])
            means[measure] = (exact_ratio(numerator, denominator, scaled=True) if denominator
                              else 0.0)
        else:
            means[measure] = exact_ratio(numerator, count)
    return means


def _added_counts(summaries: list[dict], queries: dict[str, int]) -> dict[str, Any]:
    """The partitions' counts added up, in the key order of a whole evaluation;
    the query counts are the driver's (a sentinel query may inflate a partition's)."""
    template: dict[str, Any] = max((s["counts"] for s in summaries), key=len, default={})
    keys = list(template) + [k for s in summaries for k in s["counts"] if k not in template]
    total: dict[str, Any] = {}
    for key in dict.fromkeys(keys):
        parts = [s["counts"][key] for s in summaries if key in s["counts"]]
        if parts and isinstance(parts[0], dict):
            inner: dict[str, int] = {}
            for part in parts:
                for measure, value in part.items():
                    inner[measure] = inner.get(measure, 0) + int(value)
            total[key] = inner
        else:
            total[key] = sum(int(p) for p in parts)
    for key, value in queries.items():
        total[key] = value
    return total


def _weights_frame(spark: "SparkSession", weights: Any) -> "DataFrame":
    """Weights as a Spark DataFrame of (query as text, weight)."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    from ..frontdoors.frame import weights_by_user

    if isinstance(weights, DataFrame):
        if not {"query", "weight"} <= set(weights.columns):
            raise InputError(what="weights as a Spark DataFrame need the columns query and weight",
                             fix=f"got {literal(', '.join(weights.columns))}")
        return weights.select(F.col("query").cast("string").alias("query"),
                              F.col("weight").cast("double").alias("weight"))
    given = weights_by_user(weights) or {}
    return spark.createDataFrame(list(given.items()), "query string, weight double")


def _means(per_query: "DataFrame", measures: list[Measure], protocol: Protocol,
           weights: "DataFrame | None") -> dict[Measure, float]:
    """Each measure's aggregate, reduced in Spark (see :meth:`rankproof.Results.mean`)."""
    from pyspark.sql import functions as F

    frame = per_query
    if weights is not None:
        frame = frame.join(weights.withColumnRenamed("query", "_wq"),
                           F.col("query") == F.col("_wq"), "left")
        checks = frame.agg(F.sum(F.col("weight").isNull().cast("int")).alias("missing"),
                           F.sum((F.isnan("weight") | (F.col("weight") < 0)
                                  | F.col("weight").isin(float("inf"))).cast("int")).alias("bad"),
                           F.sum("weight").alias("total")).collect()[0]
        if checks["missing"]:
            some = [r[0]
                    for r in frame.filter(F.col("weight").isNull()).select("query").limit(4).collect()]
            raise InputError(what=f"no weight for {{queries}} {literal(', '.join(sorted(some)[:3]))}"
                                  f"{' and more' if checks['missing'] > 3 else ''}",
                             fix="give every evaluated {query} a weight")
        if checks["bad"] or not checks["total"]:
            raise InputError(what="{query} weights must be finite, non-negative and not all zero")
    aggregates = []
    for i in range(len(measures)):
        included = F.col(f"i{i}")
        aggregates += [F.sum(F.when(included, F.col(f"v{i}"))).alias(f"sum{i}"),
                       F.sum(F.when(included, 1).otherwise(0)).alias(f"count{i}"),
                       F.sum(F.when(included, F.col(f"n{i}"))).alias(f"num{i}"),
                       F.sum(F.when(included, F.col(f"d{i}"))).alias(f"den{i}")]
        if weights is not None:
            aggregates += [F.sum(F.when(included,
                                        F.col("weight") * F.col(f"v{i}"))).alias(f"wsum{i}"),
                           F.sum(F.when(included, F.col("weight"))).alias(f"w{i}")]
    row = frame.agg(*aggregates).collect()[0]
    means: dict[Measure, float] = {}
    for i, measure in enumerate(measures):
        if not row[f"count{i}"]:
            means[measure] = math.nan
        elif protocol.aggregation is Aggregation.MICRO:
            denominator = row[f"den{i}"] or 0.0
            means[measure] = float(row[f"num{i}"] / denominator) if denominator else 0.0
        elif protocol.aggregation is Aggregation.WEIGHTED:
            total = row[f"w{i}"] or 0.0
            means[measure] = float(row[f"wsum{i}"] / total) if total else math.nan
        else:
            means[measure] = float(row[f"sum{i}"] / row[f"count{i}"])
    return means


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasuresLike,
    protocol: ProtocolLike = None,
    *,
    query: str = "query",
    doc: str = "doc",
    grade: str | None = "grade",
    score: str | None = "score",
    weights: "Mapping[str, float] | DataFrame | None" = None,
    name: str | None = None,
    spark: "SparkSession | None" = None,
    partitions: int | None = None,
    min_coverage: float = MIN_COVERAGE,
    allow_partial: bool = False,
) -> SparkResults:
    """Evaluate a run against qrels on Spark, under an explicit protocol.

    Parameters
    ----------
    qrels, run : pyspark.sql.DataFrame, or path of a Parquet file or directory
        One row per judgment, and one row per ranked document (a
        recommender's truth and predictions: user, item, rating and score).
    measures : str, Measure or iterable of them
        As for :func:`rankproof.evaluate`.
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
        Every convention; the values are those :func:`rankproof.evaluate`
        gives under it.
    query, doc, grade, score : str
        Column names, in both tables for `query` and `doc`. Ids are strings
        or integers (``7`` and ``"7"`` are one id). ``grade=None``: every
        qrels row is relevant with grade 1. ``score=None``: the run's rows
        are in rank order within each query, best first. The input order
        (also for ``ties=input`` and ``duplicates=first``): for Parquet read
        here, the files in name order and each file's rows in order; for a
        DataFrame, its partitions in order (a shuffled DataFrame has none:
        give its runs a score instead).
    weights : mapping query -> weight, pandas Series, or Spark DataFrame (query, weight)
        For ``aggregation='weighted'``.
    name : str, optional
        The run's name in results (the file's name, or ``run``).
    spark : SparkSession, optional
        The active session, or a local one (:func:`rankproof.spark.get_session`).
    partitions : int, optional
        Partitions the queries are spread over; by default
        ``spark.sql.shuffle.partitions`` when the session sets it, else about
        a million rows per partition for Parquet read here. Each partition's
        rows are evaluated in one Python call, so they must fit a worker's
        memory. The numbers do not depend on it.
    min_coverage, allow_partial
        As for :func:`rankproof.evaluate`.

    Returns
    -------
    SparkResults
        Means, counts, the protocol and its fingerprint; per-query values as
        a Spark DataFrame (``per_query``), or as :class:`rankproof.Results`
        (``to_results()``).

    Raises
    ------
    rankproof.errors.RankproofError
        Whatever :func:`rankproof.evaluate` raises on the same rows (a
        partition's error is raised again in the driver).
    """
    options = EvaluationOptions(weights=weights, min_coverage=min_coverage,
                                allow_partial=allow_partial)
    protocol = resolve_protocol(protocol)
    measure_list = resolve_measures(measures, protocol)
    if protocol.ids:  # queries are spread by their ids as written: '001' and '1' would not meet
        raise InputError(what=f"the policy ids={protocol.ids} is not applied on Spark",
                         fix="normalise the ids in the data, or evaluate on this machine")
    # a query's sub-queries may sit in different partitions
    if protocol.subqueries is not Subqueries.NONE:
        raise InputError(what=f"the policy subqueries={protocol.subqueries} is not applied on Spark",
                         fix="merge the sub-queries in the data, or evaluate on this machine")
    _refuse_whole_evaluation_defaults(measure_list)
    for measure in measure_list:
        if measure.spec.reads_all_judgments:  # a partition sees its own queries' judgments only
            raise MeasureError(what=f"{literal(measure)} is not computed on Spark: a partition knows only its "
                                    "own queries' judgments",
                               fix="use unjudged@k, or evaluate on this machine",
                               value=str(measure))
    if not weights_wanted(weights, protocol,
                          "pass weights={query: weight} or a DataFrame (query, weight)"):
        options = options.replace(weights=None)
    if (partitions is not None
        and (isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1)):
        raise InputError(what="partitions must be a positive integer",
                         fix=f"got {literal(repr(partitions))}",
                         value=partitions)
    columns = Columns(query=query, doc=doc, grade=grade, score=score)
    wanted = [{"query": query, "doc": doc, "grade": grade},
              {"query": query, "doc": doc, "score": score}]
    # Described before Spark starts: a missing column or a file that is not Parquet is one line, at
    # once.
    tables = [describe(qrels, wanted[0], "qrels"), describe(run, wanted[1], "run")]
    run_name = name if name is not None else tables[1].source

    from .session import get_session, quiet_pyspark

    session = spark or get_session()
    count = partitions or _partition_count(session, tables)
    with warnings.catch_warnings():
        quiet_pyspark()
        return _evaluate_on(session, tables, wanted, columns, count, measure_list, protocol,
                            options,
                            run_name)


def _evaluate_on(session: "SparkSession", tables: list[Table], wanted: list[dict[str, str | None]],
                 columns: Columns,
                 count: int, measures: list[Measure], protocol: Protocol,
                 options: EvaluationOptions, run_name: str) -> SparkResults:
    """The one pass (see the module's docstring) and what the driver makes of it: `options` are the
    front door's (weights, min_coverage, allow_partial; weights None unless the mean is weighted)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    qrels_source, run_source = tables[QRELS_SIDE].source, tables[1 - QRELS_SIDE].source
    task = PartitionTask(measures, protocol, columns, qrels_source, run_source, run_name)
    plan = plan_ranges(tables, count)
    if plan is not None:  # Parquet grouped by query: each task reads its range of ids, no shuffle
        source = session.range(0, len(plan), 1, len(plan)).mapInArrow(read_ranges(plan, task),
                                                                      EVALUATED_SCHEMA)
    else:
        blobs = packed(session, tables, wanted, columns, bucket_values(count))
        source = blobs.repartition(count, BUCKET).mapInArrow(task, EVALUATED_SCHEMA)
    evaluated = source.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        summaries = [json.loads(row[0]) for row in evaluated.filter(F.col(SUMMARY).isNotNull())
                     .select(SUMMARY).collect()]
        query_counts = count_queries([s["facts"] for s in summaries], protocol, qrels_source,
                                     run_source)
        _raise_first(summaries, tables)
        doubts = _id_doubts([s["facts"] for s in summaries], protocol,
                            f"{run_source} against {qrels_source}",
                            options.allow_partial)
        values = evaluated.filter(F.col(VALUES).isNotNull()).select(VALUES)
        weight_frame = None if options.weights is None else _weights_frame(session, options.weights)
        results = SparkResults(blobs=values, measures=measures, protocol=protocol, means={},
                               counts=_added_counts(summaries, query_counts.as_dict()), notes=(),
                               grade_range=None, run_name=run_name, qrels_source=qrels_source,
                               run_source=run_source, weights=weight_frame, cached=evaluated,
                               warnings=doubts, min_coverage=options.min_coverage)
        if weight_frame is not None:
            means = _means(results.values_frame, measures, protocol, weight_frame)
        else:
            means = _exact_means(summaries, measures, protocol)
    except BaseException:
        evaluated.unpersist()
        raise
    ranges = [s["grade_range"] for s in summaries if s["grade_range"] is not None]
    results.complete(means=means,
                     notes=tuple(dict.fromkeys(note for s in summaries for note in s["notes"])),
                     grade_range=(min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges
                     else None)
    for line in doubts:
        warnings.warn(line, RankproofWarning, stacklevel=3)
    guard_coverage(results, allow_partial=options.allow_partial, min_coverage=options.min_coverage,
                   source=f"{run_source} against {qrels_source}")
    return results


def _id_doubts(facts: list[dict], protocol: Protocol, source: str,
               allow_partial: bool) -> tuple[str, ...]:
    """The partial-match guard of :func:`rankproof.evaluate`, on the partitions' samples of unmatched query ids."""
    missing, extra = (sum(int(f[k]) for f in facts) for k in ("missing", "extra"))
    if not missing or not extra:
        return ()
    judged, ranked = (np.unique(np.array([i for f in facts for i in f.get(k, ())], dtype=str))
                      for k in ("sample_missing", "sample_extra"))
    counts = (sum(int(f["qrels"]) for f in facts), missing, extra)
    return guard(query_mismatch(judged, ranked, protocol, totals=counts), source, allow_partial)
