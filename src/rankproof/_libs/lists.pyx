# cython: language_level=3
"""The compiled loops of the per-list side-data measures (intra-list diversity, list means).

Inputs are flat arrays built by :mod:`rankproof.recsys.beyond` (typed
memoryviews, trusted): ``offsets`` (lists + 1,) bounds each list's positions
in ``bits``, one row of uint64 words per position (the item's category set as
a bitset, ``words`` words wide). The ``_read`` variants read a position's
value through the side cut's arrays instead of a copy per position: position
p is the run's row ``rows[p]``, its item code ``codes[rows[p]]``, and the
value the item's (``values[codes[rows[p]]]``, ``bits[item_at[codes[rows[p]]]]``). An empty
``rows`` is the cut of a run whose rows are in rank order: each list's positions are its first
rows, position p of list q the row ``starts[q] + p - offsets[q]`` (``starts``: the run's offsets),
and no array as long as the positions is made.

Each list writes only its own output, so the lists are split between
threads (OpenMP) and the result does not depend on their number. Within a
list the sums are added in the order of the vectorised reference
(``_pair_sums`` of rankproof.recsys.beyond): for each offset d = 1, 2, ...
the distances of the pairs (p, p + d) in position order, then that sum added
to the list's total, so the two give the same float, to the last bit.
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.math cimport isnan
from cython.parallel cimport prange

import numpy as np


# The bits set in a word, by additions within the word (SWAR): without -mpopcnt (a wheel runs on
# any x86-64) __builtin_popcountll is a call into libgcc for every word.
cdef extern from *:
    """
    static inline int64_t rankproof_popcount(uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
        return (int64_t)((x * 0x0101010101010101ULL) >> 56);
    }
    """
    int64_t rankproof_popcount(uint64_t x) noexcept nogil


# OpenMP's thread count for the calling thread's next parallel loops (without OpenMP, elsewhere
# than Linux, every loop runs on one thread and these do nothing).
cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #else
    static int omp_get_max_threads(void) { return 1; }
    static void omp_set_num_threads(int n) { (void)n; }
    #endif
    """
    int omp_get_max_threads() noexcept nogil
    void omp_set_num_threads(int n) noexcept nogil


def loop_threads(int threads):
    """Set how many threads the calling thread's parallel loops use from now on (OpenMP's
    nthreads, a setting of each thread of its own); return the previous count. A thread that
    computes beside other work (the side measures beside the evaluation) takes one: a second team
    of threads would wait for the cores the other work holds."""
    cdef int previous = omp_get_max_threads()
    omp_set_num_threads(max(threads, 1))
    return previous


cdef inline double _jaccard_distance(const uint64_t* a, const uint64_t* b,
                                     int64_t words) noexcept nogil:
    """1 - |A & B| / |A | B| of two bitsets (never both empty: the caller refuses an empty set)."""
    cdef int64_t w, inter = 0, union = 0
    for w in range(words):
        inter += rankproof_popcount(a[w] & b[w])
        union += rankproof_popcount(a[w] | b[w])
    return 1.0 - (<double>inter) / (<double>union)


cdef double _list_jaccard(const uint64_t[:, ::1] bits, int64_t start, int64_t end,
                          int64_t words) noexcept nogil:
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


# Lists up to this long with one word of categories (64 or fewer) take the fast path below.
cdef enum:
    LOCAL = 64
    TABLE_SIDE = 65


cdef inline int64_t _row(const int64_t[::1] rows, bint first, int64_t shift,
                         int64_t p) noexcept nogil:
    """The run row of position p: ``rows[p]``, or ``p + shift`` when the cut is each list's first
    rows (`first`; `shift` is the list's first row less its first position)."""
    return p + shift if first else rows[p]


cdef double _read_jaccard(const uint64_t[:, ::1] bits, const int64_t[::1] rows, bint first,
                          int64_t shift, const int64_t[::1] codes, const int64_t[::1] item_at,
                          int64_t start, int64_t end, int64_t words,
                          const double* table) noexcept nogil:
    """:func:`_list_jaccard` of positions start .. end, each position's bitset read through its row.

    With one word and at most LOCAL positions, the list's bitsets are read once into a local
    array with their sizes, so that a pair costs one AND and one popcount: |A | B| is
    |A| + |B| - |A & B|, and 1 - i / u is read from `table` (the same double, computed once)."""
    cdef int64_t d, p, n = end - start, inter
    cdef double total = 0.0, step
    cdef uint64_t local[LOCAL]
    cdef int64_t size[LOCAL]
    if words != 1 or n > LOCAL:
        for d in range(1, n):
            step = 0.0
            for p in range(start, end - d):
                step += _jaccard_distance(&bits[item_at[codes[_row(rows, first, shift, p)]], 0],
                                          &bits[item_at[codes[_row(rows, first, shift, p + d)]], 0],
                                          words)
            total += step
        return total
    for p in range(n):
        local[p] = bits[item_at[codes[_row(rows, first, shift, start + p)]], 0]
        size[p] = rankproof_popcount(local[p])
    for d in range(1, n):
        step = 0.0
        for p in range(n - d):
            inter = rankproof_popcount(local[p] & local[p + d])
            step += table[inter * TABLE_SIDE + size[p] + size[p + d] - inter]
        total += step
    return total


