"""Out-of-core evaluation of recommender logs (rankproof.frontdoors.outofcore, evaluate_frame(memory_budget=)).

The property: a log evaluated part by part gives the Results of the
in-memory evaluation (rankproof.frontdoors.frame without a budget, the reference):
the same users in the same order, the same per-user values, counts and
means, bit for bit, however the log is cut (users split across row groups
and chunks, a user alone in a chunk, the first and last rows, parts of one
user), sorted or partitioned by user on disk. One example is worked by hand.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pacsv = pytest.importorskip("pyarrow.csv")

from rankproof import evaluate_frame  # noqa: E402
from rankproof.errors import InputError  # noqa: E402
from rankproof.frontdoors.frame import ids_as_integers  # noqa: E402
from rankproof.frontdoors.outofcore import Log, evaluate_log, parse_budget  # noqa: E402

MEASURES = ["ndcg@5", "r@3", "ap@10", "rr"]


@pytest.fixture(autouse=True)
def _tiny_parts(monkeypatch):
    # The logs here are tiny: budgets of a few KB cut them into parts of a few rows
    # (the library's own minimum part is thousands of rows; tests/frontdoors/test_budget.py checks it).
    monkeypatch.setenv("RANKPROOF_MIN_PART_ROWS", "1")


def _log(seed: int = 3):
    """Truth and predictions sorted by user, with every kind of user at every kind of place.

    User 0 (first row) is only predicted for; user 3 has 30 predictions
    (split across any small row group); users 5 and 6 have truth only; the
    last user (40) has truth only, so the truth's last row is past the
    predictions' last; the rest have 1 to 9 predictions, ties among them.
    """
    rng = np.random.default_rng(seed)
    truth_rows, prediction_rows = [], []
    for user in range(41):
        predicted = 0 if user in (5, 6, 40) else 30 if user == 3 else int(rng.integers(1, 10))
        items = rng.choice(60, size=predicted + 6, replace=False)
        for rank, item in enumerate(items[:predicted]):
            prediction_rows.append((user, int(item), float(rng.integers(0, 4)) if user % 4 == 0 else float(-rank)))
        if user != 0:
            judged = rng.choice(items, size=int(rng.integers(1, 5)), replace=False)
            truth_rows += [(user, int(item), int(rng.integers(0, 4))) for item in judged]
    truth = pa.table({name: [row[i] for row in truth_rows] for i, name in enumerate(("user", "item", "rating"))})
    predictions = pa.table({name: [row[i] for row in prediction_rows]
                            for i, name in enumerate(("user", "item", "score"))})
    return truth, predictions


def _write(tmp_path, truth, predictions, fmt: str, row_group: int = 7):
    paths = tmp_path / f"truth.{fmt}", tmp_path / f"predictions.{fmt}"
    for table, path in zip((truth, predictions), paths):
        if fmt == "parquet":
            pq.write_table(table, path, row_group_size=row_group)
        else:
            pacsv.write_csv(table, path)
    return [str(p) for p in paths]


def _same(found, reference) -> None:
    assert found.queries == reference.queries
    for measure in MEASURES:
        assert np.array_equal(found.values(measure), reference.values(measure), equal_nan=True)
        assert found.per_query(measure) == reference.per_query(measure)
    assert found.means() == reference.means()  # bit for bit: == on floats
    assert found.counts == reference.counts
    assert found.run_name == reference.run_name


def _out_of_core(truth_path, predictions_path, *, integer: bool, **options):
    def part(truth, predictions):
        return evaluate_frame(truth, predictions, MEASURES, allow_partial=True)  # a part holds some users

    return evaluate_log(Log.of(truth_path, ("user", "item", "rating"), "user"),
                        Log.of(predictions_path, ("user", "item", "score"), "user"), part,
                        query_ids=ids_as_integers if integer else None,
                        run_name=os.path.basename(predictions_path), **options)


@pytest.fixture(scope="module")
def parquet_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("log")
    truth, predictions = _log()
    paths = _write(folder, truth, predictions, "parquet")
    return paths, evaluate_frame(*paths, MEASURES)


@pytest.mark.parametrize("part_rows", [1, 2, 5, 13, 29, 30, 31, 10_000])
@pytest.mark.parametrize("batch_rows", [1, 7, 30, 500])
def test_sorted_log_in_parts_gives_the_in_memory_results(parquet_log, part_rows, batch_rows):
    (truth_path, predictions_path), reference = parquet_log
    found = _out_of_core(truth_path, predictions_path, integer=True, sorted=True, part_rows=part_rows,
                         batch_rows=batch_rows)
    _same(found, reference)


@pytest.mark.parametrize("part_rows", [6, 30, 10_000])
@pytest.mark.parametrize("batch_rows", [1, 64])
def test_partitioned_log_gives_the_in_memory_results(parquet_log, part_rows, batch_rows, tmp_path):
    (truth_path, predictions_path), reference = parquet_log
    found = _out_of_core(truth_path, predictions_path, integer=True, sorted=False, part_rows=part_rows,
                         batch_rows=batch_rows, temporary=str(tmp_path))
    _same(found, reference)
    assert os.listdir(tmp_path) == []  # the partition's folder is gone


@pytest.mark.parametrize("part_rows", [9, 10_000])
def test_unsorted_csv_log_is_partitioned(tmp_path, part_rows):
    truth, predictions = _log(seed=5)
    shuffle = np.random.default_rng(1).permutation(predictions.num_rows)
    # Shuffled rows, but each user's rows keep their order (rank order matters when scores tie).
    order = np.lexsort((np.arange(predictions.num_rows), shuffle[predictions.column("user").to_numpy()]))
    paths = _write(tmp_path, truth.take(np.random.default_rng(2).permutation(truth.num_rows)),
                   predictions.take(order), "csv")
    reference = evaluate_frame(*paths, MEASURES)
    for sorted_ in (None, False):  # None: streaming finds the disorder, then partitions
        folder = tmp_path / f"tmp-{sorted_}"
        folder.mkdir()
        found = _out_of_core(*paths, integer=False, sorted=sorted_, part_rows=part_rows, batch_rows=5,
                             temporary=str(folder))
        _same(found, reference)
        assert os.listdir(folder) == []


def test_a_user_alone_in_each_chunk(tmp_path):
    # Every user has exactly 4 predictions and batches are 4 rows: each user fills one chunk.
    rng = np.random.default_rng(9)
    users = np.repeat(np.arange(12), 4)
    predictions = pa.table({"user": users, "item": np.tile(np.arange(4), 12), "score": rng.random(48)})
    truth = pa.table({"user": np.arange(12), "item": rng.integers(0, 4, 12), "rating": rng.integers(1, 3, 12)})
    paths = _write(tmp_path, truth, predictions, "parquet", row_group=4)
    reference = evaluate_frame(*paths, MEASURES)
    for part_rows in (1, 4, 5, 8):
        _same(_out_of_core(*paths, integer=True, sorted=True, part_rows=part_rows, batch_rows=4), reference)


def test_sorted_true_refuses_an_unsorted_log(tmp_path):
    truth, predictions = _log()
    paths = _write(tmp_path, truth, predictions.take(np.arange(predictions.num_rows)[::-1]), "parquet")
    with pytest.raises(InputError, match="not sorted"):
        _out_of_core(*paths, integer=True, sorted=True, part_rows=5, batch_rows=3)


class Interrupted(KeyboardInterrupt):
    pass


@pytest.mark.parametrize("error", [InputError(what="a part failed"), Interrupted()])
def test_temporary_files_are_removed_on_failure_and_interrupt(parquet_log, tmp_path, error):
    (truth_path, predictions_path), _ = parquet_log
    calls = []

    def part(truth, predictions):
        calls.append(1)
        if len(calls) == 2:
            raise error
        return evaluate_frame(truth, predictions, MEASURES, allow_partial=True)  # a part holds some users

    with pytest.raises(type(error)):
        evaluate_log(Log.of(truth_path, ("user", "item", "rating"), "user"),
                     Log.of(predictions_path, ("user", "item", "score"), "user"), part, sorted=False,
                     part_rows=5, batch_rows=4, temporary=str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_evaluate_frame_memory_budget_by_hand(tmp_path):
    # The example of evaluate_frame: user 1 got 10, 11, 12 and liked 11 and 13; user 2 got 20, 21 and liked 20.
    # r@2: user 1 found 1 of 2, user 2 found 1 of 1: (0.5 + 1) / 2; rr@2: user 1's first hit at rank 2.
    truth = pa.table({"user": [1, 1, 2], "item": [11, 13, 20]})
    predictions = pa.table({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 20, 21],
                            "score": [0.9, 0.8, 0.1, 0.7, 0.2]})
    paths = _write(tmp_path, truth, predictions, "parquet", row_group=2)
    for budget in ("2KB", 10**9):  # 2KB: a part per user (2 users' values take 640 bytes)
        results = evaluate_frame(*paths, ["r@2", "rr@2"], rating=None, memory_budget=budget)
        assert results.means() == {"r@2": 0.75, "rr@2": 0.75}
        assert results.per_query("rr@2") == {1: 0.5, 2: 1.0}


def test_evaluate_frame_budget_with_weights(parquet_log):
    (truth_path, predictions_path), _ = parquet_log
    weights = {str(user): 1.0 + user % 3 for user in range(41)}
    reference = evaluate_frame(truth_path, predictions_path, MEASURES, "aggregation=weighted", weights=weights)
    found = evaluate_frame(truth_path, predictions_path, MEASURES, "aggregation=weighted", weights=weights,
                           memory_budget="40KB")  # not spilled: bit for bit
    _same(found, reference)


def test_budget_is_for_files_only():
    truth, predictions = _log()
    with pytest.raises(InputError, match="memory_budget"):
        evaluate_frame(truth, predictions, MEASURES, memory_budget="1GB")


@pytest.mark.parametrize("text, expected", [("2GB", 2 * 2**30), ("512 MB", 512 * 2**20), ("1.5g", 3 * 2**29),
                                            (4096, 4096), ("100", 100)])
def test_parse_budget(text, expected):
    assert parse_budget(text) == expected


@pytest.mark.parametrize("text", ["two gigs", "-1GB", "0", "1XB"])
def test_parse_budget_refuses(text):
    with pytest.raises(InputError):
        parse_budget(text)


# -- the command line ----------------------------------------------------------------------

def _cli(capsys, *args) -> tuple[int, str, str]:
    from rankproof.cli.app import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_cli_memory_budget_prints_the_in_memory_numbers(tmp_path, capsys, fmt):
    truth, predictions = _log(seed=11)
    qrels = truth.rename_columns(["query", "doc", "grade"])
    run = predictions.rename_columns(["query", "doc", "score"])
    if fmt == "csv":  # unsorted: rows shuffled, each query's rows in their order
        shuffle = np.random.default_rng(4).permutation(41)
        run = run.take(np.lexsort((np.arange(run.num_rows), shuffle[run.column("query").to_numpy()])))
    paths = _write(tmp_path, qrels, run, fmt, row_group=5)
    options = ["-m", "ndcg@10", "-m", "ap", "-m", "rr", "--format", "json", "--per-query", "--allow-partial"]
    code, reference, _ = _cli(capsys, "evaluate", *paths, *options)
    assert code == 0
    # CSV: 66 blocks of 64 KiB of text read ahead (4,224 KiB) besides the 16 KiB that cut parts.
    for budget in ("16KB" if fmt == "parquet" else "4240KB", "1GB"):
        code, out, err = _cli(capsys, "evaluate", *paths, *options, "--memory-budget", budget)
        assert code == 0, err
        assert _strip(out) == _strip(reference)


def _strip(text: str) -> str:
    # The qrels' digest is of the whole judgments, which out of core never holds at once: it
    # records its own kind of digest (ooc-..., compared in test_outofcore_digest_*).
    import re

    return re.sub(r'"digest": (null|"(ooc-)?[0-9a-f]+")', '"digest": -', text)


def test_outofcore_digests_agree_across_budgets_and_compare(tmp_path, capsys):
    """Issue 36 #10: two results saved from --memory-budget runs on the same qrels compare; the
    digest does not depend on how the log is cut into parts (two budgets)."""
    import json

    truth, predictions = _log()
    paths = _write(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                   predictions.rename_columns(["query", "doc", "score"]), "parquet")
    digests = []
    for budget, name in (("40KB", "small.json"), ("2GB", "large.json")):
        code, _, err = _cli(capsys, "evaluate", *paths, "--memory-budget", budget, "--format", "json",
                            "-o", str(tmp_path / name))
        assert code == 0, err
        digests.append(json.loads((tmp_path / name).read_text())["qrels"]["digest"])
    assert digests[0] == digests[1] and digests[0].startswith("ooc-")
    code, out, err = _cli(capsys, "compare", "--results", str(tmp_path / "small.json"), str(tmp_path / "large.json"))
    assert "qrels differ" not in err
    assert code == 0, err


def test_cli_sorted_refuses_an_unsorted_log(tmp_path, capsys):
    truth, predictions = _log()
    paths = _write(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                   predictions.rename_columns(["query", "doc", "score"]).take(np.arange(predictions.num_rows)[::-1]),
                   "parquet")
    code, out, err = _cli(capsys, "evaluate", *paths, "--memory-budget", "16KB", "--sorted")
    assert code == 2 and "not sorted by query" in err and out == ""


def test_cli_memory_budget_refuses_bounds(tmp_path, capsys):
    # Bounds judge unjudged docs at the highest grade of all the judgments: no part knows it.
    truth, predictions = _log()
    paths = _write(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                   predictions.rename_columns(["query", "doc", "score"]), "parquet")
    code, _, err = _cli(capsys, "evaluate", *paths, "--memory-budget", "1KB", "--bounds")
    assert code == 2 and "--bounds" in err


def test_cli_memory_budget_needs_table_files(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 x\n")
    code, _, err = _cli(capsys, "evaluate", tmp_path / "qrels.txt", tmp_path / "run.txt", "--memory-budget", "1GB")
    assert code == 2 and "--memory-budget" in err and "CSV, TSV, JSON Lines or Parquet" in err


def test_a_default_read_from_every_query_is_refused_out_of_core(tmp_path, capsys):
    # ERR's max_grade and the C/W/L measures' max_rel default to the highest judged grade of all
    # the evaluated users, which a part would take from its own users only (the user with the
    # highest grade, 3, is in one part; the others would scale by their own): refused, as on Spark.
    truth, predictions = _log()
    paths = _write(tmp_path, truth, predictions, "parquet")
    from rankproof.errors import MeasureError

    with pytest.raises(MeasureError, match="max_grade="):
        evaluate_frame(*paths, ["err@10"], memory_budget="16KB")
    with pytest.raises(MeasureError, match="max_rel="):
        evaluate_frame(*paths, ["sdcg@5"], memory_budget="16KB")
    given = ["err(max_grade=3)@10", "sdcg(max_rel=3)@5"]
    found = evaluate_frame(*paths, given, "ties=docid", memory_budget="40KB")  # not spilled: bit for bit
    assert found.means() == evaluate_frame(*paths, given, "ties=docid").means()
    cli = _write(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                 predictions.rename_columns(["query", "doc", "score"]), "csv")
    code, out, err = _cli(capsys, "evaluate", *cli, "-m", "err@10", "--memory-budget", "4240KB")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "max_grade=" in err
