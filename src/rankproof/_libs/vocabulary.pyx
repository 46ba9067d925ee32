# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The distinct ids of a file sorted by code point, and the codes renumbered to match.

:func:`sorted_vocabulary` takes the ids an :class:`~rankproof._libs.interner.Interner`
kept (one copy of each, as spans of one bytes object) and returns their order
by code point; :func:`remap` renumbers codes to that order, so that the
vocabulary a reader returns is sorted, as Qrels and Run require.

Integer ids within a narrow range (a log's users and items, numbered from 0)
need no hash table: :func:`mark_present` marks each value's slot in a table
as long as the range, and :func:`dense_codes` reads each row's code from a
table of ranks over that range (two linear passes over the rows).
"""

from cpython.bytes cimport PyBytes_AS_STRING
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcmp

import numpy as np

# -- the vocabulary -------------------------------------------------------------

cdef inline uint64_t _key(const uint8_t *p, int64_t n) noexcept nogil:
    """The first 8 bytes of p (zero-padded) as a big-endian integer: compares as the bytes do."""
    cdef uint64_t key = 0
    cdef int64_t i
    for i in range(8):
        key = (key << 8) | (p[i] if i < n else 0)
    return key


cdef inline int _compare_from(const uint8_t *data, int64_t a_start, int64_t a_length,
                              int64_t b_start, int64_t b_length, int64_t offset) noexcept nogil:
    cdef int64_t a_rest = a_length - offset, b_rest = b_length - offset
    if a_rest < 0:
        a_rest = 0
    if b_rest < 0:
        b_rest = 0
    cdef int order = memcmp(data + a_start + offset, data + b_start + offset,
                            a_rest if a_rest < b_rest else b_rest)
    if order:
        return order
    return (a_rest > b_rest) - (a_rest < b_rest)


cdef void _sort_range(const uint8_t *data, int64_t[::1] starts, int64_t[::1] lengths,
                      int64_t[::1] order, int64_t offset):
    """Sort `order` (ids by code) by the bytes of each id from `offset` on.

    Most-significant-first: numpy sorts 8-byte keys, then each run of equal
    keys is sorted by what follows, by insertion when short.
    """
    cdef int64_t n = order.shape[0], i, j, k, m, id_
    cdef int64_t rest
    keys_array = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] keys = keys_array
    for j in range(n):
        id_ = order[j]
        rest = lengths[id_] - offset
        keys[j] = _key(data + starts[id_] + offset, rest if rest > 0 else 0)
    by_key = np.argsort(keys_array)
    sorted_order = np.asarray(order)[by_key]
    keys_array = keys_array[by_key]
    keys = keys_array
    cdef int64_t[::1] reordered = sorted_order
    order[:] = reordered
    j = 0
    while j < n:
        k = j + 1
        while k < n and keys[k] == keys[j]:
            k += 1
        # Equal keys and distinct ids: every id of the run goes on past these 8 bytes.
        if k - j > 24:
            _sort_range(data, starts, lengths, order[j:k], offset + 8)
        elif k - j > 1:
            for m in range(j + 1, k):
                id_ = order[m]
                i = m
                while i > j and _compare_from(data, starts[order[i - 1]], lengths[order[i - 1]],
                                              starts[id_], lengths[id_], offset + 8) > 0:
                    order[i] = order[i - 1]
                    i -= 1
                order[i] = id_
        j = k


cdef inline int64_t _next_point(const uint8_t *p, int64_t k, int64_t n,
                                uint32_t *point) noexcept nogil:
    """Decode the code point at ``p[k]``; return where the next one starts.

    Bytes that do not start a complete UTF-8 sequence (never in a checked
    TREC file, possible in an unchecked Arrow buffer) become U+FFFD.
    """
    cdef uint8_t lead = p[k]
    cdef int64_t extra
    if lead < 0x80:
        point[0] = lead
        return k + 1
    if 0xC0 <= lead < 0xE0:
        extra = 1
        point[0] = lead & 0x1F
    elif 0xE0 <= lead < 0xF0:
        extra = 2
        point[0] = lead & 0x0F
    elif 0xF0 <= lead < 0xF8:
        extra = 3
        point[0] = lead & 0x07
    else:
        point[0] = 0xFFFD
        return k + 1
    if k + extra >= n:
        point[0] = 0xFFFD
        return k + 1
    for k in range(k + 1, k + 1 + extra):
        if (p[k] & 0xC0) != 0x80:
            point[0] = 0xFFFD
            return k
        point[0] = (point[0] << 6) | (p[k] & 0x3F)
    return k + 1


def sorted_vocabulary(bytes text, starts, lengths):
    """Sort the ids given as spans of `text` by code point.

    Returns
    -------
    order : numpy.ndarray of int64
        ``order[i]`` is the code of the i-th smallest id.
    vocabulary : numpy.ndarray of str
        The ids in that order (UTF-8 bytewise order is code-point order).
    """
    cdef const uint8_t *data = <const uint8_t *>PyBytes_AS_STRING(text)
    cdef int64_t[::1] s = np.ascontiguousarray(starts, dtype=np.int64)
    cdef int64_t[::1] n = np.ascontiguousarray(lengths, dtype=np.int64)
    cdef int64_t count = s.shape[0], j, k, chars, widest = 1, id_
    order_array = np.arange(count, dtype=np.int64)
    cdef int64_t[::1] order = order_array
    if count > 1:
        _sort_range(data, s, n, order, 0)
    cdef const uint8_t *p
    cdef uint32_t point
    # Code points per id, then the ids as UCS-4, the layout of numpy's str arrays.
    for j in range(count):
        p = data + s[j]
        k = 0
        chars = 0
        while k < n[j]:
            k = _next_point(p, k, n[j], &point)
            chars += 1
        if chars > widest:
            widest = chars
    table = np.zeros((count, widest), dtype=np.uint32)
    cdef uint32_t[:, ::1] out = table
    with nogil:
        for j in range(count):
            id_ = order[j]
            p = data + s[id_]
            k = 0
            chars = 0
            while k < n[id_]:
                k = _next_point(p, k, n[id_], &point)
                out[j, chars] = point
                chars += 1
    return order_array, table.view(np.dtype(("U", widest))).reshape(count)


def remap(codes, order):
    """Renumber `codes` in place so that code ``order[i]`` becomes ``i``."""
    cdef int64_t[::1] c = codes
    cdef int64_t[::1] o = np.ascontiguousarray(order, dtype=np.int64)
    cdef int64_t count = o.shape[0], j, n = c.shape[0]
    cdef bint identity = True
    for j in range(count):
        if o[j] != j:
            identity = False
            break
    if identity:
        return
    rank_array = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] rank = rank_array
    with nogil:
        for j in range(count):
            rank[o[j]] = j
        for j in range(n):
            c[j] = rank[c[j]]


# -- integer ids in a narrow range -----------------------------------------------

ctypedef fused whole:
    int32_t
    int64_t


def mark_present(const whole[::1] values, int64_t lowest, uint8_t[::1] present):
    """Set ``present[v - lowest] = 1`` for every value ``v``.

    Every value must lie in ``[lowest, lowest + len(present))`` (the caller
    takes `lowest` and the length from the values' minimum and maximum).
    """
    cdef Py_ssize_t j, n = values.shape[0]
    with nogil:
        for j in range(n):
            present[values[j] - lowest] = 1


def dense_codes(const whole[::1] values, int64_t lowest, const int32_t[::1] rank,
                int64_t[::1] codes):
    """``codes[j] = rank[values[j] - lowest]``: each row's code, read from the ranks of the range."""
    cdef Py_ssize_t j, n = values.shape[0]
    if codes.shape[0] != n:
        raise ValueError("values and codes disagree")
    with nogil:
        for j in range(n):
            codes[j] = rank[values[j] - lowest]
