"""The page model (rankproof.pages): one evaluation per run, bounded values, the sample of the curves past
CURVE_QUERIES, and the per-query table beside the page. Expected values from evaluate on the same inputs."""

from __future__ import annotations

import csv
import gzip
import io

import numpy as np
import pytest

import rankproof
from rankproof import Qrels, Run, evaluate
from rankproof.pages import build, curves
from rankproof.pages.subset import only_queries
from rankproof.report.per_query import per_query_path


def _inputs(queries: int = 40, seed: int = 5):
    rng = np.random.default_rng(seed)
    ids = [f"u{i}" for i in range(queries)]
    qrels = Qrels.from_dict({q: {f"i{j}": int(rng.integers(1, 4)) for j in rng.choice(30, 3, replace=False)}
                             for q in ids})
    runs = {name: Run.from_dict({q: [f"i{j}" for j in rng.permutation(30)[:12]] for q in ids})
            for name in ("a", "b")}
    return qrels, runs


def test_a_selection_keeps_its_measures_and_none_of_the_kernel_block():
    qrels, runs = _inputs()
    full = evaluate(qrels, runs["a"], ["ndcg@10", "p@5", "judged@3", "rr"])
    page = full.select(["rr", "ndcg@10"])
    assert [str(m) for m in page.measures] == ["rr", "ndcg@10"]
    assert page.values("rr").tolist() == full.values("rr").tolist()
    # Each kept array owns its memory: the compiled kernel's block of the four measures can be freed.
    assert all(page.result(m).value.base is None for m in page.measures)
    assert set(page.counts["zero_ideal_queries"]) <= {"rr", "ndcg@10"}


def test_past_curve_queries_the_curves_come_from_a_stated_sample(monkeypatch):
    qrels, runs = _inputs(queries=60)
    monkeypatch.setattr(curves, "CURVE_QUERIES", 25)
    data = build.prepare(qrels, runs, ["ndcg@5"], n_resamples=100)
    sample, _ = curves._sample(qrels)
    assert len(sample) == 25
    for name, run in runs.items():
        expected = evaluate(only_queries(qrels, sample), only_queries(run, sample), [f"ndcg@{k}" for k in
                                                                                       data.cutoffs])
        assert data.cutoff_curves[name]["ndcg"] == pytest.approx([expected.mean(f"ndcg@{k}") for k in data.cutoffs],
                                                                 abs=1e-15)
        # The page's own numbers stay over every query.
        assert data.results[[r.run_name for r in data.results].index(name)].mean("ndcg@5") == \
            evaluate(qrels, run, ["ndcg@5"]).mean("ndcg@5")
    assert "seeded random sample of 25 of the 60 judged queries" in data.curve_note
    from rankproof.report.html import render

    page = render(data)
    assert page.count("data-curve-note") == 3   # cutoffs, judged@k, precision-recall


def test_the_per_query_table_beside_the_page_holds_every_value(tmp_path):
    qrels, runs = _inputs()
    out = tmp_path / "report.html"
    rankproof.report(qrels, runs, ["ndcg@10", "rr"], n_resamples=100, output=out)
    table = per_query_path(out)
    assert table.name == "report.per-query.csv.gz"
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(table.read_bytes()).decode())))
    for name, run in runs.items():
        expected = evaluate(qrels, run, ["ndcg@10", "rr"])
        got = {r["query"]: (float(r["ndcg@10"]), float(r["rr"])) for r in rows if r["run"] == name}
        assert got == {q: (expected.per_query("ndcg@10")[q], expected.per_query("rr")[q]) for q in expected.queries}


def test_the_per_query_table_never_replaces_an_input(tmp_path):
    from rankproof.cli.app import main

    qrels = tmp_path / "q.txt"
    qrels.write_text("u1 0 a 1\n")
    run = tmp_path / "report.per-query.csv.gz"   # a run file named as the table would be
    run.write_text("u1 Q0 a 1 1 t\n")
    before = run.read_bytes()
    assert main(["report", str(qrels), str(run), "-o", str(tmp_path / "report.html")]) == 2
    assert run.read_bytes() == before and not (tmp_path / "report.html").exists()


def test_group_means_are_the_loops_to_the_last_bit():
    from rankproof.pages.groups import group_means
    from rankproof.recsys.beyond_report import NO_GROUP

    rng = np.random.default_rng(9)
    ids = np.array([f"u{i}" for i in range(5000)])
    values = np.where(rng.random(5000) < 0.1, np.nan, rng.random(5000))
    grouped = np.sort(rng.choice(ids, 4000, replace=False))
    labels = rng.choice(["new", "casual", "power"], grouped.size)
    # The loop the report used (recsys.beyond_report.accuracy_by_group's, which now calls group_means).
    group = dict(zip(grouped.tolist(), labels.tolist()))
    per: dict[str, list[float]] = {}
    for user, value in zip(ids.tolist(), values.tolist()):
        if value == value:
            per.setdefault(group.get(user, NO_GROUP), []).append(value)
    expected = {name: sum(found) / len(found) for name, found in per.items()}
    got = group_means(ids, values, grouped, labels, NO_GROUP)
    assert list(got.items()) == list(expected.items())
