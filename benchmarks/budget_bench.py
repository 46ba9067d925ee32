"""Is the memory budget kept? Peak resident memory of out-of-core evaluations against budget + overhead.

Two logs (benchmarks/tools/frame_data.py: 20 predictions with float64 scores
and 5 truth items rated 1-5 per user, int64 ids), generated once into
benchmarks/data/ (ignored by git):

* **sorted**: ``--sorted-rows`` prediction rows (100M by default) as Parquet,
  sorted by user (outofcore_bench's file, written a slice of users at a time);
* **unsorted**: ``--unsorted-rows`` prediction rows (3M by default), rows
  shuffled, as CSV (or ``--unsorted-format tsv|jsonl|parquet``).

Each (log, budget) is one child process under ``prlimit --as=4000000000``
running ``evaluate_frame(truth, predictions, [ndcg@10, r@10, ap@10],
memory_budget=B)``; its peak resident memory is the child's own high-water mark
(VmHWM, getrusage's ru_maxrss where there is no /proc). The fixed overhead is measured the same way on a log of 100 users. With
``--in-memory`` the log is also evaluated in memory (where it fits) and the
means compared.

With ``--cli`` each child runs ``rankproof evaluate ... --format csv
--memory-budget B`` instead (the means read from its CSV output).

Usage: python benchmarks/budget_bench.py [--sorted-rows 100000000] [--unsorted-rows 3000000]
       [--budgets 64MB,256MB] [--in-memory] [--only sorted|unsorted] [--cli]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tools"))
sys.path.insert(0, str(HERE))

MEASURES = ["ndcg@10", "r@10", "ap@10"]
LIMIT = "4000000000"  # bytes of address space for each child (prlimit --as)


def unsorted_log(directory: Path, rows: int, fmt: str) -> tuple[Path, Path]:
    """The log of rows // 20 users with rows shuffled, written once as CSV, TSV, JSON Lines or Parquet."""
    import numpy as np
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from frame_data import generate

    users = max(1, rows // 20)
    paths = (directory / f"budget_{users}_truth.{fmt}", directory / f"budget_{users}_predictions.{fmt}")
    if all(p.exists() for p in paths):
        return paths
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    for table, path in zip(generate(users, seed=5), paths):
        table = table.take(rng.permutation(table.num_rows))
        partial = path.with_suffix(".partial")
        if fmt == "parquet":
            pq.write_table(table, partial)
        elif fmt == "jsonl":
            with open(partial, "w", encoding="utf-8") as stream:
                for start in range(0, table.num_rows, 100_000):
                    stream.writelines(json.dumps(row) + "\n" for row in table.slice(start, 100_000).to_pylist())
        else:
            pacsv.write_csv(table, partial, pacsv.WriteOptions(delimiter="," if fmt == "csv" else "\t"))
        os.replace(partial, path)
    return paths


def child(truth: str, predictions: str, budget: str | None, cli: bool = False) -> None:
    if cli:
        cli_child(truth, predictions, budget)
        return
    from rankproof import evaluate_frame

    results = evaluate_frame(truth, predictions, MEASURES, memory_budget=budget)
    # The count, not len(results.queries): spilled results would read every id back from disk.
    print(json.dumps({"means": {m: repr(v) for m, v in results.means().items()},
                      "users": results.counts["queries_evaluated"], "spilled": type(results).__name__ != "Results",
                      "peak": peak_rss()}))


def cli_child(truth: str, predictions: str, budget: str | None) -> None:
    """`rankproof evaluate` on the log, its means read back from its CSV output."""
    import csv
    import tempfile

    from rankproof.cli.app import main

    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "means.csv")
        code = main(["evaluate", truth, predictions, "--columns", "query=user,doc=item,grade=rating",
                     *[arg for m in MEASURES for arg in ("-m", m)], "--quiet", "--format", "csv", "-o", out,
                     *(["--memory-budget", budget] if budget else [])])
        if code:
            sys.exit(code)
        with open(out, encoding="utf-8") as stream:
            means = {row["measure"]: row["value"] for row in csv.DictReader(stream) if row["query"] == "all"}
    print(json.dumps({"means": means, "users": None, "spilled": None, "peak": peak_rss()}))


