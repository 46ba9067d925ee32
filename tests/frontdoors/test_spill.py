"""Per-query values on disk under a budget too small for them (rankproof.frontdoors.spill).

The means are the exact sums over the counts, rounded once (checked against
Fractions of the in-memory evaluation's own per-query values); the counts,
the queries and every per-query value are the in-memory evaluation's; the
arrays are memory-mapped; the folder goes with the Results; the command line
prints the means at a budget it refuses for --per-query.
"""

from __future__ import annotations

import csv
import gc
import io
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from rankproof import Protocol, evaluate_frame  # noqa: E402
from rankproof.frontdoors.spill import ExactSum, SpilledResults  # noqa: E402

from test_budget import SRC, _log, _write_csv  # noqa: E402

MEASURES = ["ndcg@10", "r@10", "ap@10", "rr", "num_ret"]


def _exact(values, weights=None) -> float:
    """The correctly rounded mean of the values that are not NaN (weighted: sum(w * v) / sum(w))."""
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    if weights is None:
        return float(sum(map(Fraction, values[keep].tolist()), Fraction(0)) / int(keep.sum()))
    products = (weights[keep] * values[keep]).tolist()   # rounded products, as numpy's dot takes them
    return float(sum(map(Fraction, products), Fraction(0)) / sum(map(Fraction, weights[keep].tolist()), Fraction(0)))


def _parquet(folder, users: int, shuffle: bool):
    truth, predictions = _log(users, per_user=4, shuffle=shuffle)
    paths = [str(folder / "truth.parquet"), str(folder / "predictions.parquet")]
    pq.write_table(truth, paths[0])
    pq.write_table(predictions, paths[1])
    return paths


@pytest.fixture(autouse=True)
def _tiny_parts(monkeypatch, tmp_path):
    # Tiny budgets cut tiny logs into parts; the folders go under tmp_path.
    monkeypatch.setenv("RANKPROOF_MIN_PART_ROWS", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def test_an_exact_sum_is_exact_in_any_order_and_pieces():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.standard_normal(2000) * 10.0 ** rng.integers(-300, 300, 2000),
                             [5e-324, -5e-324, 1e308, 1e308, -1e308, 0.1, 0.2, 0.3]])
    expected = sum(map(Fraction, values.tolist()), Fraction(0))
    total = ExactSum()
    for piece in np.array_split(rng.permutation(values), 7):
        total.add(piece)
    assert total.fraction() == expected
    assert total.mean(values.size) == float(expected / values.size)
    assert total.value() == float(expected)   # 1e308 + 1e308 would overflow a float sum
    special = ExactSum()
    special.add(np.array([1.0, np.inf]))
    assert special.value() == np.inf
    special.add(np.array([-np.inf]))
    assert np.isnan(special.value())


@pytest.mark.parametrize("policy", ["macro", "micro", "weighted"])
def test_spilled_values_give_the_exact_means_and_the_in_memory_values(tmp_path, policy):
    paths = _parquet(tmp_path, 3000, shuffle=False)
    measures = ["ndcg@10", "r@10", "p@10"] if policy == "micro" else MEASURES
    weights = {u: 1.0 + (u % 7) / 3 for u in range(3000)} if policy == "weighted" else None
    protocol = Protocol(aggregation=policy)
    reference = evaluate_frame(*paths, measures, protocol, weights=weights)
    # 3,000 users' values need 2 * (110 + 5 * 30) * 3000 = 1.56 MB: more than half of 300 KB.
    found = evaluate_frame(*paths, measures, protocol, weights=weights, memory_budget="300KB")
    assert isinstance(found, SpilledResults) and isinstance(found.table.queries, np.memmap)
    w = np.array([weights[u] for u in reference.queries]) if weights else None
    for m in measures:
        if policy == "micro":
            result = reference.result(m)
            keep = result.included
            expected = float(sum(map(Fraction, result.numerator[keep].tolist()), Fraction(0))
                             / sum(map(Fraction, result.denominator[keep].tolist()), Fraction(0)))
        else:
            expected = _exact(reference.values(m), w)
        assert found.mean(m) == expected
        assert abs(found.mean(m) - reference.mean(m)) <= 1e-15 * abs(expected)
        assert np.array_equal(found.values(m), reference.values(m), equal_nan=True)
    assert found.queries == reference.queries   # a sorted log: the in-memory order
    assert found.counts == reference.counts
    folder = found.folder
    assert os.path.isdir(folder)
    del found
    gc.collect()
    assert not os.path.exists(folder)


def test_an_unsorted_log_starts_over_partitioned_and_spills(tmp_path):
    paths = _parquet(tmp_path, 2000, shuffle=True)
    reference = evaluate_frame(*paths, MEASURES)
    found = evaluate_frame(*paths, MEASURES, memory_budget="200KB")
    assert isinstance(found, SpilledResults)
    assert sorted(found.queries) == reference.queries   # in the partition's order
    for m in MEASURES:
        assert found.mean(m) == _exact(reference.values(m))
        assert found.per_query(m) == reference.per_query(m)
    # The sorted attempt's folder is gone; the results' own is the only one left.
    assert [n for n in os.listdir(tmp_path) if n.startswith("rankproof-log-")] == [os.path.basename(found.folder)]


@pytest.mark.slow  # three commands: seconds
def test_the_cli_prints_the_means_at_a_budget_it_refuses_for_per_query(tmp_path):
    truth, predictions = _log(10_000, per_user=2)
    paths = _write_csv(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                       predictions.rename_columns(["query", "doc", "score"]))
    command = [sys.executable, "-m", "rankproof.cli", "evaluate", *paths, "-m", "r@10", "-m", "ndcg@10", "--quiet"]
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    reference = subprocess.run([*command, "--format", "json"], capture_output=True, text=True, env=env)
    # 10,000 users' values (3.4 MB) and the CSV read-ahead (4.3 MB) do not fit 6 MB: --per-query,
    # which holds them, is refused; without it they go to disk.
    refused = subprocess.run([*command, "--per-query", "--memory-budget", "6MB"], capture_output=True, text=True,
                             env=env)
    assert refused.returncode == 2 and "too small" in refused.stderr and "leave out --per-query" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    kept = subprocess.run([*command, "--format", "csv", "--memory-budget", "6MB"], capture_output=True, text=True,
                          env=env)
    assert kept.returncode == 0, kept.stderr
    means = {row["measure"]: float(row["value"]) for row in csv.DictReader(io.StringIO(kept.stdout))}
    per_query = next(iter(json.loads(reference.stdout)["runs"].values()))["per_query"]
    for m in ("r@10", "ndcg@10"):
        assert means[m] == _exact([values[m] for values in per_query.values()])
    assert os.listdir(tmp_path / "tmp") == []
