"""Pools to judge next: depth-k, RBP-weighted and fused-rank (RRF) pooling, each with a budget.

Every run ranks its docs by score, highest first, ties by doc id (as
TrecTools reads a run). Per query, each candidate doc gets a priority:

- ``depth`` (the TREC pool): its best rank over the runs; the pool holds
  the docs some run ranks within the top `size`;
- ``rbp`` (Moffat, Webber and Zobel 2007): the sum over runs of its
  rank-biased precision weight (1 - p) p^(rank - 1), the mass a user of
  persistence p would spend on it; the pool holds the `size` heaviest;
- ``rrf`` (Cormack, Clarke and Buettcher 2009): the sum over runs of
  1 / (k + rank); the pool holds the `size` best fused.

Docs already judged (``judged=``) are never pooled again, and `size`
counts only new docs (for ``depth``, the depth is still `size`).
``budget`` caps the whole pool: the highest priorities over all queries
first (best rank, RBP mass or fused score). Each run's contribution is
the pooled docs it ranks (within `size` for ``depth``), and those only it
ranks (its unique docs).

References
----------
- J. Zobel, "How reliable are the results of large-scale information
  retrieval experiments?", SIGIR 1998 (leave-one-run-out reusability).
- A. Moffat, W. Webber and J. Zobel, "Strategic system comparisons via
  targeted relevance judgments", SIGIR 2007.
- G. V. Cormack, C. L. A. Clarke and S. Buettcher, "Reciprocal rank fusion
  outperforms Condorcet and individual rank learning methods", SIGIR 2009.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from rankproof.errors import InputError

__all__ = ["POOL_METHODS", "Pool", "PoolEntry", "Reusability", "build_pool", "leave_one_run_out",
           "mean_absolute_change",
           "ranked_lists"]


def ranked_lists(run: Any) -> dict[str, list[str]]:
    """``{query: [doc, ...]}`` best first: score descending, then doc id ascending."""
    return {query: [doc for doc, _ in sorted(docs.items(), key=lambda item: (-item[1], item[0]))]
            for query, docs in run.to_dict().items()}


def _depth(ranks: list[int], size: int, p: float, k: int) -> float:
    return -float(min(ranks))


def _rbp(ranks: list[int], size: int, p: float, k: int) -> float:
    return float(sum((1 - p) * p ** (rank - 1) for rank in ranks))


def _rrf(ranks: list[int], size: int, p: float, k: int) -> float:
    return float(sum(1.0 / (k + rank) for rank in ranks))


# Method -> the priority of a doc from its ranks in the runs that rank it (higher first).
POOL_METHODS: dict[str, Callable[[list[int], int, float, int], float]] = {
    "depth": _depth, "rbp": _rbp, "rrf": _rrf}


@dataclass(frozen=True)
class PoolEntry:
    """One doc to judge: its priority, its best rank and the runs that rank it there or deeper."""

    query: str
    doc: str
    priority: float
    best_rank: int
    runs: tuple[str, ...]


@dataclass(frozen=True)
class Pool:
    """The docs to judge, per query in priority order, and what each run contributed.

    ``contribution[run]`` = (pooled docs the run ranks, pooled docs only it ranks).
    """

    method: str
    size: int
    budget: int | None
    entries: tuple[PoolEntry, ...]
    contribution: dict[str, tuple[int, int]]

    def docs(self) -> dict[str, set[str]]:
        """``{query: {doc, ...}}``."""
        out: dict[str, set[str]] = {}
        for entry in self.entries:
            out.setdefault(entry.query, set()).add(entry.doc)
        return out

    def to_trec(self) -> str:
        """A TREC qrels template, ``query 0 doc -1`` per doc to judge (-1: pooled, not judged yet,
        as trec_eval reads a negative grade): replace each -1 by the assessor's grade."""
        return "".join(f"{e.query} 0 {e.doc} -1\n" for e in self.entries)

    def to_jsonl(self) -> str:
        """One JSON object per doc to judge: query, doc, priority, best_rank, runs."""
        return "".join(json.dumps({"query": e.query, "doc": e.doc, "priority": e.priority,
                                   "best_rank": e.best_rank, "runs": list(e.runs)}) + "\n"
                       for e in self.entries)


def _candidates(lists: dict[str, dict[str, list[str]]], query: str, judged: Mapping,
                method: str, size: int) -> dict[str, dict[str, int]]:
    """{doc: {run: rank}} of the docs the runs rank for `query` (within `size` for depth)."""
    found: dict[str, dict[str, int]] = {}
    seen = judged.get(query, {})
    for name, ranked in lists.items():
        docs = ranked.get(query, [])
        for rank, doc in enumerate(docs[:size] if method == "depth" else docs, start=1):
            if doc not in seen:
                found.setdefault(doc, {})[name] = rank
    return found


