"""A million users, end to end (issue 35): every command a recommender engineer runs, as whole processes.

The log (tools/million_data.py, seeded, written once into benchmarks/data/million_N/): N users
(default 1,000,000) x 20 scored predictions x 3 runs (a, b, c), 5 liked items per user, a training
log (5 interactions per user), the item catalogue (100k items), item genres and 20 user groups;
seven more runs (d .. j, each a, b or c with seeded noise on its scores) for the ten-run systems row.
Each command is its own process (``python -m rankproof.cli ...``, the CLI a user types), timed by
GNU time: wall seconds, CPU seconds (user + sys: the machine may be shared, CPU time is what the
command itself costs) and peak resident memory. The issue's target is printed beside each median.

Commands (the targets of issue 35):

====================  ==============================================================  ====================
name                  command                                                         target
====================  ==============================================================  ====================
evaluate              evaluate truth a -m ndcg@10 -m r@10                             (the base)
evaluate+side         the same + coverage, gini, novelty, entropy, arp, ild and       <= 1.5 x evaluate
                      long_tail_share @10 with --train --items --features
long log              evaluate truth a -m ndcg@10 -m r@10 -m ap@10                    < 3 s, peak <= 2x
                                                                                      the columns
compare               compare truth a b c -m ndcg@10 -m r@10                          < 10 s
systems               systems truth a b c d e f g h i j -m ndcg@10 (10 runs)          < 30 s
segments              segments truth a b c -m ndcg@10 -m r@10 --groups groups        < 10 s
monitor               monitor a.parquet b.parquet (evaluate --format parquet, untimed) < 5 s
balance               balance users.parquet --bucket-col bucket                       < 5 s
report                report truth a b c, ndcg, r, coverage, gini, novelty @10,       < 60 s, < 4 GB,
                      side data and groups                                            page < 5 MB
====================  ==============================================================  ====================

Usage::

    python benchmarks/million.py [--users 1000000] [--repeat 3] [--timeout 600] [--only evaluate,report]
                                 [--json PATH]

``--users 20000`` runs the whole table small (a smoke test); ``--json`` writes the rows for the
docs' benchmark page (benchmarks/results.py). A command that fails or runs past --timeout is
shown as such, never timed as a success. Part of ``make bench``.
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

from million_data import EXTRA_RUNS, RUNS, ensure  # noqa: E402

COLUMNS = "query=user,doc=item,grade=rating,score=score"
SIDE = ["coverage@10", "gini@10", "novelty@10", "entropy@10", "arp@10", "ild@10", "long_tail_share@10"]
REPORT_SIDE = ["coverage@10", "gini@10", "novelty@10"]


def _measures(*names: str) -> list[str]:
    return [part for name in names for part in ("-m", name)]


def commands(data: dict[str, str], derived: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (the CLI arguments after ``rankproof``, the issue's target)."""
    log = [data["truth"], data["a"], "--columns", COLUMNS]
    runs = [data["truth"], data["a"], data["b"], data["c"], "--columns", COLUMNS]
    ten = [data["truth"], *(data[name] for name in (*RUNS, *EXTRA_RUNS)), "--columns", COLUMNS]
    side = ["--train", data["train"], "--items", data["items"], "--features", data["features"]]
    return {
        "evaluate": (["evaluate", *log, *_measures("ndcg@10", "r@10")], "the base of evaluate+side"),
        "evaluate+side": (["evaluate", *log, *_measures("ndcg@10", "r@10", *SIDE), *side],
                          "<= 1.5 x evaluate"),
        "long log": (["evaluate", *log, *_measures("ndcg@10", "r@10", "ap@10")], "< 3 s, peak <= 2 x columns"),
        "compare": (["compare", *runs, *_measures("ndcg@10", "r@10")], "< 10 s"),
        "systems": (["systems", *ten, *_measures("ndcg@10")], "< 30 s (10 runs)"),
        "segments": (["segments", *runs, *_measures("ndcg@10", "r@10"), "--groups", data["groups"]], "< 10 s"),
        "monitor": (["monitor", str(derived / "current.parquet"), str(derived / "reference.parquet"),
                     "-m", "ndcg@10"], "< 5 s"),
        "balance": (["balance", data["users"], "--bucket-col", "bucket", "--attributes", "age,visits,country"],
                    "< 5 s"),
        "report": (["report", *runs, *_measures("ndcg@10", "r@10", *REPORT_SIDE), *side, "--groups",
                    data["groups"], "-o", str(derived / "report.html")], "< 60 s, peak < 4 GB, page < 5 MB"),
    }


# The commands that take --quiet (the others print no notes to drop).
QUIET = {"evaluate", "compare", "systems", "segments"}


def _cli(arguments: list[str]) -> list[str]:
    return [sys.executable, "-m", "rankproof.cli", *arguments, *(["--quiet"] if arguments[0] in QUIET else [])]


def timed(arguments: list[str], timeout: float) -> dict:
    """One whole process under GNU time: wall, cpu (user + sys) seconds, peak MB; or why it has none."""
    command = ["/usr/bin/time", "-f", "%e %U %S %M", *_cli(arguments)]
    start = time.perf_counter()
    try:
        process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"failed": f"timeout after {timeout:.0f} s"}
    elapsed = time.perf_counter() - start
    lines = process.stderr.decode(errors="replace").strip().splitlines()
    # monitor exits 3 on an alert: a result, not a failure
    if process.returncode not in (0, 3) or not lines:
        return {"failed": f"exit {process.returncode}: {' '.join(lines)[-300:]}"}
    try:
        wall, user, system, peak_kb = lines[-1].split()
        return {"wall": float(wall), "cpu": float(user) + float(system), "peak_mb": int(peak_kb) / 1024}
    except ValueError:
        return {"wall": elapsed, "cpu": None, "peak_mb": None}


