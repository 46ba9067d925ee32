# cython: language_level=3
"""Compiled DCG@k and ideal DCG@k of every row of a dense score matrix.

One pass per row, in C, with no temporary the size of the matrix. Row i's
candidates are its entries whose score is not NaN; each is judged, with the
grade ``grade[i, j]``. Under ``ties=expected`` (McSherry & Najork 2008):

- the top k scores are found by insertion into a buffer of k (most entries
  are rejected by one comparison with the k-th largest so far);
- v, the smallest of them, splits the row: every entry scored above v is in
  the top k, and is sorted there with its ties (a tied group of n entries
  holding ranks r+1 .. r+n adds mean gain x sum of their discounts);
- the group of entries scored exactly v starts after the nb entries above
  it and may reach past the cutoff: it adds
  (gain sum / size) x (D[min(nb + size, k)] - D[nb]), with D the cumulative
  discount, its size and gain sum read from the whole row;
- the ideal DCG@k is the top k positive gains of the row's candidates,
  sorted descending, by the same insertion.

Gains: linear (g), exp2 (2^g - 1) or a table indexed by integer grade
(grades outside it gain 0). The reference is the general path
(:meth:`rankproof.kernels.ranked.Ranked.dcg` over the aligned rows); a
test holds this kernel to it.
"""

from libc.math cimport isnan
from libc.stdint cimport int64_t, uint8_t, uint32_t
from libc.stdlib cimport free, malloc
from cython.parallel cimport parallel, prange

from .common cimport TABLE, gain_by_formula

import numpy as np

ctypedef fused grade_t:
    int64_t
    double


cdef inline double _gain(double grade, int64_t kind, const double* table, int64_t table_size) noexcept nogil:
    """The gain of a grade (kind: a GainKind of common.pxd); a table is indexed by
    integer grade, and gives 0 to any other grade."""
    # A raw pointer, not a memoryview: passing a memoryview costs a reference count per call.
    cdef int64_t g
    if kind != TABLE:
        return gain_by_formula(kind, grade)
    g = <int64_t>grade
    if g < 0 or g >= table_size or <double>g != grade:
        return 0.0
    return table[g]


cdef inline void _insert_descending(double* values, int64_t* count, int64_t capacity,
                                    double value) noexcept nogil:
    """Insert `value` into values[0 .. count) kept in descending order, at most
    `capacity` long (the smallest falls off when full)."""
    cdef int64_t at = count[0]
    if at == capacity:
        if value <= values[capacity - 1]:
            return
        at = capacity - 1
    else:
        count[0] += 1
    while at > 0 and values[at - 1] < value:
        values[at] = values[at - 1]
        at -= 1
    values[at] = value


cdef double _row_dcg(const double* score, const grade_t* grade, int64_t m, int64_t kk,
                     const double* discount, const double* cumulative, int64_t gain_kind, const double* table,
                     int64_t table_size, double* top, int64_t* top_at, uint8_t* crossing,
                     int64_t* per_level, bint* counted) noexcept nogil:
    """Expected DCG@k of one row (see the module docstring).

    The first pass keeps the top k scores sorted with their columns
    (`top`, `top_at`); the entries scored above v, the smallest of them,
    are all there, in order. The second pass reads the group scored exactly
    v from the whole row and, for integer grades, counts the candidates of
    each grade in [0, 64) into `per_level` for the ideal (`counted`: every
    grade was in that range).
    """
    cdef int64_t j, r, e, at, level, count = 0, above = 0, tied = 0
    cdef double s, v, tied_gain = 0.0, group_gain, total = 0.0
    cdef bint counting = grade_t is not double
    if counting:
        for r in range(64):
            per_level[r] = 0
    # -- the top k scores, in descending order, with their columns -----
    for j in range(m):
        s = score[j]
        if isnan(s):
            continue
        if count == kk:
            if s <= top[kk - 1]:
                continue
            at = kk - 1
        else:
            at = count
            count += 1
        while at > 0 and top[at - 1] < s:
            top[at] = top[at - 1]
            top_at[at] = top_at[at - 1]
            at -= 1
        top[at] = s
        top_at[at] = j
    if count == 0:
        counted[0] = counting  # no candidate: every level counts 0
        return 0.0
    v = top[count - 1]
    # -- the entries above v, by tied group (the order inside a group does not matter: its mean is used)
    while above < count and top[above] > v:
        above += 1
    r = 0
    while r < above:
        e = r + 1
        group_gain = _gain(<double>grade[top_at[r]], gain_kind, table, table_size)
        while e < above and top[e] == top[r]:
            group_gain += _gain(<double>grade[top_at[e]], gain_kind, table, table_size)
            e += 1
        if e == r + 1:
            total += group_gain * discount[r]  # untied: its own discount, in rank order
        else:
            total += group_gain / (e - r) * (cumulative[e] - cumulative[r])
        r = e
    # -- the group at v, from the whole row ------------------------------
    for j in range(m):
        s = score[j]
        if s == v:
            tied += 1
            tied_gain += _gain(<double>grade[j], gain_kind, table, table_size)
        if grade_t is not double:
            if counting and not isnan(s):
                level = <int64_t>grade[j]
                if level < 0 or level >= 64:
                    counting = False
                else:
                    per_level[level] += 1
    counted[0] = counting
    e = above + tied if above + tied < kk else kk
    if tied == 1:
        total += tied_gain * discount[above]
    else:
        total += tied_gain / tied * (cumulative[e] - cumulative[above])
    crossing[0] = above + tied > kk
    return total


