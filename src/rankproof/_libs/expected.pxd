# cython: language_level=3
"""What a ranked measure adds up over one query's ranking, as an expectation over the orders
of its tie groups (cimported by ranked.pyx, which runs a plan of them over every query).

Tie groups are averaged in closed form (McSherry & Najork 2008), exactly as
the numpy reference kernels of :mod:`rankproof.kernels.ranked` do. Every
function walks a query's groups with one cursor (``common.pxd``): for a group
G, n = |G|, s = docs ranked before G (G holds ranks s+1 .. s+n), k = the
cutoff, m = min(s+n, k) - s its slots inside the cutoff, r = relevant docs in
G, c = relevant docs before G, d(i) = discount of rank i, D(i) = d(1) + ... +
d(i). An untied doc is a group of size 1, where every formula reduces to the
ordinary one.

Each function takes the query (its groups, grades and judged flags) and what
it counts (a ``Flag``) or weighs (a ``GainTable``); none knows of
plans, policies or outputs. They are inline: compiled into ranked.pyx's loop.
"""

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc

from .common cimport (
    Groups, Hypergeometric, Ranking, gain_by_formula, hypergeometric, next_group, next_value,
    probability, tie_groups,
)


cdef struct Query:
    # One query: its tie groups, and the alignment's judgments per position.
    Ranking ranking
    const int64_t* grade            # 0 when unjudged
    const uint8_t* judged


cdef struct Flag:
    # The docs a count counts: judged == `judged` and (grade >= rel) == `at_least`.
    int64_t rel
    uint8_t judged
    bint at_least


cdef struct GainTable:
    const double* gain              # the gain of grade g at [g - grade_min], for `span` grades
    int64_t grade_min
    int64_t span
    int64_t kind                    # GainKind: the gain of the grades outside


cdef inline Flag flag(int64_t rel, uint8_t judged, bint at_least) noexcept nogil:
    """The docs judged == `judged` whose grade is >= rel (`at_least`) or < rel (not)."""
    cdef Flag f
    f.rel = rel
    f.judged = judged
    f.at_least = at_least
    return f


cdef inline bint _counts(const Query* x, int64_t p, const Flag* f) noexcept nogil:
    """Does `f` count the doc at position p? (rel = INT64_MIN: whatever its grade.)"""
    return x.judged[p] == f.judged and (x.grade[p] >= f.rel) == f.at_least


cdef inline int64_t _counted(const Query* x, const Groups* g, const Flag* f) noexcept nogil:
    """How many docs of the current group `f` counts."""
    cdef int64_t p, total = 0
    for p in range(g.start, g.start + g.size):
        total += _counts(x, p, f)
    return total


cdef inline double _gain(const GainTable* table, int64_t grade) noexcept nogil:
    """The gain of a grade: from the table inside its range, by formula outside."""
    cdef int64_t at = grade - table.grade_min
    if 0 <= at < table.span:
        return table.gain[at]
    return gain_by_formula(table.kind, <double>grade)


cdef inline double _judged_gain(const Query* x, int64_t p, const GainTable* table) noexcept nogil:
    """The gain of the doc at position p: unjudged docs gain 0 whatever the table says."""
    return _gain(table, x.grade[p]) if x.judged[p] else 0.0


cdef inline double expected_dcg(const Query* x, const GainTable* table, const double* discount,
                                const double* cumulative, int64_t k) noexcept nogil:
    """Expected DCG@k = sum_G mean_gain(G) * (D(s + m) - D(s))."""
    cdef double total = 0.0, group_gain
    cdef int64_t p
    cdef Groups g = tie_groups(&x.ranking, k)
    while next_group(&g):
        if g.size == 1:
            if x.judged[g.start]:
                total += _gain(table, x.grade[g.start]) * discount[g.rank]
            continue
        group_gain = 0.0
        for p in range(g.start, g.start + g.size):
            group_gain += _judged_gain(x, p, table)
        total += group_gain / g.size * (cumulative[g.rank + g.slots] - cumulative[g.rank])
    return total


