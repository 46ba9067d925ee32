"""Rank-based fusion: each component's ranks become scores, then a Comb combines them.

Notation for one query: ``p_i(d)`` the 0-based rank of doc ``d`` in
component ``i`` (defined for the components ``R`` that rank it), ``n_i`` how
many docs component ``i`` ranks, ``C`` the candidates (docs any component
ranks), ``w_i`` component weights.
"""

from __future__ import annotations

import functools

import numpy as np

from .score_methods import summed
from .table import Table
from .ties import FusionTies

__all__ = ["rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "weighted_bordafuse",
           "condorcet", "weighted_condorcet", "borda_points"]

# ranx's rank for a doc a component does not rank, in Condorcet's vote.
UNRANKED = 1_000_000


def rrf(table: Table, k: float = 60) -> np.ndarray:
    """Reciprocal rank fusion: ``sum_{i in R} 1 / (k + p_i(d) + 1)``.

    Cormack, Clarke and Buettcher, "Reciprocal rank fusion outperforms
    Condorcet and individual rank learning methods", SIGIR 2009.
    """
    return summed(table, 1.0 / (k + np.maximum(table.positions, 0) + 1))


def _isr_sum(table: Table) -> tuple[np.ndarray, np.ndarray]:
    return (summed(table, 1.0 / (np.maximum(table.positions, 0) + 1.0) ** 2),
            table.present.sum(axis=1).astype(float))


def isr(table: Table) -> np.ndarray:
    """Inverse square rank: ``|R| * sum_{i in R} 1 / (p_i(d) + 1)^2``.

    Mourao, Martins and Magalhaes, "Inverse square rank fusion for
    multimodal search", CBMI 2014.
    """
    total, count = _isr_sum(table)
    return total * count


def log_isr(table: Table) -> np.ndarray:
    """Logarithmic ISR: ``log(|R|) * sum_{i in R} 1 / (p_i(d) + 1)^2``.

    Mourao, Martins and Magalhaes, "Inverse square rank fusion for
    multimodal search", CBMI 2014.
    """
    total, count = _isr_sum(table)
    return total * np.log(count)


def logn_isr(table: Table, sigma: float = 0.01) -> np.ndarray:
    """Normalized logarithmic ISR: ``log(|R| + sigma) * sum_{i in R} 1 / (p_i(d) + 1)^2``.

    Mourao, Martins and Magalhaes, "Multimodal medical information retrieval
    with unsupervised rank fusion", CMIG 39, 2015.
    """
    total, count = _isr_sum(table)
    return total * np.log(count + sigma)


def rbc(table: Table, phi: float = 0.8) -> np.ndarray:
    """Rank-biased centroid: ``sum_{i in R} (1 - phi) * phi ** p_i(d)``.

    Bailey, Moffat, Scholer and Thomas, "Retrieval consistency in the
    presence of query variations", SIGIR 2017.
    """
    return summed(table, (1 - phi) * phi ** table.positions.astype(float))


def borda_points(table: Table) -> np.ndarray:
    """(M, R) Borda points: ``|C| - p_i(d)`` where ranked, ``(|C| - n_i + 1) / 2`` where not."""
    c = table.candidates.astype(float)[:, None]
    n = table.lengths[table.query].astype(float)
    return np.where(table.present, c - table.positions, (c - n + 1) / 2)


def bordafuse(table: Table) -> np.ndarray:
    """BordaFuse: ``sum_i b_i(d)``, with Borda points ``b_i(d) = |C| - p_i(d)`` where
    component ``i`` ranks ``d`` and ``(|C| - n_i + 1) / 2`` where it does not.

    Aslam and Montague, "Models for metasearch", SIGIR 2001.
    """
    return borda_points(table).sum(axis=1)


def weighted_bordafuse(table: Table, weights) -> np.ndarray:
    """Weighted BordaFuse: ``sum_i w_i b_i(d)`` (Borda points as in :func:`bordafuse`).

    Aslam and Montague, "Models for metasearch", SIGIR 2001.
    """
    return (borda_points(table) * np.asarray(weights, dtype=float)).sum(axis=1)


def condorcet(table: Table, ties: FusionTies = FusionTies.DOCID) -> np.ndarray:
    """Condorcet fusion: sort the candidates by pairwise majority, score ``|C| - position``.

    ``x`` goes before ``y`` when at least as many components rank ``x``
    above ``y`` as do not (a component that ranks neither votes for ``y``),
    the comparison Python's sort is given, over the candidates in order of
    first appearance (under ``ties=ranx``, in the iteration order of a
    Python set of the doc ids, as ranx builds them). The majority relation
    may cycle; the sort then settles the cycle by that input order.

    Montague and Aslam, "Condorcet fusion for improved retrieval", CIKM 2002.
    """
    return weighted_condorcet(table, np.ones(len(table.names)), ties)


def weighted_condorcet(table: Table, weights, ties: FusionTies = FusionTies.DOCID) -> np.ndarray:
    """Weighted Condorcet: as :func:`condorcet`, each component's vote counting ``w_i``.

    Montague and Aslam, "Condorcet fusion for improved retrieval", CIKM 2002.
    """
    w = np.asarray(weights, dtype=float)
    fused = np.zeros(len(table.query))
    positions = np.where(table.present, table.positions, UNRANKED)
    arrival = table.arrival()
    for q in range(len(table.queries)):
        lo, hi = int(table.offsets[q]), int(table.offsets[q + 1])
        if hi == lo:
            continue
        ranks = positions[lo:hi]
        if ties is FusionTies.RANX:
            candidates = _ranx_candidates(table, lo, hi, ranks)
        else:
            candidates = np.argsort(arrival[lo:hi], kind="stable")
        p = ranks[candidates]
        ahead = np.zeros((len(p), len(p)))
        behind = np.zeros((len(p), len(p)))
        for i in range(p.shape[1]):
            above = p[:, None, i] < p[None, :, i]
            ahead += np.where(above, w[i], 0.0)
            behind += np.where(above, 0.0, w[i])
        first = (ahead >= behind).tolist()
        order = sorted(range(len(p)),
                       key=functools.cmp_to_key(lambda x, y: -1 if first[x][y] else 1))
        fused[lo + candidates[order]] = len(p) - np.arange(len(p))
    return fused


def _ranx_candidates(table: Table, lo: int, hi: int, ranks: np.ndarray) -> np.ndarray:
    """A query's candidates in the order ranx reads them: a Python set filled component by component in
    rank order, then iterated (an order fixed within one process by the strings' hashes)."""
    names = table.docs[table.doc[lo:hi]].tolist()
    row_of = {name: i for i, name in enumerate(names)}
    sequence: list[str] = []
    for i in range(ranks.shape[1]):
        ranked = np.flatnonzero(ranks[:, i] < UNRANKED)
        sequence.extend(names[j] for j in ranked[np.argsort(ranks[ranked, i], kind="stable")])
    as_set = {doc for doc in sequence}
    return np.asarray([row_of[doc] for doc in as_set], dtype=np.int64)
