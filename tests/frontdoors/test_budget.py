"""The memory budget is a promise (issue 36 #4): kept or refused, files bounded, no folder left behind.

rankproof.frontdoors.budget and .partition: a budget too small for a log is
refused naming the smallest budget, and that budget is then honoured; the
partition keeps at most FANOUT bucket files open whatever the number of
parts; the temporary folder is removed after success, and a stale one (its
process gone) by the next run, with a message; a child process evaluating an
unsorted CSV at 64MB peaks under the budget plus the stated
overhead (its own high-water mark); the answers are those of the in-memory evaluation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pacsv = pytest.importorskip("pyarrow.csv")

from rankproof import evaluate_frame  # noqa: E402
from rankproof.errors import InputError  # noqa: E402
from rankproof.frontdoors import partition  # noqa: E402
from rankproof.frontdoors.budget import (EXPANSION, OVERHEAD, PER_USER, estimated_users, part_rows_for,  # noqa: E402
                                         per_user_bytes)
from rankproof.frontdoors.outofcore import Log, evaluate_log, parse_budget  # noqa: E402

MEASURES = ["ndcg@10", "r@10", "ap@10"]
SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def _log(users: int, per_user: int = 20, seed: int = 5, shuffle: bool = True):
    """users x per_user predictions and 5 truth items each, int ids, rows shuffled."""
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(users, dtype=np.int64), per_user)
    # Distinct items within a user: slot j of the predictions covers [10j, 10j + 10), slot k of the
    # truth [40k, 40k + 40), so some truth items are predicted.
    slot = np.tile(np.arange(per_user), users)
    predictions = pa.table({"user": user, "item": 1000 * user + 10 * slot + rng.integers(0, 10, size=user.size),
                            "score": rng.random(user.size)})
    tuser = np.repeat(np.arange(users, dtype=np.int64), 5)
    tslot = np.tile(np.arange(5), users)
    truth = pa.table({"user": tuser, "item": 1000 * tuser + 40 * tslot + rng.integers(0, 40, size=tuser.size),
                      "rating": rng.integers(1, 6, size=tuser.size)})
    if shuffle:
        predictions = predictions.take(rng.permutation(predictions.num_rows))
        truth = truth.take(rng.permutation(truth.num_rows))
    return truth, predictions


def _write_csv(folder, truth, predictions):
    paths = [str(folder / "truth.csv"), str(folder / "predictions.csv")]
    for table, path in zip((truth, predictions), paths):
        pacsv.write_csv(table, path)
    return paths


def test_part_rows_by_hand():
    # 64 MiB, 10,000 users' values (2 * 200 bytes each), rows of 50 bytes at 8 times their size:
    # (67,108,864 - 4,000,000) / 400 = 157,772.16 rows.
    assert (PER_USER, EXPANSION) == (200, 8)
    assert part_rows_for(64 * 2**20, 10_000, 50) == 157_772
    # 20 measures: 110 + 20 * 30 = 710 bytes a user; (67,108,864 - 14,200,000) / 400 = 132,272.16.
    assert per_user_bytes(20) == 710
    assert part_rows_for(64 * 2**20, 10_000, 50, measures=20) == 132_272
    # Spilled to disk, the values take nothing: 67,108,864 / 400 = 167,772.16.
    assert part_rows_for(64 * 2**20, 10_000, 50, measures=20, spilled=True) == 167_772


def test_a_budget_too_small_names_the_smallest_it_can_honour():
    with pytest.raises(InputError) as caught:
        part_rows_for(64 * 2**20, 1_000_000, 50)
    # 1M users' values: 400,000,000 bytes; a part of 4,096 rows: 1,638,400; together 383.03 MiB, so 384MB.
    assert "at least 384MB" in str(caught.value)
    assert part_rows_for(384 * 2**20, 1_000_000, 50) >= 4096


@pytest.mark.parametrize("grouped", [True, False])
def test_users_are_estimated_from_the_first_rows(grouped):
    # 50,000 users of 20 rows; the first 65,536 rows of the log, grouped by user or in random order.
    rng = np.random.default_rng(1)
    users = np.repeat(np.arange(50_000), 20)
    if not grouped:
        users = rng.permutation(users)
    found = estimated_users(users.size, pa.array(users[:65_536]))
    assert 0.9 * 50_000 < found < 1.1 * 50_000


def test_the_cli_refuses_a_budget_too_small_in_one_line_and_honours_the_one_it_names(tmp_path):
    truth, predictions = _log(60_000, per_user=2)
    paths = _write_csv(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                       predictions.rename_columns(["query", "doc", "score"]))
    # --per-query prints every user's values: they are held in memory, and 60,000 users' need 28 MB.
    command = [sys.executable, "-m", "rankproof.cli", "evaluate", *paths, "-m", "r@10", "--quiet", "--per-query"]
    env = {**os.environ, "PYTHONPATH": SRC}
    refused = subprocess.run([*command, "--memory-budget", "20MB"], capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.strip().splitlines()) == 1 and "too small" in refused.stderr
    smallest = refused.stderr.split("--memory-budget ")[-1].split(")")[0]
    kept = subprocess.run([*command, "--memory-budget", smallest], capture_output=True, text=True, env=env)
    assert kept.returncode == 0, kept.stderr


def test_the_partition_keeps_at_most_fanout_files_open(tmp_path, monkeypatch):
    truth, predictions = _log(3000, per_user=4)
    paths = _write_csv(tmp_path, truth, predictions)
    (tmp_path / "tmp").mkdir()
    most = [0]
    split = partition.bucket_of

    def counted(*args):
        # Called once per batch written: the bucket files open now are the folder's open descriptors.
        links = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
                 if os.path.exists(f"/proc/self/fd/{fd}")]
        most[0] = max(most[0], sum(link.startswith(str(tmp_path / "tmp")) for link in links))
        return split(*args)

    monkeypatch.setattr(partition, "bucket_of", counted)
    parts = []

    def part(t, p):
        parts.append(p.num_rows)
        return evaluate_frame(t, p, MEASURES)

    found = evaluate_log(Log.of(paths[0], ("user", "item", "rating"), "user"),
                         Log.of(paths[1], ("user", "item", "score"), "user"), part, sorted=False,
                         part_rows=40, batch_rows=500, temporary=str(tmp_path / "tmp"))
    # 12,000 rows in parts of about 40: 300 buckets, two levels of 16 files at most.
    assert len(parts) > 200 and max(parts) <= 4 * 40
    assert 0 < most[0] <= partition.FANOUT + 2  # + the two files a deeper level reads
    reference = evaluate_frame(*paths, MEASURES)
    assert found.means() == reference.means() and found.queries == reference.queries


def test_a_stale_folder_is_removed_with_a_message_a_live_one_kept(tmp_path, capsys):
    truth, predictions = _log(50, per_user=3)
    paths = _write_csv(tmp_path, truth, predictions)
    where = tmp_path / "tmp"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale, live = where / f"rankproof-log-{gone.pid}-abc", where / f"rankproof-log-{os.getppid()}-def"
    for folder in (stale, live):
        folder.mkdir(parents=True)
        (folder / "b-p-3.parquet").write_bytes(b"x" * 1000)
    evaluate_log(Log.of(paths[0], ("user", "item", "rating"), "user"),
                 Log.of(paths[1], ("user", "item", "score"), "user"),
                 lambda t, p: evaluate_frame(t, p, MEASURES), sorted=False, part_rows=30, temporary=str(where))
    assert sorted(os.listdir(where)) == [live.name]  # the stale one and the run's own folder are gone
    err = capsys.readouterr().err
    assert str(stale) in err and "killed" in err


# The child's own peak: VmHWM (Linux carries the parent's resident size at fork into the child's
# ru_maxrss, and pytest is large), getrusage's ru_maxrss where there is no /proc.
CHILD = """
import resource, sys
from rankproof.cli.app import main
code = main(sys.argv[1:])
try:
    peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(peak, code)
