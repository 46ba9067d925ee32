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

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankproof.errors import InputError

__all__ = ["Confusion", "confusion", "cohen_kappa", "fleiss_kappa", "per_topic_agreement"]

Judgments = Mapping[Hashable, Mapping[Hashable, float]]


@dataclass(frozen=True)
class Confusion:
    """Counts of grade pairs: ``matrix[i, j]`` pairs graded ``labels[i]`` by A and ``labels[j]`` by B."""

    labels: tuple[float, ...]
    matrix: np.ndarray
    only_a: int
    only_b: int


def _shared(judgments: Sequence[Judgments]) -> list[tuple[Hashable, Hashable]]:
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
    return Confusion(labels=labels, matrix=matrix, only_a=_count(a) - len(pairs), only_b=_count(b) - len(pairs))


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


def per_topic_agreement(a: Judgments, b: Judgments) -> dict[Hashable, tuple[int, float, float]]:
    """Per query: (pairs both judged, fraction graded the same, Cohen's kappa)."""
    out: dict[Hashable, tuple[int, float, float]] = {}
    for query in a:
        if query not in b:
            continue
        docs = [d for d in a[query] if d in b[query]]
        if not docs:
            continue
        same = sum(a[query][d] == b[query][d] for d in docs) / len(docs)
        matrix = confusion({query: {d: a[query][d] for d in docs}}, {query: {d: b[query][d] for d in docs}}).matrix
        out[query] = (len(docs), same, kappa_of(matrix))
    return out
