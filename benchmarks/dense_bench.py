"""Dense score matrix: rankproof's evaluate_scores against scikit-learn's ndcg_score, in one run.

Seeded data: ``--rows`` x ``--columns`` (default 1M x 50) integer grades 0-3
(int64) and scores rounded to one decimal (11 values per row of 50: heavy
ties). Measure: ndcg@k (default 10) with exact tie averaging.

Timed, median of ``--repeat`` runs (default 3), in this process, the tools
taking turns within each repetition (wall and CPU time are both printed: the
machine may be shared):

- rankproof: ``evaluate_scores(y_true, y_score, "ndcg@10").mean("ndcg@10")``,
  and the same plus ``results.counts`` (whole-row tie counts, computed on
  first use by a row-wise sort);
- scikit-learn ``ndcg_score(k=10)``: averages ties with a Python loop per row,
  so it is timed on the first ``--sklearn-rows`` rows (default 50,000) and
  scaled linearly to all rows (the output says so);
- scikit-learn ``ndcg_score(k=10, ignore_ties=True)`` on all rows (it breaks
  ties by numpy's unstable argsort, so its value differs and is only shown);
- the read floor: one numpy pass over the score matrix (``y_score.sum()``).

Values are checked before any time is printed: rankproof's mean on the
sklearn subset equals ``ndcg_score``'s to 1e-12. Peak memory of rankproof's
call is measured with tracemalloc (numpy reports its buffers to it) and
given relative to the input arrays.

Usage: python benchmarks/dense_bench.py [--rows 1000000] [--columns 50] [--k 10]
       [--repeat 3] [--sklearn-rows 50000] [--seed 0] [--json PATH]
(``--json``: also write the rows as JSON, benchmarks/results.py, appending to
the file's rows of other sizes when it exists; a peer's ``ratio`` is its
seconds over rankproof's.)
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import row, write_results  # noqa: E402

from rankproof import evaluate_scores  # noqa: E402


def generate(rows: int, columns: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (rows, columns))
    y_score = np.round(rng.random((rows, columns)), 1)
    return y_true, y_score


def interleaved_times(tools: dict, repeat: int) -> tuple[dict, dict, dict]:
    """Median wall and CPU seconds of each tool, its last value and every wall time. The tools
    run in turn within each repetition, so a change in the machine's load (it
    is shared) falls on all of them alike."""
    wall = {name: [] for name in tools}
    cpu = {name: [] for name in tools}
    values = {}
    for _ in range(repeat):
        for name, function in tools.items():
            start_wall, start_cpu = time.perf_counter(), time.process_time()
            values[name] = function()
            cpu[name].append(time.process_time() - start_cpu)
            wall[name].append(time.perf_counter() - start_wall)
    return ({name: statistics.median(t) for name, t in wall.items()},
            {name: statistics.median(t) for name, t in cpu.items()}, values, wall)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, default=50)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sklearn-rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the results there as JSON")
    args = parser.parse_args(argv)
    from sklearn import __version__ as sklearn_version
    from sklearn.metrics import ndcg_score

    measure = f"ndcg@{args.k}"
    y_true, y_score = generate(args.rows, args.columns, args.seed)
    subset = min(args.sklearn_rows, args.rows)
    input_mb = (y_true.nbytes + y_score.nbytes) / 2**20

    # -- values first ----------------------------------------------------------
    ours_subset = evaluate_scores(y_true[:subset], y_score[:subset], measure).mean(measure)
    sklearn_subset = ndcg_score(y_true[:subset], y_score[:subset], k=args.k)
    difference = abs(ours_subset - sklearn_subset)
    if difference > 1e-12:
        print(f"VALUES DISAGREE on {subset} rows: rankproof {ours_subset!r}, sklearn {sklearn_subset!r}")
        return 1

    # -- times -----------------------------------------------------------------
    def with_counts():
        results = evaluate_scores(y_true, y_score, measure)
        return results.mean(measure), results.counts

    tools = {
        "ours": lambda: evaluate_scores(y_true, y_score, measure).mean(measure),
        "counts": with_counts,
        "sklearn": lambda: ndcg_score(y_true[:subset], y_score[:subset], k=args.k),
        "ignore": lambda: ndcg_score(y_true, y_score, k=args.k, ignore_ties=True),
        "floor": lambda: y_score.sum(),
    }
    wall, cpu, values, runs = interleaved_times(tools, args.repeat)
    scale = args.rows / subset
    for times in (wall, cpu):
        times["sklearn"] *= scale
    mean, ignore_value, counts = values["ours"], values["ignore"], values["counts"][1]
    t_ours, t_sklearn, t_ignore, t_floor = wall["ours"], wall["sklearn"], wall["ignore"], wall["floor"]

    tracemalloc.start()
    evaluate_scores(y_true, y_score, measure).mean(measure)
    peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    # -- report ----------------------------------------------------------------
    print(f"dense {args.rows:,} x {args.columns}, {measure}, grades 0-3, scores rounded to 1 decimal "
          f"({counts['tied_groups']:,} tied groups; {counts['tied_groups_crossing_cutoff'][measure]:,} rows "
          f"with a tie across the cutoff)")
    print(f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn_version}; "
          f"median of {args.repeat} runs")
    print(f"values: rankproof {ours_subset:.15f} = ndcg_score {sklearn_subset:.15f} on the first {subset:,} "
          f"rows (diff {difference:.1e}); all rows: rankproof {mean:.6f}, "
          f"ndcg_score(ignore_ties=True) {ignore_value:.6f} (ties in numpy's unstable argsort order)")
    rows = [
        ("rankproof evaluate_scores", "ours", ""),
        ("rankproof + counts", "counts", "whole-row tie counts on first use"),
        ("sklearn ndcg_score", "sklearn",
         f"timed on {subset:,} rows ({wall['sklearn'] / scale:.2f} s), scaled x{scale:g}" if subset < args.rows else ""),
        ("sklearn ignore_ties=True", "ignore", ""),
        ("read floor y_score.sum()", "floor", ""),
    ]
    print(f"{'tool':<28}{'seconds':>9}{'x rankproof':>13}{'cpu s':>9}{'x rankproof':>13}  note")
    for label, name, note in rows:
        print(f"{label:<28}{wall[name]:9.3f}{wall[name] / t_ours:13.2f}{cpu[name]:9.3f}"
              f"{cpu[name] / cpu['ours']:13.2f}  {note}")
    print(f"rankproof is {t_sklearn / t_ours:.0f}x faster than ndcg_score, {t_ignore / t_ours:.1f}x faster than "
          f"ndcg_score(ignore_ties=True), and {t_ours / t_floor:.0f}x the read floor (wall time; CPU time: "
          f"{cpu['sklearn'] / cpu['ours']:.0f}x, {cpu['ignore'] / cpu['ours']:.1f}x, "
          f"{cpu['ours'] / cpu['floor']:.0f}x)")
    print(f"peak memory of evaluate_scores (tracemalloc): {peak_mb:.0f} MB = {peak_mb / input_mb:.2f}x the input "
          f"arrays ({input_mb:.0f} MB)")
    if args.json:
        _write_json(args, measure, rows, runs, wall, cpu, peak_mb, input_mb, scale)
    return 0


def _write_json(args, measure: str, labels: list, runs: dict, wall: dict, cpu: dict, peak_mb: float,
                input_mb: float, scale: float) -> None:
    """The rows of this size, added to the file's rows of other sizes (one file for 100k and 1M rows)."""
    workload = f"score matrix {args.rows:,} x {args.columns}, {measure}"
    tools = {"ours": "rankproof", "counts": "rankproof + counts", "sklearn": "sklearn ndcg_score",
             "ignore": "sklearn ndcg_score(ignore_ties=True)", "floor": "read floor (y_score.sum())"}
    peers = {"sklearn", "ignore"}
    rows = []
    for _, name, note in labels:
        rows.append(row(workload, tools[name], round(wall[name], 4), size=args.rows * args.columns,
                        size_unit="entries", runs=[round(t * (scale if name == "sklearn" else 1), 4)
                                                   for t in runs[name]],
                        peak_mb=round(peak_mb, 1) if name == "ours" else None,
                        input_mb=round(input_mb, 1),
                        ratio=round(wall[name] / wall["ours"], 3) if name in peers else None,
                        ratio_to=tools[name] if name in peers else None,
                        note="; ".join(filter(None, [note, f"cpu {cpu[name]:.3f} s",
                                                     "peak: tracemalloc" if name == "ours" else ""]))))
    path = Path(args.json)
    if path.exists():  # keep the other sizes' rows
        kept = [r for r in json.loads(path.read_text())["rows"] if r["workload"] != workload]
        rows = kept + rows
    write_results(path, benchmark="dense_bench", rows=rows, command=shlex.join(["python", *sys.argv]),
                  title="Score matrices: evaluate_scores against scikit-learn's ndcg_score")


if __name__ == "__main__":
    raise SystemExit(main())
