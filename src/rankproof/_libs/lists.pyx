# cython: language_level=3
"""The compiled loops of the per-list side-data measures (intra-list diversity).

Inputs are flat arrays built by :mod:`rankproof.recsys.beyond` (typed
memoryviews, trusted): ``offsets`` (lists + 1,) bounds each list's positions
in ``bits``, one row of uint64 words per position (the item's category set as
a bitset, ``words`` words wide).

Each list writes only its own output, so the lists are split between
threads (OpenMP) and the result does not depend on their number. Within a
list the sums are added in the order of the vectorised reference
(``_pair_sums`` of rankproof.recsys.beyond): for each offset d = 1, 2, ...
the distances of the pairs (p, p + d) in position order, then that sum added
to the list's total, so the two give the same float, to the last bit.
"""

from libc.stdint cimport int64_t, uint64_t
from cython.parallel cimport prange

import numpy as np


cdef extern from *:
    """
    static inline int64_t rankproof_popcount(uint64_t x) { return (int64_t)__builtin_popcountll(x); }
    """
    int64_t rankproof_popcount(uint64_t x) noexcept nogil


cdef inline double _jaccard_distance(const uint64_t* a, const uint64_t* b, int64_t words) noexcept nogil:
    """1 - |A & B| / |A | B| of two bitsets (never both empty: the caller refuses an empty set)."""
    cdef int64_t w, inter = 0, union = 0
    for w in range(words):
        inter += rankproof_popcount(a[w] & b[w])
        union += rankproof_popcount(a[w] | b[w])
    return 1.0 - (<double>inter) / (<double>union)


cdef double _list_jaccard(const uint64_t[:, ::1] bits, int64_t start, int64_t end, int64_t words) noexcept nogil:
    cdef int64_t d, p
    cdef double total = 0.0, step
    for d in range(1, end - start):
        step = 0.0
        for p in range(start, end - d):
            step += _jaccard_distance(&bits[p, 0], &bits[p + d, 0], words)
        total += step
    return total


def jaccard_pair_sums(const int64_t[::1] offsets, const uint64_t[:, ::1] bits):
    """Per list, the sum over its pairs of positions i < j of the Jaccard distance of their bitsets."""
    cdef int64_t lists = offsets.shape[0] - 1, words = bits.shape[1], q
    out = np.zeros(max(lists, 0), dtype=np.float64)
    cdef double[::1] total = out
    if lists <= 0 or words == 0:
        return out
    with nogil:
        for q in prange(lists, schedule="static"):
            total[q] = _list_jaccard(bits, offsets[q], offsets[q + 1], words)
    return out
