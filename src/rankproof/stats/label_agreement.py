"""Agreement of two or more label sources (humans, LLM judges), each coefficient with a bootstrap interval.

A *unit* is a (query, doc) pair; a *source* is one qrels (``{query: {doc:
grade}}``). Every source may leave units out. Over all sources at once:
Krippendorff's alpha (nominal, ordinal, interval) and Gwet's AC1 and AC2;
for every other source against the first one (the reference, usually the
humans): Cohen's kappa and weighted kappa, the confusion matrix, and per
grade the sensitivity and specificity of the source (one grade against the
rest).

Intervals are the percentile bootstrap over topics: topics drawn with
replacement, every unit of a drawn topic kept together, seeded. Each
coefficient is a function of sums over units (coincidences, agreement
sums, confusion counts), so a resample only re-weights per-topic sums:
``counts (resamples x topics) @ sums (topics x cells)``, no per-unit work.

Examples
--------
>>> human = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"a": 0, "b": 0}}
>>> judge = {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"a": 0, "b": 0}}
>>> result = label_agreement([human, judge], ["human", "judge"], resamples=200)
>>> result.units, result.topics
(5, 2)
>>> round(result.judges[0].sensitivity[1.0].value, 3)   # judge gives 1 to both of the human's 1s
1.0
>>> round(result.judges[0].specificity[1.0].value, 3)   # and 1 to one of the human's three 0s
0.667
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
import warnings

import numpy as np

from rankproof.data.layering import source_names
from rankproof.errors import InputError
from rankproof.stats.topic_bootstrap import topic_counts
from rankproof.typing import Judgments
from rankproof.stats.coefficients import (ALPHA_LEVELS, alpha_from_coincidence, gwet_from_counts,
                                          gwet_weights,
                                          kappa_from_confusion)

__all__ = ["Estimate", "JudgeAgreement", "LabelAgreement", "LabelTable", "label_agreement",
           "label_table"]



@dataclass(frozen=True)
class Estimate:
    """A value with its percentile bootstrap interval over topics (NaN when undefined)."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class LabelTable:
    """Every unit judged by at least one source: ``grades[u, s]`` (NaN: source s did not judge unit u).

    ``topic[u]`` is the index of the unit's query in ``queries``; ``values``
    are the sorted grades seen, ``codes[u, s]`` the index of the grade in
    ``values`` (-1 when missing).
    """

    sources: tuple[str, ...]
    queries: tuple[Any, ...]
    topic: np.ndarray
    grades: np.ndarray
    values: np.ndarray
    codes: np.ndarray


def label_table(judgments: Sequence[Judgments], names: Sequence[str] | None = None) -> LabelTable:
    """The units of `judgments` (two or more qrels as dicts) as one table, sources in the given order.

    Only the topics where two sources judged at least one doc in common are
    kept (with all their units: a unit only one source judged still counts
    in Gwet's category shares).
    """
    names = source_names(names, len(judgments), default="source {}",
                         needs="agreement needs two or more label sources",
                         each="give one name per label source", unit="sources")
    units: dict[tuple[Any, Any], int] = {}
    queries: dict[Any, int] = {}
    for judged in judgments:
        for query, docs in judged.items():
            queries.setdefault(query, len(queries))
            for doc in docs:
                units.setdefault((query, doc), len(units))
    grades = np.full((len(units), len(judgments)), np.nan)
    for s, judged in enumerate(judgments):
        for query, docs in judged.items():
            for doc, grade in docs.items():
                grades[units[(query, doc)], s] = float(grade)
    topic = np.array([queries[q] for q, _ in units], dtype=np.int64)
    # A topic no two sources judged carries no agreement: it leaves the table (and the bootstrap).
    informative = np.zeros(len(queries), dtype=bool)
    informative[topic[(~np.isnan(grades)).sum(axis=1) >= 2]] = True
    keep = informative[topic]
    renumbered = np.cumsum(informative) - 1
    grades, topic = grades[keep], renumbered[topic[keep]]
    values = np.unique(grades[~np.isnan(grades)])
    codes = np.where(np.isnan(grades), -1, np.searchsorted(values, np.nan_to_num(grades)))
    kept = tuple(q for q, i in queries.items() if informative[i])
    return LabelTable(sources=names, queries=kept, topic=topic, grades=grades, values=values,
                      codes=codes)


