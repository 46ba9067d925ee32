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

from ..errors import InputError, ParseError, literal

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
            raise InputError(source=path, what="does not exist", fix=f"give the {what} as a Parquet file or directory")
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException

        try:
            frame = spark.read.parquet(path)
        except (PySparkException, Py4JJavaError) as error:  # not Parquet, no permission, ...: one line, not a JVM trace
            reason = str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__
            raise InputError(source=path, what=f"Spark cannot read it as Parquet ({literal(reason)})",
                             fix="give a Parquet file or directory") from None
        source = os.path.basename(path.rstrip("/")) or path
    elif isinstance(data, DataFrame):
        frame, source = data, what
    else:
        raise InputError(what=f"the {what} must be a Spark DataFrame or the path of a Parquet file or directory",
                         fix=f"got {type(data).__name__}")
    present = frame.columns
    for role, name in wanted.items():
        if name is not None and name not in present:
            listing = ", ".join(present[:10]) + (" ..." if len(present) > 10 else "")
            argument = "{" + role + "}" if role in ("query", "doc", "grade") else role
            raise ParseError(source=source, what=f"no column {literal(repr(name))} (named by {argument}=)",
                             fix=f"the columns are {literal(listing)}; pass {argument}=NAME")
    return frame, source


def _key_type(qrels: "DataFrame", run: "DataFrame", columns: Columns):
    """The query columns' own type when both share it; text otherwise (7 and "7" are one id)."""
    left = qrels.schema[columns.query].dataType
    right = run.schema[columns.query].dataType
    return None if left == right else "string"


def stacked(qrels: "DataFrame", run: "DataFrame", columns: Columns) -> tuple["DataFrame", dict[str, dict[str, str]]]:
    """Both tables as one, and where each side's columns are in it.

    Columns: the partition key, the side, the row's place in its input (for
    ``ties=input``, ``duplicates=first`` and rank-ordered runs), and each
    side's columns. Every row is shuffled once, so the table is kept narrow:
    when both query columns have one type the key is the query id of both
    sides, and when both doc columns have one type they share a column.
    The layout maps each side's roles (query, doc, grade or score) to the
    stacked column holding them.
    """
    from pyspark.sql import functions as F

    cast = _key_type(qrels, run, columns)
    same_doc = qrels.schema[columns.doc].dataType == run.schema[columns.doc].dataType
    layout = {
        "qrels": {"query": QRELS_COLUMNS["query"] if cast else KEY,
                  "doc": "_doc" if same_doc else QRELS_COLUMNS["doc"], "grade": QRELS_COLUMNS["grade"]},
        "run": {"query": RUN_COLUMNS["query"] if cast else KEY,
                "doc": "_doc" if same_doc else RUN_COLUMNS["doc"], "score": RUN_COLUMNS["score"]},
    }

    def side(frame: "DataFrame", number: int, names: dict[str, str], values: dict[str, Any]) -> "DataFrame":
        key = F.col(columns.query)
        selected = [(key.cast(cast) if cast else key).alias(KEY), F.lit(number).cast("byte").alias(SIDE),
                    # numbers the rows in input order (partition, then row), before any shuffle moves them
                    F.monotonically_increasing_id().alias(ROW)]
        if cast:
            selected.append(F.col(columns.query).alias(names["query"]))
        selected += [value.alias(names[role]) for role, value in values.items()]
        return frame.select(*selected)

    grade = F.col(columns.grade) if columns.grade is not None else F.lit(1).cast("long")
    judged = side(qrels, QRELS_SIDE, layout["qrels"], {"doc": F.col(columns.doc), "grade": grade})
    ranked = side(run, RUN_SIDE, layout["run"], {"doc": F.col(columns.doc),
                                                 **({"score": F.col(columns.score)} if columns.score else {})})
    return judged.unionByName(ranked, allowMissingColumns=True), layout
