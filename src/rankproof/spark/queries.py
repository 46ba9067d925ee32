"""The query policies that need every query at once, from every partition's facts.

Which judged queries the run does not rank (``missing_query``), which ranked
queries nobody judged (``extra_query``), and how many queries each side has:
each query's rows are in one partition, so each partition counts its own
(:func:`rankproof.spark.partition.query_facts`, gathered in the same pass
as the evaluation) and the driver adds them up. The error policies are
applied here, before any error a partition met is raised, with the same
messages as :func:`rankproof.pipeline.align`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError, MissingQueryError, literal
from ..protocol import ExtraQuery, MissingQuery, Protocol

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


def _name_some(facts: list[dict[str, Any]], key: str, total: int, limit: int = 3) -> str:
    ids = sorted(i for f in facts for i in f[key])
    return ", ".join(ids[:limit]) + (" and more" if total > limit else "")


def count_queries(facts: list[dict[str, Any]], protocol: Protocol, qrels_source: str,
                  run_source: str) -> QueryCounts:
    """Add up the partitions' query facts and apply the error policies on queries.

    Raises
    ------
    MissingQueryError
        ``extra_query=error`` and the run ranks a query the qrels do not
        judge; ``missing_query=error`` and a judged query is not ranked.
    InputError
        The run ranks nothing, or no query is evaluated.
    """
    in_qrels, in_run, missing, extra = (sum(int(f[k]) for f in facts)
                                        for k in ("qrels", "run", "missing", "extra"))
    if in_run == 0:
        raise InputError(source=run_source, what="the run ranks no {docs}",
                         fix="give at least one {query} with a ranked {doc}")
    if extra and protocol.extra_query is ExtraQuery.ERROR:
        names = _name_some(facts, "some_extra", extra)
        raise MissingQueryError(source=run_source,
                                what=f"ranks {{queries}} the qrels {literal(qrels_source)} do "
                                                        f"not judge: {literal(names)}",
                                fix="set the policy extra_query=ignore to skip them")
    if missing and protocol.missing_query is MissingQuery.ERROR:
        names = _name_some(facts, "some_missing", missing)
        raise MissingQueryError(source=run_source, what=f"has no ranking for {{queries}} judged in "
                                                        f"{literal(qrels_source)}: {literal(names)}",
                                fix="set the policy missing_query=zero to score them 0 or missing_query=exclude "
                                    "to leave them out")
    evaluated = in_qrels if protocol.missing_query is MissingQuery.ZERO else in_qrels - missing
    if evaluated == 0:
        raise InputError(what=f"{literal(run_source)} and {literal(qrels_source)} share no {{query}}",
                         fix="check that the {query} ids match")
    return QueryCounts(queries_in_qrels=in_qrels, queries_in_run=in_run,
                       queries_missing_from_run=missing,
                       queries_missing_from_qrels=extra, queries_evaluated=evaluated)
