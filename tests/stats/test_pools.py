"""Pools: equal to TrecTools' depth-k, RBP and RRF pools on Cranfield; budgets, exports and reusability by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rankproof
from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.errors import InputError
from rankproof.stats.pools import build_pool, leave_one_run_out

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"
NAMES = ("bm25.run", "tfidf.run", "lmdirichlet.run")


@pytest.mark.parametrize("method, strategy", [("depth", "topX"), ("rbp", "rbp"), ("rrf", "rrf")])
@pytest.mark.parametrize("size", [5, 20])
def test_equal_to_trectools(method, strategy, size):
    from trectools import TrecPoolMaker, TrecRun

    runs = {name: Run.read_trec(CRANFIELD / name) for name in NAMES}
    mine = build_pool(runs, method, size=size).docs()
    theirs = TrecPoolMaker().make_pool([TrecRun(str(CRANFIELD / name)) for name in NAMES], strategy=strategy,
                                       topX=size).pool
    theirs = {str(q): {str(d) for d in docs} for q, docs in theirs.items()}
    differing = [q for q in theirs if theirs[q] != mine.get(q, set())]
    print(f"{method}@{size}: {len(differing)} queries differ from TrecTools")
    assert differing == [] and set(mine) == set(theirs)


def _runs():
    return {"a": Run.from_dict({"q1": ["d1", "d2", "d3"], "q2": ["e1", "e2"]}),
            "b": Run.from_dict({"q1": ["d2", "d4", "d1"], "q2": ["e3", "e1"]})}


def test_priorities_budget_and_contribution_by_hand():
    runs = _runs()
    # RBP p = 0.5: q1 d1 = 0.5 + 0.125, d2 = 0.25 + 0.5, d4 = 0.25, d3 = 0.125;
    # q2 e1 = 0.5 + 0.25, e3 = 0.5, e2 = 0.25.
    pool = build_pool(runs, "rbp", size=2, p=0.5)
    assert [(e.query, e.doc, e.priority) for e in pool.entries] == [
        ("q1", "d2", 0.75), ("q1", "d1", 0.625), ("q2", "e1", 0.75), ("q2", "e3", 0.5)]
    assert pool.contribution == {"a": (3, 0), "b": (4, 1)}     # only b ranks e3
    # a budget of 3 keeps the three heaviest over all queries
    budgeted = build_pool(runs, "rbp", size=2, p=0.5, budget=3)
    assert [(e.query, e.doc) for e in budgeted.entries] == [("q1", "d2"), ("q1", "d1"), ("q2", "e1")]
    # depth 1: each run's first doc; judged docs leave the pool
    depth = build_pool(runs, size=1, judged={"q1": {"d1": 1}})
    assert [(e.query, e.doc, e.best_rank, e.runs) for e in depth.entries] == [
        ("q1", "d2", 1, ("b",)), ("q2", "e1", 1, ("a",)), ("q2", "e3", 1, ("b",))]


def test_exports():
    pool = build_pool(_runs(), size=1)
    assert pool.to_trec() == "q1 0 d1 -1\nq1 0 d2 -1\nq2 0 e1 -1\nq2 0 e3 -1\n"
    rows = [json.loads(line) for line in pool.to_jsonl().splitlines()]
    assert rows[0] == {"query": "q1", "doc": "d1", "priority": -1.0, "best_rank": 1, "runs": ["a"]}


def test_leave_one_run_out_by_hand():
    qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d4": 1}})
    runs = {"a": Run.from_dict({"q1": ["d1", "d2"]}), "b": Run.from_dict({"q1": ["d4", "d2"]})}
    rows = {r.run: r for r in leave_one_run_out(qrels, runs, "p@2", depth=2)}
    # a's unique judged doc is d1: without it a finds nothing relevant (p@2 0), b still 0.5
    assert (rows["a"].unique_judged, rows["a"].mean, rows["a"].mean_without) == (1, 0.5, 0.0)
    assert (rows["a"].rank, rows["a"].rank_without) == (1, 2)      # ties broken by name: a first
    assert (rows["b"].unique_judged, rows["b"].mean_without) == (1, 0.0)


def test_bad_input():
    with pytest.raises(InputError, match="unknown pooling method"):
        build_pool(_runs(), "random")
    with pytest.raises(InputError, match="pool size"):
        build_pool(_runs(), size=0)
    with pytest.raises(InputError, match="two or more runs"):
        leave_one_run_out(Qrels.from_dict({"q1": {"d1": 1}}), {"a": _runs()["a"]}, "ap")


def test_cli_writes_the_pool_and_prints_contributions(tmp_path, capsys):
    runs = [str(CRANFIELD / name) for name in NAMES]
    out = tmp_path / "next.jsonl"
    assert main(["pool", *runs, "--method", "rrf", "--size", "5", "--judged", str(CRANFIELD / "qrels.txt"),
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    expected = build_pool({name: Run.read_trec(CRANFIELD / name) for name in NAMES}, "rrf", size=5,
                          judged=Qrels.read_trec(CRANFIELD / "qrels.txt").to_dict())
    assert out.read_text() == expected.to_jsonl()
    assert f"rrf pool of 3 runs, size 5: {len(expected.entries)} docs to judge" in printed
    pooled, unique = expected.contribution["bm25.run"]
    assert f"  bm25.run{pooled:>20}{unique:>8}" in printed
    assert main(["pool"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
