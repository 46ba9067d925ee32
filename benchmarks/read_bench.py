"""Reading a big TREC run: rankproof's reader against the floor, pyarrow's CSV reader.

Issue 6 asks that reading 10M lines stay within 3x of pyarrow reading the
same file into a table: a text file cannot be read faster than it is split
into columns. Each reader runs in a fresh process (imports not timed, the
file in the page cache after a first untimed read), several times; the
medians and their ratio are printed.

- pyarrow: ``pyarrow.csv.read_csv`` of the six space-separated columns, the
  query, doc and score converted (what any reader must at least do);
- rankproof: ``Run.read_trec``: the same parse, plus what makes the result
  usable and checked: blank/comment/whitespace normalisation with the line
  number of every row, finite scores, interned query and doc ids (codes
  and sorted vocabularies) and rows grouped by query;
- the same with the allocator settings the CLI uses on large inputs.

Usage: python benchmarks/read_bench.py [--workload A] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402

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
    "rankproof Run.read_trec": """
from rankproof import Run
def read(path):
    return Run.read_trec(path)
""",
    # What `rankproof evaluate` does on a large input: glibc keeps freed memory.
    "  ... with the CLI's malloc": """
from rankproof import Run
from rankproof.cli import _keep_freed_memory
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
start = time.perf_counter()
read(path)
print(time.perf_counter() - start)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="A", choices=["A", "B", "C"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _, run_path = generate(args.workload)
    seconds = {name: [] for name in READERS}
    for _ in range(args.repeat):
        for name, reader in READERS.items():  # interleaved: both see the same machine load
            code = TIMER.format(reader=reader)
            done = subprocess.run([sys.executable, "-c", code, str(run_path)], check=True,
                                  capture_output=True, text=True)
            seconds[name].append(float(done.stdout))
    floor = statistics.median(seconds["pyarrow read_csv"])
    print(f"reading {run_path.name} ({run_path.stat().st_size / 2**20:.0f} MB); median of {args.repeat} runs")
    for name, times in seconds.items():
        median = statistics.median(times)
        print(f"{name:<26} {median:6.2f} s   x floor {median / floor:4.2f}   runs {', '.join(f'{t:.2f}' for t in times)}")


if __name__ == "__main__":
    main()
