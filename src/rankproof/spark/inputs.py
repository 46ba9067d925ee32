"""Spark inputs: qrels and run as Spark DataFrames, and the one table both become.

The qrels and the run are two tables; each query's rows of both must reach
the same Python worker. They are stacked into one DataFrame (a ``side``
column says which table a row came from) with a partition key, so that one
``repartition`` by that key sends a query's judgments and its ranking to
one partition, where :mod:`rankproof.spark.partition` evaluates them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError, ParseError

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["Columns", "read_table", "stacked", "KEY", "SIDE", "ROW", "QRELS_SIDE", "RUN_SIDE"]

# Columns of the stacked table; the underscore keeps them apart from the caller's.
KEY, SIDE, ROW = "_rankproof_key", "_rankproof_side", "_rankproof_row"
QRELS_SIDE, RUN_SIDE = 0, 1
# The caller's columns, renamed per side (a run and its qrels both have "query").
QRELS_COLUMNS = {"query": "_q_query", "doc": "_q_doc", "grade": "_q_grade"}
RUN_COLUMNS = {"query": "_r_query", "doc": "_r_doc", "score": "_r_score"}


@dataclass(frozen=True)
class Columns:
    """The caller's column names (as in :func:`rankproof.evaluate_frame`).

    ``grade=None``: every qrels row is relevant with grade 1 (a recommender's
    truth). ``score=None``: the run's rows are in rank order within each
    query, best first (their order in the input).
    """

    query: str = "query"
    doc: str = "doc"
    grade: str | None = "grade"
    score: str | None = "score"


def _is_path(data: Any) -> bool:
    return isinstance(data, (str, os.PathLike))


def read_table(spark: "SparkSession", data: Any, wanted: dict[str, str | None], what: str) -> tuple["DataFrame", str]:
    """A Spark DataFrame of `data` (a DataFrame, or a Parquet file or directory)
    and the name messages give it; refuse a missing column, listing those there are."""
    from pyspark.sql import DataFrame

    if _is_path(data):
        path = os.fspath(data)
        if not os.path.exists(path) and "://" not in path:
            raise InputError(f"{path}: does not exist; give the {what} as a Parquet file or directory")
        frame = spark.read.parquet(path)
        source = os.path.basename(path.rstrip("/")) or path
    elif isinstance(data, DataFrame):
        frame, source = data, what
    else:
        raise InputError(f"the {what} must be a Spark DataFrame or the path of a Parquet file or directory; "
                         f"got {type(data).__name__}")
    present = frame.columns
    for role, name in wanted.items():
        if name is not None and name not in present:
            raise ParseError(f"{source}: no column {name!r} (named by {role}=); the columns are "
                             f"{', '.join(present[:10])}{' ...' if len(present) > 10 else ''}; "
                             f"pass {role}=NAME")
    return frame, source


def _key_type(qrels: "DataFrame", run: "DataFrame", columns: Columns):
    """The query columns' own type when both share it; text otherwise (7 and "7" are one id)."""
    left = qrels.schema[columns.query].dataType
    right = run.schema[columns.query].dataType
    return None if left == right else "string"


def stacked(qrels: "DataFrame", run: "DataFrame", columns: Columns) -> "DataFrame":
    """Both tables as one: the partition key, the side, the row's place in its
    input (for ``ties=input``, ``duplicates=first`` and rank-ordered runs),
    and each side's columns under names of their own."""
    from pyspark.sql import functions as F

    cast = _key_type(qrels, run, columns)

    def key(frame: "DataFrame"):
        column = F.col(columns.query)
        return column.cast(cast) if cast else column

    # monotonically_increasing_id numbers the rows in input order (partition,
    # then row), before any shuffle moves them.
    grade = F.col(columns.grade) if columns.grade is not None else F.lit(1).cast("long")
    judged = qrels.select(
        key(qrels).alias(KEY), F.lit(QRELS_SIDE).alias(SIDE), F.monotonically_increasing_id().alias(ROW),
        F.col(columns.query).alias(QRELS_COLUMNS["query"]), F.col(columns.doc).alias(QRELS_COLUMNS["doc"]),
        grade.alias(QRELS_COLUMNS["grade"]))
    score = [F.col(columns.score).alias(RUN_COLUMNS["score"])] if columns.score is not None else []
    ranked = run.select(
        key(run).alias(KEY), F.lit(RUN_SIDE).alias(SIDE), F.monotonically_increasing_id().alias(ROW),
        F.col(columns.query).alias(RUN_COLUMNS["query"]), F.col(columns.doc).alias(RUN_COLUMNS["doc"]), *score)
    return judged.unionByName(ranked, allowMissingColumns=True)
