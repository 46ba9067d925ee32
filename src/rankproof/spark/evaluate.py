"""``rankproof.spark.evaluate``: the same protocol and numbers, where the data lives.

Spark does the distribution; rankproof does the evaluation:

1. both inputs become one DataFrame (:func:`~rankproof.spark.inputs.stacked`);
2. the query policies that need every query (missing and extra queries, the
   query counts) are applied by a Spark aggregation over all query ids
   (:func:`~rankproof.spark.queries.count_queries`);
3. the rows are repartitioned by query and sorted within each partition by
   side and input order, and every partition runs :func:`rankproof.evaluate`
   once, through Arrow (:class:`~rankproof.spark.partition.PartitionTask`):
   no Python call per row or per query;
4. the per-query values are cached and reduced in Spark to the means
   (macro, micro or weighted), and the partitions' counts are added up.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ..errors import InputError, RankproofError, literal
from ..evaluation import MIN_COVERAGE, check_query_coverage, resolve_measures, resolve_protocol, weights_wanted
from ..measures.base import Measure
from ..protocol import Aggregation, Protocol
from .inputs import KEY, ROW, SIDE, Columns, read_table, stacked
from .partition import SUMMARY, PartitionTask, output_schema
from .queries import count_queries
from .results import SparkResults

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["evaluate"]


def _input_row(both: "DataFrame", side: int, place: int) -> int:
    """The 1-based row of one side's input whose place in the stacked table is `place`:
    places number the rows in input order (partition, then row), so the row is one
    more than the rows of that side before it."""
    from pyspark.sql import functions as F

    return both.filter((F.col(SIDE) == side) & (F.col(ROW) < place)).count() + 1


def _raise_first(summaries: list[dict], both: "DataFrame") -> None:
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
            row = _input_row(both, *error["input_row"]) if error.get("input_row") else fields["row"]
            raise kind(what=fields["what"], source=fields["source"], line=fields["line"], row=row,
                       query=fields["query"], doc=fields["doc"], value=fields["value"], fix=fields["fix"])


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

    from ..frame import weights_by_user

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
        frame = frame.join(weights.withColumnRenamed("query", "_wq"), F.col("query") == F.col("_wq"), "left")
        checks = frame.agg(F.sum(F.col("weight").isNull().cast("int")).alias("missing"),
                           F.sum((F.isnan("weight") | (F.col("weight") < 0)
                                  | F.col("weight").isin(float("inf"))).cast("int")).alias("bad"),
                           F.sum("weight").alias("total")).collect()[0]
        if checks["missing"]:
            some = [r[0] for r in frame.filter(F.col("weight").isNull()).select("query").limit(4).collect()]
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
            aggregates += [F.sum(F.when(included, F.col("weight") * F.col(f"v{i}"))).alias(f"wsum{i}"),
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
    measures: "Iterable[str | Measure] | str | Measure",
    protocol: "Protocol | str | None" = None,
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
        (also for ``ties=input`` and ``duplicates=first``) is the order
        Spark reads the rows in, partition by partition: give runs spread
        over several files a score instead.
    weights : mapping query -> weight, pandas Series, or Spark DataFrame (query, weight)
        For ``aggregation='weighted'``.
    name : str, optional
        The run's name in results (the file's name, or ``run``).
    spark : SparkSession, optional
        The active session, or a local one (:func:`rankproof.spark.get_session`).
    partitions : int, optional
        Partitions the queries are spread over; ``spark.sql.shuffle.partitions``
        by default. Each partition's rows are evaluated in one Python call,
        so it must fit a worker's memory.
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
    protocol = resolve_protocol(protocol)
    measure_list = resolve_measures(measures, protocol)
    if protocol.ids:  # queries are spread by their ids as written: '001' and '1' would not meet
        raise InputError(what=f"the policy ids={protocol.ids} is not applied on Spark",
                         fix="normalise the ids in the data, or evaluate on this machine")
    weighted = weights_wanted(weights, protocol, "pass weights={query: weight} or a DataFrame (query, weight)")
    if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1):
        raise InputError(what="partitions must be a positive integer", fix=f"got {literal(repr(partitions))}",
                         value=partitions)
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from .session import get_session

    session = spark or get_session()
    columns = Columns(query=query, doc=doc, grade=grade, score=score)
    qrels_frame, qrels_source = read_table(session, qrels, {"query": query, "doc": doc, "grade": grade}, "qrels")
    run_frame, run_source = read_table(session, run, {"query": query, "doc": doc, "score": score}, "run")
    run_name = name if name is not None else run_source
    both, layout = stacked(qrels_frame, run_frame, columns)
    query_counts = count_queries(both, protocol, qrels_source, run_source)

    count = partitions or int(session.conf.get("spark.sql.shuffle.partitions") or 200)
    task = PartitionTask(measure_list, protocol, columns, layout, qrels_source, run_source, run_name)
    evaluated = (both.repartition(count, KEY).sortWithinPartitions(SIDE, ROW)
                 .mapInArrow(task, output_schema(len(measure_list)))
                 .persist(StorageLevel.MEMORY_AND_DISK))
    try:
        summaries = [json.loads(row[0]) for row in evaluated.filter(F.col(SUMMARY).isNotNull())
                     .select(SUMMARY).collect()]
        _raise_first(summaries, both)
        per_query = evaluated.filter(F.col(SUMMARY).isNull()).drop(SUMMARY)
        weight_frame = _weights_frame(session, weights) if weighted else None
        means = _means(per_query, measure_list, protocol, weight_frame)
    except BaseException:
        evaluated.unpersist()
        raise
    ranges = [s["grade_range"] for s in summaries if s["grade_range"] is not None]
    grade_range = (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None
    notes = tuple(dict.fromkeys(note for s in summaries for note in s["notes"]))
    results = SparkResults(frame=per_query, measures=measure_list, protocol=protocol, means=means,
                           counts=_added_counts(summaries, query_counts.as_dict()), notes=notes,
                           grade_range=grade_range, run_name=run_name, qrels_source=qrels_source,
                           run_source=run_source, weights=weight_frame, cached=evaluated)
    if not allow_partial:
        check_query_coverage(results, min_coverage, source=f"{run_source} against {qrels_source}")  # type: ignore[arg-type]
    return results
