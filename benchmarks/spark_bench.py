"""Spark benchmark: rankproof on Spark (local[1], local[2]) against the local engine and
Spark's own RankingEvaluator, on the long log of frame_bench.py (ndcg@10).

The log (tools/frame_data.py, seeded, written once into benchmarks/data/,
ignored by git): N users x 20 predictions with float64 scores, 5 truth items
per user with ratings 1-5, int64 ids, two Parquet files. Every tool is its
own process (tools/spark_tools.py) that reads both files and computes
ndcg@10 per user: the whole process a user waits for, JVM start included.
rankproof computes graded ndcg@10 (linear gain of the rating) and the binary
one under the `spark` preset; RankingEvaluator only the binary one (it has no
relevance column). Means are compared (1e-12) before the times are printed.

Usage: python benchmarks/spark_bench.py [--users 1000000] [--repeat 1] [--partitions 16]
       [--tools local,spark1,spark2,evaluator] [--json PATH]
The tools' runs are interleaved (one run of each, then again), so that a load
that changes during the benchmark weighs on every tool alike. --json PATH also
writes the results (benchmarks/results.py; the ratio of rankproof on Spark is
to RankingEvaluator, both local[2]). Not a test, and not part of
`make bench-quick`: it starts a JVM per Spark tool.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tools"))

from frame_data import PREDICTIONS, TRUTH, ensure  # noqa: E402

sys.path.insert(0, str(HERE))
from results import row as result_row, write_results  # noqa: E402

GRADED = "ndcg@10"
BINARY = "ndcg(gain=map:1=1/2=1/3=1/4=1/5=1)@10"
LABELS = {"local": "rankproof local engine", "spark1": "rankproof Spark local[1]",
          "spark2": "rankproof Spark local[2]", "evaluator": "Spark RankingEvaluator"}


def _timed(command: list[str]) -> tuple[float, float, dict]:
    """Wall seconds, peak RSS (MB, of the Python process: GNU time's %M) and the printed means."""
    start = time.perf_counter()
    process = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True)
    elapsed = time.perf_counter() - start
    lines = process.stderr.decode(errors="replace").strip().splitlines()
    if process.returncode != 0:
        raise RuntimeError(f"{command[:4]} failed ({process.returncode}): {' '.join(lines)[-1500:]}")
    means = json.loads(process.stdout.decode().strip().splitlines()[-1])
    return elapsed, int(lines[-1].split()[1]) / 1024, means


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--tools", default="local,spark1,spark2,evaluator")
    parser.add_argument("--json", metavar="PATH", help="also write the results there (benchmarks/results.py)")
    args = parser.parse_args()

    truth, predictions = ensure(str(HERE / "data"), args.users)
    rows_in = args.users * (PREDICTIONS + TRUTH)
    tools = args.tools.split(",")
    measured: dict[str, list] = {tool: [] for tool in tools}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for tool in tools:  # interleaved: A, B, A, B, ...
                out = Path(tmp) / f"{tool}.out"
                command = [sys.executable, str(HERE / "tools" / "spark_tools.py"), tool, truth, predictions,
                           str(out), str(args.partitions)]
                measured[tool].append(_timed(command))
                subprocess.run(["rm", "-rf", str(out)], check=True)
    rows = [{"tool": tool, "seconds": statistics.median(r[0] for r in runs), "runs": [round(r[0], 2) for r in runs],
             "peak_mb": max(r[1] for r in runs), "means": runs[-1][2]} for tool, runs in measured.items()]

    reference = next((row["means"] for row in rows if row["tool"] == "local"), rows[0]["means"])
    print(f"long log: {args.users:,} users x {PREDICTIONS} predictions + {TRUTH} truth items "
          f"({rows_in:,} rows in two Parquet files); ndcg@10; {args.partitions} partitions; "
          f"median of {args.repeat} run(s)")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'tool':<28}{'seconds':>9}{'us/row':>8}{'peak MB':>9}  {'graded ndcg@10':>15}  {'binary ndcg@10':>15}  agree")
    ok = True
    for row in rows:
        means = row["means"]
        agree = all(abs(means[m] - reference[m]) <= 1e-12 for m in means if m in reference)
        ok &= agree
        graded = f"{means[GRADED]:.6f}" if GRADED in means else "-"
        print(f"{LABELS[row['tool']]:<28}{row['seconds']:>9.1f}{row['seconds'] / rows_in * 1e6:>8.2f}"
              f"{row['peak_mb']:>9.0f}  {graded:>15}  {means[BINARY]:>15.6f}  {'yes' if agree else 'NO'}")
    print("peak MB is the Python driver process's (the JVM and its Python workers are other processes)")
    seconds = {row["tool"]: row["seconds"] for row in rows}
    if "spark2" in seconds and "evaluator" in seconds:
        print(f"rankproof Spark local[2] against RankingEvaluator local[2]: "
              f"{seconds['evaluator'] / seconds['spark2']:.2f}x faster (whole processes, JVM start included)")
    if args.json:
        _write_json(args, rows, rows_in)
    return 0 if ok else 1


def _write_json(args, rows: list[dict], rows_in: int) -> None:
    seconds = {entry["tool"]: entry["seconds"] for entry in rows}
    workload = f"{args.users:,} users x {PREDICTIONS} + {TRUTH} truth items, ndcg@10, {args.partitions} partitions"
    load = f"; load average {os.getloadavg()[0]:.1f} at the end (other jobs on the machine)"
    notes = {"evaluator": "binary ndcg@10 only (no relevance column); per-user arrays built in Spark" + load,
             "local": "one process, no Spark" + load}
    out = []
    for entry in rows:
        ratio = seconds["evaluator"] / entry["seconds"] if entry["tool"].startswith("spark") and "evaluator" in seconds \
            else None
        out.append(result_row(workload, LABELS[entry["tool"]], entry["seconds"], runs=entry["runs"], size=rows_in,
                       size_unit="rows", peak_mb=round(entry["peak_mb"], 1), ratio=round(ratio, 3) if ratio else None,
                       ratio_to=LABELS["evaluator"] if ratio else None,
                       note=notes.get(entry["tool"], "graded and binary ndcg@10 in one evaluation; whole process, "
                                                     "JVM start included; peak is the driver's" + load)))
    write_results(args.json, benchmark="spark_bench", title="Spark: rankproof against RankingEvaluator", rows=out)


if __name__ == "__main__":
    sys.exit(main())
