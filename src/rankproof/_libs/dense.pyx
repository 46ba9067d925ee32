# cython: language_level=3
"""Compiled DCG@k and ideal DCG@k of every row of a dense score matrix.

A few passes per row, in C, with no temporary the size of the matrix. Row
i's candidates are its entries whose score is not NaN; each is judged, with
the grade ``grade[i, j]``. Under ``ties=expected`` (McSherry & Najork 2008):

- a lower bound t of the k-th largest score: the least of the maxima of k
  groups of columns (each maximum is another entry, so at least k entries
  score t or more); every entry scored below t is outside the top k and
  outside the tied group at rank k, and is dropped by one comparison (with
  k = 10 of 50 columns, about half of the row is kept);
- the top k kept scores are found by insertion into a buffer of k (most
  are rejected by one comparison with the k-th largest so far);
- v, the smallest of them, splits the row: every entry scored above v is in
  the top k, and is sorted there with its ties (a tied group of n entries
  holding ranks r+1 .. r+n adds mean gain x sum of their discounts);
- the group of entries scored exactly v starts after the nb entries above
  it and may reach past the cutoff: it adds
  (gain sum / size) x (D[min(nb + size, k)] - D[nb]), with D the cumulative
  discount, its size and gain sum read from the kept entries (all of the
  group is kept: v >= t);
- the ideal DCG@k is the top k positive gains of the row's candidates:
  integer grades are counted per grade during the same pass (in 8-bit
  fields of two machine words for grades 0-15, a table for 16-63) and taken
  by gain descending; other grades are sorted by insertion.

Scores are float64 or float32 (read as they are: every float32 is a
float64, so the order and the ties are the input's); grades int64, int32
or float64. Gains: linear (g), exp2 (2^g - 1) or a table indexed by integer
grade (grades outside it gain 0). Rows are split between threads (OpenMP).
The reference is the general path (:meth:`rankproof.kernels.ranked.Ranked.dcg`
over the aligned rows); a test holds this kernel to it.
"""

from libc.math cimport INFINITY, isnan
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from cython.parallel cimport parallel, prange

from .common cimport TABLE, gain_by_formula

import numpy as np

ctypedef fused score_t:
    float
    double

ctypedef fused grade_t:
    int64_t
    int32_t
    double


cdef inline double _gain(double grade, int64_t kind, const double* table,
                         int64_t table_size) noexcept nogil:
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


cdef inline double _lower_bound(const score_t* score, int64_t m, int64_t kk,
                                double* maxima) noexcept nogil:
    """A score t with at least kk candidates scored t or more, so every entry scored below t is
    outside the top kk and outside the group at the kk-th score: the least of the maxima of kk
    strided groups of columns (group g: columns g, g + kk, ...), each maximum being another entry.
    -inf (no entry left out) when the row is shorter than 2 kk, where it would leave out little."""
    cdef int64_t j, g
    cdef double s, t
    if m < 2 * kk:
        return -INFINITY
    for g in range(kk):
        maxima[g] = -INFINITY
    j = 0
    while j + kk <= m:
        for g in range(kk):  # contiguous: vectorised; a NaN is never the maximum
            s = score[j + g]
            maxima[g] = s if s > maxima[g] else maxima[g]
        j += kk
    t = maxima[0]
    for g in range(1, kk):
        t = maxima[g] if maxima[g] < t else t
    return t


cdef int64_t _keep(const score_t* score, int64_t m, double t, double* kept,
                   int64_t* kept_at) noexcept nogil:
    """The entries scored t or more (NaN never is), in column order, into `kept` / `kept_at`; their number."""
    cdef int64_t j, n = 0
    cdef double s
    for j in range(m):
        s = score[j]
        kept[n] = s  # written always, kept by the count: no branch to mispredict
        kept_at[n] = j
        n += s >= t
    return n