@dataclass(frozen=True)
class JudgeAgreement:
    """One source against the reference (the first source), over the units both judged.

    ``confusion[i, j]`` counts units graded ``values[i]`` by the reference and
    ``values[j]`` by this source. ``sensitivity[g]`` = P(source gives g |
    reference gives g); ``specificity[g]`` = P(source does not give g |
    reference does not give g).
    """

    source: str
    units: int
    exact: Estimate
    kappa: Estimate
    weighted_kappa: Estimate
    confusion: np.ndarray
    sensitivity: dict[float, Estimate]
    specificity: dict[float, Estimate]


@dataclass(frozen=True)
class LabelAgreement:
    """Agreement over all sources (alpha, AC1, AC2) and of each source against the reference."""

    sources: tuple[str, ...]
    values: tuple[float, ...]
    units: int
    topics: int
    alpha: dict[str, Estimate]
    ac1: Estimate
    ac2: Estimate
    weights: str
    judges: tuple[JudgeAgreement, ...]
    resamples: int
    seed: int
    confidence: float


def _per_topic(table: LabelTable, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Per-topic sums from which every coefficient follows (topics on the first axis)."""
    topics, q = len(table.queries), len(table.values)
    counts = np.zeros((len(table.topic), q))            # r_uk: sources giving unit u grade k
    for s in range(table.codes.shape[1]):
        judged = table.codes[:, s] >= 0
        np.add.at(counts, (np.flatnonzero(judged), table.codes[judged, s]), 1.0)
    raters = counts.sum(axis=1)
    pairable = raters >= 2
    # Krippendorff: each unit's ordered pairs of values, weighted 1 / (m_u - 1).
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(q)
    coincidence = np.zeros((topics, q, q))
    np.add.at(coincidence, table.topic[pairable],
              pairs[pairable] / (raters[pairable] - 1)[:, None, None])
    sums: dict[str, np.ndarray] = {"coincidence": coincidence}
    # Gwet: the unit's agreement (weighted for AC2, identity for AC1), and its share of each
    # category.
    with np.errstate(divide="ignore", invalid="ignore"):
        for key, w in (("agreement", weights), ("agreement_1", np.eye(q))):
            unit = np.where(pairable, (counts * (counts @ w.T - 1)).sum(axis=1)
                            / (raters * (raters - 1)), 0.0)
            sums[key] = np.bincount(table.topic, unit, minlength=topics)
        shares = np.where(raters[:, None] > 0, counts / raters[:, None], 0.0)
    sums["pairable"] = np.bincount(table.topic, pairable.astype(float), minlength=topics)
    sums["units"] = np.bincount(table.topic, (raters > 0).astype(float), minlength=topics)
    sums["classified"] = np.zeros((topics, q))
    np.add.at(sums["classified"], table.topic, shares)
    for s in range(1, table.codes.shape[1]):
        both = (table.codes[:, 0] >= 0) & (table.codes[:, s] >= 0)
        confusion = np.zeros((topics, q, q))
        np.add.at(confusion, (table.topic[both], table.codes[both, 0], table.codes[both, s]), 1.0)
        sums[f"confusion {s}"] = confusion
    return sums


def _coefficients(sums: dict[str, np.ndarray], values: np.ndarray, weights: np.ndarray,
                  kappa_weights: str | None) -> dict[str, np.ndarray]:
    """Every coefficient from (resampled) sums; the leading axis is the batch."""
    out = {f"alpha {level}": alpha_from_coincidence(sums["coincidence"], values, level)
           for level in ALPHA_LEVELS}
    identity = np.eye(len(values))
    out["ac1"] = gwet_from_counts(sums["agreement_1"], sums["pairable"], sums["classified"],
                                  sums["units"],
                                  identity)
    out["ac2"] = gwet_from_counts(sums["agreement"], sums["pairable"], sums["classified"],
                                  sums["units"], weights)
    for key in [k for k in sums if k.startswith("confusion ")]:
        matrix = sums[key]
        out[f"{key} kappa"] = kappa_from_confusion(matrix)
        out[f"{key} weighted"] = kappa_from_confusion(matrix, kappa_weights)
        diagonal = np.diagonal(matrix, axis1=-2, axis2=-1)
        total = matrix.sum(axis=(-2, -1))
        reference, given = matrix.sum(axis=-1), matrix.sum(axis=-2)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"{key} exact"] = diagonal.sum(axis=-1) / total
            out[f"{key} sensitivity"] = diagonal / reference
            negatives = total[..., None] - reference
            out[f"{key} specificity"] = (negatives - (given - diagonal)) / negatives
    return out


def _interval(draws: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    tail = (1 - confidence) / 2 * 100
    finite = np.where(np.isfinite(draws), draws, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN columns: undefined, NaN
        low, high = np.nanpercentile(finite, [tail, 100 - tail], axis=0)
    return low, high


def label_agreement(judgments: Sequence[Judgments], names: Sequence[str] | None = None, *,
                    weights: str = "linear", resamples: int = 1000, seed: int = 0,
                    confidence: float = 0.95) -> LabelAgreement:
    """Agreement of two or more label sources, with percentile bootstrap intervals over topics.

    Parameters
    ----------
    judgments : sequence of ``{query: {doc: grade}}``
        Two or more label sources; the first is the reference of the
        per-source rows (kappa, confusion, sensitivity and specificity).
    names : sequence of str, optional
        One name per source (default ``source 1``, ``source 2``, ...).
    weights : {"linear", "quadratic", "none"}
        The weights of Gwet's AC2 (agreement weights over the grade values)
        and of the weighted kappa (disagreement weights over grade positions).
        ``"none"``: AC2 is AC1 and the weighted kappa is Cohen's.
    resamples, seed, confidence
        The bootstrap over topics (``resamples=0``: no interval, NaN bounds).

    Returns
    -------
    LabelAgreement
        Krippendorff's alpha per level (equal to the ``krippendorff``
        package), Gwet's AC1 and AC2 (Gwet's formulas, see
        :func:`rankproof.stats.coefficients.gwet_from_counts`), and one
        :class:`JudgeAgreement` per source after the first.
    """
    if weights not in ("none", "linear", "quadratic"):
        raise InputError(what="agreement weights are none, linear or quadratic", value=weights)
    if resamples < 0 or not 0 < confidence < 1:
        raise InputError(what="resamples must be >= 0 and confidence in (0, 1)",
                         value=f"resamples={resamples}, confidence={confidence}")
    table = label_table(judgments, names)
    if not table.queries:
        raise InputError(what="no (query, doc) pair is judged by two sources",
                         fix="give qrels of the same topics")
    w = gwet_weights(table.values, "identity" if weights == "none" else weights)
    sums = _per_topic(table, w)
    kappa_weights = None if weights == "none" else weights
    point = _coefficients({k: v.sum(axis=0) for k, v in sums.items()}, table.values, w,
                          kappa_weights)
    topics = len(table.queries)
    parts = [_coefficients({k: np.tensordot(counts.astype(float), v, axes=(1, 0))
                            for k, v in sums.items()},
                           table.values, w, kappa_weights)
             for counts in topic_counts(topics, resamples, seed)]
    resampled = {key: np.concatenate([part[key] for part in parts]) if parts else np.empty((0,))
                 for key in point}

    def estimate(key: str, index: int | None = None) -> Estimate:
        value = point[key] if index is None else point[key][..., index]
        if not resamples:
            return Estimate(float(value), float("nan"), float("nan"))
        column = resampled[key] if index is None else resampled[key][..., index]
        low, high = _interval(column, confidence)
        return Estimate(float(value), float(low), float(high))

    return LabelAgreement(
        sources=table.sources, values=tuple(table.values.tolist()),
        units=int(((table.codes >= 0).sum(axis=1) >= 2).sum()), topics=topics,
        alpha={level: estimate(f"alpha {level}") for level in ALPHA_LEVELS},
        ac1=estimate("ac1"), ac2=estimate("ac2"), weights=weights,
        judges=tuple(_judge(table, s, sums, estimate) for s in range(1, len(table.sources))),
        resamples=resamples, seed=seed, confidence=confidence)


def _judge(table: LabelTable, s: int, sums: dict[str, np.ndarray], estimate) -> JudgeAgreement:
    key = f"confusion {s}"
    matrix = sums[key].sum(axis=0)
    grades = table.values.tolist()
    return JudgeAgreement(
        source=table.sources[s], units=int(matrix.sum()), exact=estimate(f"{key} exact"),
        kappa=estimate(f"{key} kappa"), weighted_kappa=estimate(f"{key} weighted"),
        confusion=matrix.astype(np.int64),
        sensitivity={g: estimate(f"{key} sensitivity", i) for i, g in enumerate(grades)},
        specificity={g: estimate(f"{key} specificity", i) for i, g in enumerate(grades)})
