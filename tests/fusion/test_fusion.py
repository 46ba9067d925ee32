"""Fusion: hand-computed values, tie policies, properties, cross-validation, the CLI and the report."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import rankproof
from rankproof import Qrels, Run, evaluate
from rankproof.errors import InputError
from rankproof.fusion import METHODS, NORMALIZATIONS, complementarity, cross_validate, fuse
from rankproof.fusion.optimisation import fold_assignment
from rankproof.fusion.ties import quicksort_argsort

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"

A = Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, name="A")
B = Run.from_dict({"q1": {"d2": 9.0, "d4": 5.0}}, name="B")


def scores(run: Run) -> dict:
    return run.to_dict()["q1"]


def test_rrf_by_hand():
    # d1: 1/(1+1); d2: 1/(1+2) + 1/(1+1); d3: 1/(1+3); d4: 1/(1+2)
    got = scores(fuse([A, B], "rrf", params={"k": 1}))
    assert got == pytest.approx({"d1": 1 / 2, "d2": 1 / 3 + 1 / 2, "d3": 1 / 4, "d4": 1 / 3})


def test_comb_family_by_hand():
    # min-max: A -> d1 1, d2 0.5, d3 0; B -> d2 1, d4 0
    assert scores(fuse([A, B], "comb_sum")) == pytest.approx({"d1": 1, "d2": 1.5, "d3": 0, "d4": 0})
    assert scores(fuse([A, B], "comb_mnz")) == pytest.approx({"d1": 1, "d2": 3, "d3": 0, "d4": 0})
    assert scores(fuse([A, B], "comb_anz")) == pytest.approx({"d1": 1, "d2": 0.75, "d3": 0, "d4": 0})
    assert scores(fuse([A, B], "wsum", params={"weights": (0.25, 0.75)})) == pytest.approx(
        {"d1": 0.25, "d2": 0.125 + 0.75, "d3": 0, "d4": 0})
    assert scores(fuse([A, B], "comb_sum", norm="none")) == pytest.approx({"d1": 3, "d2": 11, "d3": 1, "d4": 5})


def test_borda_by_hand():
    # 4 candidates. A ranks 3: points 4, 3, 2 and d4 gets (4 - 3 + 1) / 2 = 1.
    # B ranks 2: d2 4, d4 3, d1 and d3 get (4 - 2 + 1) / 2 = 1.5.
    assert scores(fuse([A, B], "bordafuse")) == pytest.approx({"d1": 5.5, "d2": 7, "d3": 3.5, "d4": 4})


def test_normalizations_by_hand():
    run = Run.from_dict({"q1": {"a": 4.0, "b": 2.0, "c": 0.0}}, name="R")
    zero = Run.from_dict({"q1": {"z": 0.0}}, name="Z")   # a second run ranking none of a, b, c

    def norm(name):
        got = scores(fuse([run, zero], "wsum", norm=name, params={"weights": (1, 0)}))
        return {d: got[d] for d in "abc"}

    assert norm("min-max") == pytest.approx({"a": 1, "b": 0.5, "c": 0})
    assert norm("min-max-inverted") == pytest.approx({"a": 0, "b": 0.5, "c": 1})
    assert norm("max") == pytest.approx({"a": 1, "b": 0.5, "c": 0})
    assert norm("sum") == pytest.approx({"a": 4 / 6, "b": 2 / 6, "c": 0})
    assert norm("zmuv") == pytest.approx({"a": 2 / np.sqrt(8 / 3), "b": 0, "c": -2 / np.sqrt(8 / 3)})
    assert norm("rank") == pytest.approx({"a": 1, "b": 2 / 3, "c": 1 / 3})
    assert norm("borda") == pytest.approx({"a": 1, "b": 3 / 4, "c": 2 / 4})   # 4 candidates


def test_condorcet_winner_goes_first():
    runs = [Run.from_dict({"q1": order}, name=f"r{i}") for i, order in
            enumerate((["x", "y", "z"], ["x", "z", "y"], ["y", "x", "z"]))]
    assert list(scores(fuse(runs, "condorcet"))) == ["x", "y", "z"]


@pytest.mark.parametrize("method", ["comb_sum", "rrf", "isr", "bordafuse", "comb_mnz", "rbc"])
def test_run_order_does_not_matter_under_docid_ties(method):
    rows = np.random.default_rng(5).integers(0, 3, size=(3, 12))      # many equal scores
    runs = [Run.from_dict({"q1": {f"d{i}": float(s) for i, s in enumerate(row) if (i + j) % 4}}, name=f"r{j}")
            for j, row in enumerate(rows)]
    forward = fuse(runs, method).to_dict()
    backward = fuse(runs[::-1], method).to_dict()
    assert list(forward["q1"]) == list(backward["q1"])
    assert forward["q1"] == pytest.approx(backward["q1"])


def test_tie_policies_order_equal_fused_scores():
    a = Run.from_dict({"q1": {"b": 1.0}}, name="a")
    c = Run.from_dict({"q1": {"a": 1.0}}, name="c")   # rrf: a and b tie
    assert list(scores(fuse([a, c], "rrf", ties="docid"))) == ["b", "a"]    # doc id descending
    assert list(scores(fuse([a, c], "rrf", ties="input"))) == ["b", "a"]    # first appearance
    assert list(scores(fuse([c, a], "rrf", ties="input"))) == ["a", "b"]


def test_quicksort_sorts_and_is_stable_on_short_lists():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 5, size=300).astype(float)
    assert np.array_equal(keys[quicksort_argsort(keys)], np.sort(keys))
    short = rng.integers(0, 3, size=15).astype(float)
    assert quicksort_argsort(short).tolist() == np.argsort(short, kind="stable").tolist()


def test_every_method_and_normalization_runs():
    qrels = Qrels.from_dict({"q1": {"d2": 1, "d4": 2}})
    for method in METHODS:
        for norm in NORMALIZATIONS:
            fused = fuse([A, B], method, norm=norm, qrels=qrels)
            assert sorted(scores(fused)) == ["d1", "d2", "d3", "d4"]
            assert np.isfinite(fused.scores).all()


@pytest.mark.parametrize("call, words", [
    (lambda: fuse([A], "rrf"), "two or more runs"),
    (lambda: fuse([A, B], "rrff"), "unknown fusion method"),
    (lambda: fuse([A, B], "rrf", norm="minmax"), "unknown normalization"),
    (lambda: fuse([A, B], "wsum", params={"weights": (1, 2, 3)}), "3 weights for 2 runs"),
    (lambda: fuse([A, B], "rrf", params={"phi": 0.5}), "no parameter 'phi'"),
    (lambda: fuse([A, B], "posfuse"), "give qrels"),
    (lambda: fuse([A, B], "rrf", ties="random"), "unknown tie policy"),
])
def test_bad_arguments(call, words):
    with pytest.raises(InputError, match=words):
        call()


def test_folds_are_seeded_and_balanced():
    queries = [f"q{i}" for i in range(23)]
    first, again, other = (fold_assignment(queries, 5, s) for s in (1, 1, 2))
    assert first.tolist() == again.tolist() and first.tolist() != other.tolist()
    assert sorted(np.bincount(first).tolist()) == [4, 4, 5, 5, 5]


def cranfield():
    qrels = Qrels.read_trec(CRANFIELD / "qrels.txt")
    runs = {name: Run.read_trec(CRANFIELD / f"{name}.run", name=name) for name in ("bm25", "tfidf", "lmdirichlet")}
    return qrels, runs


def test_one_configuration_scores_the_same_in_and_out_of_fold():
    qrels, runs = cranfield()
    fit = cross_validate(qrels, runs, "rrf", grid={"k": (60,)}, measure="ndcg@10", folds=3)
    whole = evaluate(qrels, fuse(runs, "rrf", params={"k": 60}), ["ndcg@10"]).mean("ndcg@10")
    assert fit.score == pytest.approx(whole, abs=1e-12) and fit.in_sample == pytest.approx(whole, abs=1e-12)


def test_cross_validation_on_cranfield_is_fast_and_honest():
    qrels, runs = cranfield()
    start = time.perf_counter()
    fit = cross_validate(qrels, runs, "wsum", measure="ndcg@10", folds=5, seed=0)
    assert time.perf_counter() - start < 10
    assert fit.configurations == 66 and len(fit.chosen) == 5
    assert sorted(q for fold in fit.fold_queries() for q in fold) == sorted(fit.queries)
    # the cross-fitted run scores exactly the out-of-fold values
    assert evaluate(qrels, fit.run, ["ndcg@10"]).mean("ndcg@10") == pytest.approx(fit.score, abs=1e-12)
    assert "out-of-fold ndcg@10" in fit.summary()


def test_trained_methods_learn_on_other_folds():
    qrels, runs = cranfield()
    fit = cross_validate(qrels, runs, "posfuse", folds=5, seed=3)
    assert len({tuple(np.round(c["probs"][0][:5], 12)) for c in fit.chosen}) == 5   # a model per fold
    assert 0 < fit.score <= 1


def test_complementarity_of_identical_runs():
    pair = complementarity([A, A], k=3).pairs[0]
    assert (pair.overlap, pair.tau) == (1.0, 1.0) and pair.verdict.startswith("near-duplicates")


def test_cli_fuse_writes_a_trec_run_and_reports(tmp_path, capsys):
    from rankproof.cli.app import main

    out = tmp_path / "fused.run"
    paths = [str(CRANFIELD / f"{n}.run") for n in ("bm25", "tfidf")]
    assert main(["fuse", *paths, "--method", "rrf", "--qrels", str(CRANFIELD / "qrels.txt"), "--folds", "3",
                 "--resamples", "200", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "out-of-fold ndcg@10" in text and "fused-rrf" in text and "ties: docid" in text
    assert "fold 1" in text and "queries:" in text
    fused = Run.read_trec(out)
    assert fused.num_queries == 225
    first = out.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "fused-rrf"


def test_cli_fuse_without_qrels(tmp_path, capsys):
    from rankproof.cli.app import main

    out = tmp_path / "fused.run"
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\n")
    b.write_text("q1 Q0 d2 1 9 b\nq1 Q0 d3 2 1 b\n")
    assert main(["fuse", str(a), str(b), "--method", "rrf", "--param", "k=0", "-o", str(out)]) == 0
    assert out.read_text() == "q1 Q0 d2 1 1.5 fused-rrf\nq1 Q0 d1 2 1.0 fused-rrf\nq1 Q0 d3 3 0.5 fused-rrf\n"
    assert "parameters: k=0" in capsys.readouterr().out
    assert main(["fuse", str(a), str(b), "--method", "nope", "-o", str(out)]) == 2


def test_report_has_the_fused_section():
    qrels, runs = cranfield()
    fused = fuse(runs, "rrf", name="fused")
    page = rankproof.report(qrels, {**runs, "fused": fused}, ["ndcg@10"], fused="fused", n_resamples=200)
    assert '<section id="fusion">' in page and "Fused run against its components" in page
    assert rankproof.report(qrels, runs, ["ndcg@10"], n_resamples=200).count('id="fusion"') == 0


def test_cli_report_with_a_fused_run(tmp_path):
    from rankproof.cli.app import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i % 3} 1\n" for i in range(6)))
    runs = []
    for name, docs in (("a", "d0 d1 d2"), ("b", "d2 d1 d0")):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"q{i} Q0 {d} {r} {3 - r} {name}\n" for i in range(6)
                                for r, d in enumerate(docs.split(), start=1)))
        runs.append(str(path))
    fused = tmp_path / "fused.run"
    assert main(["fuse", *runs, "-o", str(fused)]) == 0
    page = tmp_path / "report.html"
    assert main(["report", str(qrels), *runs, str(fused), "--fused", str(fused), "--resamples", "100",
                 "-o", str(page)]) == 0
    assert '<section id="fusion">' in page.read_text()
    assert main(["report", str(qrels), *runs, "--fused", "nope.run", "-o", str(page)]) == 2


@pytest.mark.parametrize("method", ["comb_sum", "comb_mnz", "wsum", "rrf", "bordafuse", "condorcet", "rbc"])
def test_min_max_makes_fusion_blind_to_a_positive_affine_change_of_scores(method):
    rng = np.random.default_rng(1)
    docs = [f"d{i}" for i in range(20)]
    runs = [Run.from_dict({"q1": dict(zip(docs, rng.normal(size=20).tolist()))}, name=f"r{j}") for j in range(3)]
    shifted = [Run.from_dict({"q1": {d: 7 + 3 * s for d, s in run.to_dict()["q1"].items()}}, name=run.name)
               for run in runs]
    before, after = fuse(runs, method).to_dict()["q1"], fuse(shifted, method).to_dict()["q1"]
    assert list(before) == list(after) and before == pytest.approx(after, abs=1e-12)