"""


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_peak_memory_stays_within_the_budget_and_the_overhead(tmp_path, fmt):
    # 20,000 users x 20 predictions in random order: partitioned on disk at 64MB.
    truth, predictions = _log(20_000)
    truth, predictions = truth.rename_columns(["query", "doc", "grade"]), predictions.rename_columns(
        ["query", "doc", "score"])
    if fmt == "csv":
        paths = _write_csv(tmp_path, truth, predictions)
    else:
        paths = [str(tmp_path / "truth.parquet"), str(tmp_path / "predictions.parquet")]
        pq.write_table(truth, paths[0])
        pq.write_table(predictions, paths[1])
    options = ["-m", "ndcg@10", "-m", "ap@10", "--quiet", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", CHILD, "evaluate", *paths, *options, "--memory-budget", "64MB"],
                         capture_output=True, text=True, env=env)
    peak, code = run.stdout.strip().splitlines()[-1].split()
    assert code == "0", run.stderr
    assert int(peak) <= 64 * 2**20 + OVERHEAD
    assert not [name for name in os.listdir(tmp_path) if name.startswith("rankproof-log-")]
    reference = subprocess.run([sys.executable, "-m", "rankproof.cli", "evaluate", *paths, *options],
                               capture_output=True, text=True, env=env)
    found = json.loads(run.stdout.strip().splitlines()[0])
    assert found["runs"] and found["runs"] == json.loads(reference.stdout)["runs"]  # every value, bit for bit


# Thirty measures: ndcg, p, r, ap, rr and hit at six cutoffs each.
MANY = [f"{name}@{k}" for name in ("ndcg", "p", "r", "ap", "rr", "hit") for k in (1, 3, 5, 10, 20, 50)][:30]


def _child(paths, options, budget, env):
    """The CLI in a child: (its exit code, its peak resident bytes, its stderr)."""
    run = subprocess.run([sys.executable, "-c", CHILD, "evaluate", *paths, *options, "--memory-budget", budget],
                         capture_output=True, text=True, env=env)
    peak, code = run.stdout.strip().splitlines()[-1].split()
    return int(code), int(peak), run.stderr


@pytest.mark.slow  # child processes evaluating 120,000 rows: seconds
def test_many_measures_are_counted_in_the_budget(tmp_path):
    # 60,000 users' values with 30 measures take 2 * (110 + 30 * 30) * 60,000 = 121 MB, held in
    # memory for the JSON output: 64MB is refused (a model of 3 measures took it and peaked at
    # 362 MB, over 64 + 250), and the budget it names is kept.
    truth, predictions = _log(60_000, per_user=2)
    paths = _write_csv(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                       predictions.rename_columns(["query", "doc", "score"]))
    options = [arg for m in MANY for arg in ("-m", m)] + ["--quiet", "--format", "json", "-o",
                                                          str(tmp_path / "out.json")]
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path)}
    code, _, err = _child(paths, options, "64MB", env)
    assert code == 2 and "too small" in err
    smallest = err.split("--memory-budget ")[-1].split(")")[0]
    code, peak, err = _child(paths, options, smallest, env)
    assert code == 0, err
    assert peak <= parse_budget(smallest) + OVERHEAD


@pytest.mark.slow  # a child process evaluating 400,000 rows: seconds
def test_many_measures_spilled_stay_within_the_budget(tmp_path):
    # 20,000 users' values with 30 measures (40 MB) are more than half of 64MB: the table's means
    # are taken from sums, the values written to disk.
    truth, predictions = _log(20_000)
    paths = _write_csv(tmp_path, truth.rename_columns(["query", "doc", "grade"]),
                       predictions.rename_columns(["query", "doc", "score"]))
    options = [arg for m in MANY for arg in ("-m", m)] + ["--quiet"]
    code, peak, err = _child(paths, options, "64MB", {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path)})
    assert code == 0, err
    assert peak <= 64 * 2**20 + OVERHEAD
    assert not [name for name in os.listdir(tmp_path) if name.startswith("rankproof-log-")]
