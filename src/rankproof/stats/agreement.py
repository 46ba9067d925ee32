"""Agreement of relevance judgments: Cohen's (weighted) kappa, Fleiss' kappa, confusion matrix, per topic.

The judgments are qrels as ``{query: {doc: grade}}`` (``Qrels.to_dict()``);
only the (query, doc) pairs every assessor judged are compared.

References
----------
- J. Cohen, "A coefficient of agreement for nominal scales", Educational and
  Psychological Measurement 20(1) 1960.
- J. Cohen, "Weighted kappa", Psychological Bulletin 70(4) 1968.
- J. L. Fleiss, "Measuring nominal scale agreement among many raters",
  Psychological Bulletin 76(5) 1971.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from dataclasses import dataclass

import numpy as np

from rankproof.errors import InputError
from rankproof.stats.similarity import RBO, kendall_tau_b, rbo, tau_ap
from rankproof.typing import Judgments

__all__ = ["Confusion", "RankingAgreement", "confusion", "cohen_kappa", "fleiss_kappa", "kappa_of",
           "per_topic_agreement",
           "ranking_agreement"]



@dataclass(frozen=True)
class Confusion:
    """Counts of grade pairs: ``matrix[i, j]`` pairs graded ``labels[i]`` by A and ``labels[j]`` by B."""

    labels: tuple[float, ...]
    matrix: np.ndarray
    only_a: int
    only_b: int


def _shared(judgments: Sequence[Judgments]) -> list[tuple[Any, Any]]:
    first = judgments[0]
    return [(q, d) for q in first for d in first[q]
            if all(q in other and d in other[q] for other in judgments[1:])]


def _count(judgments: Judgments) -> int:
    return sum(len(docs) for docs in judgments.values())


def confusion(a: Judgments, b: Judgments) -> Confusion:
    """The confusion matrix of the grades of the (query, doc) pairs both judged."""
    pairs = _shared([a, b])
    if not pairs:
        raise InputError(what="the two qrels judge no (query, doc) pair in common")
    labels = tuple(sorted({a[q][d] for q, d in pairs} | {b[q][d] for q, d in pairs}))
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for q, d in pairs:
        matrix[index[a[q][d]], index[b[q][d]]] += 1
    return Confusion(labels=labels, matrix=matrix, only_a=_count(a) - len(pairs),
                     only_b=_count(b) - len(pairs))


def kappa_of(matrix: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of a confusion matrix (Cohen 1960; weighted: Cohen 1968).

    With O the observed proportions, E = row margins x column margins the
    proportions expected by chance, and disagreement weights w_ij (0 on the
    diagonal, 1 off it when unweighted; |i - j| linear; (i - j)^2 quadratic,
    i and j the positions of the grades in sorted order):

        kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij

    (unweighted this is (p_o - p_e) / (1 - p_e)); the value of
    ``sklearn.metrics.cohen_kappa_score``. NaN when chance agreement is total.
    """
    observed = matrix / matrix.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices(matrix.shape)
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        raise InputError(what="kappa weights are none, linear or quadratic", value=weights)
    chance = float((w * expected).sum())
    return 1.0 - float((w * observed).sum()) / chance if chance else float("nan")


def cohen_kappa(a: Judgments, b: Judgments, weights: str | None = None) -> float:
    """Cohen's kappa of two assessors over the pairs both judged (see :func:`kappa_of`)."""
    return kappa_of(confusion(a, b).matrix, weights)


def fleiss_kappa(judgments: Sequence[Judgments]) -> float:
    """Fleiss' kappa of m >= 2 assessors over the N pairs all of them judged (Fleiss 1971).

    With n_ij the assessors putting pair i in grade j:

        P_i = (sum_j n_ij^2 - m) / (m (m - 1)),   P_bar = mean_i P_i
        p_j = sum_i n_ij / (N m),                 P_e = sum_j p_j^2
        kappa = (P_bar - P_e) / (1 - P_e)

    (the value of ``statsmodels.stats.inter_rater.fleiss_kappa``).
    """
    m = len(judgments)
    if m < 2:
        raise InputError(what="Fleiss' kappa needs two or more qrels", value=m)
    pairs = _shared(judgments)
    if not pairs:
        raise InputError(what="the qrels judge no (query, doc) pair in common")
    labels = sorted({j[q][d] for j in judgments for q, d in pairs})
    index = {label: i for i, label in enumerate(labels)}
    counts = np.zeros((len(pairs), len(labels)))
    for row, (q, d) in enumerate(pairs):
        for judged in judgments:
            counts[row, index[judged[q][d]]] += 1
    p_i = ((counts ** 2).sum(axis=1) - m) / (m * (m - 1))
    p_j = counts.sum(axis=0) / (len(pairs) * m)
    p_e = float((p_j ** 2).sum())
    return (float(p_i.mean()) - p_e) / (1 - p_e) if p_e < 1 else float("nan")


