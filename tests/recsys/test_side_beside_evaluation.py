"""The command line's side-data measures, computed in a thread beside the evaluation
(cli/step.CommandInputs), on a run it ranked in place and cut without listing its rows
(recsys/topk.read_cut): the values of the library's evaluate_with_side, which computes them after
the evaluation on the run as given; the errors of a measure still one line, exit 2."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankproof import Qrels, Run
from rankproof.cli import main
from rankproof.errors import TieError
from rankproof.protocol import Protocol
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import evaluate_with_side
from rankproof.recsys.side_io import read_features, read_items, read_train
from rankproof.recsys.topk import rank_owned_run, read_cut, shared_cuts, top_rows

SIDE = ["coverage@5", "gini@5", "novelty@5", "entropy@5", "arp@5", "ild@5", "long_tail_share@5"]
COLUMNS = "query=user,doc=item,grade=rating,score=score"


def _files(tmp_path, *, unseen: bool = False) -> dict[str, str]:
    """A log of 60 users x 9 scored items (no tied scores), its truth, catalogue, training log
    and genres, as Parquet; `unseen`: one recommended item is missing from the training log."""
    rng = np.random.default_rng(11)
    users = np.repeat([f"u{u}" for u in range(60)], 9)
    items = np.concatenate([rng.choice(40, 9, replace=False) for _ in range(60)])
    tables = {
        "recs": pa.table({"user": users, "item": [f"i{i}" for i in items],
                          "score": rng.permutation(len(users)) / len(users)}),
        "truth": pa.table({"user": users[::3], "item": [f"i{i}" for i in items[::3]],
                           "rating": rng.integers(1, 3, len(users[::3]))}),
        "items": pa.table({"item": [f"i{i}" for i in range(45)]}),
        "train": pa.table({"user": [f"t{i % 7}" for i in range(200)],
                           "item": [f"i{i % (39 if unseen else 40)}" for i in range(200)]}),
        "features": pa.table({"item": [f"i{i}" for i in range(40)],
                              "category": [f"g{i % 4}|g{i % 6}" for i in range(40)]}),
    }
    paths = {name: str(tmp_path / f"{name}.parquet") for name in tables}
    for name, table in tables.items():
        pq.write_table(table, paths[name])
    return paths


def _command(paths: dict[str, str]) -> list[str]:
    return ["evaluate", paths["truth"], paths["recs"], "--columns", COLUMNS, "-m", "ndcg@5",
            *[part for name in SIDE for part in ("-m", name)], "--train", paths["train"],
            "--items", paths["items"], "--features", paths["features"], "--quiet"]


def test_side_measures_beside_the_evaluation_equal_the_librarys_after_it(tmp_path, capsys):
    paths = _files(tmp_path)
    assert main([*_command(paths), "--format", "json", "--per-query", "--profile"]) == 0
    out, err = capsys.readouterr()
    got = json.loads(out)["runs"]["recs.parquet"]["side"]
    assert "side-data measures (the wait for them, computed beside the evaluation)" in err
    qrels = Qrels.read(paths["truth"], query="user", doc="item", grade="rating")
    run = Run.read(paths["recs"], query="user", doc="item", score="score")
    side = SideData(items=read_items(paths["items"]), train=read_train(paths["train"]),
                    features=read_features(paths["features"]))
    want = evaluate_with_side(qrels, run, ["ndcg@5", *SIDE], side)
    assert [value.measure for value in want.side] == list(got) == SIDE
    for value in want.side:
        # The command sums each list in rank order (its run ranked in place), the library in the
        # given order: the same numbers to the last bits.
        assert got[value.measure]["value"] == pytest.approx(value.value, rel=1e-13)
        if value.values is not None:
            shown = got[value.measure]["per_query"]
            assert [shown[str(q)] for q in value.queries] == pytest.approx(
                value.values.tolist(), rel=1e-13)


def test_a_side_measure_refused_in_its_thread_is_one_line_exit_2(tmp_path, capsys):
    paths = _files(tmp_path, unseen=True)
    assert main(_command(paths)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "i39" in err and "Traceback" not in err, err


def test_a_run_in_rank_order_is_cut_without_its_rows_listed_and_a_tie_across_k_still_refused():
    # u: a 0.9, b 0.5, c 0.5 (b and c tie across rank 2); v: d 0.8, e 0.1.
    run = Run.from_dict({"u": {"c": 0.5, "a": 0.9, "b": 0.5}, "v": {"e": 0.1, "d": 0.8}})
    listed = read_cut(run, 1, Protocol())   # out of rank order: the rows are listed
    assert run.docs[run.doc_codes[listed]].tolist() == ["a", "d"]
    assert rank_owned_run(run, Protocol())
    with shared_cuts():
        assert read_cut(run, 1, Protocol()).size == 0   # each list's first row: none listed
        assert run.docs[run.doc_codes[top_rows(run, 1, Protocol())]].tolist() == ["a", "d"]
    with pytest.raises(TieError, match="across rank 2"):
        read_cut(run, 2, Protocol())
    assert read_cut(run, 2, Protocol(ties="input")).size == 0


def test_loops_on_this_thread_give_the_same_values_and_restore_the_thread_count():
    from rankproof._libs.lists import loop_threads
    from rankproof.recsys.side_eval import loops_on_this_thread, side_values, split_measures

    def count() -> int:
        now = loop_threads(1)
        loop_threads(now)
        return now

    rng = np.random.default_rng(3)
    run = Run.from_dict({f"u{u}": {f"i{i}": float(rng.random()) for i in rng.choice(30, 8, replace=False)}
                         for u in range(50)})
    items = [f"i{i}" for i in range(30)]
    side = SideData(items=np.array(items), train=read_train(pa.table({"user": ["x"] * 60, "item": items * 2})),
                    features=read_features(pa.table({"item": items, "category": [f"g{i % 3}|g{i % 7}" for i in range(30)]})))
    measures = split_measures(SIDE)[1]
    split = side_values(run, measures, side)
    before = count()
    with loops_on_this_thread():
        assert count() == 1
        alone = side_values(run, measures, side)
    assert count() == before
    for one, other in zip(alone, split):
        assert one.value == other.value   # each list is one thread's: the same floats
        assert one.values is None or np.array_equal(one.values, other.values, equal_nan=True)


def test_a_run_out_of_rank_order_is_ordered_once_per_measure_outside_a_shared_scope(monkeypatch):
    import rankproof.pipeline.cuts as cuts
    from rankproof.recsys.beyond import ild, novelty

    ordered = []
    real = cuts.rank_order_within
    monkeypatch.setattr(cuts, "rank_order_within", lambda *a: ordered.append(1) or real(*a))
    rng = np.random.default_rng(1)
    run = Run.from_dict({f"u{u}": {f"i{i}": float(rng.random()) for i in range(6)} for u in range(5)})
    novelty(run, 3, training=[f"i{i}" for i in range(6)])
    ild(run, 3, categories={f"i{i}": f"g{i % 2}" for i in range(6)})
    assert len(ordered) == 2   # one sort per measure, not one for the cut and one for its rows


def test_the_evaluations_refusal_comes_first_while_the_side_measures_run_beside_it(tmp_path, capsys):
    paths = _files(tmp_path, unseen=True)   # the side measures would refuse too (novelty: i39)
    truth = pq.read_table(paths["truth"])
    pq.write_table(pa.concat_tables([truth, pa.table({"user": ["nobody"], "item": ["i1"],
                                                       "rating": truth["rating"][:1]})]),
                   paths["truth"])
    assert main([*_command(paths), "--policy", "missing_query=error"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nobody" in err and "i39" not in err, err


def test_layered_judgments_take_the_side_measures_of_the_thread_once(tmp_path, capsys, monkeypatch):
    # The evaluation's protocol holds the layering of --layer; the thread computes the side-data
    # measures under that protocol, so they are not computed a second time after the evaluation.
    from rankproof.recsys import side_eval

    paths = _files(tmp_path)
    judge = tmp_path / "judge.parquet"
    pq.write_table(pq.read_table(paths["truth"]).slice(0, 40), judge)
    computed = []
    real = side_eval.side_values
    monkeypatch.setattr(side_eval, "side_values", lambda *a: computed.append(1) or real(*a))
    assert main([*_command(paths), "--layer", f"llm={judge}", "--format", "json"]) == 0
    means = json.loads(capsys.readouterr().out)
    assert computed == [1]
    assert "layers:" in json.dumps(means)   # the layering entered the protocol
