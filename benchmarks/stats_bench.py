"""Time the statistics commands on a million users: compare, systems, segments, monitor, balance.

Workload (seeded, written once under benchmarks/data/stats-<users>/, ignored
by git): USERS users x 20 scored predictions per run over 50,000 items, 5
liked items per user; RUNS runs whose scores favour the liked items a little
more from run to run (so the pairs differ), each evaluated once with
``rankproof evaluate ... -m ndcg@10 -m r@10 --format parquet -o`` (saved
results: the evaluation of one run takes ~5.5 s at 1M users and is not part
of the statistics); a users table for ``balance`` (bucket, age, country,
visits); a segment label per user (20 groups).

Timed, each the median of --repeat whole processes (wall and user+sys CPU):

- ``compare --results`` 3 runs x 2 measures (target < 10 s);
- ``systems --results`` 10 runs, Tukey HSD and MaxT (target < 30 s);
- segments: ``Results.by`` (20 groups, 95% intervals) on saved results, in
  one process (target < 10 s);
- ``monitor`` one window against another (target < 5 s);
- ``balance`` of the users table (target < 5 s).

The machine these numbers come from is shared (other jobs run beside it):
quote the medians and say so. Usage:

    .venv/bin/python benchmarks/stats_bench.py [--users 1000000] [--runs 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
ITEMS = 50_000
DEPTH = 20
LIKED = 5
MEASURES = ("ndcg@10", "r@10")


def _write_parquet(frame: dict, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.exists():
        pq.write_table(pa.table(frame), path.with_suffix(".tmp"))
        os.replace(path.with_suffix(".tmp"), path)


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "rankproof.cli", *argv]


def generate(users: int, runs: int, folder: Path) -> Path:
    """Write the truth, the runs, their saved results, the users table and the segments (once)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261206)
    user = np.repeat(np.arange(users, dtype=np.int64), LIKED)
    # Distinct ids by construction: liked items in [ITEMS, 2 ITEMS), predicted ones in [0, ITEMS).
    liked = ITEMS + (rng.integers(0, ITEMS, (users, 1)) + 9_973 * np.arange(LIKED)) % ITEMS
    _write_parquet({"user": user, "item": liked.ravel(), "rating": np.ones(len(user), dtype=np.int8)},
                   folder / "truth.parquet")
    for r in range(runs + 1):   # the last one is the monitor's reference window
        path = folder / f"run{r}.parquet"
        saved = folder / f"results{r}.parquet"
        if saved.exists():
            continue
        own = np.random.default_rng(r)
        items = (own.integers(0, ITEMS, (users, 1)) + 2_477 * np.arange(DEPTH)) % ITEMS
        # Some liked items among the predictions, more of them in later runs.
        hits = own.random((users, LIKED)) < 0.25 + 0.01 * r
        slots = own.integers(0, DEPTH // LIKED, (users, LIKED)) + DEPTH // LIKED * np.arange(LIKED)
        rows = np.nonzero(hits)
        items[rows[0], slots[rows]] = liked[rows]
        scores = own.random((users, DEPTH))
        _write_parquet({"user": np.repeat(np.arange(users, dtype=np.int64), DEPTH), "item": items.ravel(),
                        "score": scores.ravel()}, path)
        subprocess.run(_cli("evaluate", str(folder / "truth.parquet"), str(path), "--columns",
                            "query=user,doc=item,grade=rating,score=score", *(f"-m{m}" for m in MEASURES), "--format",
                            "parquet", "--label", f"run{r}={path}", "--quiet", "-o", str(saved)),
                       check=True, env=_environment())
        if r:
            path.unlink()   # run0 stays: the segments step evaluates it in process
    _write_parquet({"user": np.arange(users), "bucket": np.where(rng.random(users) < 0.5, "A", "B"),
                    "age": rng.integers(18, 80, users), "country": rng.choice(["fr", "de", "es", "it"], users),
                    "visits": rng.poisson(3.0, users)}, folder / "users.parquet")
    np.save(folder / "segments.npy", rng.integers(0, 20, users))
    return folder


def _environment() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


# Results.by needs Results (saved results hold no per-query parts): evaluate run0 in process, then
# time the segment table alone; both times are printed on stderr.
SEGMENTS = """
import sys, time
import numpy as np
import pandas as pd
from rankproof import evaluate_frame
folder = sys.argv[1]
start = time.perf_counter()
truth = pd.read_parquet(folder + "/truth.parquet")
predictions = pd.read_parquet(folder + "/run0.parquet")
results = evaluate_frame(truth, predictions, ["ndcg@10", "r@10"])
evaluated = time.perf_counter()
labels = np.load(folder + "/segments.npy")
segment = pd.Series(labels, index=np.arange(len(labels)))
table = results.by(segment)
print(f"evaluation {evaluated - start:.2f} s, segment table ({len(table)} rows) "
      f"{time.perf_counter() - evaluated:.2f} s", file=sys.stderr)
"""


def commands(folder: Path, runs: int) -> dict[str, tuple[list[str], str]]:
    """name -> (argv, target)."""
    results = [str(folder / f"results{r}.parquet") for r in range(runs + 1)]
    return {
        "compare 3 runs x 2 measures": (_cli("compare", "--results", *results[:3], "--quiet"), "< 10 s"),
        f"systems {runs} runs, Tukey HSD": (_cli("systems", "--results", *results[:runs], "-m", "ndcg@10"),
                                            "< 30 s"),
        f"systems {runs} runs, MaxT": (_cli("systems", "--results", *results[:runs], "-m", "ndcg@10",
                                            "--procedure", "maxt"), "< 30 s"),
        "segments, 20 groups, 95% intervals": ([sys.executable, "-c", SEGMENTS, str(folder)], "< 10 s"),
        "monitor": (_cli("monitor", results[1], results[runs]), "< 5 s"),
        "balance": (_cli("balance", str(folder / "users.parquet")), "< 5 s"),
    }


def timed(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, user+sys CPU seconds, exit code) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=_environment(), capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 3):
        print(done.stderr[-2000:], file=sys.stderr)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="time only the commands whose name contains this")
    args = parser.parse_args()
    folder = generate(args.users, args.runs, DATA / f"stats-{args.users}")
    print(f"{args.users:,} users, saved results of {args.runs} runs (ndcg@10, r@10); medians of {args.repeat} "
          "whole processes on a shared machine")
    print(f"{'command':<40}{'wall s':>9}{'cpu s':>9}{'target':>10}  exit")
    for name, (argv, target) in commands(folder, args.runs).items():
        if args.only and args.only not in name:
            continue
        times = [timed(argv) for _ in range(args.repeat)]
        wall = statistics.median(t[0] for t in times)
        cpu = statistics.median(t[1] for t in times)
        print(f"{name:<40}{wall:>9.2f}{cpu:>9.2f}{target:>10}  {times[-1][2]}", flush=True)


if __name__ == "__main__":
    main()
