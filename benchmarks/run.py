"""Time rankproof and its peers side by side on the same TREC files, in one run.

Each tool runs as its own process that loads the qrels and the run, evaluates
ndcg@10, ndcg, ap, rr and p@10, and writes per-query results (the whole
process a user waits for). The tools take turns, run after run. For each
tool: the median wall time of several runs, the peak RSS of the process, the ratio to rankproof's CLI, and whether
its values agree with rankproof's under the matching preset (checked before
any time is printed):

==================  =============================  ===========================
tool                compared with rankproof preset  tolerance
==================  =============================  ===========================
rankproof CLI/lib   rankproof (defaults)            1e-12
trec_eval 10        trec_eval                       5e-5 (it prints 4 decimals)
pytrec_eval         trec_eval9 (float32 scores)     1e-9
ir_measures         trec_eval9 (it runs pytrec_eval) 1e-9
ranx                trec_eval, on queries without   1e-9 (ranx orders tied
                    tied scores                     docs arbitrarily)
==================  =============================  ===========================

Usage: python benchmarks/run.py [--workloads A B C D] [--repeat 3] [--quick] [--json PATH]
``--quick`` is workload B with one run per tool: a smoke test of the harness
and of value agreement, part of ``make test`` (it asserts no time).
``--json PATH`` also writes the rows as JSON (benchmarks/results.py), keeping
the file's rows of the workloads not run this time; on a peer's row, ``ratio`` is its seconds over rankproof CLI's (``ratio_to`` names
the peer).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "tools"))

from generate import WORKLOADS, generate  # noqa: E402
from results import row, write_results  # noqa: E402
from tools.common import MEASURES  # noqa: E402

TREC_EVAL = ROOT / "build" / "trec_eval" / "trec_eval"
TREC_NAMES = {"ndcg_cut_10": "ndcg@10", "ndcg": "ndcg", "map": "ap", "recip_rank": "rr", "P_10": "p@10"}


def _python_tool(script: str, *extra: str):
    return lambda q, r, out: [sys.executable, str(HERE / "tools" / script), str(q), str(r), str(out), *extra]


def _rankproof_cli(q, r, out):
    cli = Path(sys.executable).parent / "rankproof"
    return [str(cli), "evaluate", str(q), str(r), *sum((["-m", m] for m in MEASURES), []),
            "--format", "json", "-o", str(out)]


def _trec_eval(q, r, out):
    return [str(TREC_EVAL), "-q", "-m", "ndcg_cut.10", "-m", "ndcg", "-m", "map", "-m", "recip_rank",
            "-m", "P.10", str(q), str(r)]


def _read_rankproof_json(path: Path) -> dict:
    document = json.loads(path.read_text())
    (run,) = document["runs"].values()
    return {m: {q: v[m] for q, v in run["per_query"].items() if v[m] is not None} for m in MEASURES}


def _read_trec_eval(path: Path) -> dict:
    values: dict = {m: {} for m in MEASURES}
    for line in path.read_text().splitlines():
        name, query, value = line.split()
        if name in TREC_NAMES and query != "all":
            values[TREC_NAMES[name]][query] = float(value)
    return values


# tool -> (command builder, output reader, preset to compare with, tolerance, writes to stdout)
TOOLS = {
    "rankproof CLI": (_rankproof_cli, _read_rankproof_json, "rankproof", 1e-12, False),
    "rankproof library": (_python_tool("rankproof_lib.py"), None, "rankproof", 1e-12, False),
    "trec_eval 10 (C)": (_trec_eval, _read_trec_eval, "trec_eval", 5.01e-5, True),
    "pytrec_eval": (_python_tool("pytrec_eval_tool.py"), None, "trec_eval9", 1e-9, False),
    "ir_measures": (_python_tool("ir_measures_tool.py"), None, "trec_eval9", 1e-9, False),
    "ranx": (_python_tool("ranx_tool.py"), None, "trec_eval", 1e-9, False),
}


def _timed(command: list[str], stdout_path: Path | None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process.

    GNU time measures the RSS: the rusage of a child forked from this runner
    would count pages it shares with the runner before exec.
    """
    stdout = open(stdout_path, "w") if stdout_path else subprocess.DEVNULL
    start = time.perf_counter()
    process = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=stdout, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if stdout_path:
        stdout.close()
    stderr = process.stderr.decode(errors="replace").strip().splitlines()
    if process.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed ({process.returncode}): {' '.join(stderr)[-500:]}")
    return elapsed, int(stderr[-1]) / 1024


