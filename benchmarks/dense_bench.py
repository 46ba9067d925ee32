"""Dense score matrix: rankproof's evaluate_scores against scikit-learn's ndcg_score, in one run.

Seeded data: ``--rows`` x ``--columns`` (default 1M x 50) integer grades 0-3
(int64) and scores rounded to one decimal (11 values per row of 50: heavy
ties). Measure: ndcg@k (default 10) with exact tie averaging.

Timed, median of ``--repeat`` runs (default 3), in this process:

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
       [--repeat 3] [--sklearn-rows 50000] [--seed 0]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from rankproof import evaluate_scores  # noqa: E402


def generate(rows: int, columns: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (rows, columns))
    y_score = np.round(rng.random((rows, columns)), 1)
    return y_true, y_score


def median_time(function, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, default=50)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sklearn-rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
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
    t_ours, mean = median_time(lambda: evaluate_scores(y_true, y_score, measure).mean(measure), args.repeat)

    def with_counts():
        results = evaluate_scores(y_true, y_score, measure)
        return results.mean(measure), results.counts
    t_counts, (_, counts) = median_time(with_counts, args.repeat)
    t_floor, _ = median_time(lambda: y_score.sum(), max(args.repeat, 5))
    t_sklearn_subset, _ = median_time(lambda: ndcg_score(y_true[:subset], y_score[:subset], k=args.k),
                                      args.repeat)
    t_sklearn = t_sklearn_subset * args.rows / subset
    t_ignore, ignore_value = median_time(lambda: ndcg_score(y_true, y_score, k=args.k, ignore_ties=True),
                                         args.repeat)

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
        ("rankproof evaluate_scores", t_ours, ""),
        ("rankproof + counts", t_counts, "whole-row tie counts on first use"),
        ("sklearn ndcg_score", t_sklearn,
         f"timed on {subset:,} rows ({t_sklearn_subset:.2f} s), scaled x{args.rows / subset:g}"
         if subset < args.rows else ""),
        ("sklearn ignore_ties=True", t_ignore, ""),
        ("read floor y_score.sum()", t_floor, ""),
    ]
    print(f"{'tool':<28}{'seconds':>9}{'x rankproof':>13}  note")
    for name, seconds, note in rows:
        print(f"{name:<28}{seconds:9.3f}{seconds / t_ours:13.2f}  {note}")
    print(f"rankproof is {t_sklearn / t_ours:.0f}x faster than ndcg_score, {t_ignore / t_ours:.1f}x faster than "
          f"ndcg_score(ignore_ties=True), and {t_ours / t_floor:.0f}x the read floor")
    print(f"peak memory of evaluate_scores (tracemalloc): {peak_mb:.0f} MB = {peak_mb / input_mb:.2f}x the input "
          f"arrays ({input_mb:.0f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
