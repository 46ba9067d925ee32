"""Leaderboard uncertainty and aggregation over collections: statsmodels' meta-analysis and Holm, hand cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import ttest_rel
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests

import rankproof
from rankproof.cli.app import main
from rankproof.errors import InputError
from rankproof.stats.across_collections import aggregate_collections, meta_analysis
from rankproof.stats.leaderboard import leaderboard, leaderboard_data

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"
RUNS = [str(CRANFIELD / name) for name in ("bm25.run", "tfidf.run", "lmdirichlet.run")]


def _matrix(seed: int = 0, topics: int = 40) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.random((topics, 1))
    return np.clip(base + np.array([0.10, 0.09, 0.0, -0.2]) + rng.normal(0, 0.1, (topics, 4)), 0, 1)


def test_rank_intervals_equal_resampling_topics_by_hand():
    matrix = _matrix()
    board = leaderboard(matrix, ["a", "b", "c", "d"], "m", resamples=300, seed=4)
    counts = np.random.default_rng(4).multinomial(40, np.full(40, 1 / 40), size=300)
    ranks = []
    for row in counts:
        means = np.repeat(matrix, row, axis=0).mean(axis=0)
        # rank 1 = best; ties share the average of their positions
        ranks.append([1 + np.sum(means > m) + (np.sum(means == m) - 1) / 2 for m in means])
    low, high = np.percentile(ranks, [2.5, 97.5], axis=0)
    by_name = {row.system: row for row in board.rows}
    for i, name in enumerate("abcd"):
        assert (by_name[name].rank_low, by_name[name].rank_high) == pytest.approx((low[i], high[i]))
        assert by_name[name].first == pytest.approx(np.mean(np.array(ranks)[:, i] <= 1))
    assert by_name["d"].rank == 4 and (by_name["d"].rank_low, by_name["d"].rank_high) == (4, 4)


def test_not_separable_from_the_best_is_holm_over_paired_t_tests():
    matrix = _matrix(1)
    board = leaderboard(matrix, ["a", "b", "c", "d"], resamples=50)
    best = int(np.argmax(matrix.mean(axis=0)))
    others = [s for s in range(4) if s != best]
    raw = [ttest_rel(matrix[:, best], matrix[:, s], alternative="greater").pvalue for s in others]
    reject, adjusted, _, _ = multipletests(raw, alpha=0.05, method="holm")
    by_name = {row.system: row for row in board.rows}
    for s, p, rejected in zip(others, adjusted, reject):
        assert by_name["abcd"[s]].p_value == pytest.approx(p)
        assert by_name["abcd"[s]].separable == bool(rejected)
    assert board.tied_with_best[0] == "abcd"[best]
    assert set(board.tied_with_best) == {"abcd"[best]} | {"abcd"[s] for s, r in zip(others, reject) if not r}
    data = leaderboard_data(board)
    assert json.loads(json.dumps(data))["rows"][0]["p_value"] is None


def _collections(seed: int = 0, k: int = 6) -> dict:
    rng = np.random.default_rng(seed)
    scores = {}
    for c in range(k):
        n = int(rng.integers(15, 60))
        base = rng.random(n)
        shift = rng.normal(0.02, 0.04)
        scores[f"c{c}"] = {"a": dict(enumerate(base + shift + rng.normal(0, 0.1, n))),
                           "b": dict(enumerate(base)), "c": dict(enumerate(base - 0.05))}
    return scores


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_meta_analysis_equals_statsmodels(seed):
    scores = _collections(seed)
    result = meta_analysis(scores, "a", "b")
    d = np.array([np.mean([scores[c]["a"][t] - scores[c]["b"][t] for t in scores[c]["a"]]) for c in scores])
    v = np.array([np.var([scores[c]["a"][t] - scores[c]["b"][t] for t in scores[c]["a"]], ddof=1)
                  / len(scores[c]["a"]) for c in scores])
    oracle = combine_effects(d, v, method_re="dl")
    low, high = oracle.conf_int(alpha=0.05)[1]      # the random-effects row
    pairs = [(result.effect, oracle.mean_effect_re), (result.se, oracle.sd_eff_w_re), (result.tau2, oracle.tau2),
             (result.i2, oracle.i2), (result.q, oracle.q), (result.fixed_effect, oracle.mean_effect_fe)]
    worst = max(abs(a - b) for a, b in pairs)
    print(f"meta-analysis against statsmodels: worst difference {worst:.2e}")
    assert worst < 1e-12
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-12)


def test_aggregation_by_hand_with_a_tie():
    scores = {"c1": {"a": {1: 0.9, 2: 0.7}, "b": {1: 0.5, 2: 0.5}, "c": {1: 0.8, 2: 0.8}},
              "c2": {"a": {1: 0.2, 2: 0.2}, "b": {1: 0.3, 2: 0.5}, "c": {1: 0.4, 2: 0.0}}}
    result = aggregate_collections(scores)
    # c1: a 0.8, c 0.8 tie (ranks 1.5), b 0.5 (3); c2: b 0.4 (1), a 0.2 and c 0.2 tie (2.5)
    assert result.borda == {"a": 1.5 + 0.5, "b": 0.0 + 2.0, "c": 1.5 + 0.5}
    assert result.means == pytest.approx({"a": 0.5, "b": 0.45, "c": 0.5})
    assert result.by_mean == ("a", "c", "b")


def test_refusals():
    with pytest.raises(InputError, match="two or more collections"):
        meta_analysis({"c1": _collections()["c0"]}, "a", "b")
    with pytest.raises(InputError, match="same systems"):
        aggregate_collections({"c1": {"a": {1: 0.1, 2: 0.2}}, "c2": {"b": {1: 0.1, 2: 0.3}}})
    with pytest.raises(InputError, match="topics x systems"):
        leaderboard(np.zeros((5, 1)), ["a"])


def test_cli_leaderboard_and_systems_section(tmp_path, capsys):
    qrels = str(CRANFIELD / "qrels.txt")
    assert main(["leaderboard", qrels, *RUNS, "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "not separable from the best (tfidf.run" in out and "lmdirichlet.run" in out
    assert main(["systems", qrels, *RUNS, "-m", "ndcg@10", "--resamples", "100", "--leaderboard"]) == 0
    assert "leaderboard by ndcg@10 (225 topics" in capsys.readouterr().out
    assert main(["systems", qrels, *RUNS, "-m", "ndcg@10", "--resamples", "100", "--leaderboard",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["leaderboard"][0]["tied_with_best"][0] == "tfidf"
    # two collections: the same runs under the qrels and under the synthetic judge
    second = tmp_path / "judge"
    second.mkdir()
    (second / "qrels.txt").write_text((CRANFIELD / "llm_judge.qrels").read_text())
    assert main(["leaderboard", "--collection", qrels, *RUNS, "--collection", str(second / "qrels.txt"),
                 *RUNS, "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "over 2 collections" in out and "random-effects meta-analysis of tfidf.run - bm25.run" in out


def test_svg_rank_intervals(tmp_path, capsys):
    figure = tmp_path / "ranks.svg"
    assert main(["leaderboard", str(CRANFIELD / "qrels.txt"), *RUNS, "--resamples", "50", "--svg", str(figure)]) == 0
    text = figure.read_text()
    assert text.count('class="mark') == 6 and "rank by ndcg@10 (1 = best)" in text


def test_topic_counts_in_chunks_are_the_rows_of_one_draw(monkeypatch):
    import rankproof.stats.topic_bootstrap as topic_bootstrap

    monkeypatch.setattr(topic_bootstrap, "CHUNK_VALUES", 20)       # 2 rows of 10 topics per chunk
    chunks = list(topic_bootstrap.topic_counts(10, 7, seed=3))
    assert [len(c) for c in chunks] == [2, 2, 2, 1]
    whole = np.random.default_rng(3).multinomial(10, np.full(10, 0.1), size=7)
    assert np.array_equal(np.vstack(chunks), whole)


def test_systems_leaderboard_from_saved_results(tmp_path, capsys):
    saved = tmp_path / "saved.json"
    assert main(["evaluate", str(CRANFIELD / "qrels.txt"), *RUNS, "-m", "ndcg@10", "--format", "json",
                 "-o", str(saved)]) == 0
    capsys.readouterr()
    assert main(["systems", "--results", str(saved), "-m", "ndcg@10", "--resamples", "100", "--leaderboard"]) == 0
    out = capsys.readouterr().out
    assert "leaderboard by ndcg@10 (225 topics" in out and "not separable from the best (tfidf" in out