def available(command: str) -> bool:
    """Whether this rankproof has the command (segments may not be there yet; the others are)."""
    if command != "segments":
        return True
    probe = subprocess.run([sys.executable, "-m", "rankproof.cli", command, "--help"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    return probe.returncode == 0


def prepare(data: dict[str, str], derived: Path) -> None:
    """The two windows monitor compares: runs a and b evaluated per user, as Parquet (untimed)."""
    derived.mkdir(parents=True, exist_ok=True)
    for run, name in (("a", "current"), ("b", "reference")):
        target = derived / f"{name}.parquet"
        if not target.exists():
            subprocess.run(_cli(["evaluate", data["truth"], data[run], "--columns", COLUMNS, "-m", "ndcg@10",
                                 "--format", "parquet", "-o", str(target)]), check=True)


def arrow_mb(*paths: str) -> float:
    """The in-memory (Arrow) size of Parquet files, MB."""
    import pyarrow.parquet as pq

    return sum(pq.read_table(path).nbytes for path in paths) / 2**20


def _median(values: list) -> "float | None":
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def verdict(name: str, wall: "float | None", peak: "float | None", base: "float | None", columns_mb: float,
            page_mb: "float | None") -> str:
    """Whether the median meets the issue's target ("" where the target is not a number)."""
    if wall is None:
        return "not met (no time)"
    checks = {
        "evaluate+side": base is not None and wall <= 1.5 * base,
        "long log": wall < 3 and peak is not None and peak <= 2 * columns_mb,
        "compare": wall < 10, "systems": wall < 30, "segments": wall < 10, "monitor": wall < 5, "balance": wall < 5,
        "report": wall < 60 and peak is not None and peak < 4096 and page_mb is not None and page_mb < 5,
    }
    if name not in checks:
        return ""
    return "met" if checks[name] else "not met"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a command is stopped")
    parser.add_argument("--only", help="comma-separated command names (default: all)")
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--json", help="also write the rows there (benchmarks/results.py)")
    args = parser.parse_args()
    data = ensure(args.data, args.users)
    derived = Path(os.path.dirname(data["truth"])) / "derived"
    table = commands(data, derived)
    wanted = [name.strip() for name in args.only.split(",")] if args.only else list(table)
    unknown = sorted(set(wanted) - set(table))
    if unknown:
        parser.error(f"unknown command(s) {', '.join(unknown)}; known: {', '.join(table)}")
    if "monitor" in wanted:
        prepare(data, derived)
    columns_mb = arrow_mb(data["truth"], data["a"])
    load_before = os.getloadavg()[0]
    print(f"{args.users:,} users x 20 predictions x 3 runs (10 for systems); truth + one run = {columns_mb:.0f} MB of Arrow columns; "
          f"medians of {args.repeat}; machine load {os.getloadavg()[0]:.1f} (2 cores)")
    measured: dict[str, dict] = {}
    for name in wanted:
        arguments, target = table[name]
        if not available(arguments[0]):
            measured[name] = {"target": target, "runs": [], "missing": f"no `rankproof {arguments[0]}` command"}
            continue
        runs = [timed(arguments, args.timeout) for _ in range(args.repeat)]
        failed = next((r["failed"] for r in runs if "failed" in r), None)
        measured[name] = {"target": target, "runs": runs, "failed": failed}
        print(f"  {name}: " + (failed or ", ".join(f"{r['wall']:.2f} s" for r in runs)), flush=True)
    page = derived / "report.html"
    page_mb = page.stat().st_size / 2**20 if page.exists() and "report" in measured else None
    rows = _print_table(measured, columns_mb, page_mb)
    if args.json:
        from results import write_results

        # The load average says how far the wall times stand from a quiet machine's (CPU times less so).
        load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores"
        write_results(args.json, benchmark="million",
                      title=f"A million users, end to end ({args.users:,} users; {load})", rows=rows)
    return 0


def _print_table(measured: dict[str, dict], columns_mb: float, page_mb: "float | None") -> list[dict]:
    from results import row

    base = _median([r.get("wall") for r in measured.get("evaluate", {}).get("runs", [])])
    print(f"\n{'command':<14} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}  {'target':<34} verdict")
    rows = []
    for name, got in measured.items():
        walls = [r.get("wall") for r in got["runs"] if "wall" in r]
        wall, cpu = _median(walls), _median([r.get("cpu") for r in got["runs"]])
        peak = _median([r.get("peak_mb") for r in got["runs"]])
        problem = got.get("missing") or got.get("failed")
        ok = problem or verdict(name, wall, peak, base, columns_mb, page_mb)
        shown = lambda x, f: f"{x:{f}}" if x is not None else f"{'-':>8}"   # noqa: E731
        print(f"{name:<14} {shown(wall, '8.2f')} {shown(cpu, '8.2f')} {shown(peak, '8.0f')}  {got['target']:<34} {ok}")
        if wall is None:
            continue
        note = f"cpu {cpu:.2f} s; target {got['target']}: {ok}" if cpu is not None else f"target {got['target']}"
        if name == "report" and page_mb is not None:
            note += f"; page {page_mb:.2f} MB"
        rows.append(row(name, "rankproof CLI", wall, runs=walls, peak_mb=peak,
                        input_mb=round(columns_mb, 1) if name == "long log" else None, note=note))
    return rows


if __name__ == "__main__":
    sys.exit(main())
