"""Time the paired randomization test: rankproof against scipy (and ranx) on the same pairs.

Workload: the bundled Cranfield runs (bm25, tfidf, lmdirichlet: 3 pairs),
ndcg@10 and ap (2 measures), 225 queries, 10,000 random sign flips: 6
randomization tests. Each tool gets the same per-query values (rankproof's,
default protocol); evaluation is not timed, only the tests.

- rankproof: ``rankproof.stats.significance.randomization``, all 6 rows as one
  matrix product; and the whole ``rankproof.compare(...)`` (the test, the
  bootstrap intervals, corrections, power; evaluation excluded).
- scipy: ``scipy.stats.permutation_test(permutation_type='samples',
  vectorized=True, n_resamples=10_000)``, one call per pair and measure.
- ranx (when installed): ``fisher_randomization_test`` (numba, parallel),
  one call per pair and measure; its first call (JIT compilation or cache
  load) is not timed.

Each timing is the median of --repeat runs (default 5). p-values are
printed for all tools: they estimate the same quantity, so they agree up
to Monte Carlo error (sd <= 0.005 at 10,000 draws). Usage:

    .venv/bin/python benchmarks/compare_bench.py [--repeat 5] [--resamples 10000]
"""

from __future__ import annotations

import argparse
from itertools import combinations
from pathlib import Path

import numpy as np

from rankproof import Qrels, Run, compare, evaluate
from rankproof.stats.significance import randomization
from timing import median_seconds

CRANFIELD = Path(__file__).resolve().parents[1] / "src" / "rankproof" / "_data" / "cranfield"
NAMES = ("bm25", "tfidf", "lmdirichlet")
MEASURES = ("ndcg@10", "ap")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()

    qrels = Qrels.read_trec(CRANFIELD / "qrels.txt")
    results = {n: evaluate(qrels, Run.read_trec(CRANFIELD / f"{n}.run", name=n), MEASURES) for n in NAMES}
    pairs = [(a, b, m) for m in MEASURES for a, b in combinations(NAMES, 2)]
    first = np.array([results[a].values(m) for a, b, m in pairs])
    second = np.array([results[b].values(m) for a, b, m in pairs])
    n_queries = first.shape[1]
    print(f"workload: {len(NAMES)} runs -> {len(pairs) // len(MEASURES)} pairs x {len(MEASURES)} measures x "
          f"{n_queries} queries x {args.resamples:,} permutations; median of {args.repeat}")

    rows = []
    ours_time, ours = median_seconds(lambda: randomization(second - first, n_resamples=args.resamples), args.repeat)
    rows.append(("rankproof randomization (6 tests)", ours_time, ours))
    compare_time, comparison = median_seconds(
        lambda: compare(None, results, MEASURES, n_resamples=args.resamples), args.repeat)
    rows.append(("rankproof compare() (tests + bootstrap CIs)", compare_time,
                 np.array([r.p_value for r in comparison.rows])))

    from scipy import stats

    def mean_difference(x, y, axis):
        return np.mean(x - y, axis=axis)

    def scipy_all():
        return np.array([stats.permutation_test((b, a), mean_difference, permutation_type="samples",
                                                vectorized=True, n_resamples=args.resamples, rng=0).pvalue
                         for a, b in zip(first, second)])

    rows.append(("scipy permutation_test (6 calls)", *median_seconds(scipy_all, args.repeat)))

    try:
        from ranx.statistical_tests.fisher_randomization_test import fisher_randomization_test
    except ImportError:
        fisher_randomization_test = None
    if fisher_randomization_test is not None:
        def ranx_all():
            return np.array([fisher_randomization_test(a, b, n_permutations=args.resamples, random_seed=42)[0]
                             for a, b in zip(first, second)])

        ranx_all()  # compile or load numba's cache: not timed
        rows.append(("ranx fisher_randomization_test (6 calls)", *median_seconds(ranx_all, args.repeat)))

    print(f"{'tool':<45} {'seconds':>9} {'x rankproof':>12}  p-values ({', '.join(f'{a}/{b} {m}' for a, b, m in pairs)})")
    for name, seconds, p in rows:
        print(f"{name:<45} {seconds:>9.4f} {seconds / ours_time:>12.1f}  " + " ".join(f"{v:.4f}" for v in p))


if __name__ == "__main__":
    main()
