"""Out-of-core benchmark: a recommender log larger than the memory it may use, evaluated part by part.

The log is frame_bench's (tools/frame_data.py: 20 predictions with float64
scores and 5 truth items rated 1-5 per user, int64 ids), generated in
slices of users into benchmarks/data/ (ignored by git) once: 5M users by
default, so 100M prediction rows and 25M truth rows, sorted by user as
recommender logs are written. Each run is its own process:
``evaluate_frame(truth, predictions, [ndcg@10, r@10, ap@10],
memory_budget=BUDGET)``, the whole process timed, its peak RSS measured (GNU
time). Prints rows per second (prediction rows) and the peak; --json PATH
writes the results (benchmarks/results.py).

``--unsorted`` evaluates the same log with sorted=False: the hash partition
by user on disk, the path a log in any order takes. --json keeps the rows of
the other workload already in the file.

Usage: python benchmarks/outofcore_bench.py [--users 5000000] [--budget 2GB] [--repeat 1] [--unsorted]
       [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tools"))
sys.path.insert(0, str(HERE))

MEASURES = ["ndcg@10", "r@10", "ap@10"]
SLICE = 250_000  # users generated at once


def ensure(directory: Path, users: int) -> tuple[Path, Path]:
    """Write the log once, a slice of users at a time (bounded memory); return the two paths."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from frame_data import generate

    truth_path = directory / f"outofcore_{users}_truth.parquet"
    predictions_path = directory / f"outofcore_{users}_predictions.parquet"
    if truth_path.exists() and predictions_path.exists():
        return truth_path, predictions_path
    directory.mkdir(parents=True, exist_ok=True)
    writers: dict = {}
    try:
        for index, start in enumerate(range(0, users, SLICE)):
            truth, predictions = generate(min(SLICE, users - start), seed=1000 + index)
            for name, table in (("truth", truth), ("predictions", predictions)):
                table = table.set_column(0, "user", pc.add(table.column("user"), start))
                if name not in writers:
                    writers[name] = pq.ParquetWriter(str(directory / f"{name}.partial"), table.schema)
                writers[name].write_table(table, row_group_size=1 << 20)
    finally:
        for writer in writers.values():
            writer.close()
    os.replace(directory / "truth.partial", truth_path)
    os.replace(directory / "predictions.partial", predictions_path)
    return truth_path, predictions_path


def child(truth: str, predictions: str, budget: str, unsorted: bool) -> None:
    from rankproof import evaluate_frame

    results = evaluate_frame(truth, predictions, MEASURES, memory_budget=budget,
                             sorted=False if unsorted else None)
    print(" ".join(f"{m}={v!r}" for m, v in results.means().items()))
    print(f"users={len(results.queries)}")


def _timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of one process (GNU time's %M)."""
    start = time.perf_counter()
    process = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True)
    elapsed = time.perf_counter() - start
    lines = process.stderr.decode(errors="replace").strip().splitlines()
    if process.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed ({process.returncode}): {' '.join(lines)[-800:]}")
    return elapsed, int(lines[-1].split()[1]) / 1024, process.stdout.decode().strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=5_000_000)
    parser.add_argument("--budget", default="2GB")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--unsorted", action="store_true", help="partition by user on disk (sorted=False)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON (benchmarks/results.py)")
    parser.add_argument("--child", nargs=2, metavar=("TRUTH", "PREDICTIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.budget, args.unsorted)
        return 0

    truth, predictions = ensure(HERE / "data", args.users)
    rows = args.users * 20
    command = [sys.executable, __file__, "--budget", args.budget, "--child", str(truth), str(predictions),
               *(["--unsorted"] if args.unsorted else [])]
    runs = [_timed(command) for _ in range(args.repeat)]
    seconds = statistics.median(r[0] for r in runs)
    peak = max(r[1] for r in runs)
    way = "unsorted: hash partition on disk" if args.unsorted else "sorted by user: streamed"
    print(f"out-of-core log: {args.users:,} users x 20 predictions ({rows:,} rows) + 5 truth items each; "
          f"{', '.join(MEASURES)}; {way}; memory budget {args.budget}; median of {len(runs)}")
    print(f"seconds {seconds:.1f}  rows/s {rows / seconds:,.0f}  peak MB {peak:.0f}  "
          f"(runs: {', '.join(f'{r[0]:.1f}' for r in runs)})")
    print(runs[0][2])
    if args.json:
        import json

        from results import row, write_results

        workload = f"{args.users:,} users x 20, {way}"
        kept = []  # the rows of the other workloads (sorted, unsorted) of an earlier run stay
        if os.path.exists(args.json):
            with open(args.json, encoding="utf-8") as handle:
                kept = [r for r in json.load(handle).get("rows", []) if r.get("workload") != workload]
        write_results(args.json, benchmark="outofcore_bench", title="Recommender log out of core",
                      rows=kept + [row(workload, "rankproof", seconds,
                                size=rows, size_unit="rows", runs=[r[0] for r in runs], peak_mb=round(peak, 1),
                                note=f"memory budget {args.budget}; {rows / seconds:,.0f} rows/s")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