def _reference(qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    """rankproof's per-query values under each preset, and each query's number of tied docs."""
    from rankproof import Protocol, Qrels, Run, evaluate
    from rankproof.pipeline.alignment import align

    qrels, run = Qrels.read_trec(qrels_path), Run.read_trec(run_path)
    values = {}
    for preset in ("rankproof", "trec_eval", "trec_eval9"):
        results = evaluate(qrels, run, MEASURES, Protocol.preset(preset))
        values[preset] = {m: results.per_query(m) for m in MEASURES}
    a = align(qrels, run, Protocol.preset("trec_eval"))
    sizes = np.diff(a.tie_offsets)
    starts = a.tie_offsets[:-1]
    query_of_group = np.searchsorted(a.offsets, starts, side="right") - 1
    tied = np.bincount(query_of_group[sizes > 1], minlength=a.num_queries)
    return values, dict(zip(a.queries.tolist(), tied.tolist()))


def _agreement(values: dict, reference: dict, tolerance: float, only: set | None) -> str:
    worst, compared, missing = 0.0, 0, 0
    for m in MEASURES:
        for query, expected in reference[m].items():
            if only is not None and query not in only:
                continue
            got = values.get(m, {}).get(query)
            if got is None:
                missing += 1
                continue
            compared += 1
            worst = max(worst, abs(got - expected))
    verdict = "yes" if worst <= tolerance and missing == 0 else "NO"
    scope = "" if only is None else f" on {len(only)} untied queries"
    return f"{verdict} (max diff {worst:.1e}{scope}{f', {missing} missing' if missing else ''})"


def bench(workload: str, repeat: int, tools: list[str]) -> list[dict]:
    qrels_path, run_path = generate(workload)
    reference, tied = _reference(qrels_path, run_path)
    untied = {q for q, n in tied.items() if n == 0}
    skipped = [{"tool": tool, "skipped": "trec_eval not built (make test builds it)"}
               for tool in tools if tool.startswith("trec_eval") and not TREC_EVAL.exists()]
    tools = [tool for tool in tools if not (tool.startswith("trec_eval") and not TREC_EVAL.exists())]
    times: dict = {tool: [] for tool in tools}
    peaks: dict = {tool: [] for tool in tools}
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        outputs = {tool: Path(folder) / f"{tool.replace(' ', '_')}.out" for tool in tools}
        # Interleaved (one run of each tool, `repeat` times): a change in the
        # machine's load falls on every tool alike.
        for _ in range(repeat):
            for tool in tools:
                build, _, _, _, to_stdout = TOOLS[tool]
                out = outputs[tool]
                seconds, peak = _timed(build(qrels_path, run_path, out), out if to_stdout else None)
                times[tool].append(seconds)
                peaks[tool].append(peak)
        for tool in tools:
            _, reader, preset, tolerance, _ = TOOLS[tool]
            values = (reader or (lambda p: json.loads(p.read_text())))(outputs[tool])
            agree = _agreement(values, reference[preset], tolerance, untied if tool == "ranx" else None)
            rows.append({"tool": tool, "seconds": statistics.median(times[tool]), "peak_mb": max(peaks[tool]),
                         "agree": agree, "preset": preset, "runs": times[tool]})
    return rows + skipped


def _print(workload: str, rows: list[dict]) -> bool:
    base = next((r["seconds"] for r in rows if r["tool"] == "rankproof CLI" and "seconds" in r), None)
    print(f"\nworkload {workload}")
    print(f"{'tool':<20}{'seconds':>9}{'peak MB':>9}{'x rankproof':>13}  values agree (preset)")
    ok = True
    for r in rows:
        if "skipped" in r:
            print(f"{r['tool']:<20}  skipped: {r['skipped']}")
            continue
        ratio = r["seconds"] / base if base else float("nan")
        print(f"{r['tool']:<20}{r['seconds']:>9.2f}{r['peak_mb']:>9.0f}{ratio:>13.2f}  {r['agree']} ({r['preset']})")
        ok &= r["agree"].startswith("yes")
    return ok


def _json_rows(workload: str, rows: list[dict]) -> list[dict]:
    """The rows of one workload in the shared JSON schema (benchmarks/results.py)."""
    queries, depth = WORKLOADS[workload]
    name = f"{workload}: {queries:,} queries x {depth:,} docs, whole process"
    base = next((r["seconds"] for r in rows if r["tool"] == "rankproof CLI" and "seconds" in r), None)
    out = []
    for r in rows:
        if "skipped" in r:
            continue
        peer = not r["tool"].startswith("rankproof")
        out.append(row(name, r["tool"], round(r["seconds"], 4), size=queries * depth, size_unit="lines",
                       runs=[round(t, 4) for t in r["runs"]], peak_mb=round(r["peak_mb"], 1),
                       ratio=round(r["seconds"] / base, 3) if peer and base else None,
                       ratio_to=r["tool"] if peer and base else None,
                       note=f"values agree: {r['agree']} (preset {r['preset']})"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", nargs="+", default=["A", "B", "C"], choices=list(WORKLOADS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    parser.add_argument("--quick", action="store_true", help="workload B, one run per tool")
    parser.add_argument("--json", metavar="PATH", help="also write the results there as JSON")
    args = parser.parse_args()
    if args.quick:
        args.workloads, args.repeat = ["B"], 1
    print(f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}; median of {args.repeat} runs; ratio = tool seconds / rankproof CLI seconds")
    ok, json_rows = True, []
    for workload in args.workloads:
        rows = bench(workload, args.repeat, args.tools)
        ok &= _print(workload, rows)
        json_rows += _json_rows(workload, rows)
    if args.json and ok:
        done = {r["workload"] for r in json_rows}
        if Path(args.json).exists():  # keep the rows of workloads not run this time
            json_rows = [r for r in json.loads(Path(args.json).read_text())["rows"] if r["workload"] not in done] + json_rows
        write_results(args.json, benchmark="run", rows=json_rows, command=shlex.join(["python", *sys.argv]),
                      title="TREC files: rankproof and its peers, whole processes")
    if not ok:
        print("\nvalues disagree: the times above are not comparable", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
