"""Time ``rankproof report``, whole process: Cranfield, and a recommender log of many users.

Workloads:

- ``cranfield``: the command of ``make report-demo``: qrels and three Lucene
  runs (bm25, tfidf, lmdirichlet; 225 queries, 50 docs each), bm25 as
  baseline, the default measures (ndcg@10 ap rr p@10), 10,000 resamples.
  Target: under 3 s.
- ``users``: ``rankproof report truth.parquet a.parquet b.parquet --columns
  query=user,doc=item,grade=rating -m ndcg@10`` on synthetic Parquet logs
  (``--users``, default 100,000; 20 predictions and 5 truth items per user,
  ``--runs`` runs). Target at 100k users, 2 runs: under 8 s.
- ``million``: 1M users x 3 runs with ndcg@10 r@10 coverage@10 gini@10
  novelty@10, a training log (side data) and user groups. Target: under
  60 s, peak under 4 GB, page under 5 MB.

The clock runs from starting the process to its exit, as a user waits for
it; the peak memory is the process's maximum resident set (``getrusage`` of
the child). Each figure is the median of ``--repeat`` runs; the machine the
figures in the notes come from was shared (load printed with them). The data
are written once, seeded, into ``benchmarks/data/`` (ignored by git). Usage::

    .venv/bin/python benchmarks/report_bench.py cranfield [--repeat 3]
    .venv/bin/python benchmarks/report_bench.py users --users 100000 --runs 2
    .venv/bin/python benchmarks/report_bench.py million
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CRANFIELD = ROOT / "src" / "rankproof" / "_data" / "cranfield"
DATA = ROOT / "benchmarks" / "data"
ITEMS = 50_000       # the catalogue
PREDICTIONS = 20     # items predicted per user
TRUTH = 5            # held-out items per user
POOL = 60            # distinct items a user's truth and predictions come from


def recsys_log(users: int, runs: int, seed: int = 20261206) -> dict[str, Path]:
    """Truth, runs, a training log and user groups as Parquet files (written once), by path role."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = DATA / f"report-{users}"
    paths = {"truth": folder / "truth.parquet", "train": folder / "train.parquet",
             "groups": folder / "groups.parquet"}
    paths.update({f"run{i}": folder / f"preds_{chr(97 + i)}.parquet" for i in range(runs)})
    if all(p.exists() for p in paths.values()):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    popularity = rng.zipf(1.3, ITEMS).astype(np.float64)
    popularity /= popularity.sum()
    # Per user a pool of distinct items (a popular start, then a stride): the truth is its first
    # TRUTH, and each run predicts PREDICTIONS of its first POOL - 10 i (later runs hit more).
    start = rng.choice(ITEMS, size=users, p=popularity)
    pool = (start[:, None] + 7919 * np.arange(POOL)[None, :]) % ITEMS
    user = np.repeat(np.arange(users, dtype=np.int64), TRUTH)
    pq.write_table(pa.table({"user": user, "item": pool[:, :TRUTH].ravel(),
                             "rating": rng.integers(1, 6, user.size)}), paths["truth"])
    # Ten popular items per user, and every item of the catalogue once (novelty needs each recommended
    # item's training count).
    train_user = np.concatenate([np.repeat(np.arange(users, dtype=np.int64), 10), rng.integers(0, users, ITEMS)])
    train_item = np.concatenate([rng.choice(ITEMS, size=users * 10, p=popularity), np.arange(ITEMS)])
    pq.write_table(pa.table({"user": train_user, "item": train_item}), paths["train"])
    pq.write_table(pa.table({"user": np.arange(users, dtype=np.int64),
                             "group": np.array(["new", "casual", "regular", "power"])[rng.integers(0, 4, users)]}),
                   paths["groups"])
    for i in range(runs):
        items = np.empty((users, PREDICTIONS), dtype=np.int64)
        for lo in range(0, users, 100_000):
            hi = min(users, lo + 100_000)
            pick = np.argsort(rng.random((hi - lo, POOL - 10 * i)), axis=1)[:, :PREDICTIONS]
            items[lo:hi] = np.take_along_axis(pool[lo:hi], pick, axis=1)
        score = np.sort(rng.random((users, PREDICTIONS)), axis=1)[:, ::-1]
        pq.write_table(pa.table({"user": np.repeat(np.arange(users, dtype=np.int64), PREDICTIONS),
                                 "item": items.ravel(), "score": score.ravel()}), paths[f"run{i}"])
    return paths


def whole_process(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one process running `command`."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(command)}")
    return seconds, usage.ru_maxrss / 1024


def cranfield_command(output: Path) -> list[str]:
    return [sys.executable, "-m", "rankproof.cli", "report", "qrels.txt", "bm25.run", "tfidf.run",
            "lmdirichlet.run", "--label", "bm25=bm25.run", "--label", "tfidf=tfidf.run",
            "--label", "lmdirichlet=lmdirichlet.run", "--baseline", "bm25", "-o", str(output)]


def users_command(paths: dict[str, Path], output: Path, side: bool) -> list[str]:
    runs = [str(p) for role, p in paths.items() if role.startswith("run")]
    command = [sys.executable, "-m", "rankproof.cli", "report", str(paths["truth"]), *runs,
               "--columns", "query=user,doc=item,grade=rating", "-m", "ndcg@10", "-o", str(output)]
    if side:
        command += ["-m", "r@10", "-m", "coverage@10", "-m", "gini@10", "-m", "novelty@10",
                    "--train", str(paths["train"]), "--groups", str(paths["groups"])]
    return command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=("cranfield", "users", "million"), nargs="?", default="cranfield")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    users, runs, side = args.users, args.runs, False
    if args.workload == "million":
        users, runs, side = 1_000_000, 3, True
    times, peaks, sizes = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "report.html"
        if args.workload == "cranfield":
            command, cwd = cranfield_command(output), CRANFIELD
            label = "Cranfield, 3 runs"
        else:
            command, cwd = users_command(recsys_log(users, runs), output, side), None
            label = f"{users:,} users x {runs} runs" + (", side measures and groups" if side else ", ndcg@10")
        for _ in range(args.repeat):
            seconds, peak = whole_process(command, cwd)
            times.append(seconds)
            peaks.append(peak)
            sizes.append(output.stat().st_size / 1e6)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"rankproof report, {label}, whole process: median {statistics.median(times):.2f} s of {args.repeat} "
          f"({', '.join(f'{t:.2f}' for t in times)}), peak {statistics.median(peaks):,.0f} MB, page "
          f"{statistics.median(sizes):.2f} MB; load average {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
