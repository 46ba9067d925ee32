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

CHUNK_ROWS = 4096


def _chunks(num_rows: int, chunk_rows: int):
    for start in range(0, num_rows, chunk_rows):
        yield start, min(start + chunk_rows, num_rows)


def _chunk_dcg(score: np.ndarray, grade: np.ndarray, gain_of, k: int,
               cumulative: np.ndarray, masked: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(expected DCG@k, does the tied group at the cutoff cross it) per row of one chunk.

    ``score`` and ``grade`` are C-contiguous: indices are taken flat, several
    times faster than ``take_along_axis``. Gains are computed only for the
    entries that can count (the top k and the group at the cutoff).
    ``masked``: entries scored -inf are not candidates (they reach the top k
    only in rows with fewer than k candidates, and then gain nothing).
    """
    rows, m = score.shape
    k = min(k, m)
    flat_score, flat_grade = score.ravel(), grade.ravel()
    row_base = np.arange(rows)[:, None]
    if k < m:
        top = np.argpartition(score, m - k, axis=1)[:, m - k:]
        top += row_base * m
    else:
        top = row_base * m + np.arange(m)
    # Ascending, then read backwards: the order inside a tied group does not matter.
    order = np.argsort(flat_score.take(top), axis=1)[:, ::-1]
    order += row_base * k
    top = top.ravel().take(order)  # flat indices of the top k, score descending
    top_score = flat_score.take(top)
    top_gain = flat_grade.take(top).astype(np.float64) if gain_of is None else gain_of(flat_grade.take(top))
    if masked:
        top_gain[top_score == -np.inf] = 0.0

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
    if masked:
        crossing &= kth[:, 0] != -np.inf
    dcg = np.zeros(rows)
    if crossing.any():
        last_start = start[:, -1]
        if gain_of is None:  # linear gain: the grades are the gains
            tied_gain = np.einsum("ij,ij->i", grade, at_kth, dtype=np.float64)
        else:
            tied = np.flatnonzero(at_kth.ravel())
            tied_gain = np.bincount(tied // m, weights=gain_of(flat_grade.take(tied)), minlength=rows)
        dcg += np.where(crossing, tied_gain * (cumulative[k] - cumulative[last_start]) / full_size, 0.0)
        weight[crossing[:, None] & (top_score == kth)] = 0.0
    dcg += np.einsum("ij,ij->i", top_gain, weight)
    return dcg, crossing


def dense_dcg(score: np.ndarray, grade: np.ndarray, gain_of, k: int, discount: np.ndarray,
              masked: bool = False, chunk_rows: int = CHUNK_ROWS) -> np.ndarray:
    """Expected DCG@k of every row under ties=expected.

    ``gain_of(grades)`` maps an array of grades to gains (so the gain matrix is
    never built); None means linear gain (the grades are the gains).
    ``discount[i]`` is the discount of rank i + 1, at least min(k, columns)
    long. ``masked``: scores of -inf mark entries that are not candidates.
    """
    rows, m = score.shape
    cumulative = np.concatenate([[0.0], np.cumsum(discount[: min(k, m)])])
    dcg = np.empty(rows)
    for start, stop in _chunks(rows, chunk_rows):
        dcg[start:stop] = _chunk_dcg(score[start:stop], grade[start:stop], gain_of, k, cumulative, masked)[0]
    return dcg


def dense_ideal_dcg(grade: np.ndarray, gain_of, k: int, discount: np.ndarray, mask: np.ndarray | None = None,
                    chunk_rows: int = CHUNK_ROWS) -> np.ndarray:
    """DCG@k of each row's gains in their best order (only positive gains count).

    ``mask`` (optional, same shape) marks entries that are not candidates;
    their grade must be 0 in ``grade``.

    With integer grades in a range of fewer than 64 values, the best order is
    counted, not sorted: one ``bincount`` gives the number of docs of each
    grade in each row, and grades are taken by gain descending (a gain map
    need not follow the grade). Otherwise a row-wise partition finds the top k.
    """
    rows, m = grade.shape
    k = min(k, m)
    cumulative = np.concatenate([[0.0], np.cumsum(discount[:k])])
    ideal = np.empty(rows)
    for start, stop in _chunks(rows, chunk_rows):
        block = grade[start:stop]
        block_mask = mask[start:stop] if mask is not None else None
        # Grade range per chunk: the chunk is read while it is in cache.
        counted = block.dtype.kind in "iu"
        if counted:
            low, high = int(block.min()), int(block.max())
            counted = high - low < 64
        if counted:
            ideal[start:stop] = _counted_ideal(block, block_mask, low, high, gain_of, k, cumulative)
        else:
            gains = np.maximum(gain_of(block), 0.0)
            if block_mask is not None:
                gains[block_mask] = 0.0
            top = np.partition(gains, m - k, axis=1)[:, m - k:] if k < m else gains
            top = -np.sort(-top, axis=1)
            ideal[start:stop] = top @ discount[:k]
    return ideal


def _counted_ideal(block: np.ndarray, block_mask, low: int, high: int, gain_of, k: int,
                   cumulative: np.ndarray) -> np.ndarray:
    """Ideal DCG@k of rows of integer grades from the count of each grade per row."""
    rows = block.shape[0]
    levels = np.arange(low, high + 1)
    level_gain = gain_of(levels)
    # Grades by gain descending; only positive gains enter the ideal.
    by_gain = np.argsort(-level_gain, kind="stable")
    by_gain = by_gain[level_gain[by_gain] > 0]
    count = len(levels)
    key = (block - (low - np.arange(rows) * count)[:, None]).ravel()
    per_level = np.bincount(key, minlength=rows * count).reshape(rows, count)
    if block_mask is not None:  # masked entries were counted as grade 0
        per_level[:, -low] -= np.count_nonzero(block_mask, axis=1)
    total = np.zeros(rows)
    before = np.zeros(rows, dtype=np.int64)
    for level in by_gain.tolist():
        after = before + per_level[:, level]
        total += level_gain[level] * (cumulative[np.minimum(after, k)] - cumulative[np.minimum(before, k)])
        before = after
    return total
