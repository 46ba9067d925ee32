"""Time ``rankproof monitor``: a current window against a reference window, 1M users each (issue 26: under 5 s).

Workload (seeded): two windows of N users (default 1,000,000), each user with
one liked item and 10 ranked predictions, the liked item at a geometric rank
or, in the current window, lost for 5% of users (an injected ~5% ndcg@10
drop). Both are evaluated with ndcg@10 and r@10 by ``evaluate_frame`` (not
timed) and saved as ``rankproof evaluate --format json`` would save them.

Timed (median of --repeat runs):

- ``monitor(current, reference)`` on the Results in memory: two measures,
  2000 bootstrap resamples per window and measure, Welch's t-test;
- ``rankproof monitor current.json reference.json`` as a whole process: reading
  both files, the same computation, the table and the exit code (3: the alert);
- the same on the Parquet layout (``rankproof evaluate --format parquet``):
  ``rankproof monitor current.parquet reference.parquet``.

Usage:

    PYTHONPATH=src .venv/bin/python benchmarks/monitor_bench.py [--users 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from timing import median_seconds

MEASURES = ["ndcg@10", "r@10"]


def window(users: int, seed: int, lost: float = 0.0, k: int = 10):
    """Truth and predictions of one window: item 0 is each user's liked item."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rank = np.where(rng.random(users) < lost, k + 1, rng.geometric(0.25, size=users))
    position = np.tile(np.arange(1, k + 1), users)
    item = np.where(position == np.repeat(rank, k), 0, position)
    predictions = pd.DataFrame({"user": np.repeat(np.arange(users), k), "item": item,
                                "score": (k - position).astype(np.float64)})
    truth = pd.DataFrame({"user": np.arange(users), "item": np.zeros(users, np.int64)})
    return truth, predictions


def main() -> None:
    from rankproof import evaluate_frame
    from rankproof.recsys.monitor import monitor
    from rankproof.report.columnar import to_parquet
    from rankproof.report.data import to_json

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    reference = evaluate_frame(*window(args.users, 1), MEASURES, rating=None)
    current = evaluate_frame(*window(args.users, 2, lost=0.05), MEASURES, rating=None)
    print(f"evaluated two windows of {args.users:,} users in {time.perf_counter() - start:.1f} s (not timed)")

    seconds, result = median_seconds(lambda: monitor(current, reference, max_drop="2%"), args.repeat)
    print(result)
    print(f"monitor(current, reference) in memory: {seconds:.2f} s (median of {args.repeat})")

    with tempfile.TemporaryDirectory() as folder:
        for suffix, write in (("json", lambda r: to_json([r]).encode("utf-8")), ("parquet", lambda r: to_parquet([r]))):
            paths = []
            for name, results in (("current", current), ("reference", reference)):
                paths.append(os.path.join(folder, f"{name}.{suffix}"))
                with open(paths[-1], "wb") as handle:
                    handle.write(write(results))
            command = [sys.executable, "-m", "rankproof.cli", "monitor", *paths, "--max-drop", "2%"]
            codes = []

            def whole() -> None:
                codes.append(subprocess.run(command, capture_output=True).returncode)

            seconds, _ = median_seconds(whole, args.repeat)
            print(f"rankproof monitor current.{suffix} reference.{suffix} (whole process, exit {codes[-1]}): "
                  f"{seconds:.2f} s (median of {args.repeat}; files of {os.path.getsize(paths[0]) / 1e6:.0f} MB each)")

if __name__ == "__main__":
    main()
