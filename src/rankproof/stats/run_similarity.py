"""How alike two runs rank: RBO per query (tie-aware), overlap@k and Jaccard@k, and their means.

A query's ranking is its docs by score, higher first; equal scores are a
tie group, which RBO treats by the variant `ties` names (Corsi and Urbano
2024, :func:`rankproof.stats.similarity.rbo`). overlap@k and Jaccard@k take
the top k in trec_eval's order (score, then doc id descending). Means are
over the queries both runs rank; the queries only one ranks are counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankproof.errors import InputError
from rankproof.stats.similarity import RBO, jaccard_at, overlap_at, rbo

__all__ = ["QuerySimilarity", "RunSimilarity", "run_similarity"]


@dataclass(frozen=True)
class QuerySimilarity:
    """One query's RBO (min, ext, max) and overlap@k / Jaccard@k between the two runs."""

    query: str
    rbo: RBO
    overlap: float
    jaccard: float


@dataclass(frozen=True)
class RunSimilarity:
    """Per query and on average over the queries both runs rank."""

    queries: tuple[QuerySimilarity, ...]
    only_a: int
    only_b: int
    p: float
    ties: str
    k: int

    def mean(self, what: str) -> float:
        """Mean over the shared queries of ``"min"``, ``"ext"``, ``"max"``, ``"overlap"`` or ``"jaccard"``."""
        if not self.queries:
            return float("nan")
        if what in ("min", "ext", "max"):
            return float(np.mean([getattr(q.rbo, what) for q in self.queries]))
        return float(np.mean([getattr(q, what) for q in self.queries]))


def _rankings(run: Any) -> dict[str, tuple[dict[str, float], list[str]]]:
    """query -> ({doc: score}, docs in trec_eval's order); a doc ranked twice in a query is refused."""
    out = {}
    for i, query in enumerate(run.queries.tolist()):
        lo, hi = int(run.offsets[i]), int(run.offsets[i + 1])
        docs = run.docs[run.doc_codes[lo:hi]].tolist()
        scores = np.asarray(run.scores[lo:hi]).tolist()
        scored = dict(zip(docs, scores))
        if len(scored) != len(docs):
            twice = next(doc for doc in docs if docs.count(doc) > 1)
            raise InputError(source=run.source, query=query, doc=twice,
                             what="ranks a {doc} twice in one {query}; a ranking holds each {doc} once",
                             fix="remove the repeated row")
        order = sorted(scored, key=lambda doc: (scored[doc], doc), reverse=True)
        out[query] = (scored, order)
    return out


def run_similarity(run_a: Any, run_b: Any, *, p: float = 0.9, ties: str = "a",
                   k: int = 10) -> RunSimilarity:
    """RBO (with ties), overlap@k and Jaccard@k of two runs, query by query."""
    if k < 1:
        raise InputError(what="the cutoff k must be at least 1", value=k)
    a, b = _rankings(run_a), _rankings(run_b)
    shared = [query for query in a if query in b]
    rows = []
    for query in shared:
        (scores_a, order_a), (scores_b, order_b) = a[query], b[query]
        rows.append(QuerySimilarity(query=query, rbo=rbo(scores_a, scores_b, p, ties=ties),
                                    overlap=overlap_at(order_a, order_b, k),
                                    jaccard=jaccard_at(order_a, order_b, k)))
    return RunSimilarity(queries=tuple(rows), only_a=len(a) - len(shared),
                         only_b=len(b) - len(shared), p=p,
                         ties=ties, k=k)
