# cython: language_level=3
# The hash table that interns ids to codes, for the readers' compiled scan.
#
# Declared here (structs and inline functions) so that trec_scan.pyx keeps one
# job, the scan of a TREC file's bytes; with the C helpers the scan needs
# (strtod in the C locale, zeroed memory on huge pages, prefetch). The inline
# functions are compiled into the module that cimports them.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

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

    /* Zeroed memory; blocks of 4 MB and more on transparent huge pages
       where the system has them. */
    #if defined(__GNUC__)
    #define rp_prefetch(address) __builtin_prefetch(address)
    #else
    #define rp_prefetch(address) ((void)(address))
    #endif
    #define RP_HUGE ((size_t)4 << 20)
    #if defined(__linux__)
    #include <sys/mman.h>
    static void *rp_alloc_zeroed(size_t size) {
        if (size < RP_HUGE) return calloc(1, size);
        void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(memory, size, MADV_HUGEPAGE);
    #endif
        return memory;
    }
    static void rp_free(void *memory, size_t size) {
        if (memory == NULL) return;
        if (size < RP_HUGE) free(memory); else munmap(memory, size);
    }
    #else
    static void *rp_alloc_zeroed(size_t size) { return calloc(1, size); }
    static void rp_free(void *memory, size_t size) { (void)size; free(memory); }
    #endif
    """
    int rp_init_c_locale()
    double rp_strtod(const char *text, char **end)
    void *rp_alloc_zeroed(size_t size)
    void rp_free(void *memory, size_t size)
    void rp_prefetch(const void *address)


# -- the hash table -------------------------------------------------------------
#
# Open addressing with linear probing, at most half full. A lookup of a known
# id (nine in ten lookups of a run file) costs one cache miss: the slot holds
# the full 64-bit hash, the id's length and its first 16 bytes; only longer
# ids compare the rest with their copy in a compact arena (never with the
# large, cold file). The scan hashes a batch of ids and prefetches their
# slots before looking them up, so that the misses overlap. Big tables live
# on transparent huge pages, which spare random lookups most TLB misses.

cdef struct Slot:
    uint64_t hash
    int32_t code           # code + 1; 0: empty
    int32_t length
    uint8_t prefix[16]     # the id's first 16 bytes (an id rarely has more)


cdef struct Table:
    Slot *slots
    size_t slot_bytes
    uint64_t mask
    int64_t count
    int64_t capacity       # codes before the next growth
    int64_t *offsets       # by code: where its bytes start in the arena
    int64_t *lengths
    size_t code_bytes
    uint8_t *arena
    size_t arena_size
    size_t arena_used
    uint64_t seed


cdef inline uint64_t mix_hash(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 33
    return h


cdef inline uint64_t hash_bytes(const uint8_t *p, int64_t n, uint64_t seed) noexcept nogil:
    """A word-at-a-time multiplicative hash, finalised with murmur3's mixer."""
    cdef uint64_t h = seed ^ (<uint64_t>n * 0x9E3779B97F4A7C15ULL)
    cdef uint64_t word
    while n >= 8:
        memcpy(&word, p, 8)
        h = (h ^ word) * 0x100000001B3ULL
        h ^= h >> 29
        p += 8
        n -= 8
    if n > 0:
        word = 0
        memcpy(&word, p, n)
        h = (h ^ word) * 0x100000001B3ULL
    return mix_hash(h)


cdef inline bint same_bytes(const uint8_t *a, const uint8_t *b, int64_t n) noexcept nogil:
    """``a[:n] == b[:n]``, inline for the short ids of TREC files (a call to memcmp costs more)."""
    cdef uint64_t x, y
    while n >= 8:
        memcpy(&x, a, 8)
        memcpy(&y, b, 8)
        if x != y:
            return False
        a += 8
        b += 8
        n -= 8
    while n > 0:
        if a[0] != b[0]:
            return False
        a += 1
        b += 1
        n -= 1
    return True


cdef inline int table_init(Table *t, uint64_t seed) noexcept nogil:
    t.slot_bytes = 1024 * sizeof(Slot)
    t.slots = <Slot *>rp_alloc_zeroed(t.slot_bytes)
    t.mask = 1023
    t.count = 0
    t.capacity = 512
    t.code_bytes = t.capacity * sizeof(int64_t)
    t.offsets = <int64_t *>rp_alloc_zeroed(t.code_bytes)
    t.lengths = <int64_t *>rp_alloc_zeroed(t.code_bytes)
    t.arena_size = 1 << 16
    t.arena_used = 0
    t.arena = <uint8_t *>rp_alloc_zeroed(t.arena_size)
    t.seed = seed
    if t.slots == NULL or t.offsets == NULL or t.lengths == NULL or t.arena == NULL:
        return -1
    return 0


