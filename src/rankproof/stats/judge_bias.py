"""Does the judge favour some systems? Each run's measure under human and judge labels on the same pool.

Both qrels are cut to the (query, doc) pairs both judged (the shared
pool), so that a run's two values differ only by who labelled. Per run:
its mean under the humans and under the judge, and the mean paired
difference judge - human over topics with a t interval. Whether the judge
shifts every run alike: the two-way ANOVA (topics x runs, without
replication) of the per-topic differences, whose run effect is zero when
the judge's error is the same for every run (F and p of
:func:`rankproof.stats.anova.two_way_anova`). And whether it orders the
runs alike: Kendall's tau-b and tau_AP (humans as the reference) between
the two system rankings, with bootstrap intervals over topics
(:func:`rankproof.stats.agreement.ranking_agreement`).

:func:`judge_bias_data` gives it as plain data for a report's plot (each
run's difference with its interval).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import t as student_t

from rankproof.errors import InputError
from rankproof.results.coverage import MIN_COVERAGE
from rankproof.stats.agreement import RankingAgreement, ranking_agreement
from rankproof.stats.anova import Anova, two_way_anova

__all__ = ["JudgeBias", "RunBias", "judge_bias", "judge_bias_data", "shared_pool"]


@dataclass(frozen=True)
class RunBias:
    """One run: its means under both labels and the judge's paired difference with its interval."""

    run: str
    human: float
    judge: float
    difference: float
    low: float
    high: float


@dataclass(frozen=True)
class JudgeBias:
    """Every run's bias, the test that the bias is equal across runs, and the agreement of the rankings."""

    measure: str
    pairs: int
    topics: int
    runs: tuple[RunBias, ...]
    anova: Anova
    ranking: RankingAgreement
    confidence: float


def shared_pool(human: Mapping, judge: Mapping) -> tuple[dict, dict]:
    """Both ``{query: {doc: grade}}`` cut to the (query, doc) pairs both judged."""
    cut_h: dict = {}
    cut_j: dict = {}
    for query, docs in human.items():
        for doc, grade in docs.items():
            if doc in judge.get(query, {}):
                cut_h.setdefault(query, {})[doc] = grade
                cut_j.setdefault(query, {})[doc] = judge[query][doc]
    return cut_h, cut_j


def _interval(differences: np.ndarray, confidence: float) -> tuple[float, float, float]:
    mean = float(differences.mean())
    half = student_t.ppf(1 - (1 - confidence) / 2, len(differences) - 1) * differences.std(ddof=1) \
        / np.sqrt(len(differences))
    return mean, mean - half, mean + half


def judge_bias(human_qrels: Any, judge_qrels: Any, runs: Mapping[str, Any], measure: str, *,
               protocol=None,
               confidence: float = 0.95, resamples: int = 1000, seed: int = 0,
               allow_partial: bool = False,
               min_coverage: float = MIN_COVERAGE) -> JudgeBias:
    """The judge's bias per run on the shared pool (see the module docstring).

    `human_qrels` and `judge_qrels` are :class:`rankproof.Qrels`; `runs`
    maps names to :class:`rankproof.Run` (two or more). `allow_partial` and
    `min_coverage` are :func:`rankproof.evaluate`'s coverage guard, for each evaluation.
    """
    from rankproof.data.qrels import Qrels
    from rankproof.evaluation import evaluate
    from rankproof.stats.matrix import score_matrix

    if len(runs) < 2:
        raise InputError(what="judge bias needs two or more runs")
    cut_h, cut_j = shared_pool(human_qrels.to_dict(), judge_qrels.to_dict())
    if not cut_h:
        raise InputError(what="the two qrels judge no (query, doc) pair in common")
    grades = "real" if human_qrels.real_grades or judge_qrels.real_grades else "integer"
    human, judge = Qrels.from_dict(cut_h, grades=grades), Qrels.from_dict(cut_j, grades=grades)
    names = [str(name) for name in runs]
    evaluated = [evaluate(q, run, [measure], protocol, allow_partial=allow_partial,
                          min_coverage=min_coverage)
                 for q in (human, judge) for run in runs.values()]
    topics, matrix = score_matrix(evaluated, measure)
    if len(topics) < 3:
        raise InputError(what=f"the runs share {len(topics)} topics of the shared pool; at least 3 are needed")
    under_h, under_j = matrix[:, :len(names)], matrix[:, len(names):]
    differences = under_j - under_h
    rows = []
    for i, name in enumerate(names):
        mean, low, high = _interval(differences[:, i], confidence)
        rows.append(RunBias(run=name, human=float(under_h[:, i].mean()),
                            judge=float(under_j[:, i].mean()),
                            difference=mean, low=low, high=high))
    per_topic = {which: {name: dict(zip(topics.tolist(), values[:, i].tolist()))
                         for i, name in enumerate(names)}
                 for which, values in (("human", under_h), ("judge", under_j))}
    ranking = ranking_agreement(per_topic["human"], per_topic["judge"], resamples=resamples,
                                seed=seed,
                                confidence=confidence)
    return JudgeBias(measure=str(measure), pairs=sum(len(d) for d in cut_h.values()),
                     topics=len(topics),
                     runs=tuple(rows), anova=two_way_anova(differences), ranking=ranking,
                     confidence=confidence)


def judge_bias_data(result: JudgeBias) -> dict[str, Any]:
    """Plain data for a report's plot: per run the difference judge - human and its interval, and the tests."""
    return {"measure": result.measure, "pairs": result.pairs, "topics": result.topics,
            "confidence": result.confidence,
            "runs": [{"run": r.run, "human": r.human, "judge": r.judge, "difference": r.difference,
                      "low": r.low, "high": r.high} for r in result.runs],
            "equal_bias": {"f": result.anova.f_system, "p": result.anova.p_system,
                           "df": [result.anova.df_system, result.anova.df_residual]},
            "tau_b": result.ranking.tau_b, "tau_ap": result.ranking.tau_ap,
            "tau_b_interval": list(result.ranking.tau_b_interval),
            "tau_ap_interval": list(result.ranking.tau_ap_interval)}