def build_pool(runs: Mapping[str, Any], method: str = "depth", *, size: int = 10,
               budget: int | None = None,
               p: float = 0.8, k: int = 60,
               judged: Mapping[str, Mapping[str, Any]] | None = None) -> Pool:
    """The pool of `runs` (``{name: Run}``) by `method`, `size` new docs per query (depth: the depth).

    `judged` (``{query: {doc: grade}}``, e.g. ``Qrels.to_dict()``) holds the
    docs already judged: they leave the pool. See the module docstring.

    Examples
    --------
    >>> from rankproof import Run
    >>> a = Run.from_dict({"q": ["d1", "d2", "d3"]})
    >>> b = Run.from_dict({"q": ["d2", "d4", "d1"]})
    >>> sorted(build_pool({"a": a, "b": b}, size=2).docs()["q"])      # top 2 of each
    ['d1', 'd2', 'd4']
    >>> [e.doc for e in build_pool({"a": a, "b": b}, "rrf", size=2).entries]   # d2: 1/61 + 1/62
    ['d2', 'd1']
    """
    if method not in POOL_METHODS:
        raise InputError(what=f"unknown pooling method {method!r}",
                         fix=f"use one of {', '.join(POOL_METHODS)}")
    if size < 1 or (budget is not None and budget < 0) or not 0 < p < 1 or k < 0:
        raise InputError(what="pool size >= 1, budget >= 0, 0 < p < 1 and k >= 0",
                         value=f"size={size}, budget={budget}, p={p}, k={k}")
    if not runs:
        raise InputError(what="pooling needs one or more runs")
    lists = {name: ranked_lists(run) for name, run in runs.items()}
    priority = POOL_METHODS[method]
    entries: list[PoolEntry] = []
    for query in sorted({q for ranked in lists.values() for q in ranked}):
        found = _candidates(lists, query, judged or {}, method, size)
        scored = sorted(((priority(list(ranks.values()), size, p, k), doc, ranks)
                         for doc, ranks in found.items()),
                        key=lambda item: (-item[0], item[1]))
        kept = scored if method == "depth" else scored[:size]
        entries += [PoolEntry(query, doc, value, min(ranks.values()), tuple(sorted(ranks)))
                    for value, doc, ranks in kept]
    if budget is not None and budget < len(entries):
        order = sorted(range(len(entries)),
                       key=lambda i: (-entries[i].priority, entries[i].query, entries[i].doc))
        keep = set(order[:budget])
        entries = [entry for i, entry in enumerate(entries) if i in keep]
    contribution = {name: (sum(name in e.runs for e in entries),
                           sum(e.runs == (name,) for e in entries))
                    for name in runs}
    return Pool(method=method, size=size, budget=budget, entries=tuple(entries),
                contribution=contribution)


@dataclass(frozen=True)
class Reusability:
    """One run left out of the pool (Zobel 1998): its score and rank with and without its unique docs."""

    run: str
    unique_judged: int
    mean: float
    mean_without: float
    rank: int
    rank_without: int


def _ranks(means: dict[str, float]) -> dict[str, int]:
    order = sorted(means, key=lambda name: (-means[name], name))
    return {name: i + 1 for i, name in enumerate(order)}


def leave_one_run_out(qrels: Any, runs: Mapping[str, Any], measure: str, *, depth: int = 10,
                      protocol: Any = None) -> list[Reusability]:
    """How each run's mean `measure` and rank change when its unique docs leave the judgments.

    A run's unique docs are the judged docs (in `qrels`) that it ranks in
    its top `depth` and no other run does: the docs the depth-`depth` pool
    would have lacked without it. Every run is evaluated on the qrels
    without them, and the left-out run's mean and rank (1 = best) compared
    with those on the full qrels. A pool is reusable when the changes are
    small.
    """
    from rankproof.data.qrels import Qrels
    from rankproof.evaluation import evaluate

    if len(runs) < 2:
        raise InputError(what="leave-one-run-out needs two or more runs")
    full = {name: evaluate(qrels, run, [measure], protocol).mean(measure)
            for name, run in runs.items()}
    judged = qrels.to_dict()
    tops = {name: {q: set(docs[:depth]) for q, docs in ranked_lists(run).items()}
            for name, run in runs.items()}
    out = []
    for name in runs:
        unique = {(q, d) for q, docs in tops[name].items() for d in docs
                  if d in judged.get(q, {})
                  and not any(d in tops[o].get(q, set()) for o in runs if o != name)}
        reduced = {q: {d: g for d, g in docs.items() if (q, d) not in unique}
                   for q, docs in judged.items()}
        reduced_qrels = Qrels.from_dict({q: docs for q, docs in reduced.items() if docs},
                                        grades="real" if qrels.real_grades else "integer")
        means = {other: evaluate(reduced_qrels, run, [measure], protocol).mean(measure)
                 for other, run in runs.items()}
        out.append(Reusability(run=name, unique_judged=len(unique), mean=full[name],
                               mean_without=means[name],
                               rank=_ranks(full)[name], rank_without=_ranks(means)[name]))
    return out


def mean_absolute_change(rows: list[Reusability]) -> float:
    """The mean over runs of |mean - mean_without|."""
    return float(np.mean([abs(r.mean - r.mean_without) for r in rows])) if rows else float("nan")
