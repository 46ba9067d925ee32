"""Judge bias per run: intervals against scipy, the equal-bias test against statsmodels' AnovaRM, a biased judge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ttest_rel
from statsmodels.stats.anova import AnovaRM

import rankproof
from rankproof import Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import InputError
from rankproof.stats.judge_bias import judge_bias, judge_bias_data, shared_pool

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"
NAMES = ("bm25.run", "tfidf.run", "lmdirichlet.run")


@pytest.fixture(scope="module")
def inputs():
    human = Qrels.read_trec(CRANFIELD / "qrels.txt")
    judge = Qrels.read_trec(CRANFIELD / "llm_judge.qrels")
    runs = {name: Run.read_trec(CRANFIELD / name) for name in NAMES}
    return human, judge, runs


def test_values_intervals_and_the_equal_bias_test(inputs):
    human, judge, runs = inputs
    result = judge_bias(human, judge, runs, "ndcg@10", resamples=50)
    cut_h, cut_j = shared_pool(human.to_dict(), judge.to_dict())
    assert result.pairs == 1836 and sum(map(len, cut_j.values())) == 1836
    per_run = {}
    for name, run in runs.items():
        h = evaluate(Qrels.from_dict(cut_h), run, ["ndcg@10"]).per_query("ndcg@10")
        j = evaluate(Qrels.from_dict(cut_j), run, ["ndcg@10"]).per_query("ndcg@10")
        topics = sorted(h)
        per_run[name] = (np.array([h[t] for t in topics]), np.array([j[t] for t in topics]), topics)
    for row in result.runs:
        h, j, _ = per_run[row.run]
        assert (row.human, row.judge) == pytest.approx((h.mean(), j.mean()))
        interval = ttest_rel(j, h).confidence_interval(0.95)
        assert (row.low, row.high) == pytest.approx((interval.low, interval.high))
    frame = pd.DataFrame([{"topic": t, "run": name, "d": j[i] - h[i]}
                          for name, (h, j, topics) in per_run.items() for i, t in enumerate(topics)])
    table = AnovaRM(frame, "d", "topic", within=["run"]).fit().anova_table
    assert result.anova.f_system == pytest.approx(table["F Value"].iloc[0])
    assert result.anova.p_system == pytest.approx(table["Pr > F"].iloc[0])
    assert judge_bias_data(result)["equal_bias"]["p"] == result.anova.p_system


def test_a_judge_that_favours_one_run_is_caught(inputs):
    human, _, runs = inputs
    tops = {name: {q: set(sorted(d, key=lambda doc: -d[doc])[:10]) for q, d in run.to_dict().items()}
            for name, run in runs.items()}
    truth = human.to_dict()

    def judged(q, doc, grade):
        # grade 4 for docs only lmdirichlet ranks in its top 10, 0 for those only the others do
        mine = doc in tops["lmdirichlet.run"].get(q, ())
        theirs = any(doc in tops[name].get(q, ()) for name in ("bm25.run", "tfidf.run"))
        return 4 if mine and not theirs else 0 if theirs and not mine else grade

    judge = Qrels.from_dict({q: {doc: judged(q, doc, g) for doc, g in docs.items()} for q, docs in truth.items()})
    result = judge_bias(human, judge, runs, "ndcg@10", resamples=50)
    rows = {row.run: row for row in result.runs}
    assert result.anova.p_system < 1e-6
    assert rows["lmdirichlet.run"].low > max(rows["bm25.run"].high, rows["tfidf.run"].high)
    assert result.ranking.tau_b < 1      # the favoured run climbs


def test_refusals(inputs):
    human, judge, runs = inputs
    with pytest.raises(InputError, match="two or more runs"):
        judge_bias(human, judge, {"a": runs["bm25.run"]}, "ap")
    with pytest.raises(InputError, match="no \\(query, doc\\) pair in common"):
        judge_bias(human, Qrels.from_dict({"zz": {"nothing": 1}}), runs, "ap")


def test_cli(capsys):
    paths = [str(CRANFIELD / name) for name in ("qrels.txt", "llm_judge.qrels", *NAMES)]
    assert main(["judge-bias", *paths, "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "on the 1836 (query, doc) pairs both judged, 225 topics" in out
    assert "same bias for every run? two-way ANOVA of the differences: F(2, 448)" in out
    assert main(["judge-bias", *paths[:3]]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_svg_forest_plot(tmp_path, capsys):
    paths = [str(CRANFIELD / name) for name in ("qrels.txt", "llm_judge.qrels", *NAMES)]
    figure = tmp_path / "bias.svg"
    assert main(["judge-bias", *paths, "--resamples", "20", "--svg", str(figure)]) == 0
    text = figure.read_text()
    # one interval and one point per run, and the zero line
    assert text.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and text.count('class="mark') == 6
    assert 'class="cutoff"' in text and all(name in text for name in NAMES)
