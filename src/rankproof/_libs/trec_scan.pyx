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
builds the message. Ids are interned as they are read, in first-appearance
order, into the reader's id tables (:class:`rankproof._libs.interner.Interner`,
one pair per part: parts of one file can be scanned at once in threads and
merged afterwards); docs are hashed and their slots prefetched a batch ahead
of their lookups, so that the cache misses overlap.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.math cimport isfinite
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memchr, memcpy

from .hashtable cimport BATCH, Table, hash_bytes, intern_key, prefetch_slot, same_bytes
from .interner cimport Interner

cdef extern from * nogil:
    """
    /* strtod in the "C" locale whatever the process's locale: a decimal
       point is always '.', as in every TREC file. */
    #include <stdlib.h>
    #if defined(_WIN32)
    #include <locale.h>
    static _locale_t rp_c_locale = 0;
    static int rp_init_c_locale(void) {
        if (!rp_c_locale) rp_c_locale = _create_locale(LC_NUMERIC, "C");
        return rp_c_locale != 0;
    }
    static double rp_strtod(const char *text, char **end) {
        return _strtod_l(text, end, rp_c_locale);
    }
    #else
    #include <locale.h>
    #if defined(__APPLE__)
    #include <xlocale.h>
    #endif
    static locale_t rp_c_locale = (locale_t)0;
    static int rp_init_c_locale(void) {
        if (!rp_c_locale) rp_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        return rp_c_locale != (locale_t)0;
    }
    static double rp_strtod(const char *text, char **end) {
        return strtod_l(text, end, rp_c_locale);
    }
    #endif
    """
    int rp_init_c_locale()
    double rp_strtod(const char *text, char **end)


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
    query_ids.check_usable()
    doc_ids.check_usable()
    cdef const uint8_t *data = <const uint8_t *>PyBytes_AS_STRING(text)
    if not 0 <= begin <= end <= PyBytes_GET_SIZE(text):
        raise ValueError("span out of the text")
    if (width > MAX_COLUMNS or value_column >= width or not 0 < doc_column < width
            or not rp_init_c_locale()):
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
                    code = intern_key(doc_table_pointer, pending_key[k], pending_length[k],
                                      pending_hash[k])
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
                    if _parse_grade(data + starts[value_column],
                                    ends[value_column] - starts[value_column], &grade):
                        grades[row] = grade
                    else:
                        status = BAD_VALUE
                elif _parse_score(data + starts[value_column],
                                  ends[value_column] - starts[value_column], &score):
                    scores[row] = score
                else:
                    status = BAD_VALUE
            if status != OK:
                pos = end   # flush the batch, then stop
                continue
            # Rows of one query usually follow each other: compare with the
            # previous query before hashing.
            length = ends[0] - starts[0]
            if (length == last_query_length
                    and same_bytes(data + starts[0], data + last_query_start, length)):
                code = last_query_code
            else:
                code = intern_key(query_table_pointer, data + starts[0], length,
                                  hash_bytes(data + starts[0], length, query_table_pointer.seed))
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
            pending_hash[pending] = hash_bytes(data + starts[doc_column], length,
                                               doc_table_pointer.seed)
            prefetch_slot(doc_table_pointer, pending_hash[pending])
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
