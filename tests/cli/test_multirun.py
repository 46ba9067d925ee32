"""cli.multirun: the runs of compare, systems and segments, each evaluated while the next is read.

read_ahead gives the items in order, raises a reading's error when that item is asked for (after
the items before it were used), and a caller that stops early does not wait for the rest. Through
the command line, compare on integer user ids in Parquet (the users' vocabulary shared by the truth
and every run) gives the numbers of the Python API evaluating each run on its own.
"""

from __future__ import annotations

import json
import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankproof import Qrels, Run, compare
from rankproof.cli import main
from rankproof.cli.multirun import read_ahead


def test_items_come_in_order_each_next_one_taken_in_another_thread():
    taken = []

    def items():
        for item in "abc":
            taken.append((item, threading.current_thread().name))
            yield item

    assert list(read_ahead(items())) == ["a", "b", "c"]
    assert [item for item, _ in taken] == ["a", "b", "c"]
    assert all(name.startswith("rankproof-read-ahead") for _, name in taken)


def test_a_reading_error_comes_when_its_item_is_asked_for():
    def items():
        yield 1
        raise ValueError("the second file is bad")

    given = read_ahead(items())
    assert next(given) == 1
    with pytest.raises(ValueError, match="second file"):
        next(given)


def test_a_caller_that_stops_early_leaves_the_rest_unread():
    taken = []

    def items():
        for item in range(5):
            taken.append(item)
            yield item

    for item in read_ahead(items()):
        break
    assert taken[:1] == [0] and len(taken) <= 2   # the item read ahead, at most


@pytest.fixture
def log(tmp_path):
    rng = np.random.default_rng(35)
    base = rng.integers(0, 40, 200)[:, None]
    # Distinct items per user: base + steps of 4 (+ 0..3), modulo the 40 items.
    liked = (base + np.arange(3) * 4 + rng.integers(0, 4, (200, 3))) % 40
    pq.write_table(pa.table({"user": np.repeat(np.arange(200), 3), "item": liked.ravel(),
                             "rating": rng.integers(1, 4, liked.size)}), tmp_path / "truth.parquet")
    for name in "abc":
        items = (base + np.arange(8) * 4 + rng.integers(0, 4, (200, 8))) % 40
        pq.write_table(pa.table({"user": np.repeat(np.arange(200), 8), "item": items.ravel(),
                                 "score": rng.random(items.size)}), tmp_path / f"{name}.parquet")
    return tmp_path


def test_compare_on_integer_users_gives_the_apis_numbers(log, capsys):
    columns = "query=user,doc=item,grade=rating,score=score"
    paths = [log / f"{name}.parquet" for name in "abc"]
    assert main(["compare", str(log / "truth.parquet"), *map(str, paths), "--columns", columns, "-m", "ndcg@10",
                 "--resamples", "200", "--format", "json", "--quiet"]) == 0
    got = json.loads(capsys.readouterr().out)
    qrels = Qrels.from_table(pq.read_table(log / "truth.parquet"), query="user", doc="item", grade="rating")
    runs = {name: Run.from_table(pq.read_table(path), query="user", doc="item", score="score", name=name)
            for name, path in zip("abc", paths)}
    want = compare(qrels, runs, ["ndcg@10"], n_resamples=200, seed=0)
    rows = {(row["run_a"], row["run_b"]): row for row in got["rows"]}
    for row in want.rows:
        shown = rows[(row.run_a, row.run_b)]
        assert shown["mean_a"] == row.mean_a and shown["mean_b"] == row.mean_b
        assert shown["p_value"] == row.p_value and shown["ci_low"] == row.ci_low
