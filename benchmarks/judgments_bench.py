"""Time the judgment analyses of issue 38 at scale (no target in the issue: the figures are for the report).

Workload (seeded): T topics (default 10,000) of 20 judged docs each, grades
0-4, a human source and two judges that change a grade with probability
0.3 and 0.5 (200,000 units, three sources). Timed (median of --repeat):

- ``label_agreement`` of the three sources: alpha at three levels, AC1,
  AC2, and two judges' kappa, weighted kappa, sensitivity and specificity,
  with 1000 bootstrap resamples over topics each;
- ``leaderboard`` of 20 systems on the T topics, 1000 resamples;
- ``ppi_arrays`` of 2,000 simulated judges at once (n = 100, N = 400).

Usage:

    PYTHONPATH=src .venv/bin/python benchmarks/judgments_bench.py [--topics 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource

import numpy as np

from timing import median_seconds


def sources(topics: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 5, size=(topics, 20))
    out = []
    for rate in (0.0, 0.3, 0.5):
        noisy = np.where(rng.random(grades.shape) < rate, rng.integers(0, 5, size=grades.shape), grades)
        out.append({f"q{t}": {f"d{d}": int(noisy[t, d]) for d in range(20)} for t in range(topics)})
    return out


def main() -> None:
    from rankproof.stats.label_agreement import label_agreement
    from rankproof.stats.leaderboard import leaderboard
    from rankproof.stats.ppi import ppi_arrays

    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    judged = sources(args.topics)
    seconds, result = median_seconds(lambda: label_agreement(judged, resamples=1000), args.repeat)
    print(f"label_agreement, 3 sources, {result.units} units, {result.topics} topics, 1000 resamples: "
          f"{seconds:.2f} s (alpha interval {result.alpha['interval'].value:.4f})")
    rng = np.random.default_rng(1)
    matrix = rng.random((args.topics, 1)) + rng.normal(0, 0.1, (args.topics, 20)) + np.linspace(0, 0.02, 20)
    seconds, board = median_seconds(lambda: leaderboard(matrix, [f"s{i}" for i in range(20)], resamples=1000),
                                    args.repeat)
    print(f"leaderboard, 20 systems x {args.topics} topics, 1000 resamples: {seconds:.2f} s "
          f"({len(board.tied_with_best)} tied with the best)")
    human, judge, rest = rng.random((2000, 100)), rng.random((2000, 100)), rng.random((2000, 400))
    seconds, _ = median_seconds(lambda: ppi_arrays(human, judge, rest), args.repeat)
    print(f"ppi_arrays, 2,000 judges at once: {seconds * 1000:.1f} ms")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
