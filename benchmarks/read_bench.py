"""Reading a big TREC run: rankproof's reader against the floor, pyarrow's CSV reader.

Issue 12 asks that reading A.run (10M lines) into interned columns take at
most 1.5x pyarrow reading the same file into a table: a text file cannot be
read faster than it is split into columns. Each reader runs in a fresh
process (imports not timed, the file in the page cache after a first
untimed read), several times, interleaved so that all see the same machine
load; the medians of the wall and CPU times and their ratios are printed.

- pyarrow: ``pyarrow.csv.read_csv`` of the six space-separated columns, the
  query, doc and score converted (what any reader must at least do);
- rankproof columns: ``read_trec_run_columns``, the compiled reader: the same
  parse, plus the checks (column counts, finite scores, blank and comment
  lines, the line number of every row) and interned query and doc ids
  (int64 codes and sorted vocabularies);
- rankproof Run: ``Run.read_trec``, the above plus rows grouped by query;
- the same with the allocator settings the CLI uses on large inputs.

Usage: python benchmarks/read_bench.py [--workload A] [--repeat 5] [--json PATH]
(``--json``: also write the rows as JSON, benchmarks/results.py; each
rankproof row's ``ratio`` is pyarrow's wall time over its own, so the
target reads ratio >= 1/1.5.)
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import WORKLOADS, generate  # noqa: E402
from results import row, write_results  # noqa: E402

READERS = {
    "pyarrow read_csv": """
import pyarrow as pa, pyarrow.csv as csv
def read(path):
    return csv.read_csv(path,
        read_options=csv.ReadOptions(column_names=["query", "q0", "doc", "rank", "score", "tag"]),
        parse_options=csv.ParseOptions(delimiter=" "),
        convert_options=csv.ConvertOptions(include_columns=["query", "doc", "score"],
            column_types={"query": pa.string(), "doc": pa.string(), "score": pa.float64()}))
""",
    "rankproof columns": """
from rankproof.io.trec import read_trec_run_columns
def read(path):
    return read_trec_run_columns(path)
""",
    "rankproof Run.read_trec": """
from rankproof import Run
def read(path):
    return Run.read_trec(path)
""",
    # What `rankproof evaluate` does on a large input: glibc keeps freed memory.
    "  ... with the CLI's malloc": """
from rankproof import Run
from rankproof.cli.large import keep_freed_memory as _keep_freed_memory
_keep_freed_memory()
def read(path):
    return Run.read_trec(path)
""",
}

TIMER = """
import sys, time
{reader}
path = sys.argv[1]
open(path, "rb").read()  # into the page cache
start, cpu = time.perf_counter(), time.process_time()
read(path)
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="A", choices=list(WORKLOADS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", metavar="PATH", help="also write the results there as JSON")
    args = parser.parse_args()
    _, run_path = generate(args.workload)
    seconds = {name: [] for name in READERS}
    cpu = {name: [] for name in READERS}
    for _ in range(args.repeat):
        for name, reader in READERS.items():  # interleaved: both see the same machine load
            code = TIMER.format(reader=reader)
            done = subprocess.run([sys.executable, "-c", code, str(run_path)], check=True,
                                  capture_output=True, text=True)
            wall, used = (float(value) for value in done.stdout.split())
            seconds[name].append(wall)
            cpu[name].append(used)
    floor = statistics.median(seconds["pyarrow read_csv"])
    cpu_floor = statistics.median(cpu["pyarrow read_csv"])
    print(f"reading {run_path.name} ({run_path.stat().st_size / 2**20:.0f} MB); median of {args.repeat} runs")
    print(f"{'reader':<28} {'wall':>7}  x floor  {'cpu':>7}  x floor  wall of each run")
    for name, times in seconds.items():
        median, used = statistics.median(times), statistics.median(cpu[name])
        print(f"{name:<28} {median:6.2f}s  {median / floor:7.2f}  {used:6.2f}s  {used / cpu_floor:7.2f}  "
              f"{', '.join(f'{t:.2f}' for t in times)}")
    if args.json:
        queries, depth = WORKLOADS[args.workload]
        workload = f"reading {run_path.name} ({queries * depth:,} lines), imports not timed"
        rows = []
        for name, times in seconds.items():
            median, peer = statistics.median(times), name.startswith("pyarrow")
            tool = "rankproof Run.read_trec, the CLI's malloc" if name.startswith("  ...") else name
            rows.append(row(workload, tool, round(median, 4), size=queries * depth, size_unit="lines",
                            runs=[round(t, 4) for t in times], input_mb=round(run_path.stat().st_size / 2**20, 1),
                            ratio=None if peer else round(floor / median, 3),
                            ratio_to=None if peer else "pyarrow read_csv",
                            note=f"cpu {statistics.median(cpu[name]):.2f} s; wall {median / floor:.2f}x pyarrow"))
        write_results(args.json, benchmark="read_bench", rows=rows, command=shlex.join(["python", *sys.argv]),
                      title="Reading a TREC run against pyarrow.csv.read_csv")


if __name__ == "__main__":
    main()
