"""Fusion learned from judgments: the probabilistic methods and MAPFuse.

Each has a training step (``train_*``) that reads the components' hit lists
on training queries (``h_i(q, p) = 1`` when the doc at 0-based rank ``p``
of component ``i`` for query ``q`` is judged relevant, grade >= 1) and a
fusion step that turns ranks into the learned scores, summed over the
components that rank the doc (a component that does not rank it adds 0,
except in BayesFuse). ``Q`` is the number of training queries.
"""

from __future__ import annotations

import math

import numpy as np

from .score_methods import summed
from .table import Table

__all__ = ["bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "train_bayesfuse",
           "train_mapfuse", "train_posfuse", "train_probfuse", "train_segfuse", "train_slidefuse",
           "BAYES_CUTOFFS", "SEGFUSE_BOUNDS", "Hits"]

# ranx's segments: BayesFuse's rank cut-offs, SegFuse's segment bounds 10 * 2^(k-1) - 5.
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
MIN_ODDS = math.log(0.001 / 0.999)


class Hits:
    """The components' hit lists on the training queries.

    ``relevant`` (M,) marks candidates judged relevant; ``training`` (one
    bool per query) the training queries (judged queries of the fold).
    """

    def __init__(self, table: Table, relevant: np.ndarray, training: np.ndarray) -> None:
        self.table, self.relevant, self.training = table, relevant, training
        self.queries = int(training.sum())

    def of(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Component ``i`` on the training queries: (query, rank, hit) per ranked doc, and its lengths."""
        t = self.table
        rows = np.flatnonzero(t.present[:, i] & self.training[t.query])
        return (t.query[rows], t.positions[rows, i], self.relevant[rows].astype(float),
                t.lengths[:, i])


def _by_rank(hits: Hits, i: int) -> np.ndarray:
    """``P_i(p)``: the fraction of training queries with a doc at rank ``p`` where it is relevant."""
    _, rank, hit, lengths = hits.of(i)
    depth = int(lengths[hits.training].max(initial=0))
    numerators = np.bincount(rank, weights=hit, minlength=depth)
    denominators = np.bincount(rank, minlength=depth)
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerators / denominators


def train_posfuse(hits: Hits) -> dict:
    """PosFuse's probabilities ``P_i(p) = sum_q h_i(q, p) / |{q: n_i(q) > p}|``."""
    return {"probs": [_by_rank(hits, i) for i in range(len(hits.table.names))]}


def posfuse(table: Table, probs) -> np.ndarray:
    """PosFuse: ``sum_{i in R} P_i(p_i(d))`` (0 beyond the trained depth).

    Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, "Estimating
    probabilities for effective data fusion", SIGIR 2010.
    """
    out = np.zeros(table.positions.shape)
    for i, p in enumerate(probs):
        p = np.asarray(p, dtype=float)
        rank = table.positions[:, i]
        inside = (rank >= 0) & (rank < len(p))
        out[inside, i] = p[rank[inside]]
    return summed(table, out)


def train_slidefuse(hits: Hits) -> dict:
    """SlideFuse's probabilities: those of PosFuse."""
    return train_posfuse(hits)


def slidefuse(table: Table, probs, w: int = 5) -> np.ndarray:
    """SlideFuse: ``sum_{i in R} mean(P_i[a..b])`` with ``a = max(p - w, 0)``, ``b = min(p + w, n_i - 1)``
    (the mean divides by ``b - a + 1`` even where ``P_i`` is shorter, as ranx does).

    Lillis, Toolan, Collier and Dunnion, "Extending probabilistic data fusion
    using sliding windows", ECIR 2008.
    """
    out = np.zeros(table.positions.shape)
    # A window wider than the longest list holds the whole list, as at that width: the loop below
    # runs 2w + 1 times, so w = 1e12 would otherwise never end.
    w = int(min(w, max(int(table.lengths.max(initial=0)), 1)))
    for i, p in enumerate(probs):
        p = np.asarray(p, dtype=float)
        rank = table.positions[:, i]
        n = table.lengths[table.query, i]
        a = np.maximum(rank - w, 0)
        b = np.minimum(rank + w, n - 1)
        total = np.zeros(len(rank))
        # left to right, as ranx's sum over the window: equal windows give bit-equal sums
        for j in range(2 * w + 1):
            inside = (a + j <= b) & (a + j < len(p))
            total = (total + np.where(inside, p[np.clip(a + j, 0, max(len(p) - 1, 0))] if len(p)
                                      else 0.0, 0.0))
        out[:, i] = np.where(rank >= 0, total / np.maximum(b - a + 1, 1), 0.0)
    return summed(table, out)


def train_probfuse(hits: Hits, n_segments: int = 10) -> dict:
    """ProbFuse's segment probabilities: each query's list cut into ``n_segments`` segments of
    ``ceil(n_i(q) / n_segments)`` ranks, ``P_i(k)`` the mean over training queries of segment ``k``'s
    fraction relevant (an empty segment adds 0)."""
    probs = []
    # More segments than the longest list has ranks: one rank each, the same fused scores as at that
    # many (and no array of n_segments = 1e9 entries).
    n_segments = int(min(n_segments, max(int(hits.table.lengths.max(initial=0)), 1)))
    for i in range(len(hits.table.names)):
        query, rank, hit, lengths = hits.of(i)
        size = np.ceil(lengths / n_segments).astype(np.int64)[query]
        segment = rank // np.maximum(size, 1)
        seg_len = np.minimum(size, lengths[query] - segment * size)
        p = np.bincount(segment, weights=hit / np.maximum(seg_len, 1),
                        minlength=n_segments)[:n_segments]
        probs.append(p / max(hits.queries, 1))
    return {"probs": probs}


def probfuse(table: Table, probs) -> np.ndarray:
    """ProbFuse: ``sum_{i in R} P_i(k) / (k + 1)``, ``k`` the segment of ``p_i(d)`` (segments of
    ``ceil(n_i / K)`` ranks, ``K = len(P_i)``).

    Lillis, Toolan, Collier and Dunnion, "ProbFuse: a probabilistic approach
    to data fusion", SIGIR 2006.
    """
    out = np.zeros(table.positions.shape)
    for i, p in enumerate(probs):
        p = np.asarray(p, dtype=float)
        rank = table.positions[:, i]
        size = np.maximum(np.ceil(table.lengths[table.query, i] / len(p)).astype(np.int64), 1)
        k = np.where(rank >= 0, rank // size, 0)
        out[:, i] = np.where(rank >= 0, p[np.minimum(k, len(p) - 1)] / (k + 1), 0.0)
    return summed(table, out)


def _segments(rank: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    return np.searchsorted(bounds, rank, side="right") - 1


def train_segfuse(hits: Hits) -> dict:
    """SegFuse's probabilities: ``P_i(k)`` the mean over training queries of hits in segment ``k``
    (ranks ``[B_k, B_k+1)``, ``B = 0, 5, 15, 35, ..., 5115``) divided by the segment's width."""
    return {"probs": _segment_rates(hits, SEGFUSE_BOUNDS)}


def _segment_rates(hits: Hits, bounds) -> list[np.ndarray]:
    """Per component, the mean over training queries of its hits in each segment ``[b_k, b_k+1)``
    of ranks, divided by the segment's width."""
    widths = np.diff(bounds).astype(float)
    rates = []
    for i in range(len(hits.table.names)):
        _, rank, hit, _ = hits.of(i)
        inside = rank < bounds[-1]
        k = _segments(rank[inside], bounds)
        rates.append(np.bincount(k, weights=hit[inside], minlength=len(widths)) / widths
                     / max(hits.queries, 1))
    return rates


def segfuse(table: Table, probs) -> np.ndarray:
    """SegFuse: ``sum_{i in R} P_i(k) * (s_i(d) + 1)``, ``k`` the segment of ``p_i(d)`` (0 past rank 5115).

    Shokouhi, "Segmentation of search engine results for effective
    data-fusion", ECIR 2007.
    """
    out = np.zeros(table.positions.shape)
    for i, p in enumerate(probs):
        p = np.asarray(p, dtype=float)
        rank = table.positions[:, i]
        inside = (rank >= 0) & (rank < SEGFUSE_BOUNDS[-1])
        k = _segments(np.where(inside, rank, 0), SEGFUSE_BOUNDS)
        out[:, i] = np.where(inside, p[np.minimum(k, len(p) - 1)] * (table.scores[:, i] + 1), 0.0)
    return summed(table, out)


def train_bayesfuse(hits: Hits) -> dict:
    """BayesFuse's log-odds per rank: for each segment ``[c_j, c_j+1)`` of the cut-offs
    0, 5, 10, 15, 20, 30, 100, 200, 500, 1000, ``a`` = the mean over training queries of its precision;
    ``log(a / (1 - a))`` (0 and 1 moved 0.001 inwards)."""
    log_odds = []
    for a in _segment_rates(hits, BAYES_CUTOFFS):
        a = np.where(a == 0, 0.001, a)
        not_a = np.where(1 - a == 0, 0.001, 1 - a)
        log_odds.append(np.repeat(np.log(a / not_a), np.diff(BAYES_CUTOFFS)))
    return {"log_odds": log_odds}


def bayesfuse(table: Table, log_odds) -> np.ndarray:
    """BayesFuse: ``sum_i O_i(p_i(d))``, the learned log-odds of relevance at the doc's rank, and
    ``log(0.001 / 0.999)`` for a component that does not rank it (ranks past the last trained one read
    the last value).

    Aslam and Montague, "Models for metasearch", SIGIR 2001.
    """
    out = np.full(table.positions.shape, MIN_ODDS)
    for i, odds in enumerate(log_odds):
        odds = np.asarray(odds, dtype=float)
        rank = table.positions[:, i]
        present = rank >= 0
        out[present, i] = odds[np.minimum(rank[present], len(odds) - 1)]
    return out.sum(axis=1)


def train_mapfuse(hits: Hits, relevant_per_query: np.ndarray) -> dict:
    """MAPFuse's weights: each component's mean average precision over the training queries
    (``relevant_per_query``: how many docs each query has judged relevant)."""
    scores = []
    for i in range(len(hits.table.names)):
        query, rank, hit, _ = hits.of(i)
        order = np.lexsort((rank, query))
        query, hit = query[order], hit[order]
        cumulative = np.cumsum(hit)
        starts = np.searchsorted(query, query, side="left")
        before = np.where(starts > 0, cumulative[np.maximum(starts - 1, 0)], 0.0)
        precision = (cumulative - before) / (rank[order] + 1)
        per_query = np.bincount(query, weights=precision * hit, minlength=len(relevant_per_query))
        ap = np.where(relevant_per_query > 0, per_query / np.maximum(relevant_per_query, 1), 0.0)
        scores.append(float(ap[hits.training].sum() / max(hits.queries, 1)))
    return {"map_scores": scores}


def mapfuse(table: Table, map_scores) -> np.ndarray:
    """MAPFuse: ``sum_{i in R} MAP_i / (p_i(d) + 1)``.

    Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, "Estimating
    probabilities for effective data fusion", SIGIR 2010.
    """
    return summed(table,
                  np.asarray(map_scores, dtype=float) / (np.maximum(table.positions, 0) + 1.0))
