"""The dense fast path: DCG@k and ideal DCG@k of a score matrix, row by row in chunks.

Only the top k of each row matter. A row-wise ``argpartition`` finds them,
and only those k are sorted. Under ``ties=expected`` a tied group inside the
top k is whole there (every score above the k-th largest is in the top k);
only the group holding the k-th largest score, ``v``, may reach past the
cutoff, so its full size and gain sum are read from the whole row. A group
of n docs starting after s docs, with gain sum g, adds
``g / n * (D[min(s + n, k)] - D[s])``, where ``D`` is the cumulative
discount (McSherry & Najork 2008), the same expectation as
:meth:`rankproof.kernels.ranked.Ranked.dcg`, the reference kernel, which a
test holds this against.

The ideal DCG@k sorts each row's gains: with few integer grades, by counting
the docs of each grade; otherwise from a row-wise partition.

Work is done in chunks of rows, so every temporary stays small (memory) and
in cache (speed).
"""

from __future__ import annotations

import numpy as np

__all__ = ["dense_dcg", "dense_ideal_dcg", "CHUNK_ROWS"]

CHUNK_ROWS = 8192


def _chunks(num_rows: int, chunk_rows: int):
    for start in range(0, num_rows, chunk_rows):
        yield start, min(start + chunk_rows, num_rows)


def _chunk_dcg(score: np.ndarray, gain: np.ndarray, k: int,
               cumulative: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(expected DCG@k, does the tied group at the cutoff cross it) per row of one chunk.

    ``score`` and ``gain`` are C-contiguous: indices are taken flat, several
    times faster than ``take_along_axis``.
    """
    rows, m = score.shape
    k = min(k, m)
    flat_score, flat_gain = score.ravel(), gain.ravel()
    row_base = np.arange(rows)[:, None]
    if k < m:
        top = np.argpartition(score, m - k, axis=1)[:, m - k:]
        top += row_base * m
    else:
        top = row_base * m + np.arange(m)
    order = np.argsort(-flat_score.take(top), axis=1, kind="stable")
    order += row_base * k
    top = top.ravel().take(order)  # flat indices of the top k, score descending
    top_score = flat_score.take(top)
    top_gain = flat_gain.take(top)

    # Tie group of each top rank: its first rank (start) and one past its last
    # rank inside the top k (end). k is small: one vector step per rank.
    same = top_score[:, 1:] == top_score[:, :-1]
    start = np.zeros((rows, k), dtype=np.intp)
    end = np.full((rows, k), k, dtype=np.intp)
    for rank in range(1, k):
        start[:, rank] = np.where(same[:, rank - 1], start[:, rank - 1], rank)
    for rank in range(k - 2, -1, -1):
        end[:, rank] = np.where(same[:, rank], end[:, rank + 1], rank + 1)
    # Weight of a rank: the mean discount over its group's ranks.
    span = np.arange(k + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_discount = (cumulative[None, :] - cumulative[:, None]) / (span[None, :] - span[:, None])
    weight = mean_discount.ravel().take(start * (k + 1) + end)

    # The group holding the k-th largest score may reach past the cutoff:
    # its size and gain sum come from the whole row.
    kth = top_score[:, -1:]
    at_kth = score == kth
    full_size = np.count_nonzero(at_kth, axis=1)
    crossing = full_size > (end[:, -1] - start[:, -1])
    dcg = np.zeros(rows)
    if crossing.any():
        last_start = start[:, -1]
        dcg += np.einsum("ij,ij->i", gain, at_kth) * (cumulative[k] - cumulative[last_start]) / full_size
        weight[top_score == kth] = 0.0
    dcg += np.einsum("ij,ij->i", top_gain, weight)
    return dcg, crossing


def dense_dcg(score: np.ndarray, gain_of, k: int, discount: np.ndarray,
              chunk_rows: int = CHUNK_ROWS) -> tuple[np.ndarray, int]:
    """Expected DCG@k of every row under ties=expected, and how many rows have a
    tied group crossing the cutoff.

    ``gain_of(start, stop)`` gives the gains of rows start..stop (computed per
    chunk, so the gain matrix is never held whole). ``discount[i]`` is the
    discount of rank i + 1, at least min(k, columns) long.
    """
    rows, m = score.shape
    cumulative = np.concatenate([[0.0], np.cumsum(discount[: min(k, m)])])
    dcg = np.empty(rows)
    crossing = 0
    for start, stop in _chunks(rows, chunk_rows):
        dcg[start:stop], crossed = _chunk_dcg(score[start:stop], gain_of(start, stop), k, cumulative)
        crossing += int(crossed.sum())
    return dcg, crossing


def dense_ideal_dcg(grade: np.ndarray, gain_of, gain_of_grade, k: int, discount: np.ndarray,
                    chunk_rows: int = CHUNK_ROWS) -> np.ndarray:
    """DCG@k of each row's gains in their best order (only positive gains count).

    ``gain_of_grade(levels)`` maps grade values to gains (for counting by grade).
    """
    rows, m = grade.shape
    k = min(k, m)
    cumulative = np.concatenate([[0.0], np.cumsum(discount[:k])])
    ideal = np.empty(rows)
    levels = None
    if rows and np.issubdtype(grade.dtype, np.integer):
        low, high = int(grade.min()), int(grade.max())
        if high - low < 16:
            levels = np.arange(low, high + 1)
            level_gain = gain_of_grade(levels)
            keep = level_gain > 0
            # Best order: grades by gain descending (a gain map need not follow the grade).
            by_gain = np.argsort(-level_gain[keep], kind="stable")
            levels, level_gain = levels[keep][by_gain], level_gain[keep][by_gain]
    for start, stop in _chunks(rows, chunk_rows):
        if levels is not None:
            block = grade[start:stop]
            total = np.zeros(stop - start)
            before = np.zeros(stop - start, dtype=np.int64)
            for level, level_gain_value in zip(levels.tolist(), level_gain.tolist()):
                after = before + np.count_nonzero(block == level, axis=1)
                total += level_gain_value * (cumulative[np.minimum(after, k)] - cumulative[np.minimum(before, k)])
                before = after
            ideal[start:stop] = total
        else:
            gains = np.maximum(gain_of(start, stop), 0.0)
            top = np.partition(gains, m - k, axis=1)[:, m - k:] if k < m else gains
            top = -np.sort(-top, axis=1)
            ideal[start:stop] = top @ discount[:k]
    return ideal
