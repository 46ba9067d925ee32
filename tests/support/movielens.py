"""A MovieLens-shaped synthetic log for tests and docs: users x items with popularity skew, genres, user groups.

:func:`movielens_like` draws, from one seed:

- items with 1 to 3 genres of :data:`GENRES` and a Zipf popularity (exponent 1);
- users, each with a genre taste (Dirichlet), a group ``light``/``heavy``
  (heavy users rate 3x as many items) and interactions drawn with probability
  proportional to popularity x (taste . genres);
- a split: a fifth of each user's items (at least one) held out as the truth,
  the rest the training log;
- two recommenders' top 20 over items the user has not trained on: ``pop``
  (most popular first) and ``taste`` (popularity^0.3 x taste match, plus noise).

Everything is a plain dict of columns (lists), so a test turns it into any table
or file; :func:`write_log` writes CSV files.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

GENRES = ("Action", "Adventure", "Animation", "Comedy", "Drama", "Horror", "Romance", "Sci-Fi")


def _genres(rng: np.random.Generator, items: int) -> np.ndarray:
    """(items, genres) 0/1 matrix: 1 to 3 genres per item."""
    matrix = np.zeros((items, len(GENRES)))
    for i in range(items):
        matrix[i, rng.choice(len(GENRES), size=rng.integers(1, 4), replace=False)] = 1.0
    return matrix


def _top(scores: np.ndarray, seen: np.ndarray, k: int) -> np.ndarray:
    masked = np.where(seen, -np.inf, scores)
    return np.argsort(-masked, kind="stable")[:k]


def movielens_like(seed: int = 7, users: int = 300, items: int = 400, k: int = 20) -> dict[str, dict[str, list]]:
    """Tables ``train``, ``truth``, ``pop``, ``taste``, ``features``, ``groups`` as dicts of columns."""
    rng = np.random.default_rng(seed)
    genres = _genres(rng, items)
    popularity = 1.0 / np.arange(1, items + 1)
    popularity = popularity[rng.permutation(items)]
    item_ids = np.array([f"m{i}" for i in range(items)])
    tables: dict[str, dict[str, list]] = {name: {} for name in ("train", "truth", "pop", "taste", "features", "groups")}
    for name, columns in (("train", ("user", "item")), ("truth", ("user", "item", "grade")),
                          ("pop", ("user", "item", "score")), ("taste", ("user", "item", "score")),
                          ("features", ("item", "category")), ("groups", ("user", "group"))):
        tables[name] = {column: [] for column in columns}
    for i in range(items):
        tables["features"]["item"].append(item_ids[i])
        tables["features"]["category"].append("|".join(g for g, on in zip(GENRES, genres[i]) if on))
    for u in range(users):
        user = f"u{u}"
        heavy = rng.random() < 0.3
        taste = rng.dirichlet(np.full(len(GENRES), 0.5))
        match = genres @ taste
        weight = popularity * (match + 0.02)
        count = min(int(rng.integers(30, 60) if heavy else rng.integers(8, 20)), items // 2)
        rated = rng.choice(items, size=count, replace=False, p=weight / weight.sum())
        held = max(1, count // 5)
        truth, train = rated[:held], rated[held:]
        tables["groups"]["user"].append(user)
        tables["groups"]["group"].append("heavy" if heavy else "light")
        for i in train:
            tables["train"]["user"].append(user)
            tables["train"]["item"].append(item_ids[i])
        for i in truth:
            tables["truth"]["user"].append(user)
            tables["truth"]["item"].append(item_ids[i])
            tables["truth"]["grade"].append(1)
        seen = np.zeros(items, dtype=bool)
        seen[train] = True
        taste_scores = popularity**0.3 * (match + 0.02) * np.exp(rng.normal(0, 0.3, items))
        for name, scores in (("pop", popularity), ("taste", taste_scores)):
            for rank, i in enumerate(_top(scores, seen, k)):
                tables[name]["user"].append(user)
                tables[name]["item"].append(item_ids[i])
                tables[name]["score"].append(float(k - rank))
    return tables


def write_log(folder: Path, **options) -> dict[str, Path]:
    """The tables of :func:`movielens_like` as CSV files in `folder`: {name: path}."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, columns in movielens_like(**options).items():
        path = folder / f"{name}.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(list(columns))
            writer.writerows(zip(*columns.values()))
        paths[name] = path
    return paths


if __name__ == "__main__":  # python tests/support/movielens.py FOLDER: the files of the docs' example
    import sys

    for name, path in write_log(Path(sys.argv[1] if len(sys.argv) > 1 else "movielens-like")).items():
        print(name, path)
