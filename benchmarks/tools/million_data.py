"""The million-user log of benchmarks/million.py: seeded, vectorised, written once as Parquet.

For N users (default 1,000,000):

- ``truth.parquet``: 5 liked items per user (user, item, rating 1-5);
- ``a.parquet``, ``b.parquet``, ``c.parquet``: three runs, 20 scored items per user (user, item, score),
  each a little better than the one before (more of the liked items among the 20);
- ``d.parquet`` .. ``j.parquet``: seven more runs for the ten-run ``systems`` row, each derived from
  a, b or c in turn by adding seeded noise to the scores (same users and items, rankings reshuffled
  a little): written once, after the others, by :func:`extra_runs`;
- ``train.parquet``: 5 training interactions per user (user, item), items drawn by a Zipf-like
  popularity so that novelty and the popularity measures see a long tail, and one for each item;
- ``items.parquet``: the catalogue (item);
- ``features.parquet``: one to three of 20 genres per item (item, category as ``g1|g7``);
- ``groups.parquet``: 20 user groups (user, group);
- ``users.parquet``: one row per user with a bucket (control / treatment) and three attributes,
  for ``rankproof balance``.

Users and items are int64 ids, as in most recommender logs; rows are grouped by user.
"""

from __future__ import annotations

import os
import sys

import numpy as np

CATALOGUE = 100_000
PREDICTIONS = 20
TRUTH = 5
TRAIN = 5
GENRES = 20
GROUPS = 20
RUNS = ("a", "b", "c")
EXTRA_RUNS = ("d", "e", "f", "g", "h", "i", "j")
FILES = ("truth", *RUNS, "train", "items", "features", "groups", "users")
# The spread of the noise added to a base run's scores (uniform in [0, 1) plus up to 0.3 for a hit).
NOISE = 0.05


def _zipf_items(rng: np.random.Generator, size: int) -> np.ndarray:
    """Items 0 .. CATALOGUE-1 with probability ~ 1 / (rank + 10): a popular head and a long tail."""
    weights = 1.0 / (np.arange(CATALOGUE) + 10.0)
    cumulative = np.cumsum(weights / weights.sum())
    return np.minimum(np.searchsorted(cumulative, rng.random(size)), CATALOGUE - 1).astype(np.int64)


def _tables(users: int, seed: int):
    """Yield (name, pyarrow Table) for every file, one at a time (memory stays at one table)."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    user = np.arange(users, dtype=np.int64)
    base = rng.integers(0, CATALOGUE, size=users)
    # Distinct items per user without a per-user loop: item = base + an increasing offset.
    truth_offset = np.arange(TRUTH) * 40 + rng.integers(0, 40, size=(users, TRUTH))
    truth_items = (base[:, None] + truth_offset) % CATALOGUE
    yield "truth", pa.table({"user": np.repeat(user, TRUTH), "item": truth_items.reshape(-1).astype(np.int64),
                             "rating": rng.integers(1, 6, size=users * TRUTH).astype(np.int64)})
    for number, name in enumerate(RUNS):
        offset = np.arange(PREDICTIONS) * 10 + rng.integers(0, 10, size=(users, PREDICTIONS))
        items = (base[:, None] + offset) % CATALOGUE
        scores = rng.random((users, PREDICTIONS))
        # Each run scores the items it shares with the truth a little higher than the one before.
        hit = np.isin(offset, truth_offset[:, :1]) | (offset % 40 == truth_offset[:, :1] % 40)
        scores = scores + hit * 0.1 * (number + 1)
        yield name, pa.table({"user": np.repeat(user, PREDICTIONS), "item": items.reshape(-1).astype(np.int64),
                              "score": scores.reshape(-1)})
    # Plus one interaction per catalogue item (by a random user): every item has a popularity, so
    # novelty@10 needs no smoothing.
    yield "train", pa.table({"user": np.concatenate([np.repeat(user, TRAIN), rng.integers(0, users, CATALOGUE)]),
                             "item": np.concatenate([_zipf_items(rng, users * TRAIN),
                                                     np.arange(CATALOGUE, dtype=np.int64)])})
    catalogue = np.arange(CATALOGUE, dtype=np.int64)
    yield "items", pa.table({"item": catalogue})
    first = rng.integers(0, GENRES, size=CATALOGUE)
    second = rng.integers(0, GENRES, size=CATALOGUE)
    labels = np.array([f"g{g}" for g in range(GENRES)], dtype=object)
    both = np.where(first == second, labels[first], labels[first] + "|" + labels[second])
    yield "features", pa.table({"item": catalogue, "category": pa.array(both.tolist(), pa.string())})
    group_labels = np.array([f"group{g:02d}" for g in range(GROUPS)], dtype=object)
    yield "groups", pa.table({"user": user, "group": pa.array(group_labels[rng.integers(0, GROUPS, users)].tolist(),
                                                                pa.string())})
    buckets = np.array(["control", "treatment"], dtype=object)
    yield "users", pa.table({"user": user,
                             "bucket": pa.array(buckets[rng.integers(0, 2, users)].tolist(), pa.string()),
                             "age": rng.integers(18, 80, users).astype(np.int64),
                             "visits": rng.poisson(4.0, users).astype(np.int64),
                             "country": pa.array(np.array(["de", "fr", "us", "jp"], dtype=object)[
                                 rng.integers(0, 4, users)].tolist(), pa.string())})


def paths(directory: str, users: int) -> dict[str, str]:
    folder = os.path.join(directory, f"million_{users}")
    return {name: os.path.join(folder, f"{name}.parquet") for name in (*FILES, *EXTRA_RUNS)}


def _write(table, path: str) -> None:
    import pyarrow.parquet as pq

    partial = path + ".partial"
    pq.write_table(table, partial)
    os.replace(partial, path)


def extra_runs(where: dict[str, str], seed: int) -> None:
    """Runs d .. j, those not written yet: run number k is a, b or c (k mod 3) with seeded noise
    added to its scores. One base run's table in memory at a time; no new ids, so the derived
    runs cost a read and a write each, not the generation."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for number, name in enumerate(EXTRA_RUNS):
        if os.path.exists(where[name]):
            continue
        table = pq.read_table(where[RUNS[number % len(RUNS)]])
        rng = np.random.default_rng([seed, number])
        scores = table.column("score").to_numpy() + rng.normal(0.0, NOISE, table.num_rows)
        _write(table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores)), where[name])
        del table, scores


def ensure(directory: str, users: int, seed: int = 35) -> dict[str, str]:
    """Write the log for `users` users once (each file atomically); return {name: path}."""
    where = paths(directory, users)
    if not all(os.path.exists(where[name]) for name in FILES):
        os.makedirs(os.path.dirname(where["truth"]), exist_ok=True)
        for name, table in _tables(users, seed):
            _write(table, where[name])
    extra_runs(where, seed)
    return where


if __name__ == "__main__":
    print(ensure(sys.argv[1], int(sys.argv[2])))
