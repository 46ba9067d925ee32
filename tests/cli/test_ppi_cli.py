"""``rankproof ppi`` on the shipped human sample and synthetic judge: the interval is ppi-python's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ppi_py import ppi_mean_ci

import rankproof
from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.evaluation import evaluate

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"


def _values(qrels: str, run: str) -> dict:
    return evaluate(Qrels.read_trec(CRANFIELD / qrels), Run.read_trec(CRANFIELD / run),
                    ["ndcg@10"]).per_query("ndcg@10")


def test_ppi_prints_ppi_pythons_interval_and_both_naive_ones(capsys):
    human = CRANFIELD / "human_sample.qrels"
    judge = CRANFIELD / "llm_judge.qrels"
    assert main(["ppi", str(human), str(judge), str(CRANFIELD / "bm25.run"), str(CRANFIELD / "tfidf.run")]) == 0
    out = capsys.readouterr().out
    h = {q: v - w for (q, v), w in zip(_values("human_sample.qrels", "bm25.run").items(),
                                       _values("human_sample.qrels", "tfidf.run").values())}
    j_a, j_b = _values("llm_judge.qrels", "bm25.run"), _values("llm_judge.qrels", "tfidf.run")
    j = {q: j_a[q] - j_b[q] for q in j_a}
    labelled = list(h)
    low, high = ppi_mean_ci(np.array([h[q] for q in labelled]), np.array([j[q] for q in labelled]),
                            np.array([j[q] for q in j if q not in h]), alpha=0.05)
    assert f"95% [{low[0]:.4f}, {high[0]:.4f}]" in out
    assert "50 topics labelled by humans, 175 by the judge only" in out
    assert "human only" in out and "judge only (naive)" in out and "as narrow as" in out


def test_ppi_usage_errors_are_one_line(capsys, tmp_path):
    assert main(["ppi", str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "bm25.run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rankproof ppi: give the humans' qrels" in err
    # the same file for the humans and the judge: refused as such (cli/two_qrels.py)
    qrels = str(CRANFIELD / "qrels.txt")
    assert main(["ppi", qrels, qrels, str(CRANFIELD / "bm25.run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is given twice as judgments" in err
    # a copy: the humans judged every topic, so nothing is left for the judge alone
    copy = tmp_path / "judge.qrels"
    copy.write_bytes((CRANFIELD / "qrels.txt").read_bytes())
    assert main(["ppi", qrels, str(copy), str(CRANFIELD / "bm25.run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "judge's only" in err
