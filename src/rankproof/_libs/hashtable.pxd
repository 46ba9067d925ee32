# cython: language_level=3
# The hash table that interns ids to codes, shared by interner.pyx (the tables the readers
# keep, interning Arrow columns and merging parts) and trec_scan.pyx (the scan of a TREC
# file's bytes, which interns as it reads); with the C helpers they need (zeroed memory
# on huge pages, prefetch). The inline functions are compiled into each module that
# cimports them, so a lookup is never a call across modules.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

cdef extern from * nogil:
    """
    #include <stdlib.h>
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

cdef enum:
    BATCH = 16   # ids hashed and their slots prefetched ahead of their lookups


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


cdef inline int _index_alloc(Table *t, int64_t size) noexcept nogil:
    """Zeroed slots for `size` entries and the per-code arrays for size // 2 codes (a table
    is at most half full); -1 if out of memory (_index_free releases what was allocated)."""
    t.slot_bytes = size * sizeof(Slot)
    t.code_bytes = (size // 2) * sizeof(int64_t)
    t.slots = <Slot *>rp_alloc_zeroed(t.slot_bytes)
    t.offsets = <int64_t *>rp_alloc_zeroed(t.code_bytes)
    t.lengths = <int64_t *>rp_alloc_zeroed(t.code_bytes)
    t.mask = size - 1
    t.capacity = size // 2
    return -1 if t.slots == NULL or t.offsets == NULL or t.lengths == NULL else 0


cdef inline void _index_free(Table *t) noexcept nogil:
    """Release the slots and the per-code arrays (the arena stays)."""
    rp_free(t.slots, t.slot_bytes)
    rp_free(t.offsets, t.code_bytes)
    rp_free(t.lengths, t.code_bytes)
    t.slots = NULL
    t.offsets = NULL
    t.lengths = NULL


cdef inline Slot *_empty_slot(const Table *t, uint64_t h) noexcept nogil:
    """The first empty slot from hash h's on (linear probing; the table is never full)."""
    cdef uint64_t at = h & t.mask
    while t.slots[at].code:
        at = (at + 1) & t.mask
    return &t.slots[at]


cdef inline int table_init(Table *t, uint64_t seed) noexcept nogil:
    """An empty table: 1024 slots and a 64 kB arena; -1 if out of memory (then table_free it)."""
    t.count = 0
    t.seed = seed
    t.arena_size = 1 << 16
    t.arena_used = 0
    t.arena = <uint8_t *>rp_alloc_zeroed(t.arena_size)
    if _index_alloc(t, 1024) < 0 or t.arena == NULL:
        return -1
    return 0


cdef inline void table_free(Table *t) noexcept nogil:
    _index_free(t)
    rp_free(t.arena, t.arena_size)
    t.arena = NULL


cdef inline void table_drop_slots(Table *t) noexcept nogil:
    """Give up the hash slots and keep the ids (by code, in the arena): a table merged into
    another is read, never interned into again (``table_usable`` says so)."""
    rp_free(t.slots, t.slot_bytes)
    t.slots = NULL
    t.slot_bytes = 0
    t.mask = 0


cdef inline bint table_usable(const Table *t) noexcept nogil:
    """Can the table intern (it has kept its slots)?"""
    return t.slots != NULL


cdef inline void prefetch_slot(const Table *t, uint64_t h) noexcept nogil:
    """Ask for hash h's slot ahead of its lookup (a batch's cache misses then overlap)."""
    rp_prefetch(&t.slots[h & t.mask])


cdef inline int table_grow(Table *t) noexcept nogil:
    """Double the slots and the per-code arrays; -1 (the table unchanged) if out of memory."""
    cdef Table grown = t[0]    # the count, the arena and the seed carry over
    cdef int64_t i, old = <int64_t>t.mask + 1
    if _index_alloc(&grown, 2 * old) < 0:
        _index_free(&grown)
        return -1
    for i in range(old):
        if t.slots[i].code:
            _empty_slot(&grown, t.slots[i].hash)[0] = t.slots[i]
    memcpy(grown.offsets, t.offsets, t.count * sizeof(int64_t))
    memcpy(grown.lengths, t.lengths, t.count * sizeof(int64_t))
    _index_free(t)
    t[0] = grown
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


cdef inline int64_t intern_key(Table *t, const uint8_t *key, int64_t length,
                               uint64_t h) noexcept nogil:
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
                and (length <= 16 or memcmp(t.arena + t.offsets[slot.code - 1] + 16, key + 16,
                                            length - 16) == 0)):
            return slot.code - 1
        at = (at + 1) & t.mask
    if t.count >= t.capacity:
        if t.count >= 0x7FFFFFFE or table_grow(t) < 0:
            return -1
        slot = _empty_slot(t, h)
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