def per_topic_agreement(a: Judgments, b: Judgments) -> dict[Any, tuple[int, float, float]]:
    """Per query: (pairs both judged, fraction graded the same, Cohen's kappa)."""
    out: dict[Any, tuple[int, float, float]] = {}
    for query in a:
        if query not in b:
            continue
        docs = [d for d in a[query] if d in b[query]]
        if not docs:
            continue
        same = sum(a[query][d] == b[query][d] for d in docs) / len(docs)
        matrix = confusion({query: {d: a[query][d] for d in docs}},
                           {query: {d: b[query][d] for d in docs}}).matrix
        out[query] = (len(docs), same, kappa_of(matrix))
    return out


@dataclass(frozen=True)
class RankingAgreement:
    """How alike two qrels rank the systems: the correlations and their bootstrap intervals over topics."""

    systems: tuple[str, ...]
    means_a: tuple[float, ...]
    means_b: tuple[float, ...]
    tau_b: float
    tau_ap: float
    tau_b_interval: tuple[float, float]
    tau_ap_interval: tuple[float, float]
    topics: int
    resamples: int
    seed: int
    ties: str = "a"
    rbo: RBO | None = None


def _taus(a: np.ndarray, b: np.ndarray, systems: Sequence[str], ties: str) -> tuple[float, float]:
    x, y = dict(zip(systems, a.tolist())), dict(zip(systems, b.tolist()))
    try:
        ap = tau_ap(x, y, ties=ties)
    except InputError:      # ties='a' and tied means under A, the truth: tau_AP_a is undefined here
        ap = float("nan")
    return kendall_tau_b(x, y), ap


def ranking_agreement(scores_a: Mapping[str, Mapping[Any, float]],
                      scores_b: Mapping[str, Mapping[Any, float]], *, resamples: int = 1000,
                      seed: int = 0,
                      confidence: float = 0.95, ties: str = "a", rbo_p: float = 0.9,
                      rbo_ties: str = "a") -> RankingAgreement:
    """Kendall's tau-b and tau_AP between the system rankings under qrels A and qrels B.

    `scores_a[system][topic]` is a system's per-topic score under A (likewise
    B); the ranking is by mean over the topics every system has under both.
    tau_AP takes A's ranking as the reference (Yilmaz et al. 2008). The
    interval is the percentile bootstrap over topics (Efron and Tibshirani
    1993): topics drawn with replacement, the same draw for A and B, seeded.

    System means can tie. `ties` is tau_AP's treatment of them (Urbano and
    Marrero 2017): ``"a"`` takes A's ranking as the truth and averages over
    every breaking of B's ties (resamples whose means tie under A give no
    tau_AP and are left out of its interval); ``"b"`` treats both as
    observers, symmetric. Without ties both are tau_AP (``"b"``: its
    symmetric form). ``rbo`` is the RBO of the two system rankings at
    persistence `rbo_p`, tied means treated by `rbo_ties` (Corsi and Urbano
    2024; see :func:`rankproof.stats.similarity.rbo`).
    """
    if ties not in ("a", "b"):
        raise InputError(what="tau_AP's ties must be 'a' or 'b'", value=ties)
    systems = sorted(scores_a)
    if len(systems) < 2 or set(systems) != set(scores_b):
        raise InputError(what="ranking agreement needs the same two or more systems under both qrels")
    topics = [t for t in scores_a[systems[0]]
              if all(t in scores_a[s] and t in scores_b[s] for s in systems)]
    if not topics:
        raise InputError(what="no topic is scored for every system under both qrels")
    a = np.array([[scores_a[s][t] for s in systems] for t in topics], dtype=float)
    b = np.array([[scores_b[s][t] for s in systems] for t in topics], dtype=float)
    tau_b, tau_ap_value = _taus(a.mean(axis=0), b.mean(axis=0), systems, ties)
    rng = np.random.default_rng(seed)
    draws = np.array([_taus(a[rows].mean(axis=0), b[rows].mean(axis=0), systems, ties)
                      for rows in rng.integers(0, len(topics), size=(resamples, len(topics)))])
    tail = (1 - confidence) / 2 * 100

    def interval(column: np.ndarray) -> tuple[float, float]:
        column = column[~np.isnan(column)]
        if not column.size:
            return (float("nan"), float("nan"))
        low, high = np.percentile(column, [tail, 100 - tail])
        return (float(low), float(high))

    return RankingAgreement(systems=tuple(systems), means_a=tuple(a.mean(axis=0).tolist()),
                            means_b=tuple(b.mean(axis=0).tolist()), tau_b=tau_b,
                            tau_ap=tau_ap_value,
                            tau_b_interval=interval(draws[:, 0]),
                            tau_ap_interval=interval(draws[:, 1]),
                            topics=len(topics), resamples=resamples, seed=seed, ties=ties,
                            rbo=rbo(dict(zip(systems, a.mean(axis=0).tolist())),
                                    dict(zip(systems, b.mean(axis=0).tolist())), rbo_p,
                                    ties=rbo_ties))
