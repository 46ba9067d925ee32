"""Leaderboards over several collections: the mean, Borda counts, and a random-effects meta-analysis.

Input: ``{collection: {system: {topic: value}}}`` (each system's per-topic
values of one measure on each collection; every system on every
collection). Per collection a system's score is its mean over the topics
all systems share there.

- mean: the mean over collections of the collection means (each collection
  weighs the same, whatever its number of topics);
- Borda: on each collection the system at rank r of n gets n - r points
  (tied means share the average); points add up over collections;
- random-effects meta-analysis of a paired effect (system A minus system
  B): per collection the mean paired difference d_c over its n_c topics and
  its variance v_c = s_c^2 / n_c; DerSimonian and Laird's estimate (1986):

      w_c = 1 / v_c,  d_FE = sum w d / sum w,  Q = sum w (d - d_FE)^2
      tau^2 = max(0, (Q - (k - 1)) / (sum w - sum w^2 / sum w))
      w*_c = 1 / (v_c + tau^2),  d_RE = sum w* d / sum w*,  se = 1 / sqrt(sum w*)
      I^2 = max(0, (Q - (k - 1)) / Q)

  with the interval d_RE +- z se, the p-value of d_RE = 0, and Cochran's Q
  test of homogeneity (chi-squared, k - 1 degrees of freedom). The values
  of statsmodels' ``combine_effects(method_re="dl")``.

References
----------
- R. DerSimonian and N. Laird, "Meta-analysis in clinical trials",
  Controlled Clinical Trials 7(3), 1986.
- J. P. T. Higgins and S. G. Thompson, "Quantifying heterogeneity in a
  meta-analysis", Statistics in Medicine 21(11), 2002.
- T. Sakai, "On Fuhr's guideline for IR evaluation", SIGIR Forum 54(1),
  2020 (meta-analysis across collections in IR).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri
from scipy.stats import chi2, norm, rankdata

from rankproof.errors import InputError

__all__ = ["CollectionRanking", "MetaAnalysis", "aggregate_collections", "meta_analysis"]

Scores = Mapping[Any, Mapping[str, Mapping[Any, float]]]


def _paired(scores: Scores) -> dict[Any, tuple[list[str], np.ndarray]]:
    """Per collection: (systems, topics x systems matrix on the topics every system has)."""
    if not scores:
        raise InputError(what="give one or more collections")
    systems = sorted(next(iter(scores.values())))
    out = {}
    for collection, per_system in scores.items():
        if sorted(per_system) != systems:
            raise InputError(what=f"collection {collection} does not hold the same systems as the first",
                             fix="evaluate every system on every collection")
        topics = sorted(set.intersection(*(set(map(str, per_system[s])) for s in systems)))
        if len(topics) < 2:
            raise InputError(what=f"collection {collection} has fewer than 2 topics every system has")
        lookup = {s: {str(t): v for t, v in per_system[s].items()} for s in systems}
        out[collection] = (systems,
                           np.array([[lookup[s][t] for s in systems] for t in topics], dtype=float))
    return out


@dataclass(frozen=True)
class CollectionRanking:
    """Per system: the mean of collection means, and the Borda points; ``by_mean``/``by_borda`` best first."""

    systems: tuple[str, ...]
    means: dict[str, float]
    borda: dict[str, float]
    per_collection: dict[Any, dict[str, float]]
    by_mean: tuple[str, ...]
    by_borda: tuple[str, ...]


def aggregate_collections(scores: Scores) -> CollectionRanking:
    """Mean and Borda aggregation of the systems over collections.

    >>> scores = {"c1": {"a": {"t1": 0.9, "t2": 0.7}, "b": {"t1": 0.5, "t2": 0.5}},
    ...           "c2": {"a": {"t1": 0.2, "t2": 0.2}, "b": {"t1": 0.3, "t2": 0.5}}}
    >>> result = aggregate_collections(scores)
    >>> result.means, result.borda               # a: (0.8 + 0.2) / 2; one win each
    ({'a': 0.5, 'b': 0.45}, {'a': 1.0, 'b': 1.0})
    """
    paired = _paired(scores)
    systems = next(iter(paired.values()))[0]
    per_collection = {c: dict(zip(names, matrix.mean(axis=0).tolist()))
                      for c, (names, matrix) in paired.items()}
    means = {s: float(np.mean([per_collection[c][s] for c in paired])) for s in systems}
    borda = dict.fromkeys(systems, 0.0)
    for c in paired:
        ranks = rankdata([-per_collection[c][s] for s in systems], method="average")
        for s, rank in zip(systems, ranks):
            borda[s] += float(len(systems) - rank)
    return CollectionRanking(systems=tuple(systems), means=means, borda=borda,
                             per_collection=per_collection,
                             by_mean=tuple(sorted(systems, key=lambda s: (-means[s], s))),
                             by_borda=tuple(sorted(systems, key=lambda s: (-borda[s], s))))


@dataclass(frozen=True)
class MetaAnalysis:
    """The random-effects estimate of system_a minus system_b over collections, with its heterogeneity."""

    system_a: str
    system_b: str
    collections: tuple[Any, ...]
    effects: tuple[float, ...]
    variances: tuple[float, ...]
    effect: float
    se: float
    low: float
    high: float
    p_value: float
    tau2: float
    q: float
    q_p_value: float
    i2: float
    fixed_effect: float
    confidence: float


def meta_analysis(scores: Scores, system_a: str, system_b: str, *,
                  confidence: float = 0.95) -> MetaAnalysis:
    """DerSimonian-Laird random-effects meta-analysis of the paired effect a - b (see the module docstring)."""
    paired = _paired(scores)
    systems = next(iter(paired.values()))[0]
    for name in (system_a, system_b):
        if name not in systems:
            raise InputError(what=f"system {name} is not in the scores",
                             fix=f"systems are {', '.join(systems)}")
    if len(paired) < 2:
        raise InputError(what="a meta-analysis needs two or more collections", value=len(paired))
    a, b = systems.index(system_a), systems.index(system_b)
    differences = [matrix[:, a] - matrix[:, b] for _, matrix in paired.values()]
    d = np.array([diff.mean() for diff in differences])
    v = np.array([diff.var(ddof=1) / len(diff) for diff in differences])
    if not (v > 0).all():
        raise InputError(what="a collection's paired differences do not vary: its effect has no variance",
                         fix="leave out collections where the two systems score alike on every topic")
    w = 1 / v
    fixed = float((w * d).sum() / w.sum())
    q = float((w * (d - fixed) ** 2).sum())
    k = len(d)
    tau2 = max(0.0, (q - (k - 1)) / (w.sum() - (w ** 2).sum() / w.sum()))
    w_star = 1 / (v + tau2)
    effect = float((w_star * d).sum() / w_star.sum())
    se = float(1 / np.sqrt(w_star.sum()))
    z = ndtri(1 - (1 - confidence) / 2)
    return MetaAnalysis(system_a=system_a, system_b=system_b, collections=tuple(paired),
                        effects=tuple(d.tolist()),
                        variances=tuple(v.tolist()), effect=effect, se=se, low=effect - z * se,
                        high=effect + z * se, p_value=float(2 * norm.sf(abs(effect / se))),
                        tau2=float(tau2),
                        q=q, q_p_value=float(chi2.sf(q, k - 1)),
                        i2=max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0,
                        fixed_effect=fixed, confidence=confidence)
