"""Measures of one's own (rankproof.measures.define), registered here in the test file: by hand,
per-query against vectorised, and through every door: evaluate, the command line
(--measures-from), compare, report, explain, out-of-core and another process (what a Spark
executor does; the Spark test itself is tests/spark/test_spark_user_measures.py)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, compare, evaluate
from rankproof.cli import main
from rankproof.errors import MeasureError, TieError
from rankproof.measures import define, parse_measure
from rankproof.measures.user import undefine

ORDERED = Protocol(ties="input")


def _share_at_least(query, level=1):
    """The share of the top k that is judged with a grade >= level (precision at k, by hand)."""
    k = query.k or max(len(query.grades), 1)
    top = query.grades[:k][query.judged[:k]]
    return float(np.sum(top >= level)) / k


def _share_at_least_table(table, level=1):
    hit = (table.judged & (table.grade >= level)).astype(float)
    rank = np.arange(len(hit)) - np.repeat(table.offsets[:-1], np.diff(table.offsets))
    inside = rank < np.repeat(table.k, np.diff(table.offsets))
    found = np.bincount(np.repeat(np.arange(table.num_queries), np.diff(table.offsets)), weights=hit * inside,
                        minlength=table.num_queries)
    # Without a cutoff k is the list's length; an empty list counts 1 as the per-query one does.
    return found / np.maximum(table.k, 1)


MINE = define("share_at_least", _share_at_least, params={"level": 1}, replace=True,
              description="the share of the top k judged >= level (a test's own precision)")
MINE_VECTORISED = define("share_at_least_vec", _share_at_least_table, vectorised=True, params={"level": 1},
                         replace=True, description="share_at_least, vectorised")

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
RUN_A = {"q1": ["a", "b", "c", "d"], "q2": ["y", "x"]}
RUN_B = {"q1": ["d", "c", "b", "a"], "q2": ["x", "y"]}


def test_by_hand_and_its_parameter():
    results = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN_A),
                       ["share_at_least@2", "share_at_least(level=2)@3", "share_at_least"], ORDERED)
    # q1: a (2), b (0) in the top 2 -> 1/2; q2: y, x -> 1/2.
    assert results.per_query("share_at_least@2") == {"q1": 0.5, "q2": 0.5}
    # level 2 in the top 3 of q1: a only -> 1/3; q2 has no grade 2.
    assert results.per_query("share_at_least(level=2)@3") == {"q1": pytest.approx(1 / 3), "q2": 0.0}
    assert results.per_query("share_at_least") == {"q1": 0.5, "q2": 0.5}


def test_per_query_and_vectorised_agree_with_the_builtin_precision(cranfield):
    qrels, run = Qrels.read(cranfield / "qrels.txt"), Run.read(cranfield / "bm25.run")
    names = ["share_at_least@10", "share_at_least_vec@10", "p@10", "share_at_least(level=2)@5",
             "share_at_least_vec(level=2)@5", "p(rel=2)@5"]
    results = evaluate(qrels, run, names, Protocol(ties="docid"))
    for mine, builtin in ((names[0], "p@10"), (names[1], "p@10"), (names[3], "p(rel=2)@5"), (names[4], "p(rel=2)@5")):
        np.testing.assert_allclose(results.values(mine), results.values(builtin), rtol=0, atol=1e-15)


def test_policies_apply_to_it():
    # ties=expected: no closed form declared, so tied scores are refused; a missing query is 0 (missing=zero)
    # or left out (missing=exclude).
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q3": {"z": 1}})
    with pytest.raises(TieError):
        evaluate(qrels, Run.from_dict({"q1": {"a": 1.0, "b": 1.0}}), ["share_at_least@2"])
    run = Run.from_dict({"q1": ["a", "b"]})
    assert evaluate(qrels, run, ["share_at_least@2"], ORDERED).per_query("share_at_least@2") == {"q1": 0.5,
                                                                                                  "q3": 0.0}
    excluded = evaluate(qrels, run, ["share_at_least@2"], Protocol(ties="input", missing_query="exclude"))
    assert excluded.per_query("share_at_least@2") == {"q1": 0.5}


def test_compare_and_explain():
    from rankproof.explain import explain

    qrels = Qrels.from_dict(QRELS)
    comparison = compare(qrels, {"a": Run.from_dict(RUN_A), "b": Run.from_dict(RUN_B)}, ["share_at_least@1"],
                         ORDERED, n_resamples=200)
    text = comparison.summary()
    assert "share_at_least@1" in text
    # a: q1 top a (2) -> 1, q2 top y -> 0; b: q1 top d -> 0, q2 top x -> 1: the means are equal.
    assert comparison.mean("a", "share_at_least@1") == comparison.mean("b", "share_at_least@1") == 0.5
    shown = explain(qrels, Run.from_dict(RUN_A), "q1", "share_at_least@2", ORDERED)
    assert shown.value == 0.5


def _measures_file(tmp_path):
    path = tmp_path / "mymeasures.py"
    path.write_text(
        "import numpy as np\n"
        "from rankproof.measures import define\n\n"
        "def first_hit_depth(query):\n"
        "    hits = np.flatnonzero(query.judged & (query.grades > 0))\n"
        "    return float(hits[0] + 1) if len(hits) else 0.0\n\n"
        "define('first_hit_depth', first_hit_depth, cutoff=False, value_range=(0, float('inf')),\n"
        "       description='the rank of the first relevant doc (0: none)')\n")
    return path


def _files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    runs = []
    for name, run in (("a", RUN_A), ("b", RUN_B)):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{q} Q0 {d} {i + 1} {10 - i} {name}\n" for q, docs in run.items()
                                for i, d in enumerate(docs)))
        runs.append(path)
    return qrels, runs


def test_command_line_evaluate_report_and_errors(tmp_path, capsys):
    qrels, (run_a, run_b) = _files(tmp_path)
    measures = _measures_file(tmp_path)
    assert main(["evaluate", str(qrels), str(run_a), "--measures-from", str(measures), "-m", "first_hit_depth",
                 "--per-query", "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # a: q1's first relevant doc at rank 1 (a), q2's at rank 2 (x): mean 1.5.
    assert "1.5" in json.dumps(printed) and "first_hit_depth" in json.dumps(printed)
    report = tmp_path / "report.html"
    assert main(["report", str(qrels), str(run_a), str(run_b), "--measures-from", str(measures), "-m",
                 "first_hit_depth", "-m", "ndcg@10", "-o", str(report)]) == 0
    assert "first_hit_depth" in report.read_text()
    assert main(["compare", str(qrels), str(run_a), str(run_b), "--measures-from", str(measures), "-m",
                 "first_hit_depth"]) == 0
    assert "first_hit_depth" in capsys.readouterr().out
    broken = tmp_path / "broken.py"
    broken.write_text("raise ValueError('no')\n")
    capsys.readouterr()
    assert main(["evaluate", str(qrels), str(run_a), "--measures-from", str(broken), "-m", "ndcg"]) == 2
    err = capsys.readouterr().err
    assert "broken.py" in err and "ValueError" in err and len(err.strip().splitlines()) == 1


def test_out_of_core_equals_in_memory(tmp_path, monkeypatch):
    # A budget of 2KB cuts this tiny log into parts of a few rows (the library's own minimum part is
    # thousands of rows: the test knob of frontdoors/budget.py, as tests/frontdoors/test_outofcore.py uses).
    monkeypatch.setenv("RANKPROOF_MIN_PART_ROWS", "1")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from rankproof.frontdoors.frame import evaluate_frame

    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(60), 8)
    items = np.concatenate([rng.permutation(30)[:8] for _ in range(60)])   # no item twice for a user
    truth = pa.table({"user": users[::2], "item": items[::2]})
    shown = np.concatenate([rng.permutation(30)[:8] for _ in range(60)])
    predictions = pa.table({"user": users, "item": shown, "score": rng.permutation(len(users)).astype(float)})
    paths = [str(tmp_path / "truth.parquet"), str(tmp_path / "predictions.parquet")]
    pq.write_table(truth, paths[0], row_group_size=16)
    pq.write_table(predictions, paths[1], row_group_size=16)
    names = ["share_at_least@3", "share_at_least_vec@3"]
    whole = evaluate_frame(*paths, names, rating=None, memory_budget=10**9)
    parts = evaluate_frame(*paths, names, rating=None, memory_budget="64KB")
    for name in names:
        assert parts.per_query(name) == whole.per_query(name)


def test_pickled_measure_carries_its_function_to_another_process(tmp_path):
    # What a Spark executor does: unpickle the measure in a process that never ran this file.
    cloudpickle = pytest.importorskip("cloudpickle")
    measure = parse_measure("share_at_least(level=2)@2")
    blob = tmp_path / "measure.pickle"
    blob.write_bytes(cloudpickle.dumps(measure))
    code = ("import pickle, sys; from rankproof import Qrels, Run, Protocol, evaluate\n"
            "m = pickle.loads(open(sys.argv[1], 'rb').read())\n"
            "r = evaluate(Qrels.from_dict({'q': {'a': 2, 'b': 1}}), Run.from_dict({'q': ['b', 'a']}), [m], "
            "Protocol(ties='input'))\n"
            "print(r.mean(m))")
    out = subprocess.run([sys.executable, "-c", code, str(blob)], capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.strip() == "0.5", out.stderr[-2000:]
    assert pickle.loads(pickle.dumps(measure)) == measure


@pytest.mark.parametrize("kwargs, words", [
    ({"name": "ndcg"}, "already built in"), ({"name": "2fast"}, "letters, digits"),
    ({"name": "bad_range", "value_range": (1, 0)}, "low < high"),
    ({"name": "bad_param", "params": {"gain": 1}}, "protocol policy"),
])
def test_definitions_refused(kwargs, words):
    with pytest.raises(MeasureError, match=words):
        define(function=_share_at_least, **kwargs)


def test_a_function_returning_nonsense_is_reported():
    define("returns_nan", lambda query: float("nan"), replace=True)
    define("returns_two", lambda table: [1.0, 2.0, 3.0], vectorised=True, replace=True)
    try:
        qrels, run = Qrels.from_dict(QRELS), Run.from_dict(RUN_A)
        with pytest.raises(MeasureError, match="not finite"):
            evaluate(qrels, run, ["returns_nan"], ORDERED)
        with pytest.raises(MeasureError, match="3 values for 2 queries"):
            evaluate(qrels, run, ["returns_two"], ORDERED)
    finally:
        undefine("returns_nan")
        undefine("returns_two")