cdef inline double expected_err(const Query* x, const GainTable* stop, int64_t k) noexcept nogil:
    """Expected ERR@k: sum_i R_i / i * prod_{j<i} (1 - R_j), R from the `stop` table.

    An untied doc adds S R / (s + 1) and leaves the survival S (1 - R). A tied
    group adds S sum_{t=1}^{m} (E_{t-1} - E_t) / (s + t) and leaves S E_m,
    E_t the mean over the t-subsets of the group of prod (1 - R), from the
    recurrence E_t <- ((i - t) / i) E_t + (t / i) (1 - R_i) E_{t-1} over its
    docs i = 1..n (measures/user_models.py derives it). Unjudged docs: R = 0.
    """
    cdef double total = 0.0, survival = 1.0, r, keep, contribution
    cdef double* work
    cdef int64_t i, t, top, m
    cdef Groups g = tie_groups(&x.ranking, k)
    while next_group(&g):
        if g.size == 1:
            r = _judged_gain(x, g.start, stop)
            total += survival * r / (g.rank + 1)
            survival *= 1.0 - r
            continue
        m = g.slots
        work = <double*>malloc((m + 1) * sizeof(double))
        if work == NULL:
            return 0.0 / 0.0  # NaN: out of memory, never silently a number
        work[0] = 1.0
        for t in range(1, m + 1):
            work[t] = 0.0
        for i in range(1, g.size + 1):
            keep = 1.0 - _judged_gain(x, g.start + i - 1, stop)
            top = i if i < m else m
            for t in range(top, 0, -1):
                work[t] = (<double>(i - t) / i) * work[t] + (<double>t / i) * keep * work[t - 1]
        contribution = 0.0
        for t in range(1, m + 1):
            contribution += (work[t - 1] - work[t]) / (g.rank + t)
        total += survival * contribution
        survival *= work[m]
        free(work)
    return total


cdef inline double expected_count(const Query* x, const Flag* f, int64_t k) noexcept nogil:
    """Expected number of the docs `f` counts in the top k: sum_G f_G * m / n."""
    cdef double total = 0.0
    cdef Groups g = tie_groups(&x.ranking, k)
    while next_group(&g):
        if g.size == 1:
            total += _counts(x, g.start, f)
        else:
            total += <double>(_counted(x, &g, f) * g.slots) / g.size
    return total


cdef inline int64_t straddles_cutoff(const Query* x, int64_t k) noexcept nogil:
    """Tied groups that straddle the cutoff: s < k < s + n."""
    cdef Groups g = tie_groups(&x.ranking, k)
    while next_group(&g):
        if g.slots < g.size:
            return 1
    return 0


cdef inline void first_relevant(const Query* x, const Flag* relevant, int64_t k, double* rr,
                                double* hit) noexcept nogil:
    """Expected RR@k and hit@k from the first group holding a relevant doc.

    Its first relevant doc is at in-group position q with probability
    P(q) = C(n-q, r-1) / C(n, r): P(1) = r/n, P(q) = P(q-1) (n-q-r+2)/(n-q+1).
    E[RR@k] = sum_{q <= k-s} P(q) / (s + q), hit@k = sum_{q <= k-s} P(q)
    (an untied relevant doc: 1 / (s + 1) and 1).
    """
    cdef int64_t r, q, terms
    cdef double prob, rr_sum = 0.0, hit_sum = 0.0
    cdef Groups g = tie_groups(&x.ranking, k)
    rr[0] = 0.0
    hit[0] = 0.0
    while next_group(&g):
        r = _counted(x, &g, relevant)
        if r == 0:
            continue
        terms = g.size - r + 1
        if g.slots < terms:
            terms = g.slots
        prob = <double>r / g.size
        for q in range(1, terms + 1):
            if q > 1:
                prob = prob * (g.size - q - r + 2) / (g.size - q + 1 if g.size - q + 1 > 1 else 1)
            hit_sum += prob
            rr_sum += prob / (g.rank + q)
        rr[0] = rr_sum
        hit[0] = hit_sum if hit_sum < 1.0 else 1.0
        return


