"""Each ranked row's attention under a browsing model, with tied scores handled by the protocol's policy.

Shared by the measures that weigh positions by attention (expected exposure,
AWRF): a run's rows are ranked by the tie policy, each 0-based rank gets the
model's attention (none from the cutoff on), and under ``ties=expected`` the
items tied on score share the attention of their positions equally (the mean
over every order of the tie); ``ties=error`` refuses a tie inside the cutoff;
``docid`` and ``input`` break it.

>>> from rankproof import Run
>>> run = Run.from_dict({"q": {"a": 2.0, "b": 1.0, "c": 1.0}})
>>> query, doc, weight = ranked_attention(run, lambda rank: 0.5 ** rank, Protocol())
>>> run.docs[doc].tolist(), weight.tolist()
(['a', 'b', 'c'], [1.0, 0.375, 0.375])
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..data.run import Run
from ..errors import TieError
from ..pipeline.cuts import top_rows
from ..pipeline.rows import apply_score_precision
from ..protocol import Protocol, Ties

__all__ = ["ranked_attention"]


def ranked_attention(run: Run, attention: Callable[[np.ndarray], np.ndarray], protocol: Protocol,
                     cutoff: float = math.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query code, doc code, attention) of every row of `run`, ranked (codes into ``run.queries`` and
    ``run.docs``); `attention` maps 0-based ranks to weights."""
    lengths = np.diff(run.offsets)
    # every row, ranked
    rows = top_rows(run, int(lengths.max()) + 1 if lengths.size else 1, protocol)
    query = np.repeat(np.arange(run.num_queries), lengths)[rows]
    rank = np.arange(len(rows)) - np.repeat(run.offsets[:-1], lengths)
    # The model evaluated once per rank, then looked up: a power per row costs more than the rest.
    table = attention(np.arange(int(lengths.max()) if lengths.size else 0, dtype=np.float64))
    weight = np.where(rank < cutoff, table[rank], 0.0)
    if run.has_scores and protocol.ties in (Ties.EXPECTED, Ties.ERROR) and len(rows):
        score = apply_score_precision(run.scores, protocol)[rows]
        tied = (query[1:] == query[:-1]) & (score[1:] == score[:-1])
        inside = tied & (rank[:-1] < cutoff - 1)
        if protocol.ties == Ties.ERROR and bool(inside.any()):
            at = int(np.flatnonzero(inside)[0])
            raise TieError(query=str(run.queries[query[at]]),
                           what="tied scores inside the cutoff give the "
                           "tied items an attention that depends on their order",
                           fix="use ties=expected (they share it), or ties=docid")
        group = np.cumsum(np.r_[True, ~tied]) - 1
        weight = (np.bincount(group, weight) / np.bincount(group))[group]
    return query, run.doc_codes[rows], weight
