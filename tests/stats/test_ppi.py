"""Prediction-powered means: equal to ppi-python's ppi_mean_ci, and valid by simulation."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from ppi_py import ppi_mean_ci

import rankproof
from rankproof import Qrels, Run
from rankproof.errors import InputError
from rankproof.evaluation import evaluate
from rankproof.stats.ppi import ppi_arrays, ppi_from_scores, ppi_interval, prediction_powered

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"


def test_equal_to_ppi_python_on_its_inputs():
    worst = 0.0
    rng = np.random.default_rng(0)
    for trial in range(20):
        n, big_n = int(rng.integers(5, 60)), int(rng.integers(5, 400))
        y = rng.random(n)
        y_hat = np.clip(y + rng.normal(rng.uniform(-0.2, 0.2), rng.uniform(0.01, 0.5), n), 0, 1)
        rest = rng.random(big_n) * rng.uniform(0.5, 1.5)
        for lam, tuned in ((None, True), (1.0, False)):
            low, high = ppi_mean_ci(y, y_hat, rest, alpha=0.05, lam=lam)
            result = ppi_interval(y, y_hat, rest, tuned=tuned)
            worst = max(worst, abs(result.ppi.low - low[0]), abs(result.ppi.high - high[0]))
        low, high = ppi_mean_ci(y, y_hat, rest, alpha=0.1, lam=0.3)
        _, mine_low, mine_high, _ = ppi_arrays(y, y_hat, rest, confidence=0.9, lam=0.3)
        worst = max(worst, abs(mine_low - low[0]), abs(mine_high - high[0]))
    print(f"PPI against ppi_mean_ci: worst difference {worst:.2e}")
    assert worst < 1e-12


def _simulated(judges: int, bias, noise, rng, n: int = 100, big_n: int = 400):
    """Per-topic truths from Beta(2, 5) (mean 2/7) and a judge that adds bias and Gaussian noise."""
    truth = rng.beta(2, 5, size=(judges, n + big_n))
    judged = truth + np.asarray(bias)[:, None] + rng.normal(size=truth.shape) * np.asarray(noise)[:, None]
    return truth[:, :n], judged[:, :n], judged[:, n:]


def test_coverage_over_2000_simulated_judges():
    # Each judge has its own bias and noise; the human sample is fresh each time. The PPI++ interval
    # covers the true mean 2/7 at its nominal 95% (+- 2%: the binomial sd is 0.5%).
    rng = np.random.default_rng(2026)
    judges = 2000
    human, judge, rest = _simulated(judges, rng.uniform(-0.2, 0.2, judges), rng.uniform(0.02, 0.3, judges), rng)
    _, low, high, lam = ppi_arrays(human, judge, rest)
    coverage = float(np.mean((low <= 2 / 7) & (2 / 7 <= high)))
    _, low1, high1, _ = ppi_arrays(human, judge, rest, lam=1.0)
    plain = float(np.mean((low1 <= 2 / 7) & (2 / 7 <= high1)))
    print(f"coverage PPI++ {coverage:.4f}, PPI {plain:.4f}")
    assert abs(coverage - 0.95) <= 0.02 and abs(plain - 0.95) <= 0.02
    assert 0 <= lam.min() and lam.max() <= 1


def test_naive_judge_only_interval_undercovers_a_biased_judge():
    rng = np.random.default_rng(7)
    judges = 2000
    human, judge, rest = _simulated(judges, np.full(judges, 0.05), np.full(judges, 0.1), rng)
    every = np.concatenate([judge, rest], axis=1)
    se = every.std(axis=1) / np.sqrt(every.shape[1])
    naive = float(np.mean(np.abs(every.mean(axis=1) - 2 / 7) <= 1.959963984540054 * se))
    _, low, high, _ = ppi_arrays(human, judge, rest)
    coverage = float(np.mean((low <= 2 / 7) & (2 / 7 <= high)))
    print(f"coverage with a judge 0.05 too high: naive {naive:.4f}, PPI++ {coverage:.4f}")
    assert naive < 0.2 and abs(coverage - 0.95) <= 0.02


def test_effective_topics_and_the_two_naive_intervals_by_hand():
    human = np.array([0.2, 0.4, 0.6, 0.8])
    judge = human + 0.1                       # a constant offset: the judge explains all the variance
    rest = np.array([0.3, 0.5, 0.7, 0.9, 0.5, 0.3])
    result = ppi_interval(human, judge, rest, tuned=False)
    # lambda 1: human - judge = -0.1 everywhere, no rectifier variance; se = std(rest) / sqrt(6)
    assert result.ppi.mean == pytest.approx(rest.mean() - 0.1)
    se = rest.std() / np.sqrt(6)
    assert result.ppi.high - result.ppi.mean == pytest.approx(1.959963984540054 * se)
    # a human-only interval as narrow needs n std(human)^2 / (n se^2) topics
    assert result.effective_topics == pytest.approx(human.var() / se ** 2)
    assert result.human_only.mean == pytest.approx(0.5) and result.human_only.topics == 4
    assert result.judge_only.mean == pytest.approx(np.concatenate([judge, rest]).mean())
    assert result.judge_only.topics == 10 and (result.labelled, result.unlabelled) == (4, 6)


def _noisy_judge(qrels: dict, seed: int) -> dict:
    rng = random.Random(seed)
    return {q: {d: min(4, g + 1) if rng.random() < 0.4 else g for d, g in docs.items()} for q, docs in qrels.items()}


def test_prediction_powered_on_cranfield_equals_ppi_python(tmp_path):
    human_all = Qrels.read_trec(CRANFIELD / "qrels.txt").to_dict()
    judge = Qrels.from_dict(_noisy_judge(human_all, 1))
    topics = sorted(human_all)
    sample = random.Random(2).sample(topics, 60)
    human = Qrels.from_dict({q: human_all[q] for q in sample})
    bm25 = Run.read_trec(CRANFIELD / "bm25.run")
    tfidf = Run.read_trec(CRANFIELD / "tfidf.run")
    for baseline in (None, tfidf):
        result = prediction_powered(human, judge, bm25, "ndcg@10", baseline=baseline)
        h = evaluate(human, bm25, ["ndcg@10"]).per_query("ndcg@10")
        j = evaluate(judge, bm25, ["ndcg@10"]).per_query("ndcg@10")
        if baseline is not None:
            hb = evaluate(human, baseline, ["ndcg@10"]).per_query("ndcg@10")
            jb = evaluate(judge, baseline, ["ndcg@10"]).per_query("ndcg@10")
            h = {q: v - hb[q] for q, v in h.items()}
            j = {q: v - jb[q] for q, v in j.items()}
        labelled = sorted(h)
        rest = [q for q in j if q not in h]
        low, high = ppi_mean_ci(np.array([h[q] for q in labelled]), np.array([j[q] for q in labelled]),
                                np.array([j[q] for q in rest]), alpha=0.05)
        assert (result.ppi.low, result.ppi.high) == pytest.approx((low[0], high[0]), abs=1e-12)
        assert (result.labelled, result.unlabelled) == (60, 165)


def test_bad_input():
    with pytest.raises(InputError, match="no judge value"):
        ppi_from_scores({"q1": 0.5, "q9": 0.2}, {"q1": 0.4, "q2": 0.3})
    with pytest.raises(InputError, match="two or more topics"):
        ppi_from_scores({"q1": 0.5}, {"q1": 0.4, "q2": 0.3})
    with pytest.raises(InputError, match="one or more with the judge's only"):
        ppi_from_scores({"q1": 0.5, "q2": 0.1}, {"q1": 0.4, "q2": 0.3})
    with pytest.raises(InputError, match="confidence"):
        ppi_interval([0.1, 0.2], [0.1, 0.2], [0.3], confidence=1.5)
