"""Peak memory of one long query: a TREC run of one query with N docs (issue 28 item 7).

Workload: ``q1 Q0 d{i} {i+1} {score} r`` for i < N (default 5,000,000 lines,
about 172 MB), every doc id distinct, and a two-line qrels; written once into
a temporary folder (or --dir). Measured:

- cli: the whole ``rankproof evaluate QRELS RUN -m ndcg@10`` in a new
  process, under ``/usr/bin/time -v`` (its maximum resident set size), and
  the ratio of that peak to the run file's size;
- phases (``--phases``): in one process, the peak of each step on its own
  (Linux's VmHWM, reset between steps through /proc/self/clear_refs):
  reading the run (scan, intern, merge the parts' tables; then the sorted
  vocabularies), reading the qrels, and the evaluation (align, engine).

Usage:

    .venv/bin/python benchmarks/long_query_bench.py [--lines 5000000] [--phases]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def write_run(path: Path, lines: int) -> None:
    """One query, `lines` distinct docs, scores descending (no ties)."""
    step = 100_000
    with open(path, "w") as handle:
        for start in range(0, lines, step):
            stop = min(lines, start + step)
            handle.write("".join(f"q1 Q0 d{i} {i + 1} {lines - i}.5 r\n" for i in range(start, stop)))


def cli_peak(qrels: Path, run: Path) -> tuple[float, int]:
    """(seconds, peak bytes) of the whole command, by /usr/bin/time -v."""
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "rankproof.cli", "evaluate", str(qrels), str(run),
               "-m", "ndcg@10", "--format", "csv"]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1)) * 1024
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    hours, minutes, seconds = clock.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), peak


PHASES = r"""
import sys
def mark(label):
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    print(f"{label:34s} peak {int(fields['VmHWM'].split()[0]) >> 10:6d} MB   "
          f"after {int(fields['VmRSS'].split()[0]) >> 10:6d} MB", flush=True)
    open("/proc/self/clear_refs", "w").write("5")
import rankproof
from rankproof.data.qrels import Qrels
from rankproof.data.run import Run
mark("imports")
run = Run.read_trec(sys.argv[2])
mark("read the run (scan, merge, sort)")
qrels = Qrels.read(sys.argv[1])
mark("read the qrels")
results = rankproof.evaluate(qrels, run, ["ndcg@10"], allow_partial=True)
mark("evaluate (align, engine)")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5_000_000)
    parser.add_argument("--dir", help="write the files here (default: a temporary folder)")
    parser.add_argument("--phases", action="store_true", help="also the peak of each step in one process")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        run, qrels = Path(folder) / "run.txt", Path(folder) / "qrels.txt"
        write_run(run, args.lines)
        qrels.write_text("q1 0 d1 1\nq1 0 d7 2\n")
        size = run.stat().st_size
        seconds, peak = cli_peak(qrels, run)
        print(f"one query, {args.lines:,} docs: run file {size / 2**20:.0f} MB; rankproof evaluate "
              f"{seconds:.2f} s, peak {peak / 2**20:.0f} MB ({peak / size:.1f}x the file)")
        if args.phases:
            subprocess.run([sys.executable, "-c", PHASES, str(qrels), str(run)], check=True)


if __name__ == "__main__":
    main()
