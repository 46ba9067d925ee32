"""The spread of per-query values (Results.dispersion): ranx's return_std on the same data, numpy's
quantiles by hand, excluded queries left out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate


def test_std_equals_ranx_return_std():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(11)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(1, 3)) for d in rng.permutation(30)[:6]} for q in range(50)}
    run = {q: {f"d{d}": float(100 - i) for i, d in enumerate(rng.permutation(30)[:15])} for q in qrels}
    names = ["ndcg@10", "map", "mrr", "precision@5"]
    peer = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, return_std=True, make_comparable=False)
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names)
    for name in names:
        assert ours.mean(name) == pytest.approx(peer[name]["mean"], abs=1e-12)
        assert ours.dispersion(name).std == pytest.approx(peer[name]["std"], abs=1e-12), name


def test_by_hand_and_excluded_queries():
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"z": 1}})
    run = Run.from_dict({"q1": ["a"], "q2": ["x", "b"], "q3": ["x", "y", "z", "c"]})
    # rr: 1, 1/2, 1/4; q4 is not ranked and is excluded (missing_query=exclude).
    shown = evaluate(qrels, run, ["rr"], Protocol(missing_query="exclude")).dispersion("rr")
    values = np.array([1, 0.5, 0.25])
    assert shown.n == 3
    assert shown.std == pytest.approx(math.sqrt(np.mean((values - values.mean()) ** 2)))
    assert shown.sample_std == pytest.approx(math.sqrt(np.sum((values - values.mean()) ** 2) / 2))
    assert (shown.minimum, shown.median, shown.maximum) == (0.25, 0.5, 1.0)
    assert shown.q1 == pytest.approx(0.375) and shown.q3 == pytest.approx(0.75) and shown.iqr == pytest.approx(0.375)
    assert set(shown.to_dict()) >= {"std", "sample_std", "iqr", "median"}


def test_the_cli_tables_show_the_spread(tmp_path, capsys):
    from rankproof.cli import main

    (tmp_path / "qrels").write_text("u 0 a 1\nv 0 c 1\nw 0 x 1\n")
    (tmp_path / "run").write_text("u Q0 a 1 2 r\nu Q0 b 2 1 r\nv Q0 b 1 2 r\nv Q0 c 2 1 r\nw Q0 y 1 1 r\n")
    args = ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "p@1", "-m", "rr", "--quiet"]
    # p@1: 1, 0, 0 (mean 1/3, population std sqrt(2)/3 = 0.4714); rr: 1, 1/2, 0 (std sqrt(1/6) = 0.4082)
    assert main([*args, "--dispersion", "std"]) == 0
    table = capsys.readouterr().out
    assert "0.3333 sd 0.4714" in table and "0.5000 sd 0.4082" in table
    assert main([*args, "--dispersion", "sample_std", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out   # n - 1: sqrt(1/3) = 0.5774 and 1/2
    assert "| 0.3333 sample_sd 0.5774 | 0.5000 sample_sd 0.5000 |" in markdown
    assert main([*args, "--dispersion", "iqr"]) == 0
    assert "0.3333 iqr 0.5000" in capsys.readouterr().out   # p@1's quartiles 0 and 0.5
