"""Write the benchmark workloads as TREC files, once, into benchmarks/data/ (ignored by git).

Workloads (seeded, so every machine writes the same files):

- A: 10,000 queries x 1,000 docs (10M run lines), ~5% of retrieved docs judged,
  grades 0-3, plus judged docs that were not retrieved; scores rounded to 4
  decimals, so ties occur.
- B: 1,000 queries x 100 docs.
- C: 100,000 queries x 100 docs.
- D: 2,000 queries x 1,000 docs (2M run lines): A's shape at a fifth of its
  size, where a whole process's fixed costs (imports, threads, allocation)
  weigh more.

Usage: python benchmarks/generate.py [A B C D]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
WORKLOADS = {"A": (10_000, 1_000), "B": (1_000, 100), "C": (100_000, 100), "D": (2_000, 1_000)}
COLLECTION = 1_000_000  # doc ids are drawn from this many


def _lines(columns: list[np.ndarray], separator: str = " ") -> bytes:
    """Join columns of strings into lines without a Python loop per line."""
    text = columns[0].astype(object)
    for column in columns[1:]:
        text = text + separator + column.astype(object)
    return ("\n".join(text.tolist()) + "\n").encode()


def generate(name: str, seed: int = 20261203) -> tuple[Path, Path]:
    num_queries, depth = WORKLOADS[name]
    rng = np.random.default_rng(seed + ord(name))
    DATA.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = DATA / f"{name}.qrels", DATA / f"{name}.run"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path

    # Distinct docs per query: a random offset and stride into the collection.
    start = rng.integers(0, COLLECTION, num_queries)
    stride = rng.choice([1, 3, 7, 11, 13], num_queries)
    docs = (start[:, None] + stride[:, None] * np.arange(depth)[None, :]) % COLLECTION
    scores = np.round(np.sort(rng.gamma(2.0, 2.0, (num_queries, depth)), axis=1)[:, ::-1], 4)
    queries = np.repeat(np.arange(num_queries), depth)
    ranks = np.tile(np.arange(1, depth + 1), num_queries)
    run = _lines([np.char.add("q", queries.astype(str)), np.full(queries.size, "Q0"),
                  np.char.add("doc", docs.ravel().astype(str)), ranks.astype(str),
                  scores.ravel().astype(str), np.full(queries.size, "bench")])
    run_path.write_bytes(run)

    # ~5% of retrieved docs judged (more at the top), plus a few judged but not retrieved.
    top_bias = np.linspace(0.15, 0.02, depth)[None, :]
    judged = rng.random((num_queries, depth)) < top_bias
    judged_q, judged_pos = np.nonzero(judged)
    judged_docs = docs[judged_q, judged_pos]
    extra_q = np.repeat(np.arange(num_queries), 5)
    extra_docs = (start[extra_q] + COLLECTION // 2 + np.tile(np.arange(5), num_queries)) % COLLECTION
    q = np.concatenate([judged_q, extra_q])
    d = np.concatenate([judged_docs, extra_docs])
    grades = rng.choice([0, 0, 1, 1, 2, 3], q.size)
    order = np.lexsort((d, q))
    qrels = _lines([np.char.add("q", q[order].astype(str)), np.full(q.size, "0"),
                    np.char.add("doc", d[order].astype(str)), grades[order].astype(str)])
    qrels_path.write_bytes(qrels)
    return qrels_path, run_path


if __name__ == "__main__":
    for name in sys.argv[1:] or list(WORKLOADS):
        qrels, run = generate(name)
        print(f"{name}: {qrels} ({qrels.stat().st_size >> 20} MB), {run} ({run.stat().st_size >> 20} MB)")