def peak_rss() -> int:
    """The process's peak resident bytes: VmHWM of its own memory (Linux), else getrusage's ru_maxrss.

    Not ru_maxrss first: Linux carries the parent's resident size at fork into the child's
    ru_maxrss through exec, so a child of a large parent would report the parent's size.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(truth: Path, predictions: Path, budget: str | None, cli: bool = False) -> dict:
    """One child under prlimit: its exit code, seconds, peak RSS (MB) and means."""
    command = ["prlimit", f"--as={LIMIT}", sys.executable, __file__, "--child", str(truth), str(predictions),
               *(["--budget", budget] if budget else []), *(["--cli"] if cli else [])]
    start = time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(HERE.parent / "src")})
    found = {"code": process.returncode, "seconds": round(time.perf_counter() - start, 1)}
    if process.returncode == 0:
        found.update(json.loads(process.stdout.strip().splitlines()[-1]))
        found["peak_mb"] = round(found.pop("peak") / 2**20, 1)
    else:
        found["error"] = process.stderr.strip().splitlines()[-1:] or ["(no message)"]
    return found


def agree(reference: dict | None, found: dict | None) -> bool:
    """The same means: equal, or (values spilled to disk: exact sums, rounded once, where the
    in-memory mean adds pairwise) within 1e-14 relative; the difference is printed."""
    if not reference or not found or reference.keys() != found.keys():
        return False
    for name in reference:
        a, b = float(reference[name]), float(found[name])
        if a != b:
            print(f"  {name}: in memory {reference[name]}, out of core {found[name]} "
                  f"(relative difference {abs(a - b) / max(abs(a), 1e-300):.1e})")
        if abs(a - b) > 1e-14 * abs(a):
            return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sorted-rows", type=int, default=100_000_000)
    parser.add_argument("--unsorted-rows", type=int, default=3_000_000)
    parser.add_argument("--unsorted-format", default="csv", choices=("csv", "tsv", "jsonl", "parquet"))
    parser.add_argument("--budgets", default="64MB,256MB")
    parser.add_argument("--only", choices=("sorted", "unsorted"))
    parser.add_argument("--in-memory", action="store_true", help="also evaluate in memory, compare the means")
    parser.add_argument("--child", nargs=2, metavar=("TRUTH", "PREDICTIONS"), help=argparse.SUPPRESS)
    parser.add_argument("--budget", help=argparse.SUPPRESS)
    parser.add_argument("--cli", action="store_true", help="evaluate with `rankproof evaluate` (CSV means), "
                                                           "not evaluate_frame")
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.budget, args.cli)
        return 0
    from outofcore_bench import ensure

    from rankproof.frontdoors.budget import OVERHEAD

    data = HERE / "data"
    tiny = unsorted_log(data, 2000, "csv")
    overhead = measure(*tiny, "64MB")
    print(f"fixed overhead (100 users, 64MB budget): peak {overhead.get('peak_mb')} MB; "
          f"stated OVERHEAD {OVERHEAD / 2**20:.0f} MB")
    logs = []
    if args.only != "unsorted":
        logs.append((f"sorted Parquet, {args.sorted_rows:,} rows", ensure(data, args.sorted_rows // 20)))
    if args.only != "sorted":
        logs.append((f"unsorted {args.unsorted_format.upper()}, {args.unsorted_rows:,} rows",
                     unsorted_log(data, args.unsorted_rows, args.unsorted_format)))
    failed = False
    for name, paths in logs:
        reference = measure(*paths, None, args.cli) if args.in_memory else None
        if reference is not None:
            print(f"{name}: in memory: {json.dumps(reference)}")
        for budget in args.budgets.split(","):
            found = measure(*paths, budget, args.cli)
            from rankproof.frontdoors.outofcore import parse_budget

            limit = (parse_budget(budget) + OVERHEAD) / 2**20
            kept = found["code"] == 0 and found["peak_mb"] <= limit
            same = reference is None or agree(reference.get("means"), found.get("means"))
            failed |= not (kept and same)
            print(f"{name}: budget {budget}: exit {found['code']}, {found['seconds']} s, "
                  f"peak {found.get('peak_mb')} MB (limit {limit:.0f} MB: {'kept' if kept else 'NOT KEPT'}), "
                  f"means {'same as in memory' if reference and same else 'DIFFER' if not same else ''} "
                  f"{json.dumps(found.get('means') or found.get('error'))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
