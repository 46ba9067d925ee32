"""The long log of benchmarks/frame_bench.py: seeded, vectorised, written once as Parquet.

Every user gets 20 predicted items with random float64 scores (no ties in
practice) and 5 truth items with ratings 1-5; about a quarter of the truth
items are among the user's predictions. Users and items are int64 ids, as in
most recommender logs. Rows are grouped by user, in random score order.
"""

from __future__ import annotations

import os
import sys

import numpy as np

CATALOGUE = 100_000
PREDICTIONS = 20
TRUTH = 5


def generate(users: int, seed: int = 7):
    """Return (truth, predictions) as pyarrow Tables."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    base = rng.integers(0, CATALOGUE, size=users)
    # Distinct items per user without a per-user loop: item = base + offset,
    # with offsets strictly increasing (slot j covers [7j, 7j + 7)).
    predicted_offset = np.arange(PREDICTIONS) * 7 + rng.integers(0, 7, size=(users, PREDICTIONS))
    truth_offset = np.arange(TRUTH) * 40 + rng.integers(0, 40, size=(users, TRUTH))
    user = np.arange(users, dtype=np.int64)
    predictions = pa.table({
        "user": np.repeat(user, PREDICTIONS),
        "item": ((base[:, None] + predicted_offset) % CATALOGUE).reshape(-1).astype(np.int64),
        "score": rng.random(users * PREDICTIONS),
    })
    truth = pa.table({
        "user": np.repeat(user, TRUTH),
        "item": ((base[:, None] + truth_offset) % CATALOGUE).reshape(-1).astype(np.int64),
        "rating": rng.integers(1, 6, size=users * TRUTH).astype(np.int64),
    })
    return truth, predictions


def paths(directory: str, users: int) -> tuple[str, str]:
    return (os.path.join(directory, f"log_{users}_truth.parquet"),
            os.path.join(directory, f"log_{users}_predictions.parquet"))


def ensure(directory: str, users: int) -> tuple[str, str]:
    """Write the log for `users` users once; return the two Parquet paths."""
    import pyarrow.parquet as pq

    truth_path, predictions_path = paths(directory, users)
    if not (os.path.exists(truth_path) and os.path.exists(predictions_path)):
        os.makedirs(directory, exist_ok=True)
        truth, predictions = generate(users)
        for table, path in ((truth, truth_path), (predictions, predictions_path)):
            partial = path + ".partial"
            pq.write_table(table, partial)
            os.replace(partial, path)
    return truth_path, predictions_path


if __name__ == "__main__":
    print(ensure(sys.argv[1], int(sys.argv[2])))
