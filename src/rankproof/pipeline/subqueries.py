"""The ``subqueries`` policy: queries split into sub-queries, merged back before measuring.

MTEB's ``max_over_subqueries`` (mteb/_evaluators/retrieval_metrics.py): the
qrels name sub-queries ``base_1``, ``base_2``, ... (the id up to its last
``_`` is the query); under ``subqueries=max`` each query ranks every doc any
of its sub-queries retrieved, at the best score it got, and is judged by the
judgments of its last sub-query (MTEB's, which are all the same). A qrels id
without ``_`` stays its own query.
"""

from __future__ import annotations

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError
from ..protocol import Protocol, Subqueries

__all__ = ["base_query", "merge_subqueries"]


def base_query(query: str) -> str:
    """The query a sub-query id belongs to: the id up to its last ``_``.

    >>> base_query("q7_2"), base_query("a_b_1"), base_query("q7")
    ('q7', 'a_b', 'q7')
    """
    head, sep, _ = query.rpartition("_")
    return head if sep else query


def merge_subqueries(qrels: Qrels, run: Run, protocol: Protocol, counts: dict) -> tuple[Qrels, Run]:
    """(qrels, run) with each query's sub-queries merged (``subqueries=max``), or as they are.

    >>> q = Qrels.from_dict({"a_1": {"x": 1}, "a_2": {"x": 1}})
    >>> r = Run.from_dict({"a_1": {"x": 0.2, "y": 0.9}, "a_2": {"x": 0.95}})
    >>> q2, r2 = merge_subqueries(q, r, Protocol(subqueries="max"), {})
    >>> r2.to_dict(), q2.to_dict()
    ({'a': {'x': 0.95, 'y': 0.9}}, {'a': {'x': 1}})
    """
    if protocol.subqueries is Subqueries.NONE:
        return qrels, run
    if not run.has_scores:
        raise InputError(what="subqueries=max takes each doc's best score over the sub-queries, but the run "
                              "has no scores", source=run.source,
                         fix="give the run a score column, or set the policy subqueries=none")
    judged: dict[str, dict] = {}
    for query, docs in qrels.to_dict().items():
        judged[base_query(str(query))] = docs  # the last sub-query's judgments, as MTEB takes them
    ranked: dict[str, dict] = {}
    for query, docs in run.to_dict().items():
        best = ranked.setdefault(base_query(str(query)), {})
        for doc, score in docs.items():
            best[doc] = score if doc not in best else max(score, best[doc])
    counts["subqueries_merged"] = run.num_queries - len(ranked)
    return (Qrels.from_dict(judged, source=qrels.source,
                            grades="real" if qrels.real_grades else "integer"),
            Run.from_dict(ranked, source=run.source, name=run.name))