cdef inline void table_free(Table *t) noexcept nogil:
    rp_free(t.slots, t.slot_bytes)
    rp_free(t.offsets, t.code_bytes)
    rp_free(t.lengths, t.code_bytes)
    rp_free(t.arena, t.arena_size)
    t.slots = NULL
    t.offsets = NULL
    t.lengths = NULL
    t.arena = NULL


cdef inline int table_grow(Table *t) noexcept nogil:
    """Double the slots and the per-code arrays."""
    cdef int64_t old = <int64_t>t.mask + 1, size = old * 2, i
    cdef uint64_t mask = size - 1, at
    cdef size_t slot_bytes = size * sizeof(Slot), code_bytes = (size // 2) * sizeof(int64_t)
    cdef Slot *slots = <Slot *>rp_alloc_zeroed(slot_bytes)
    cdef int64_t *offsets = <int64_t *>rp_alloc_zeroed(code_bytes)
    cdef int64_t *lengths = <int64_t *>rp_alloc_zeroed(code_bytes)
    if slots == NULL or offsets == NULL or lengths == NULL:
        rp_free(slots, slot_bytes)
        rp_free(offsets, code_bytes)
        rp_free(lengths, code_bytes)
        return -1
    for i in range(old):
        if t.slots[i].code:
            at = t.slots[i].hash & mask
            while slots[at].code:
                at = (at + 1) & mask
            slots[at] = t.slots[i]
    memcpy(offsets, t.offsets, t.count * sizeof(int64_t))
    memcpy(lengths, t.lengths, t.count * sizeof(int64_t))
    rp_free(t.slots, t.slot_bytes)
    rp_free(t.offsets, t.code_bytes)
    rp_free(t.lengths, t.code_bytes)
    t.slots = slots
    t.offsets = offsets
    t.lengths = lengths
    t.slot_bytes = slot_bytes
    t.code_bytes = code_bytes
    t.mask = mask
    t.capacity = size // 2
    return 0


cdef inline int arena_reserve(Table *t, size_t more) noexcept nogil:
    cdef size_t size = t.arena_size
    cdef uint8_t *arena
    if t.arena_used + more <= size:
        return 0
    while t.arena_used + more > size:
        size *= 2
    arena = <uint8_t *>rp_alloc_zeroed(size)
    if arena == NULL:
        return -1
    memcpy(arena, t.arena, t.arena_used)
    rp_free(t.arena, t.arena_size)
    t.arena = arena
    t.arena_size = size
    return 0


cdef inline int64_t intern_key(Table *t, const uint8_t *key, int64_t length, uint64_t h) noexcept nogil:
    """The code of the id ``key[:length]`` (hash `h`), a new one if unseen; -1 if out of memory."""
    cdef uint64_t at = h & t.mask
    cdef Slot *slot
    cdef int64_t code, inline = length if length < 16 else 16
    if length > 0x7FFFFFFF:
        return -1
    while True:
        slot = &t.slots[at]
        if slot.code == 0:
            break
        if (slot.hash == h and slot.length == length and same_bytes(slot.prefix, key, inline)
                and (length <= 16 or memcmp(t.arena + t.offsets[slot.code - 1] + 16, key + 16, length - 16) == 0)):
            return slot.code - 1
        at = (at + 1) & t.mask
    if t.count >= t.capacity:
        if t.count >= 0x7FFFFFFE or table_grow(t) < 0:
            return -1
        at = h & t.mask
        while t.slots[at].code:
            at = (at + 1) & t.mask
        slot = &t.slots[at]
    if arena_reserve(t, length) < 0:
        return -1
    code = t.count
    memcpy(t.arena + t.arena_used, key, length)
    slot.hash = h
    slot.code = <int32_t>(code + 1)
    slot.length = <int32_t>length
    memcpy(slot.prefix, key, inline)
    t.offsets[code] = t.arena_used
    t.lengths[code] = length
    t.arena_used += length
    t.count += 1
    return code
