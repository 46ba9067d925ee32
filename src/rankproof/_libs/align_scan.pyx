# cython: language_level=3
"""Compiled passes of the pipeline's alignment (:mod:`rankproof.pipeline`).

These loops compute facts about rows; they interpret no policy. The pipeline
reads their outputs and applies the protocol (refuse a duplicate, drop an
unjudged doc, ...), so every policy stays in one Python module.

:func:`mark_rows` replaces a sort of every (query, doc) key of the run with
one pass over the rows, query by query, with a table indexed by doc code:

- each of the query's judgments stamps its doc with the query's number and
  the judgment's row (and each negative-grade "pooled only" judgment stamps
  a second field);
- each ranked row then reads its doc's stamps: judged (and with which
  grade), pooled, and whether an earlier row of the same query already
  ranked the doc (a duplicate).

Stamping with the query's number, not a flag, means the table is never
cleared between queries. One slot holds every stamp of a doc (32 bytes), so a
row costs one cache miss however many facts it reads. The cost is
O(rows + judgments) against O(rows log rows) for the sort it replaces.

:func:`cutoff_counts` counts, per cutoff k, the unjudged docs that can land
in the top k (their group of averaged ties starts inside it) and the groups
of tied scores holding both rank k and rank k + 1, walking each query's
groups once.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

import numpy as np

ctypedef fused grade_t:
    int64_t
    double


cdef extern from *:
    """
    #define RANKPROOF_PREFETCH(address) __builtin_prefetch(address)
    """
    void RANKPROOF_PREFETCH(const void* address) noexcept nogil

# Slots hold query numbers and judgment rows as int32 (16 bytes a slot, so a
# table of a million docs fits in the L3 cache); more than 2^31 - 1 queries or
# judgments would not fit in memory anyway, and are refused.
cdef enum:
    LARGEST = 2147483647
# Rows ahead whose slots are fetched into the cache while this row is read.
cdef enum:
    AHEAD = 16

cdef struct DocSlot:
    int32_t seen      # last query whose ranking held the doc
    int32_t judged    # last query that judged the doc
    int32_t pooled    # last query whose pool holds the doc with a negative grade (read as unjudged)
    int32_t judgment  # row of that judgment, in the judgments' arrays


def mark_rows(const int64_t[::1] offsets, const int64_t[::1] row_doc, int64_t num_docs,
              const int64_t[::1] judged_query, const int64_t[::1] judged_doc,
              grade_t[::1] judged_grade,
              const int64_t[::1] pooled_query, const int64_t[::1] pooled_doc):
    """Duplicate, judged, grade and pooled flags of ranked rows.

    Parameters
    ----------
    offsets : int64 array
        The rows of query q are ``offsets[q] .. offsets[q + 1]`` (non-decreasing,
        from 0 to the number of rows; a query may have none): the queries'
        offsets rather than a query number per row, which would cost a column
        as long as the rows.
    row_doc : int64 array
        The ranked rows' doc codes (``0 <= code < num_docs``).
    judged_query, judged_doc, judged_grade : arrays
        Judgments of docs the run ranks somewhere, sorted by query number;
        doc codes in the run's vocabulary.
    pooled_query, pooled_doc : int64 arrays
        Pool entries read as unjudged (negative grades under
        ``negative_grades=unjudged``), sorted by query number.

    Returns
    -------
    repeated, judged, pooled : bool arrays, per row
        ``repeated``: an earlier row of the same query ranks the same doc.
    grade : array of judged_grade's dtype, per row (0 when unjudged)

    >>> import numpy as np
    >>> offsets = np.array([0, 3, 4], dtype=np.int64); d = np.array([2, 0, 2, 2], dtype=np.int64)
    >>> jq = np.array([0, 1], dtype=np.int64); jd = np.array([2, 0], dtype=np.int64)
    >>> none = np.zeros(0, dtype=np.int64)
    >>> [a.tolist() for a in mark_rows(offsets, d, 3, jq, jd, np.array([3, 1], dtype=np.int64), none, none)]
    [[False, False, True, False], [True, False, True, False], [3, 0, 3, 0], [True, False, True, False]]
    """
    cdef int64_t n = row_doc.shape[0], m = judged_query.shape[0], p = pooled_query.shape[0]
    cdef int64_t num_queries = offsets.shape[0] - 1, i, j = 0, k = 0, d, hi
    cdef int32_t q
    if num_queries < 0 or offsets[0] != 0 or offsets[num_queries] != n:
        raise ValueError("offsets must run from 0 to the number of rows")
    _check_sorted(offsets, "offsets")
    _check_sorted(judged_query, "judged_query")
    _check_sorted(pooled_query, "pooled_query")
    _check_codes(row_doc, num_docs, "row_doc")
    _check_codes(judged_doc, num_docs, "judged_doc")
    _check_codes(pooled_doc, num_docs, "pooled_doc")
    if judged_grade.shape[0] != m:
        raise ValueError("judged_grade and judged_query differ in length")
    if m > LARGEST or num_queries > LARGEST or (m and judged_query[m - 1] >= LARGEST) \
            or (p and pooled_query[p - 1] >= LARGEST):
        raise ValueError("more than 2^31 - 1 queries or judgments")

    repeated_array = np.zeros(n, dtype=np.bool_)
    judged_array = np.zeros(n, dtype=np.bool_)
    pooled_array = np.zeros(n, dtype=np.bool_)
    grade_array = np.zeros(n, dtype=np.asarray(judged_grade).dtype)
    cdef uint8_t[::1] repeated = repeated_array.view(np.uint8)
    cdef uint8_t[::1] judged = judged_array.view(np.uint8)
    cdef uint8_t[::1] pooled = pooled_array.view(np.uint8)
    cdef grade_t[::1] grade = grade_array
    if n == 0:
        return repeated_array, judged_array, grade_array, pooled_array

    cdef DocSlot* slots = <DocSlot*>malloc(max(num_docs, 1) * sizeof(DocSlot))
    if slots == NULL:
        raise MemoryError()
    try:
        with nogil:
            for d in range(num_docs):
                slots[d].seen = -1
                slots[d].judged = -1
                slots[d].pooled = -1
            for q in range(<int32_t>num_queries):
                i, hi = offsets[q], offsets[q + 1]
                if i == hi:
                    continue  # a query without rows: its judgments meet no row
                # The query's judgments and pool entries (queries the run does
                # not rank are skipped: their judgments meet no row).
                while j < m and judged_query[j] < q:
                    j += 1
                while j < m and judged_query[j] == q:
                    slots[judged_doc[j]].judged = q
                    slots[judged_doc[j]].judgment = <int32_t>j
                    j += 1
                while k < p and pooled_query[k] < q:
                    k += 1
                while k < p and pooled_query[k] == q:
                    slots[pooled_doc[k]].pooled = q
                    k += 1
                while i < hi:
                    if i + AHEAD < n:
                        RANKPROOF_PREFETCH(&slots[row_doc[i + AHEAD]])
                    d = row_doc[i]
                    if slots[d].seen == q:
                        repeated[i] = 1
                    slots[d].seen = q
                    if slots[d].judged == q:
                        judged[i] = 1
                        pooled[i] = 1
                        grade[i] = judged_grade[slots[d].judgment]
                    elif slots[d].pooled == q:
                        pooled[i] = 1
                    i += 1
    finally:
        free(slots)
    return repeated_array, judged_array, grade_array, pooled_array


cdef inline int64_t _index_after(const int64_t[::1] offsets, int64_t lo, int64_t hi,
                                 int64_t position) noexcept nogil:
    """The index of the first of offsets[lo .. hi] past `position` (the end of
    the group holding it), by binary search; offsets[hi] must be past it."""
    cdef int64_t mid
    while lo < hi:
        mid = (lo + hi) // 2
        if offsets[mid] > position:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline int64_t _first_offset_after(const int64_t[::1] offsets, int64_t lo, int64_t hi,
                                        int64_t position) noexcept nogil:
    """The first of offsets[lo .. hi] past `position` (the end of the group holding it)."""
    return offsets[_index_after(offsets, lo, hi, position)]


def cutoff_counts(const int64_t[::1] offsets, const int64_t[::1] group_offsets,
                  const int64_t[::1] tie_offsets, const uint8_t[::1] judged,
                  const int64_t[::1] cutoffs):
    """Per cutoff k: unjudged docs inside the top k, and tied groups crossing rank k.

    Docs before the group holding rank k (``group_offsets``: what the
    measures average over) are inside; of that group, which crosses the
    cutoff when it is a tie averaged over, only as many unjudged docs as it
    has slots inside the top k can be there at once: min(its unjudged docs,
    its slots). So the count never exceeds k per query. A tie group
    (``tie_offsets``: runs of equal scores) crosses when it holds both rank
    k and rank k + 1.

    Returns (unjudged, crossing), int64 arrays aligned with `cutoffs`.

    >>> import numpy as np
    >>> i64 = lambda *v: np.array(v, dtype=np.int64)
    >>> judged = np.array([1, 0, 0, 1], dtype=np.uint8)   # one query of 4 docs: ranks 2 and 3 tie
    >>> [a.tolist() for a in cutoff_counts(i64(0, 4), i64(0, 1, 3, 4), i64(0, 1, 3, 4), judged, i64(1, 2, 3))]
    [[0, 1, 2], [0, 1, 0]]
    """
    cdef int64_t num_queries = offsets.shape[0] - 1, c = cutoffs.shape[0]
    cdef int64_t qi, ci, g = 0, t = 0, pos, start_pos, holding
    cdef int64_t s, e, length, k, last_inside, end, start, unjudged_so_far, unjudged_before
    unjudged_array = np.zeros(c, dtype=np.int64)
    crossing_array = np.zeros(c, dtype=np.int64)
    cdef int64_t[::1] unjudged = unjudged_array
    cdef int64_t[::1] crossing = crossing_array
    cdef int64_t num_groups = group_offsets.shape[0], num_ties = tie_offsets.shape[0]
    for ci in range(1, c):
        if cutoffs[ci] < cutoffs[ci - 1]:
            raise ValueError("cutoffs must be sorted")
    for ci in range(c):
        if cutoffs[ci] < 1:
            raise ValueError("cutoffs must be positive")
    if num_queries < 0 or num_groups == 0 or num_ties == 0:
        return unjudged_array, crossing_array
    if group_offsets[num_groups - 1] != judged.shape[0] or tie_offsets[num_ties
                                                                       - 1] != judged.shape[0]:
        raise ValueError("group offsets do not cover the positions")
    with nogil:
        for qi in range(num_queries):
            s = offsets[qi]
            e = offsets[qi + 1]
            length = e - s
            if length <= 0:
                continue
            # The first group (and tie group) of the query: groups never
            # cross a query's bounds, so the pointers only move forward.
            while group_offsets[g] < s:
                g += 1
            while tie_offsets[t] < s:
                t += 1
            pos = start_pos = s
            unjudged_so_far = unjudged_before = 0
            for ci in range(c):
                k = cutoffs[ci]
                last_inside = s + (k if k < length else length) - 1
                # The group holding last_inside, [start, end): the first offset past
                # it, by binary search among the query's groups, and the one before.
                holding = _index_after(group_offsets, g, min(g + length, num_groups - 1),
                                       last_inside)
                end = group_offsets[holding]
                start = group_offsets[holding - 1]
                while start_pos < start:  # unjudged docs before the group
                    if not judged[start_pos]:
                        unjudged_before += 1
                    start_pos += 1
                while pos < end:  # ... and up to its end
                    if not judged[pos]:
                        unjudged_so_far += 1
                    pos += 1
                unjudged[ci] += unjudged_before + min(unjudged_so_far - unjudged_before,
                                                      last_inside + 1 - start)
                if length > k and _first_offset_after(tie_offsets, t, min(t + length, num_ties - 1),
                                                      last_inside) > last_inside + 1:
                    crossing[ci] += 1
    return unjudged_array, crossing_array


cdef _check_sorted(const int64_t[::1] values, str name):
    cdef int64_t i
    for i in range(1, values.shape[0]):
        if values[i] < values[i - 1]:
            raise ValueError(f"{name} must be non-decreasing (grouped by query)")


cdef _check_codes(const int64_t[::1] codes, int64_t size, str name):
    cdef int64_t i
    for i in range(codes.shape[0]):
        if codes[i] < 0 or codes[i] >= size:
            raise ValueError(f"{name} holds a code outside 0..{size - 1}")


def tie_runs(const int64_t[::1] offsets, const double[::1] score):
    """Offsets of the runs of equal scores within each query, for rows in rank order.

    `offsets` delimit the queries (non-decreasing, from 0 to the number of
    rows; a query may be empty): the queries' offsets rather than a query
    number per row, which would cost a column as long as the rows.

    Returns (offsets, tied_groups, tied_docs): ``offsets`` (int64, one entry
    per run plus the end) delimit the runs; the counts are of runs of two
    rows or more and of the rows they hold. Equal means ``==`` (NaN ties
    nothing, as in numpy).

    >>> import numpy as np
    >>> runs = tie_runs(np.array([0, 3, 3, 5], dtype=np.int64), np.array([2., 2., 1., 1., 1.]))
    >>> runs[0].tolist(), runs[1:]
    ([0, 2, 3, 5], (2, 4))
    """
    cdef int64_t n = score.shape[0], m = offsets.shape[0], q, i, lo, hi, count = 0, start, size
    cdef int64_t groups = 0, docs = 0
    if m == 0 or offsets[0] != 0 or offsets[m - 1] != n:
        raise ValueError("offsets must run from 0 to the number of rows")
    for q in range(m - 1):
        if offsets[q + 1] < offsets[q]:
            raise ValueError("offsets must be non-decreasing")
    with nogil:
        for q in range(m - 1):
            lo, hi = offsets[q], offsets[q + 1]
            if hi > lo:
                count += 1
                for i in range(lo + 1, hi):
                    if score[i] != score[i - 1]:
                        count += 1
    offsets_array = np.empty(count + 1, dtype=np.int64)
    cdef int64_t[::1] runs = offsets_array
    runs[0] = 0
    count = 0
    with nogil:
        for q in range(m - 1):
            lo, hi = offsets[q], offsets[q + 1]
            start = lo
            for i in range(lo + 1, hi + 1):
                if i == hi or score[i] != score[i - 1]:
                    count += 1
                    runs[count] = i
                    size = i - start
                    if size > 1:
                        groups += 1
                        docs += size
                    start = i
    return offsets_array, groups, docs


def count_per_query(const int64_t[::1] offsets, const uint8_t[::1] flags):
    """Number of set flags among each query's positions.

    >>> import numpy as np
    >>> count_per_query(np.array([0, 2, 2, 5], dtype=np.int64), np.array([1, 1, 0, 1, 0], dtype=np.uint8)).tolist()
    [2, 0, 1]
    """
    cdef int64_t num_queries = offsets.shape[0] - 1, q, i
    counts_array = np.zeros(max(num_queries, 0), dtype=np.int64)
    cdef int64_t[::1] counts = counts_array
    if num_queries > 0 and offsets[num_queries] > flags.shape[0]:
        raise ValueError("offsets reach past the flags")
    with nogil:
        for q in range(num_queries):
            for i in range(offsets[q], offsets[q + 1]):
                counts[q] += flags[i]
    return counts_array


cdef inline bint _before(const double* key, const int64_t* tiebreak, int64_t a,
                         int64_t b) noexcept nogil:
    """Does row a sort strictly before row b (key, then tiebreak, ascending)?"""
    if key[a] != key[b]:
        return key[a] < key[b]
    return tiebreak != NULL and tiebreak[a] < tiebreak[b]


cdef void _insertion_sort(int64_t* rows, int64_t n, const double* key,
                          const int64_t* tiebreak) noexcept nogil:
    # Stable: a row moves left only past rows that sort strictly after it.
    cdef int64_t i, j
    cdef int64_t row
    for i in range(1, n):
        row = rows[i]
        j = i
        while j > 0 and _before(key, tiebreak, row, rows[j - 1]):
            rows[j] = rows[j - 1]
            j -= 1
        rows[j] = row


cdef void _merge_sort(int64_t* rows, int64_t* buffer, int64_t n, const double* key,
                      const int64_t* tiebreak) noexcept nogil:
    """Stable bottom-up merge sort of rows[0 .. n), runs of 16 sorted by insertion first."""
    cdef int64_t width = 16, lo, mid, hi, i, j, out
    cdef int64_t* source = rows
    cdef int64_t* target = buffer
    cdef int64_t* swap
    lo = 0
    while lo < n:
        _insertion_sort(rows + lo, min(width, n - lo), key, tiebreak)
        lo += width
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            out = lo
            while i < mid and j < hi:
                # Take from the right run only when strictly before: stability.
                if _before(key, tiebreak, source[j], source[i]):
                    target[out] = source[j]
                    j += 1
                else:
                    target[out] = source[i]
                    i += 1
                out += 1
            while i < mid:
                target[out] = source[i]
                i += 1
                out += 1
            while j < hi:
                target[out] = source[j]
                j += 1
                out += 1
            lo += 2 * width
        swap = source
        source = target
        target = swap
        width *= 2
    if source != rows:
        for i in range(n):
            rows[i] = source[i]


def sort_segments(const int64_t[::1] offsets, const double[::1] key, tiebreak=None):
    """The stable order of rows within each segment by `key`, then `tiebreak`, ascending.

    Segment s holds rows ``offsets[s] .. offsets[s + 1]``; the result lists
    every row, segment after segment, each segment's rows sorted. Short
    segments (the rankings of recommender logs) are sorted by insertion,
    long ones by a merge sort: both stable, so rows with equal keys keep
    their input order.

    >>> import numpy as np
    >>> sort_segments(np.array([0, 3, 5], dtype=np.int64), np.array([3., 1., 3., 5., 4.])).tolist()
    [1, 0, 2, 4, 3]
    >>> sort_segments(np.array([0, 3], dtype=np.int64), np.array([1., 1., 0.]),
    ...               np.array([2, 1, 0], dtype=np.int64)).tolist()
    [2, 1, 0]
    """
    cdef int64_t num_segments = offsets.shape[0] - 1, n = key.shape[0], s, i, longest = 0
    cdef const int64_t[::1] tie
    cdef const int64_t* tie_pointer = NULL
    if tiebreak is not None:
        tie = tiebreak
        if tie.shape[0] != n:
            raise ValueError("key and tiebreak differ in length")
        if n:
            tie_pointer = &tie[0]
    if num_segments < 0 or (num_segments and (offsets[0] != 0 or offsets[num_segments] != n)):
        raise ValueError("offsets must run from 0 to the number of rows")
    for s in range(num_segments):
        if offsets[s + 1] < offsets[s]:
            raise ValueError("offsets go backwards")
        longest = max(longest, offsets[s + 1] - offsets[s])
    order_array = np.arange(n, dtype=np.int64)
    if n == 0:
        return order_array
    cdef int64_t[::1] order = order_array
    cdef int64_t* buffer = NULL
    if longest > 32:
        buffer = <int64_t*>malloc(longest * sizeof(int64_t))
        if buffer == NULL:
            raise MemoryError()
    try:
        with nogil:
            for s in range(num_segments):
                if offsets[s + 1] - offsets[s] <= 32:
                    _insertion_sort(&order[offsets[s]], offsets[s + 1] - offsets[s], &key[0],
                                    tie_pointer)
                else:
                    _merge_sort(&order[offsets[s]], buffer, offsets[s + 1] - offsets[s], &key[0],
                                tie_pointer)
    finally:
        free(buffer)
    return order_array
