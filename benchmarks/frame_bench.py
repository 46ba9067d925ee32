"""Long-log benchmark: rankproof's evaluate_frame against pandas on the same Parquet files.

The log (tools/frame_data.py, seeded): N users x 20 predictions with float64
scores, 5 truth items per user with ratings 1-5, int64 ids, written once into
benchmarks/data/ (ignored by git). Every tool is its own process that reads
both Parquet files, computes ndcg@10, recall@10 and ap@10 per user and writes
them to Parquet: the whole process a user waits for. Values are compared
with rankproof's (1e-12) before any time is printed. For each tool: the
median wall time of --repeat runs, the peak RSS of the process (GNU time),
and the ratio to rankproof.

Tools:
  rankproof            tools/rankproof_frame.py (evaluate_frame on the two paths)
  pandas vectorised    tools/pandas_groupby.py: sort, cumcount, merge, groupby sums
  pandas apply         tools/pandas_groupby.py apply: groupby("user").apply(one user's function);
                       minutes at 1M users, so it runs --apply-repeat times (default 1)
                       and only up to --apply-max-users users (default 1M)

Usage: python benchmarks/frame_bench.py [--users 1000000] [--repeat 3] [--no-apply] [--tuned-malloc] [--json PATH]
--json PATH also writes the results there (benchmarks/results.py): every run, the peak, the input's in-memory
(Arrow) size and each peer's time over rankproof's.
Not part of `make bench-quick`.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tools"))
sys.path.insert(0, str(HERE))

from frame_data import ensure  # noqa: E402

MEASURES = ["ndcg@10", "r@10", "ap@10"]
TOLERANCE = 1e-12


# glibc hands large blocks (every array of millions of rows) back to the
# kernel when freed, so the next one page-faults again: on this VM that is a
# third of rankproof's time. These settings keep freed memory in the process.
# --tuned-malloc applies them to every tool alike.
TUNED_MALLOC = {
    "MALLOC_MMAP_THRESHOLD_": str(2**32),
    "MALLOC_TRIM_THRESHOLD_": str(2**34),
    "MALLOC_TOP_PAD_": str(2**30),
}


def _arrow_mb(*paths: str) -> float:
    """The in-memory (Arrow) size of Parquet files, MB: rows times a row's bytes in the first row group."""
    import pyarrow.parquet as pq

    total = 0.0
    for path in paths:
        handle = pq.ParquetFile(path)
        group = handle.read_row_group(0)
        total += handle.metadata.num_rows * group.nbytes / max(1, group.num_rows)
    return total / 2**20


def _timed(command: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process (GNU time's %e and %M)."""
    start = time.perf_counter()
    process = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    lines = process.stderr.decode(errors="replace").strip().splitlines()
    if process.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed ({process.returncode}): {' '.join(lines)[-800:]}")
    return elapsed, int(lines[-1].split()[1]) / 1024


def _values(path: Path) -> dict[str, np.ndarray]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    users = np.asarray(table.column("user").to_pylist(), dtype=str)
    order = np.argsort(users)
    out = {"user": users[order]}
    for m in MEASURES:
        out[m] = table.column(m).to_numpy()[order]
    return out


def _agreement(values: dict, reference: dict) -> str:
    if not np.array_equal(values["user"], reference["user"]):
        return "NO (different users)"
    worst = max(float(np.max(np.abs(values[m] - reference[m]), initial=0.0)) for m in MEASURES)
    return f"yes (max diff {worst:.1e})" if worst <= TOLERANCE else f"NO (max diff {worst:.1e})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-apply", action="store_true", help="skip the pandas apply baseline")
    parser.add_argument("--apply-repeat", type=int, default=1)
    parser.add_argument("--apply-max-users", type=int, default=1_000_000)
    parser.add_argument("--tuned-malloc", action="store_true",
                        help="run every tool with glibc malloc settings that keep freed memory (see TUNED_MALLOC)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON (benchmarks/results.py)")
    args = parser.parse_args()
    env = {**os.environ, **TUNED_MALLOC} if args.tuned_malloc else None

    truth, predictions = ensure(str(HERE / "data"), args.users)
    python = sys.executable
    tools = [
        ("rankproof", [python, str(HERE / "tools" / "rankproof_frame.py")], args.repeat),
        ("pandas vectorised", [python, str(HERE / "tools" / "pandas_groupby.py")], args.repeat),
    ]
    if not args.no_apply and args.users <= args.apply_max_users:
        tools.append(("pandas apply", [python, str(HERE / "tools" / "pandas_groupby.py")], args.apply_repeat))

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, command, repeat in tools:
            out = Path(tmp) / f"{label.replace(' ', '_')}.parquet"
            extra = ["apply"] if label == "pandas apply" else []
            runs = [_timed([*command, truth, predictions, str(out), *extra], env) for _ in range(repeat)]
            rows.append({"tool": label, "seconds": statistics.median(r[0] for r in runs),
                         "peak_mb": max(r[1] for r in runs), "runs": repeat, "values": _values(out),
                         "every": [r[0] for r in runs]})

    reference = rows[0]["values"]
    for row in rows:
        row["agree"] = _agreement(row["values"], reference)
    print(f"long log: {args.users:,} users x 20 predictions, 5 truth items each; "
          f"{', '.join(MEASURES)}; median of the runs shown"
          + ("; tuned malloc (" + " ".join(f"{k}={v}" for k, v in TUNED_MALLOC.items()) + ")"
             if args.tuned_malloc else ""))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'tool':<20}{'runs':>5}{'seconds':>10}{'peak MB':>10}{'x rankproof':>13}  values agree")
    base = rows[0]["seconds"]
    for row in rows:
        print(f"{row['tool']:<20}{row['runs']:>5}{row['seconds']:>10.2f}{row['peak_mb']:>10.0f}"
              f"{row['seconds'] / base:>13.2f}  {row['agree']}")
    input_mb = _arrow_mb(truth, predictions)
    print(f"input in memory (Arrow): {input_mb:.0f} MB; rankproof's peak is {rows[0]['peak_mb'] / input_mb:.1f}x it")
    if args.json:
        _write_json(args, rows, input_mb)
    return 0 if all(row["agree"].startswith("yes") for row in rows) else 1


def _write_json(args, rows: list[dict], input_mb: float) -> None:
    from results import row, write_results

    base = rows[0]["seconds"]
    workload = f"{args.users:,} users x 20"
    out = []
    for found in rows:
        peer = found["tool"] != "rankproof"
        note = f"peak {found['peak_mb'] / input_mb:.1f}x the input" + ("; tuned malloc" if args.tuned_malloc else "")
        if not found["agree"].startswith("yes"):
            note += f"; values differ: {found['agree']}"
        out.append(row(workload, found["tool"], round(found["seconds"], 3), size=args.users * 20, size_unit="rows",
                       runs=[round(r, 3) for r in found["every"]], peak_mb=round(found["peak_mb"], 1),
                       input_mb=round(input_mb, 1), ratio=round(found["seconds"] / base, 3) if peer else None,
                       ratio_to=found["tool"] if peer else None, note=note))
    write_results(args.json, benchmark="frame_bench", title="Long recommender log", rows=out)


if __name__ == "__main__":
    sys.exit(main())