cdef double _row_ideal(const double* score, const grade_t* grade, int64_t m, int64_t kk,
                       const double* discount, const double* cumulative, int64_t gain_kind, const double* table,
                       int64_t table_size, const int64_t* levels_by_gain, int64_t num_levels,
                       double* top, const int64_t* per_level, bint counted) noexcept nogil:
    """DCG@k of one row's positive gains in their best order.

    Integer grades in [0, 64) were counted by `_row_dcg` (`counted`), not
    sorted: the grades are taken by gain descending (`levels_by_gain`), each
    filling the next ranks. Any other grade (and a real-valued one) falls
    back to an insertion of gains.
    """
    cdef int64_t j, r, count = 0, before, after
    cdef int64_t level
    cdef double g, best = 0.0
    if counted:
        before = 0
        for r in range(num_levels):
            if before >= kk:
                break
            level = levels_by_gain[r]
            after = before + per_level[level]
            if after > kk:
                after = kk
            if after > before:
                best += _gain(<double>level, gain_kind, table, table_size) * (cumulative[after] - cumulative[before])
            before = after
        return best
    for j in range(m):
        if isnan(score[j]):
            continue
        g = _gain(<double>grade[j], gain_kind, table, table_size)
        if g > 0.0:
            _insert_descending(top, &count, kk, g)
    for r in range(count):
        best += top[r] * discount[r]
    return best


def dense_dcg_parts(const double[:, ::1] score, const grade_t[:, ::1] grade, int64_t k,
                    const double[::1] discount, int64_t gain_kind, const double[::1] gain_table,
                    const int64_t[::1] levels_by_gain):
    """(expected DCG@k, ideal DCG@k, does the tied group at rank k cross the cutoff) per row.

    ``discount[r]`` is the discount of rank r + 1 (at least min(k, columns)
    long); ``gain_kind``: 0 linear, 1 exp2, 2 ``gain_table[grade]``;
    ``levels_by_gain``: the grades 0..63 of positive gain, by gain descending.
    Rows are split between threads (OpenMP); each row's values are computed
    alone, so the result does not depend on the number of threads.
    """
    cdef int64_t rows = score.shape[0], m = score.shape[1]
    cdef int64_t kk = k if k < m else m
    dcg_out = np.zeros(rows)
    ideal_out = np.zeros(rows)
    crossing_out = np.zeros(rows, dtype=np.bool_)
    cdef double[::1] dcg = dcg_out
    cdef double[::1] ideal = ideal_out
    cdef uint8_t[::1] crossing = crossing_out.view(np.uint8)
    if rows == 0 or kk <= 0:
        return dcg_out, ideal_out, crossing_out
    cumulative_out = np.concatenate([[0.0], np.cumsum(np.asarray(discount)[:kk])])
    cdef const double[::1] cumulative = cumulative_out
    cdef int64_t table_size = gain_table.shape[0]
    cdef const double* table = &gain_table[0] if table_size else NULL
    cdef int64_t num_levels = levels_by_gain.shape[0]
    cdef const int64_t* levels = &levels_by_gain[0] if num_levels else NULL
    cdef int64_t i
    cdef double* scratch = NULL
    cdef int64_t* per_level = NULL
    cdef bint counted = False
    with nogil, parallel():
        # Scratch per thread: the top k scores and their columns (int64, as wide as a double).
        scratch = <double*>malloc(2 * kk * sizeof(double))
        per_level = <int64_t*>malloc(64 * sizeof(int64_t))
        counted = False  # assigned in the parallel block: one per thread, as the scratch
        if scratch != NULL and per_level != NULL:
            for i in prange(rows, schedule="static"):
                dcg[i] = _row_dcg(&score[i, 0], &grade[i, 0], m, kk, &discount[0], &cumulative[0], gain_kind,
                                  table, table_size, scratch, <int64_t*>(scratch + kk), &crossing[i],
                                  per_level, &counted)
                ideal[i] = _row_ideal(&score[i, 0], &grade[i, 0], m, kk, &discount[0], &cumulative[0],
                                      gain_kind, table, table_size, levels, num_levels, scratch, per_level,
                                      counted)
        free(scratch)
        free(per_level)
    return dcg_out, ideal_out, crossing_out


def decimal_names(int64_t rows):
    """The decimal numbers 0 .. rows - 1 as numpy's fixed-width unicode strings (``<U{width}``).

    Written as UTF-32 code points straight into the array's buffer, left
    aligned and padded with 0 (numpy's padding): the same array as
    ``np.arange(rows).astype(str)``, about 20 times faster.
    """
    cdef int64_t width = len(str(rows - 1 if rows > 1 else 0))
    out = np.zeros((rows, width), dtype=np.uint32)
    cdef uint32_t[:, ::1] points = out
    cdef uint32_t digits[24]
    cdef int64_t i, n, length, d
    with nogil:
        for i in range(rows):
            n = i
            length = 0
            while True:
                digits[length] = 48 + <uint32_t>(n % 10)
                n //= 10
                length += 1
                if n == 0:
                    break
            for d in range(length):
                points[i, d] = digits[length - 1 - d]
    return out.view(f"<U{width}").reshape(rows)