cdef int64_t _keep_counting(const score_t* score, const grade_t* grade, int64_t m, double t,
                            double* kept,
                            int64_t* kept_at, int64_t* per_level) noexcept nogil:
    """:func:`_keep`, and each integer grade's number of candidates into per_level[0 .. 16), counted
    in 8-bit fields of two words per block of 255 entries (no memory traffic per entry). Returns
    -1 - n when a candidate's grade is outside [0, 16) (then per_level is not filled)."""
    cdef int64_t j, n = 0, start, stop, level
    cdef double s
    cdef uint64_t grade_bits, one, low, high, outside = 0
    cdef bint candidate
    for level in range(16):
        per_level[level] = 0
    for start in range(0, m, 255):
        stop = start + 255 if start + 255 < m else m
        low = 0
        high = 0
        for j in range(start, stop):
            s = score[j]
            candidate = not isnan(s)
            grade_bits = <uint64_t>grade[j]  # a negative grade wraps to a large one: outside
            outside |= (grade_bits >= 16) & candidate
            one = (<uint64_t>candidate) << ((grade_bits & 7) * 8)
            low += one if grade_bits < 8 else 0
            high += one if grade_bits >= 8 else 0
            kept[n] = s
            kept_at[n] = j
            n += s >= t
        for level in range(8):
            per_level[level] += <int64_t>((low >> (8 * level)) & 255)
            per_level[level + 8] += <int64_t>((high >> (8 * level)) & 255)
    return -1 - n if outside else n


cdef bint _count_levels(const score_t* score, const grade_t* grade, int64_t m,
                        int64_t* per_level) noexcept nogil:
    """Each integer grade's number of candidates into per_level[0 .. 64); False if a grade is outside."""
    cdef int64_t j, level
    for level in range(64):
        per_level[level] = 0
    for j in range(m):
        if not isnan(score[j]):
            level = <int64_t>grade[j]
            if level < 0 or level >= 64:
                return False
            per_level[level] += 1
    return True


cdef int64_t _top(const double* kept, const int64_t* kept_at, int64_t n, int64_t kk, double* top,
                  int64_t* top_at) noexcept nogil:
    """The top kk of the n candidates in descending order with their columns (insertion: most
    candidates are rejected by one comparison with the kk-th largest so far); their number."""
    cdef int64_t c, at, count = 0
    cdef double s, least = 0.0
    for c in range(n):
        s = kept[c]
        if count == kk:
            if s <= least:
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
        top_at[at] = kept_at[c]
        least = top[count - 1]
    return count


cdef double _row_dcg(const score_t* score, const grade_t* grade, int64_t m, int64_t kk,
                     const double* discount, const double* cumulative, int64_t gain_kind,
                     const double* table,
                     int64_t table_size, double* scratch, int64_t* columns, uint8_t* crossing,
                     int64_t* per_level, int64_t* levels) noexcept nogil:
    """Expected DCG@k of one row (see the module docstring).

    The candidates that can be in the top k (those scored at least
    :func:`_lower_bound`, with every entry of the group at the k-th score)
    are kept first; their top k, sorted with their columns, holds every
    entry scored above v, the smallest of them, in order; the group scored
    exactly v is read from the kept candidates. Integer grades are counted
    per grade for the ideal (`levels`: the grades counted, 16 or 64; 0 when
    a grade is outside [0, 64) and the ideal sorts gains instead).
    `scratch` holds 2 m + kk doubles, `columns` m + kk.
    """
    cdef int64_t j, r, e, n, count, above = 0, tied = 0
    cdef double t, v, tied_gain = 0.0, group_gain, total = 0.0
    cdef double* kept = scratch
    cdef double* top = scratch + m
    cdef int64_t* top_at = columns + m
    t = _lower_bound(score, m, kk, scratch + m + kk)
    if grade_t is double:
        n = _keep(score, m, t, kept, columns)
        levels[0] = 0
    else:
        n = _keep_counting(score, grade, m, t, kept, columns, per_level)
        levels[0] = 16
        if n < 0:  # a grade outside [0, 16): counted again, up to 64
            n = -1 - n
            levels[0] = 64 if _count_levels(score, grade, m, per_level) else 0
    count = _top(kept, columns, n, kk, top, top_at)
    if count == 0:
        return 0.0
    v = top[count - 1]
    # -- the entries above v, by tied group (the order inside a group does not matter: its mean is
    # used)
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
    # -- the group at v: every entry scored v is a kept candidate ----------
    for j in range(n):
        if kept[j] == v:
            tied += 1
            tied_gain += _gain(<double>grade[columns[j]], gain_kind, table, table_size)
    e = above + tied if above + tied < kk else kk
    if tied == 1:
        total += tied_gain * discount[above]
    else:
        total += tied_gain / tied * (cumulative[e] - cumulative[above])
    crossing[0] = above + tied > kk
    return total


