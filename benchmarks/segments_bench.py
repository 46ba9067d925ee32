"""Time ``Results.by(segment)``: rankproof's bootstrap against scipy.stats.bootstrap on the same values.

Workload (seeded): N users (default 50,000) x 20 scored predictions, 5 liked
items each, evaluated with ndcg@10, r@10 and ap@10 by ``evaluate_frame``
(not timed), then split into 3 segments. Timed:

- rankproof: ``results.by(segment)`` with the default 2000 percentile
  resamples (9 intervals: 3 segments x 3 measures);
- scipy: ``scipy.stats.bootstrap(..., method="percentile", vectorized=True,
  n_resamples=2000)`` once per segment and measure on the same values.

Both draw the same distribution (n indices uniform with replacement per
resample), so the intervals agree up to Monte Carlo error; the widest gap is
printed next to the interval width. Each timing is the median of --repeat
runs (default 3). Usage:

    .venv/bin/python benchmarks/segments_bench.py [--users 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

MEASURES = ["ndcg@10", "r@10", "ap@10"]


def _log(users: int, seed: int = 0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth = pd.DataFrame({"user": np.repeat(np.arange(users), 5),
                          "item": rng.integers(0, 2000, users * 5)}).drop_duplicates()
    predictions = pd.DataFrame({"user": np.repeat(np.arange(users), 20), "item": rng.integers(0, 2000, users * 20),
                                "score": rng.random(users * 20)}).drop_duplicates(["user", "item"])
    segment = pd.Series(rng.choice(["new", "returning", "churned"], users), index=np.arange(users))
    return truth, predictions, segment


def main() -> None:
    from scipy.stats import bootstrap

    from rankproof import evaluate_frame

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--users", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    truth, predictions, segment = _log(args.users)
    results = evaluate_frame(truth, predictions, MEASURES, rating=None)
    labels = segment.reindex(results.queries).to_numpy()

    ours, theirs = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        table = results.by(segment)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        reference = {}
        for label in np.unique(labels):
            for measure in MEASURES:
                values = results.values(measure)[labels == label]
                reference[label, measure] = bootstrap((values,), np.mean, n_resamples=2000, method="percentile",
                                                      vectorized=True, random_state=np.random.default_rng(0)
                                                      ).confidence_interval
        theirs.append(time.perf_counter() - start)
    gap = max(max(abs(row.low - reference[row.segment, row.measure].low),
                  abs(row.high - reference[row.segment, row.measure].high)) for row in table)
    width = min(row.high - row.low for row in table)
    print(f"{args.users:,} users, {len(MEASURES)} measures, 3 segments, 2000 percentile resamples")
    print(f"  rankproof Results.by        {statistics.median(ours):7.2f} s")
    print(f"  scipy.stats.bootstrap       {statistics.median(theirs):7.2f} s   "
          f"(ratio {statistics.median(theirs) / statistics.median(ours):.1f}x)")
    print(f"  largest endpoint gap {gap:.5f} (narrowest interval {width:.5f}): Monte Carlo error")


if __name__ == "__main__":
    main()
