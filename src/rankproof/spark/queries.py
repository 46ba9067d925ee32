"""The query policies that need every query at once, by a Spark join.

Which judged queries the run does not rank (``missing_query``), which ranked
queries nobody judged (``extra_query``), and how many queries each side has:
one full outer join of the two sides' distinct query ids, reduced to counts
in Spark. The error policies are applied here, before any partition is
evaluated, with the same messages as :func:`rankproof.pipeline.align`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError, MissingQueryError, literal
from ..protocol import ExtraQuery, MissingQuery, Protocol
from .inputs import KEY, QRELS_SIDE, RUN_SIDE, SIDE

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["QueryCounts", "count_queries"]


@dataclass(frozen=True)
class QueryCounts:
    """The counts :func:`rankproof.pipeline.align` records about queries."""

    queries_in_qrels: int
    queries_in_run: int
    queries_missing_from_run: int
    queries_missing_from_qrels: int
    queries_evaluated: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _name_some(frame: "DataFrame", limit: int = 3) -> str:
    ids = sorted(str(row[0]) for row in frame.limit(limit + 1).collect())
    shown = ", ".join(ids[:limit])
    return shown + (" and more" if len(ids) > limit else "")


def count_queries(stacked: "DataFrame", protocol: Protocol, qrels_source: str, run_source: str) -> QueryCounts:
    """Count the queries of each side and apply the error policies on queries.

    Raises
    ------
    MissingQueryError
        ``extra_query=error`` and the run ranks a query the qrels do not
        judge; ``missing_query=error`` and a judged query is not ranked.
    InputError
        The run ranks nothing, or no query is evaluated.
    """
    from pyspark.sql import functions as F

    sides = stacked.groupBy(KEY).agg(
        F.max((F.col(SIDE) == QRELS_SIDE).cast("int")).alias("in_qrels"),
        F.max((F.col(SIDE) == RUN_SIDE).cast("int")).alias("in_run"))
    row = sides.agg(
        F.coalesce(F.sum("in_qrels"), F.lit(0)).alias("qrels"),
        F.coalesce(F.sum("in_run"), F.lit(0)).alias("run"),
        F.coalesce(F.sum(F.col("in_qrels") * (1 - F.col("in_run"))), F.lit(0)).alias("missing"),
        F.coalesce(F.sum(F.col("in_run") * (1 - F.col("in_qrels"))), F.lit(0)).alias("extra"),
    ).collect()[0]
    in_qrels, in_run, missing, extra = (int(row[name]) for name in ("qrels", "run", "missing", "extra"))
    if in_run == 0:
        raise InputError(source=run_source, what="the run ranks no {docs}",
                         fix="give at least one {query} with a ranked {doc}")
    if extra and protocol.extra_query is ExtraQuery.ERROR:
        names = _name_some(sides.filter((F.col("in_run") == 1) & (F.col("in_qrels") == 0)).select(KEY))
        raise MissingQueryError(source=run_source, what=f"ranks {{queries}} the qrels {literal(qrels_source)} do "
                                                        f"not judge: {literal(names)}",
                                fix="set the policy extra_query=ignore to skip them")
    if missing and protocol.missing_query is MissingQuery.ERROR:
        names = _name_some(sides.filter((F.col("in_qrels") == 1) & (F.col("in_run") == 0)).select(KEY))
        raise MissingQueryError(source=run_source, what=f"has no ranking for {{queries}} judged in "
                                                        f"{literal(qrels_source)}: {literal(names)}",
                                fix="set the policy missing_query=zero to score them 0 or missing_query=exclude "
                                    "to leave them out")
    evaluated = in_qrels if protocol.missing_query is MissingQuery.ZERO else in_qrels - missing
    if evaluated == 0:
        raise InputError(what=f"{literal(run_source)} and {literal(qrels_source)} share no {{query}}",
                         fix="check that the {query} ids match")
    return QueryCounts(queries_in_qrels=in_qrels, queries_in_run=in_run, queries_missing_from_run=missing,
                       queries_missing_from_qrels=extra, queries_evaluated=evaluated)
