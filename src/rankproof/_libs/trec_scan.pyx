# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""One compiled pass over the bytes of a TREC file: lines, columns, values, interned ids.

The grammar (what :mod:`rankproof.io.trec` documents and checks):

- a line ends at ``\\n``; its line number is one plus the number of ``\\n``
  before it;
- a *blank* is a space, a tab, a carriage return, a vertical tab or a form
  feed (trec_eval's ``isspace``); columns are separated by runs of blanks,
  and blanks at either end of a line are ignored;
- a line with no byte other than blanks is skipped, as is a line whose first
  non-blank byte is ``#`` (a comment);
- every other byte is part of a column (NUL and invalid UTF-8 are refused
  before the scan, when the file is loaded).

The scan stops at the first bad line and says which and why; the caller
builds the message. Ids are interned in first-appearance order through an
open-addressing hash table (:class:`Interner`) that keeps one copy of each
distinct id; :func:`sorted_vocabulary` then sorts the distinct ids by code
point and :func:`remap` renumbers the codes to match. Parts of one file can
be scanned at once in threads, each into its own tables, merged afterwards
(:meth:`Interner.absorb`, :func:`renumber`). The ids of Arrow tables go
through the same table (:func:`intern_spans` for strings, :func:`intern_values`
for integers).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memchr, memcmp, memcpy

import numpy as np

from .hashtable cimport (
    Slot, Table, arena_reserve, hash_bytes, intern_key, mix_hash, rp_alloc_zeroed, rp_free, rp_init_c_locale,
    rp_prefetch, rp_strtod, same_bytes, table_free, table_grow, table_init,
)

# Why a line was refused (the caller turns these into messages).
cpdef enum:
    OK = 0
    BAD_WIDTH = 1
    BAD_VALUE = 2
    BAD_SPACE = 3

# Byte classes of the scan.
cdef enum:
    C_DATA = 0
    C_BLANK = 1
    C_END = 2       # '\n', or the NUL CPython keeps after every bytes object
    C_BAD = 3       # unused: every byte is data, a blank or an end

cdef uint8_t CLASS[256]
for _byte in range(256):
    CLASS[_byte] = C_DATA
CLASS[0x20] = C_BLANK
CLASS[0x09] = C_BLANK
CLASS[0x0D] = C_BLANK
CLASS[0x0A] = C_END
CLASS[0x00] = C_END
# trec_eval splits columns with C's isspace: vertical tab and form feed
# separate columns as a space does (issue 13: both sizes of file, one rule).
CLASS[0x0B] = C_BLANK
CLASS[0x0C] = C_BLANK

cdef double POW10[23]
for _e in range(23):
    POW10[_e] = float(10 ** _e)

cdef int MAX_COLUMNS = 8

cdef enum:
    BATCH = 16   # docs hashed and prefetched ahead of their lookup


cdef object vocabulary_spans(Table *t):
    """The distinct ids as ``(arena bytes, starts, lengths)``, by code."""
    starts = np.empty(t.count, dtype=np.int64)
    lengths = np.empty(t.count, dtype=np.int64)
    cdef int64_t[::1] s = starts, n = lengths
    if t.count:
        memcpy(&s[0], t.offsets, t.count * sizeof(int64_t))
        memcpy(&n[0], t.lengths, t.count * sizeof(int64_t))
    return (<char *>t.arena)[:t.arena_used], starts, lengths


# -- numbers --------------------------------------------------------------------

cdef inline bint _parse_grade(const uint8_t *p, int64_t n, int64_t *out) noexcept nogil:
    """``[+-]?[0-9]+(\\.0*)?`` within int64; False for anything else.

    An integral grade written with a decimal point (``3.0``, ``3.``) is the
    integer, as trec_eval reads it; ``3.5`` stays refused (grades=real)."""
    cdef int64_t i = 0
    cdef bint negative = False
    cdef uint64_t value = 0, digit, limit
    if n > 0 and (p[0] == c'+' or p[0] == c'-'):
        negative = p[0] == c'-'
        i = 1
    if i == n:
        return False
    limit = (<uint64_t>1 << 63) if negative else ((<uint64_t>1 << 63) - 1)
    while i < n:
        if p[i] == c'.' and i > (1 if (p[0] == c'+' or p[0] == c'-') else 0):
            i += 1
            while i < n and p[i] == c'0':
                i += 1
            if i < n:
                return False
            break
        if p[i] < c'0' or p[i] > c'9':
            return False
        digit = p[i] - c'0'
        if value > (limit - digit) // 10:
            return False
        value = value * 10 + digit
        i += 1
    if negative:
        out[0] = <int64_t>(0 - value)
    else:
        out[0] = <int64_t>value
    return True


cdef inline bint _parse_score(const uint8_t *p, int64_t n, double *out) noexcept nogil:
    """A finite number in the syntax ``[+-]?([0-9]+(.[0-9]*)?|.[0-9]+)([eE][+-]?[0-9]+)?``.

    NaN, infinities (spelled out or overflowing) and anything else give
    False. Short numbers take Clinger's exact fast path (an integer mantissa
    below 2^53 times or divided by an exact power of ten is one correctly
    rounded operation); the rest go to strtod in the "C" locale.
    """
    cdef int64_t i = 0, digits = 0, significant = 0, fraction = 0, exponent = 0
    cdef bint negative = False, exponent_negative = False
    cdef uint64_t mantissa = 0
    cdef double value
    cdef char buffer[64]
    cdef char *copy
    cdef char *end
    if n > 0 and (p[0] == c'+' or p[0] == c'-'):
        negative = p[0] == c'-'
        i = 1
    while i < n and c'0' <= p[i] <= c'9':
        if significant or p[i] != c'0':
            significant += 1
            if significant <= 19:
                mantissa = mantissa * 10 + (p[i] - c'0')
            else:
                exponent += 1   # a dropped digit: only the slow path uses the value then
        digits += 1
        i += 1
    if i < n and p[i] == c'.':
        i += 1
        while i < n and c'0' <= p[i] <= c'9':
            if significant or p[i] != c'0':
                significant += 1
                if significant <= 19:
                    mantissa = mantissa * 10 + (p[i] - c'0')
                    fraction += 1
            else:
                fraction += 1
            digits += 1
            i += 1
    if digits == 0:
        return False   # no digit: "", ".", "nan", "inf", ...
    cdef int64_t written = 0
    if i < n and (p[i] == c'e' or p[i] == c'E'):
        i += 1
        if i < n and (p[i] == c'+' or p[i] == c'-'):
            exponent_negative = p[i] == c'-'
            i += 1
        if i == n:
            return False
        while i < n and c'0' <= p[i] <= c'9':
            if written < 100000:
                written = written * 10 + (p[i] - c'0')
            i += 1
        if i < n:
            return False
    if i != n:
        return False
    exponent += (-written if exponent_negative else written) - fraction
    if significant <= 15 and -22 <= exponent <= 22:
        value = <double>mantissa
        if exponent >= 0:
            value = value * POW10[exponent]
        else:
            value = value / POW10[-exponent]
        out[0] = -value if negative else value
        return True
    # The slow, exact road, on a NUL-terminated copy of the text.
    if n < 64:
        copy = &buffer[0]
    else:
        copy = <char *>malloc(n + 1)
    if copy == NULL:
        return False
    memcpy(copy, p, n)
    copy[n] = 0
    value = rp_strtod(copy, &end)
    i = end - copy
    if n >= 64:
        free(copy)
    if i != n or not isfinite(value):
        return False
    out[0] = value
    return True


# -- the scan -------------------------------------------------------------------

def count_lines(bytes text, int64_t begin, int64_t end):
    """The number of lines that start in ``text[begin:end]``: one more than its newlines."""
    cdef const uint8_t *data = <const uint8_t *>PyBytes_AS_STRING(text)
    cdef int64_t count = 1
    cdef const uint8_t *p = data + begin
    cdef const uint8_t *stop = data + end
    cdef const void *hit
    if not 0 <= begin <= end <= PyBytes_GET_SIZE(text):
        raise ValueError("span out of the text")
    with nogil:
        while p < stop:
            hit = memchr(p, c'\n', stop - p)
            if hit == NULL:
                break
            count += 1
            p = <const uint8_t *>hit + 1
    return count


cdef class Interner:
    """A hash table of ids: codes in first-appearance order, the ids kept in an arena."""

    cdef Table table

    def __cinit__(self, uint64_t seed):
        if table_init(&self.table, seed) < 0:
            table_free(&self.table)
            raise MemoryError("out of memory while interning ids")

    def __dealloc__(self):
        table_free(&self.table)

    def __len__(self):
        return self.table.count

    def vocabulary(self):
        """The distinct ids as ``(bytes back to back, starts, lengths)``, by code."""
        return vocabulary_spans(&self.table)

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
        _check_usable(self)
        with nogil:
            rp_free(other.table.slots, other.table.slot_bytes)
            other.table.slots = NULL
            other.table.slot_bytes = 0
            other.table.mask = 0
            j = 0
            while j < count and code >= 0:
                stop = j + BATCH if j + BATCH < count else count
                for k in range(j, stop):
                    key = other.table.arena + other.table.offsets[k]
                    rp_prefetch(&t.slots[hash_bytes(key, other.table.lengths[k], t.seed) & t.mask])
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


cdef _check_usable(Interner ids):
    """A table that gave its slots to another (``absorb``) cannot intern."""
    if ids.table.slots == NULL:
        raise ValueError("this id table was absorbed into another and can no longer intern")


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
                rp_prefetch(&t.slots[hashes[k - j] & t.mask])
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
    _check_usable(ids)
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
    _check_usable(ids)
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


def renumber(codes, mapping):
    """Replace every code ``c`` of `codes` (in place) by ``mapping[c]``."""
    cdef int64_t[::1] c = codes
    cdef const int64_t[::1] m = mapping
    cdef int64_t j, n = c.shape[0]
    with nogil:
        for j in range(n):
            c[j] = m[c[j]]


def scan(bytes text, int64_t begin, int64_t end, int width, int value_column, bint integer,
         Interner query_ids, Interner doc_ids, query_codes, doc_codes, values, lines,
         int64_t row_offset, int64_t line_offset, int doc_column=2):
    """Split, check and intern the lines of ``text[begin:end]`` in one pass.

    Parameters
    ----------
    text : bytes
        The whole file, UTF-8 without a BOM.
    begin, end : int
        The part to scan: `begin` is 0 or follows a newline, `end` is the
        size of `text` or follows a newline (so parts can be scanned at once,
        in threads: the scan holds no lock).
    width : int
        Columns per data line (4 for qrels, 6 for runs).
    value_column : int
        Index of the grade (parsed as int64 when `integer`) or score (float64).
    integer : bool
    query_ids, doc_ids : Interner
        The tables the ids are interned into (one pair per part).
    query_codes, doc_codes, values, lines : numpy.ndarray
        int64 arrays (`values` float64 for scores) that receive the rows from
        `row_offset` on, with room for one row per line of the part.
    row_offset : int
    line_offset : int
        Lines before `begin` (added to line numbers).
    doc_column : int, optional
        Index of the doc id (2 in TREC files, 1 in ``query doc score`` runs);
        the query id is always the first column.

    Returns
    -------
    dict
        ``status`` (``OK`` or a reason) and ``rows``; when OK, ``tag`` (start
        and end of the last column of the first data line), otherwise
        ``line`` (the number of the bad line), ``start`` and ``end`` (its
        bytes) and ``at`` (the offending byte, or -1).
    """
    _check_usable(query_ids)
    _check_usable(doc_ids)
    cdef const uint8_t *data = <const uint8_t *>PyBytes_AS_STRING(text)
    if not 0 <= begin <= end <= PyBytes_GET_SIZE(text):
        raise ValueError("span out of the text")
    if width > MAX_COLUMNS or value_column >= width or not 0 < doc_column < width or not rp_init_c_locale():
        raise ValueError("bad scan arguments or no C locale")
    cdef int64_t[::1] queries = query_codes, docs = doc_codes, numbers = lines
    cdef int64_t[::1] grades
    cdef double[::1] scores
    if integer:
        grades = values
    else:
        scores = values
    cdef Table *query_table_pointer = &query_ids.table
    cdef Table *doc_table_pointer = &doc_ids.table
    cdef int64_t pos = begin, i, line = 0, row = row_offset, fields, line_start = begin, bad_at = -1
    cdef int64_t starts[8]
    cdef int64_t ends[8]
    cdef int64_t last_query_start = -1, last_query_length = -1, last_query_code = -1
    cdef int64_t code, length, tag_start = 0, tag_end = 0
    # Docs waiting for their lookup: hashed and prefetched first.
    cdef int64_t pending = 0, first_pending = row_offset, k
    cdef const uint8_t *pending_key[BATCH]
    cdef int64_t pending_length[BATCH]
    cdef uint64_t pending_hash[BATCH]
    cdef int status = OK
    cdef int failed = 0
    cdef uint8_t c
    cdef int64_t grade
    cdef double score
    cdef int64_t capacity = min(queries.shape[0], docs.shape[0], numbers.shape[0],
                                grades.shape[0] if integer else scores.shape[0])

    with nogil:
        while True:
            if pos >= end or pending == BATCH:
                # Look up the batch, in row order (codes follow first appearance).
                for k in range(pending):
                    code = intern_key(doc_table_pointer, pending_key[k], pending_length[k], pending_hash[k])
                    if code < 0:
                        failed = 1
                        break
                    docs[first_pending + k] = code
                pending = 0
                first_pending = row
                if failed or pos >= end:
                    break
            line += 1
            line_start = pos
            i = pos
            while CLASS[data[i]] == C_BLANK:
                i += 1
            # data[size] is CPython's NUL terminator, classed as C_END.
            if CLASS[data[i]] == C_END and i < end and data[i] != c'\n':
                status = BAD_SPACE   # a NUL byte
                bad_at = i
                pos = end
                continue
            if CLASS[data[i]] == C_END or data[i] == c'#':
                if data[i] == c'#':
                    while i < end and data[i] != c'\n':
                        i += 1
                pos = i + 1
                continue
            fields = 0
            while True:
                c = CLASS[data[i]]
                if c == C_END:
                    break
                if c == C_BAD:
                    status = BAD_SPACE
                    bad_at = i
                    break
                if fields < MAX_COLUMNS:
                    starts[fields] = i
                while CLASS[data[i]] == C_DATA:
                    i += 1
                if CLASS[data[i]] == C_BAD:
                    status = BAD_SPACE
                    bad_at = i
                    break
                if fields < MAX_COLUMNS:
                    ends[fields] = i
                fields += 1
                while CLASS[data[i]] == C_BLANK:
                    i += 1
            if status == OK and i < end and data[i] != c'\n':
                status = BAD_SPACE   # a NUL byte
                bad_at = i
            if row >= capacity:
                failed = 2
                break
            if status == OK and fields != width:
                status = BAD_WIDTH
            if status == OK:
                if integer:
                    if _parse_grade(data + starts[value_column], ends[value_column] - starts[value_column], &grade):
                        grades[row] = grade
                    else:
                        status = BAD_VALUE
                elif _parse_score(data + starts[value_column], ends[value_column] - starts[value_column], &score):
                    scores[row] = score
                else:
                    status = BAD_VALUE
            if status != OK:
                pos = end   # flush the batch, then stop
                continue
            # Rows of one query usually follow each other: compare with the
            # previous query before hashing.
            length = ends[0] - starts[0]
            if length == last_query_length and same_bytes(data + starts[0], data + last_query_start, length):
                code = last_query_code
            else:
                code = intern_key(query_table_pointer, data + starts[0], length, hash_bytes(data + starts[0], length, query_table_pointer.seed))
                if code < 0:
                    failed = 1
                    break
                last_query_start = starts[0]
                last_query_length = length
                last_query_code = code
            queries[row] = code
            length = ends[doc_column] - starts[doc_column]
            pending_key[pending] = data + starts[doc_column]
            pending_length[pending] = length
            pending_hash[pending] = hash_bytes(data + starts[doc_column], length, doc_table_pointer.seed)
            rp_prefetch(&doc_table_pointer.slots[pending_hash[pending] & doc_table_pointer.mask])
            pending += 1
            numbers[row] = line + line_offset
            if row == row_offset:
                tag_start = starts[width - 1]
                tag_end = ends[width - 1]
            row += 1
            pos = i + 1

    if failed == 2:
        raise ValueError("more rows than the output arrays hold")
    if failed:
        raise MemoryError("out of memory while interning ids")
    result = {"status": status, "rows": row - row_offset, "tag": (tag_start, tag_end)}
    if status != OK:
        i = line_start
        while i < end and data[i] != c'\n':
            i += 1
        result.update(line=line + line_offset, start=line_start, end=i, at=bad_at)
    return result
