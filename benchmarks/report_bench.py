"""Time ``rankproof report`` on the bundled Cranfield runs, whole process.

Workload: the command of ``make report-demo``: qrels and three Lucene runs
(bm25, tfidf, lmdirichlet; 225 queries, 50 docs each), bm25 as baseline, the
default measures (ndcg@10 ap rr p@10), 10,000 resamples. The clock runs from
starting the process to its exit, as a user waits for it; the target is under
3 s. Also printed: each stage inside one process (imports, reading,
evaluation and comparison, curves, drill-down, rendering), to show where the
time goes. Usage:

    .venv/bin/python benchmarks/report_bench.py [--repeat 3]
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

ROOT = Path(__file__).resolve().parents[1]
CRANFIELD = ROOT / "src" / "rankproof" / "_data" / "cranfield"


def whole_process(output: Path) -> float:
    command = [sys.executable, "-m", "rankproof.cli", "report", "qrels.txt", "bm25.run", "tfidf.run",
               "lmdirichlet.run", "--label", "bm25=bm25.run", "--label", "tfidf=tfidf.run",
               "--label", "lmdirichlet=lmdirichlet.run", "--baseline", "bm25", "-o", str(output)]
    start = time.perf_counter()
    subprocess.run(command, cwd=CRANFIELD, check=True)
    return time.perf_counter() - start


def stages() -> list[tuple[str, float]]:
    """Each stage once, in this process (imports first, so it must run before anything imports scipy)."""
    clock = time.perf_counter()
    marks = []

    def mark(label: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        marks.append((label, now - clock))
        clock = now

    import scipy.stats  # noqa: F401  compare's dependency, the largest import

    from rankproof import Qrels, Run, compare, evaluate
    from rankproof.explain.explanation import explain_top
    from rankproof.report.figures import prepare
    from rankproof.report.html import render
    mark("imports (scipy.stats, rankproof)")
    qrels = Qrels.read_trec(CRANFIELD / "qrels.txt")
    runs = {name: Run.read_trec(CRANFIELD / f"{name}.run", name=name) for name in ("bm25", "tfidf", "lmdirichlet")}
    mark("read qrels and runs")
    results = {name: evaluate(qrels, run, ["ndcg@10", "ap", "rr", "p@10"]) for name, run in runs.items()}
    compare(None, results, ["ndcg@10", "ap", "rr", "p@10"], baseline="bm25")
    mark("evaluate and compare (10,000 resamples)")
    curves = [f"{m}@{k}" for m in ("ndcg", "ap", "rr", "p", "judged") for k in range(1, 51)]
    for run in runs.values():
        evaluate(qrels, run, curves)
    mark("curves: 250 measures per run")
    for run in runs.values():
        explain_top(qrels, run, "ndcg@10", depth=20)
    mark("drill-down rows (explain_top)")
    data = prepare(qrels, runs, baseline="bm25")
    mark("prepare (all of the above again, plus intervals and iprec)")
    page = render(data)
    mark(f"render ({len(page.encode()) / 1e6:.2f} MB)")
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for label, seconds in stages():
        print(f"  {label:<60} {seconds:6.3f} s")
    with tempfile.TemporaryDirectory() as folder:
        times = [whole_process(Path(folder) / "report.html") for _ in range(args.repeat)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"rankproof report, Cranfield, 3 runs, whole process: median {statistics.median(times):.2f} s of "
          f"{args.repeat} ({', '.join(f'{t:.2f}' for t in times)}); load average {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