def jaccard_pair_sums_read(const int64_t[::1] offsets, const int64_t[::1] rows,
                           const int64_t[::1] starts, const int64_t[::1] codes,
                           const int64_t[::1] item_at, const uint64_t[:, ::1] bits):
    """:func:`jaccard_pair_sums` with position p's bitset ``bits[item_at[codes[rows[p]]]]`` (the same
    floats, to the last bit, as the copied bitsets give); `rows` empty: each list's first rows
    (from ``starts``)."""
    cdef int64_t lists = offsets.shape[0] - 1, words = bits.shape[1], q, i, u
    cdef bint first = rows.shape[0] == 0
    out = np.zeros(max(lists, 0), dtype=np.float64)
    cdef double[::1] total = out
    # 1 - i / u for every intersection i and union u of one word's sets, as _jaccard_distance
    # computes it.
    table_array = np.zeros(TABLE_SIDE * TABLE_SIDE, dtype=np.float64)
    cdef double[::1] table = table_array
    if lists <= 0 or words == 0:
        return out
    for i in range(TABLE_SIDE):
        for u in range(1, TABLE_SIDE):
            table[i * TABLE_SIDE + u] = 1.0 - (<double>i) / (<double>u)
    with nogil:
        for q in prange(lists, schedule="static"):
            total[q] = _read_jaccard(bits, rows, first, starts[q] - offsets[q] if first else 0,
                                     codes, item_at, offsets[q], offsets[q + 1], words, &table[0])
    return out


def list_sums_read(const int64_t[::1] offsets, const int64_t[::1] rows, const int64_t[::1] starts,
                   const int64_t[::1] codes, const double[::1] values):
    """Per list, (the sum of ``values[codes[rows[p]]]`` over its positions p, how many were added):
    added from 0.0 in position order, as ``np.bincount(list, weights=...)`` adds them, so the same
    floats; a nan value is left out and not counted (an item a measure drops). `rows` empty: each
    list's first rows (from ``starts``)."""
    cdef int64_t lists = offsets.shape[0] - 1, q, p, n, shift
    cdef bint first = rows.shape[0] == 0
    cdef double s, v
    sums_array = np.zeros(max(lists, 0), dtype=np.float64)
    counts_array = np.zeros(max(lists, 0), dtype=np.int64)
    cdef double[::1] sums = sums_array
    cdef int64_t[::1] counts = counts_array
    if lists <= 0:
        return sums_array, counts_array
    with nogil:
        for q in prange(lists, schedule="static"):
            s = 0.0
            n = 0
            shift = starts[q] - offsets[q] if first else 0
            for p in range(offsets[q], offsets[q + 1]):
                v = values[codes[_row(rows, first, shift, p)]]
                if not isnan(v):
                    s = s + v
                    n = n + 1
            sums[q] = s
            counts[q] = n
    return sums_array, counts_array


def first_repeat(const int64_t[::1] offsets, const int64_t[::1] codes, int64_t num_codes):
    """The first row (in row order) whose code an earlier row of its list holds too, or -1.

    The lists are delimited by `offsets`; one pass, with the last list that held each code."""
    cdef int64_t lists = offsets.shape[0] - 1, p, c, found = -1
    cdef int32_t q
    if lists <= 0:
        return -1
    if lists > 2147483646:
        raise ValueError("more than 2^31 - 2 lists")
    seen_array = np.full(max(num_codes, 1), -1, dtype=np.int32)
    cdef int32_t[::1] seen = seen_array
    with nogil:
        for q in range(<int32_t>lists):
            for p in range(offsets[q], offsets[q + 1]):
                c = codes[p]
                if seen[c] == q:
                    found = p
                    break
                seen[c] = q
            if found >= 0:
                break
    return found


def code_counts_read(const int64_t[::1] offsets, const int64_t[::1] rows,
                     const int64_t[::1] starts, const int64_t[::1] codes, int64_t num_codes):
    """How many of the cut's positions hold each code (``np.bincount(codes[rows],
    minlength=num_codes)``, without the copy of a code per row): the items' top-k slots, read
    through the cut; `rows` empty: each list's first rows (from ``starts``)."""
    counts_array = np.zeros(max(num_codes, 0), dtype=np.int64)
    cdef int64_t[::1] counts = counts_array
    cdef int64_t n = rows.shape[0], p, q, lists = offsets.shape[0] - 1
    with nogil:
        if n:
            for p in range(n):
                counts[codes[rows[p]]] += 1
        else:
            for q in range(lists):
                for p in range(starts[q], starts[q] + offsets[q + 1] - offsets[q]):
                    counts[codes[p]] += 1
    return counts_array
