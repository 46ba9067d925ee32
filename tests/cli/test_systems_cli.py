"""``rankproof systems`` on Cranfield's three runs: the library's numbers, letters, risk and design,
run order, JSON, and one-line refusals."""

from __future__ import annotations

import json

import pytest

from rankproof import Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.stats.matrix import score_matrix
from rankproof.stats.maxt import max_t
from rankproof.stats.tukey import tukey_hsd

from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"
RUNS = [CRANFIELD / "bm25.run", CRANFIELD / "tfidf.run", CRANFIELD / "lmdirichlet.run"]
NAMES = ["bm25", "tfidf", "lmdirichlet"]


def cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def groups(out: str) -> dict[str, list[str]]:
    """The table of means: system -> [mean, letters] (its lines are indented two spaces, no more)."""
    rows = [line.split() for line in out.splitlines() if line.startswith("  ") and not line.startswith("   ")]
    return {row[0]: row[1:] for row in rows if len(row) == 3 and row[0] in NAMES}


@pytest.fixture(scope="module")
def ndcg_matrix():
    qrels = Qrels.read_trec(QRELS)
    results = [evaluate(qrels, Run.read_trec(path), ["ndcg@10"]) for path in RUNS]
    return score_matrix(results, "ndcg@10")[1]


def test_tukey_on_three_runs_gives_the_librarys_p_values_and_letters(capsys, ndcg_matrix):
    code, out, err = cli(capsys, "systems", QRELS, *RUNS, "-m", "ndcg@10", "--resamples", "2000", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    tests = data["measures"][0]["tests"]
    expected = tukey_hsd(ndcg_matrix, NAMES, n_resamples=2000, seed=0)
    assert [pair["p_value"] for pair in tests["pairs"]] == pytest.approx([p.p_value for p in expected.pairs])
    assert data["topics"] == ndcg_matrix.shape[0] and "Carterette" in data["recommendation"]["reference"]
    code, out, err = cli(capsys, "systems", QRELS, *RUNS, "-m", "ndcg@10", "--resamples", "2000")
    assert code == 0
    rows = groups(out)
    # bm25 and tfidf do not differ, both beat lmdirichlet (Tukey p < 0.0001 on 225 topics).
    assert rows["bm25"][1] == rows["tfidf"][1] == "a" and rows["lmdirichlet"][1] == "b"
    assert "recommended:" in out and "significant pairs" in out


def test_maxt_against_a_baseline_and_risk(capsys, ndcg_matrix):
    code, out, err = cli(capsys, "systems", QRELS, *RUNS, "-m", "ndcg@10", "--procedure", "maxt", "--baseline",
                         "bm25", "--risk", "--resamples", "2000", "--format", "json")
    assert code == 0, err
    measure = json.loads(out)["measures"][0]
    expected = max_t(ndcg_matrix, NAMES, baselines="bm25", n_resamples=2000, seed=0)
    assert [(p["system_a"], p["system_b"]) for p in measure["tests"]["pairs"]] == [("bm25", "tfidf"),
                                                                                    ("bm25", "lmdirichlet")]
    assert [p["p_value"] for p in measure["tests"]["pairs"]] == pytest.approx([p.p_value for p in expected.pairs])
    assert [row["run"] for row in measure["risk"]] == ["tfidf", "lmdirichlet"]
    assert measure["risk"][1]["trisk"] < -2   # lmdirichlet loses to bm25 on many topics


def test_run_order_changes_no_letter_and_no_mean(capsys):
    def table(runs):
        code, out, _ = cli(capsys, "systems", QRELS, *runs, "-m", "ap", "--resamples", "1000")
        assert code == 0
        return groups(out)

    assert table(RUNS) == table(RUNS[::-1])


def test_design_prints_topic_set_sizes_and_discriminative_power(capsys):
    code, out, err = cli(capsys, "systems", QRELS, *RUNS, "-m", "ndcg@10", "-m", "ap", "--design",
                         "--resamples", "500", "--asl-resamples", "300")
    assert code == 0, err
    assert "topic set size (Sakai 2016" in out and "discriminative power (Sakai 2006" in out


@pytest.mark.parametrize("args, words", [
    ([QRELS, RUNS[0], RUNS[1]], "at least three runs"),
    ([QRELS, *RUNS, "--risk"], "--risk needs a --baseline"),
    ([QRELS, *RUNS, "--procedure", "maxt", "--baseline", "nope"], "baseline nope"),
    ([QRELS, *RUNS, "--alpha", "5"], "alpha must be between 0 and 1"),
])
def test_refusals_are_one_line_with_exit_2(capsys, args, words):
    code, out, err = cli(capsys, "systems", *args, "--resamples", "100")
    assert code == 2 and words in err and err.count("\n") == 1 and not out


def test_mixed_model_effects_are_the_differences_of_means(capsys, ndcg_matrix):
    code, out, err = cli(capsys, "systems", QRELS, *RUNS, "-m", "ndcg@10", "--mixed-model", "--resamples", "100",
                         "--format", "json")
    assert code == 0, err
    mixed = json.loads(out)["measures"][0]["mixed"]
    means = ndcg_matrix.mean(axis=0)
    assert mixed["effects"] == pytest.approx(list(means - means[0]), abs=1e-6)
    code, out, err = cli(capsys, "systems", QRELS, *RUNS, "-m", "ndcg@10", "--mixed-model", "--resamples", "100")
    assert "mixed model (score ~ system + (1 | topic), REML)" in out
