"""Time rankproof fit-pbm on a simulated click log of 1M impressions.

Workload (seeded), shaped like a search log's head: 1,000 queries x 20
candidate docs, 100 sessions per query, each showing a random permutation's
top 10 docs: 1,000 x 100 x 10 = 1,000,000 impressions of 20,000 query-doc
pairs; clicks ~ Bernoulli(theta_r * alpha_qd) with theta = 0.9 x
(1, 0.8, 0.6, 0.5, 0.4, 0.33, 0.28, 0.24, 0.2, 0.18) and alpha ~ U(0.05, 0.95).
The log is written once as a whitespace text file (query doc rank clicked) in
a temporary folder. Timed, each as the median of --repeat runs:

- read: ``read_clicks(path)`` (parse and intern the ids);
- fit: ``fit_pbm(log)`` (EM to tolerance 1e-7, the CLI's default);
- cli: the whole ``rankproof fit-pbm clicks.txt -o discount.json`` in a new
  process (start-up, read, fit, atomic write).

It also prints the largest error of the fitted examination vector against the
true one (both normalised to rank 1). Usage:

    .venv/bin/python benchmarks/pbm_bench.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from rankproof.recsys.clicks import fit_pbm, read_clicks
from timing import median_seconds

THETA = 0.9 * np.array([1.0, 0.8, 0.6, 0.5, 0.4, 0.33, 0.28, 0.24, 0.2, 0.18])


def write_log(path: Path, queries: int = 1000, docs: int = 20, sessions: int = 100, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    depth = len(THETA)
    alpha = rng.uniform(0.05, 0.95, size=(queries, docs))
    query = np.repeat(np.arange(queries), sessions)
    shown = np.argsort(rng.random((queries * sessions, docs)), axis=1)[:, :depth]
    q = np.repeat(query, depth)
    d = shown.ravel()
    r = np.tile(np.arange(1, depth + 1), queries * sessions)
    c = (rng.random(len(r)) < THETA[r - 1] * alpha[q, d]).astype(int)
    lines = np.char.add(np.char.add(np.char.add(np.char.add("q", q.astype(str)), " d"), d.astype(str)),
                        np.char.add(np.char.add(" ", r.astype(str)), np.char.add(" ", c.astype(str))))
    path.write_text("\n".join(lines.tolist()) + "\n")
    return len(r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "clicks.txt"
        impressions = write_log(path)
        read_time, log = median_seconds(lambda: read_clicks(path), args.repeat)
        fit_time, fit = median_seconds(lambda: fit_pbm(log), args.repeat)
        out = Path(folder) / "discount.json"
        command = [sys.executable, "-m", "rankproof.cli", "fit-pbm", str(path), "-o", str(out), "--quiet"]
        cli_time, _ = median_seconds(lambda: subprocess.run(command, check=True), args.repeat)
    error = float(np.abs(fit.examination - THETA / THETA[0]).max())
    print(f"impressions {impressions:,}  pairs {len(fit.attractiveness):,}  EM iterations {fit.iterations} "
          f"(converged {fit.converged})")
    print(f"read_clicks {read_time:.2f} s   fit_pbm {fit_time:.2f} s   rankproof fit-pbm (CLI, whole process) "
          f"{cli_time:.2f} s")
    print(f"largest error of the examination vector (normalised to rank 1): {error:.4f}")


if __name__ == "__main__":
    main()
