# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The id tables of the readers: ids interned to codes in first-appearance order.

An :class:`Interner` keeps one copy of each distinct id in an open-addressing
hash table (``hashtable.pxd``). The ids come from three places:

- the scan of a TREC file (:func:`rankproof._libs.trec_scan.scan`), which
  interns into an Interner as it reads the lines;
- the columns of an Arrow table: :func:`intern_spans` for strings (by their
  bytes), :func:`intern_values` for integers (by the bytes of each value);
- another Interner: parts of one file are scanned at once in threads, each
  into its own tables, then merged (:meth:`Interner.absorb` gives the codes
  here of the part's codes, :func:`renumber` rewrites the part's rows).

:func:`rankproof._libs.vocabulary.sorted_vocabulary` then sorts the distinct
ids by code point.

>>> import numpy as np
>>> ids = Interner(0)
>>> codes = np.empty(4, dtype=np.int64)
>>> intern_values(np.array([7, 3, 7, 5]), ids, codes)
>>> codes.tolist(), len(ids)
([0, 1, 0, 2], 3)
"""

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

import numpy as np

from .hashtable cimport (
    BATCH, hash_bytes, intern_key, prefetch_slot, same_bytes, table_drop_slots, table_free,
    table_init, table_usable,
)


cdef class Interner:
    """A hash table of ids: codes in first-appearance order, the ids kept in an arena."""

    def __cinit__(self, uint64_t seed):
        if table_init(&self.table, seed) < 0:
            table_free(&self.table)
            raise MemoryError("out of memory while interning ids")

    def __dealloc__(self):
        table_free(&self.table)

    def __len__(self):
        return self.table.count

    cdef int check_usable(self) except -1:
        """A table that gave its slots to another (``absorb``) cannot intern."""
        if not table_usable(&self.table):
            raise ValueError("this id table was absorbed into another and can no longer intern")
        return 0

    def vocabulary(self):
        """The distinct ids as ``(bytes back to back, starts, lengths)``, by code."""
        cdef Table *t = &self.table
        starts = np.empty(t.count, dtype=np.int64)
        lengths = np.empty(t.count, dtype=np.int64)
        cdef int64_t[::1] s = starts, n = lengths
        if t.count:
            memcpy(&s[0], t.offsets, t.count * sizeof(int64_t))
            memcpy(&n[0], t.lengths, t.count * sizeof(int64_t))
        return (<char *>t.arena)[:t.arena_used], starts, lengths

    def absorb(self, Interner other):
        """Intern every id of `other`; return the code here of each of its codes.

        `other` gives up its hash slots first (its ids stay, in code order),
        so that they are not held beside this table's growth: a merged part
        of a long file is read, never interned into again.
        """
        mapping = np.empty(other.table.count, dtype=np.int64)
        cdef int64_t[::1] out = mapping
        cdef int64_t j, k, stop, count = other.table.count, code = 0, length
        cdef const uint8_t *key
        cdef Table *t = &self.table
        if other is self:
            raise ValueError("a table cannot absorb itself")
        self.check_usable()
        with nogil:
            table_drop_slots(&other.table)
            j = 0
            while j < count and code >= 0:
                stop = j + BATCH if j + BATCH < count else count
                for k in range(j, stop):
                    key = other.table.arena + other.table.offsets[k]
                    prefetch_slot(t, hash_bytes(key, other.table.lengths[k], t.seed))
                for k in range(j, stop):
                    key = other.table.arena + other.table.offsets[k]
                    length = other.table.lengths[k]
                    code = intern_key(t, key, length, hash_bytes(key, length, t.seed))
                    if code < 0:
                        break
                    out[k] = code
                j = stop
        if code < 0:
            raise MemoryError("out of memory while interning ids")
        return mapping


cdef int _intern_many(Table *t, const uint8_t *base, const int64_t *starts, int64_t stride,
                      int64_t width, int64_t count, int64_t *codes) noexcept nogil:
    """Intern `count` ids: the i-th starts at ``starts[i]`` (or ``i * stride``)
    and ends at ``starts[i + 1]`` (or is `width` bytes long); batches are
    hashed and prefetched ahead of their lookups, as in the scan. An id equal
    to the one before it (a log's rows grouped by user) takes its code
    without a lookup."""
    cdef int64_t j = 0, k, stop, begin, length, code, previous_begin = 0, previous_length = -1
    cdef uint64_t hashes[BATCH]
    cdef unsigned char repeats[BATCH]
    while j < count:
        stop = j + BATCH if j + BATCH < count else count
        for k in range(j, stop):
            begin = starts[k] if starts != NULL else k * stride
            length = starts[k + 1] - begin if starts != NULL else width
            repeats[k - j] = (length == previous_length
                              and same_bytes(base + begin, base + previous_begin, length))
            previous_begin = begin
            previous_length = length
            if not repeats[k - j]:
                hashes[k - j] = hash_bytes(base + begin, length, t.seed)
                prefetch_slot(t, hashes[k - j])
        for k in range(j, stop):
            if repeats[k - j]:
                codes[k] = codes[k - 1]
                continue
            begin = starts[k] if starts != NULL else k * stride
            length = starts[k + 1] - begin if starts != NULL else width
            code = intern_key(t, base + begin, length, hashes[k - j])
            if code < 0:
                return -1
            codes[k] = code
        j = stop
    return 0


cdef const uint8_t EMPTY[1]


def intern_spans(data, offsets, Interner ids, codes):
    """Intern the strings of an Arrow large-string array into `ids`.

    `data` is its data buffer, `offsets` its int64 offsets (one more than
    rows, sliced to the array); `codes` (int64, one per row) receives the
    codes.
    """
    ids.check_usable()
    cdef const int64_t[::1] o = offsets
    cdef int64_t[::1] c = codes
    cdef const uint8_t[::1] d
    cdef const uint8_t *base = EMPTY
    cdef int64_t count = c.shape[0], size = 0, j
    if data is not None:
        d = data
        size = d.shape[0]
        if size:
            base = &d[0]
    if o.shape[0] != count + 1:
        raise ValueError("offsets and codes disagree")
    if count == 0:
        return
    if o[0] < 0 or o[count] > size:
        raise ValueError("offsets beyond the data")
    for j in range(count):
        if o[j + 1] < o[j]:
            raise ValueError("offsets go backwards")
    cdef int failed
    with nogil:
        failed = _intern_many(&ids.table, base, &o[0], 0, 0, count, &c[0])
    if failed:
        raise MemoryError("out of memory while interning ids")


def intern_values(values, Interner ids, codes):
    """Intern fixed-width values (integers) by their bytes; `codes` receives the codes."""
    ids.check_usable()
    array = np.ascontiguousarray(values)
    cdef int64_t width = array.dtype.itemsize
    cdef const uint8_t[::1] d = array.reshape(-1).view(np.uint8)
    cdef int64_t[::1] c = codes
    cdef int64_t count = c.shape[0]
    if array.size != count:
        raise ValueError("values and codes disagree")
    if count == 0:
        return
    cdef int failed
    with nogil:
        failed = _intern_many(&ids.table, &d[0], NULL, width, width, count, &c[0])
    if failed:
        raise MemoryError("out of memory while interning ids")


def renumber(int64_t[::1] codes, const int64_t[::1] mapping):
    """Replace every code ``c`` of `codes` (in place) by ``mapping[c]``."""
    cdef int64_t j, n = codes.shape[0]
    with nogil:
        for j in range(n):
            codes[j] = mapping[codes[j]]