cdef double _row_ideal(const score_t* score, const grade_t* grade, int64_t m, int64_t kk,
                       const double* discount, const double* cumulative, int64_t gain_kind,
                       const double* table,
                       int64_t table_size, const int64_t* levels_by_gain, int64_t num_levels,
                       const int64_t* small_levels, int64_t num_small, const double* level_gain,
                       double* top, const int64_t* per_level, int64_t levels) noexcept nogil:
    """DCG@k of one row's positive gains in their best order.

    Integer grades in [0, `levels`) were counted by `_row_dcg`, not sorted:
    the grades are taken by gain descending (`levels_by_gain`, or
    `small_levels`, those below 16, when `levels` is 16), each filling the
    next ranks with its gain (`level_gain`). Any other grade (and a
    real-valued one: `levels` 0) falls back to an insertion of gains.
    """
    cdef int64_t j, r, count = 0, before = 0, after, level
    cdef double g, best = 0.0
    cdef const int64_t* order = small_levels if levels == 16 else levels_by_gain
    if levels:
        for r in range(num_small if levels == 16 else num_levels):
            if before >= kk:
                break
            level = order[r]
            after = before + per_level[level]
            if after > kk:
                after = kk
            if after > before:
                best += level_gain[level] * (cumulative[after] - cumulative[before])
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


def dense_dcg_parts(const score_t[:, ::1] score, const grade_t[:, ::1] grade, int64_t k,
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
    cdef const int64_t* levels_ptr = &levels_by_gain[0] if num_levels else NULL
    # The grades below 16 in the same order (what the packed counts hold), and every grade's gain.
    small_out = np.ascontiguousarray(np.asarray(levels_by_gain)[np.asarray(levels_by_gain) < 16])
    cdef const int64_t[::1] small = small_out
    cdef int64_t num_small = small.shape[0]
    cdef const int64_t* small_ptr = &small[0] if num_small else NULL
    level_gain_out = np.array([_gain(<double>level, gain_kind, table, table_size)
                               for level in range(64)])
    cdef const double[::1] level_gain = level_gain_out
    cdef int64_t i
    cdef double* scratch = NULL
    cdef int64_t* columns = NULL
    cdef int64_t* per_level = NULL
    cdef int64_t levels = 0
    with nogil, parallel():
        # Scratch per thread: the kept candidates, the top k and the group maxima (doubles); their
        # columns; the count of each grade. `levels` is assigned in the block: one per thread.
        scratch = <double*>malloc((2 * m + kk) * sizeof(double))
        columns = <int64_t*>malloc((m + kk) * sizeof(int64_t))
        per_level = <int64_t*>malloc(64 * sizeof(int64_t))
        levels = 0
        if scratch != NULL and columns != NULL and per_level != NULL:
            # Dynamic chunks: on a shared machine a thread that is held up leaves its rows to the
            # other.
            for i in prange(rows, schedule="dynamic", chunksize=256):
                dcg[i] = _row_dcg(&score[i, 0], &grade[i, 0], m, kk, &discount[0], &cumulative[0],
                                  gain_kind,
                                  table, table_size, scratch, columns, &crossing[i], per_level,
                                  &levels)
                ideal[i] = _row_ideal(&score[i, 0], &grade[i, 0], m, kk, &discount[0],
                                      &cumulative[0],
                                      gain_kind, table, table_size, levels_ptr, num_levels,
                                      small_ptr, num_small,
                                      &level_gain[0], scratch, per_level, levels)
        free(scratch)
        free(columns)
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