cdef inline double precision_sum(const Query* x, const Flag* relevant, int64_t k) noexcept nogil:
    """Expected sum of the precision at each relevant doc within the top k
    (AP@k times its denominator).

    A relevant doc of G at in-group position q has c + 1 + (q-1)(r-1)/(n-1)
    relevant docs at or above it in expectation, so G adds
    sum_{q=1}^{m} (r/n) (c + 1 + (q-1)(r-1)/(n-1)) / (s + q).
    """
    cdef double total = 0.0, group_total, others
    cdef int64_t r, q, c = 0
    cdef Groups g = tie_groups(&x.ranking, k)
    while next_group(&g):
        if g.size == 1:
            # An untied doc: its precision (c + 1) / (s + 1) if relevant.
            if _counts(x, g.start, relevant):
                c += 1
                total += <double>c / (g.rank + 1)
            continue
        r = _counted(x, &g, relevant)
        if r > 0:
            group_total = 0.0
            for q in range(1, g.slots + 1):
                others = <double>((q - 1) * (r - 1)) / (g.size - 1)
                group_total += (<double>r / g.size) * (c + 1 + others) / (g.rank + q)
            total += group_total
        c += r
    return total


cdef inline double _straddling_bpref(int64_t n, int64_t r, int64_t nr, int64_t c, int64_t m,
                                     int64_t num_rel, double denominator) noexcept nogil:
    """(r/n) sum_{q=1}^{m} E[1 - min(c + X_q, R) / denominator] for the group
    straddling the cutoff, X_q ~ hypergeometric(n - 1 docs, nr judged
    non-relevant, q - 1 draws): the judged non-relevant docs of the group
    ranked above a relevant doc at in-group position q."""
    cdef double total = 0.0
    cdef int64_t q, lowest
    cdef Hypergeometric h
    for q in range(1, m + 1):
        h = hypergeometric(n - 1, nr, q - 1)
        while True:
            lowest = c + h.x if c + h.x < num_rel else num_rel
            total += probability(&h) * (1.0 - lowest / denominator)
            if not next_value(&h):
                break
    return <double>r / n * total


cdef inline double bpref_sum(const Query* x, int64_t rel, int64_t k, int64_t num_rel,
                             int64_t num_nonrel) noexcept nogil:
    """Expected sum over relevant docs within k of 1 - min(v, R) / max(min(N, R), 1),
    v = judged non-relevant docs ranked above (bpref@k times R).

    In a group wholly inside the cutoff, a relevant doc's rank among itself
    and the group's nr judged non-relevant docs is uniform, so v = c' + X with
    X uniform on 0..nr (c' = judged non-relevant docs before G): G adds
    r (1 - sum_{v=c'}^{c'+nr} min(v, R) / (nr + 1) / denominator), the sum in
    closed form. The group straddling the cutoff: see _straddling_bpref.
    """
    cdef Flag relevant = flag(rel, 1, True), nonrelevant = flag(rel, 1, False)
    cdef double total = 0.0, denominator
    cdef int64_t r, nr, lo, hi, t, summed, c = 0
    cdef Groups g = tie_groups(&x.ranking, k)
    lo = num_nonrel if num_nonrel < num_rel else num_rel
    denominator = lo if lo > 1 else 1
    while next_group(&g):
        if g.size == 1:
            # An untied doc: 1 - min(c', R) / denominator if relevant.
            if _counts(x, g.start, &relevant):
                t = c if c < num_rel else num_rel
                total += 1.0 - <double>t / denominator
            elif _counts(x, g.start, &nonrelevant):
                c += 1
            continue
        r = _counted(x, &g, &relevant)
        nr = _counted(x, &g, &nonrelevant)
        if r > 0 and g.slots < g.size:
            total += _straddling_bpref(g.size, r, nr, c, g.slots, num_rel, denominator)
        elif r > 0:
            lo = c
            hi = c + nr
            t = hi if hi < num_rel else num_rel
            if num_rel <= lo:
                summed = (hi - lo + 1) * num_rel
            else:
                summed = (lo + t) * (t - lo + 1) // 2 + (hi - t) * num_rel
            total += r * (1.0 - <double>summed / (nr + 1) / denominator)
        c += nr
    return total


cdef inline double ideal_dcg(const int64_t* counts, const double* level_gain, int64_t num_levels,
                       const double* discount, int64_t k) noexcept nogil:
    """DCG@k of the ideal order of a pool: gains sorted descending (a counting
    sort over the distinct positive gains), sum_{i <= min(k, |pool|)} g_(i) d(i)."""
    cdef double total = 0.0
    cdef int64_t level, j, rank = 0
    for level in range(num_levels):
        for j in range(counts[level]):
            if rank >= k:
                return total
            total += level_gain[level] * discount[rank]
            rank += 1
    return total
