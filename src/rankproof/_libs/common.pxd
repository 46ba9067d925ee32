# cython: language_level=3
"""What the compiled kernels share (cimported by ranked.pyx, diversity.pyx and dense.pyx).

One spelling of types across them: ``int64_t`` for positions, counts, codes
and integer grades; ``uint8_t`` for flags; ``double`` for every real value.

- the gain formulas, for grades that no gain table covers;
- a query's ranking as tie groups, and the cursor that walks them in rank
  order up to a cutoff (the one walk of every ranked kernel);
- the hypergeometric law of the docs of a kind ranked above a doc of a tie
  group that straddles the cutoff (the one copy of that tail).

The Python reference of the last is
:func:`rankproof.kernels.ranked.straddling_draws`.
"""

from libc.math cimport exp, exp2, lgamma, log
from libc.stdint cimport int64_t


# -- gains ----------------------------------------------------------------------------
# How a gain table is read (dense.pyx's gain kind; ranked.pyx's formula per table).
cdef enum GainKind:
    LINEAR = 0   # outside the table: g
    EXP2 = 1     # outside the table: 2^g - 1
    TABLE = 2    # a table that lists every grade with a gain: 0 outside


cdef inline double gain_by_formula(int64_t kind, double grade) noexcept nogil:
    """The gain of a grade that no table covers: g, 2^g - 1, or 0 (TABLE)."""
    if kind == LINEAR:
        return grade
    if kind == EXP2:
        return exp2(grade) - 1.0
    return 0.0


# -- a ranking as tie groups ----------------------------------------------------------
cdef struct Ranking:
    # One query's ranking: positions first .. first + length - 1 of the
    # alignment, in tie groups that start at group_offsets[first_group]
    # (groups never cross a query; group_offsets ends with a sentinel, the
    # number of positions, so the offset after the last group is readable).
    const int64_t* group_offsets
    int64_t first
    int64_t length
    int64_t first_group


cdef struct Groups:
    # A cursor over a ranking's tie groups, in rank order, up to a cutoff k.
    const int64_t* group_offsets
    int64_t first
    int64_t cutoff     # k
    int64_t limit      # min(k, length): the walk ends at the first group ranked there
    int64_t next       # index of the next group
    # the current group G: positions start .. start + size - 1
    int64_t start
    int64_t size       # n = |G|
    int64_t rank       # s: docs ranked before G (G holds ranks s+1 .. s+n)
    int64_t slots      # m = min(s + n, k) - s: its ranks inside the cutoff


cdef inline Ranking ranking_of(const int64_t* offsets, const int64_t* query_groups,
                               const int64_t* group_offsets,
                               int64_t q) noexcept nogil:
    """Query q's ranking, from the alignment's offsets and each query's first group."""
    cdef Ranking x
    x.group_offsets = group_offsets
    x.first = offsets[q]
    x.length = offsets[q + 1] - offsets[q]
    x.first_group = query_groups[q]
    return x


cdef inline Groups tie_groups(const Ranking* x, int64_t k) noexcept nogil:
    """A cursor before the first group of `x`, walking up to the cutoff k."""
    cdef Groups g
    g.group_offsets = x.group_offsets
    g.first = x.first
    g.cutoff = k
    g.limit = k if k < x.length else x.length
    g.next = x.first_group
    g.start = x.first
    g.size = 0
    g.rank = 0
    g.slots = 0
    return g


cdef inline Groups query_tie_groups(const int64_t* offsets, const int64_t* query_groups,
                                   const int64_t* group_offsets, int64_t q,
                                    int64_t k) noexcept nogil:
    """A cursor before the first group of query q, walking up to the cutoff k."""
    cdef Ranking x = ranking_of(offsets, query_groups, group_offsets, q)
    return tie_groups(&x, k)


cdef inline bint next_group(Groups* g) noexcept nogil:
    """Move to the next group starting inside the top k; False when none is left."""
    g.start = g.group_offsets[g.next]
    g.rank = g.start - g.first
    if g.rank >= g.limit:
        return False
    g.size = g.group_offsets[g.next + 1] - g.start
    g.slots = g.size if g.rank + g.size <= g.cutoff else g.cutoff - g.rank
    g.next += 1
    return True


# -- the hypergeometric tail -----------------------------------------------------------
cdef inline double log_choose(int64_t a, int64_t b) noexcept nogil:
    """log C(a, b), for 0 <= b <= a."""
    return lgamma(a + 1.0) - lgamma(b + 1.0) - lgamma(a - b + 1.0)


cdef struct Hypergeometric:
    # X: the docs of a kind among `draws` docs drawn without replacement from
    # `population` docs, `successes` of them of that kind. Walked over its
    # support x = low .. high; log_p = log P(X = x).
    int64_t population
    int64_t successes
    int64_t draws
    int64_t x
    int64_t high
    double log_p


cdef inline Hypergeometric hypergeometric(int64_t population, int64_t successes,
                                          int64_t draws) noexcept nogil:
    """The law of X, at the lowest value of its support."""
    cdef Hypergeometric h
    cdef int64_t failures = population - successes
    h.population = population
    h.successes = successes
    h.draws = draws
    h.x = draws - failures if draws > failures else 0
    h.high = successes if successes < draws else draws
    h.log_p = log_choose(successes, h.x) + log_choose(failures,
                                                      draws - h.x) - log_choose(population, draws)
    return h


cdef inline double probability(const Hypergeometric* h) noexcept nogil:
    """P(X = x) at the cursor's x."""
    return exp(h.log_p)


cdef inline bint next_value(Hypergeometric* h) noexcept nogil:
    """Move to x + 1 (P(x + 1) / P(x) = (K - x)(d - x) / ((x + 1)(N - K - d + x + 1)));
    False past the support."""
    if h.x >= h.high:
        return False
    h.log_p += log((<double>(h.successes - h.x) * (h.draws - h.x))
                   / (<double>(h.x + 1) * (h.population - h.successes - h.draws + h.x + 1)))
    h.x += 1
    return True
