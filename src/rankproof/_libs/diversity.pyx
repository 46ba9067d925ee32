# cython: language_level=3
"""The compiled loops of the intent-aware (diversity) measures.

Inputs are flat arrays built by :mod:`rankproof.pipeline.intents` and
:mod:`rankproof.measures.diversity` (typed memoryviews, trusted):

- ``offsets``: each query's ranked positions; ``query_groups[q]``: the index
  of its first tie group in ``group_offsets`` (positions of each group: the
  docs whose order ``ties=expected`` averages over; one position per group
  under every other tie policy);
- ``rel_offsets``: per position, its entries in ``rel_pair`` (the
  (query, intent) pair the doc counts for) and ``rel_value`` (its gain);
- ``pair_offsets``: each query's pairs; ``weight[pair]``: the intent's weight;
- ``cutoff[q]``: the query's k; ``discount[r]``: the discount of rank r + 1.

Tie groups are averaged exactly. For a group of n docs at ranks s+1 .. s+n,
m of them relevant to intent i, each relevant doc sits at in-group position
q with probability 1/n and, given that, has J ~ Hypergeometric(n - 1 docs,
m - 1 relevant, q - 1 drawn) other relevant docs of i before it in the group,
so by linearity the novelty gain of the group for i is
``w_i * (1 - alpha)^C_i * (m / n) * sum_q d(s + q) * E[(1 - alpha)^J]``
(C_i: docs relevant to i in earlier groups). An untied doc is a group of one,
where this is the ordinary ``w_i * (1 - alpha)^C_i * d(s + 1)``.
"""

from libc.math cimport pow
from libc.stdint cimport int64_t, uint8_t

from .common cimport (
    Groups, Hypergeometric, hypergeometric, next_group, next_value, probability, query_tie_groups,
)

import numpy as np


cdef double _novelty_expectation(int64_t n, int64_t m, int64_t q, double keep) noexcept nogil:
    """E[keep^J], J ~ Hypergeometric(population n - 1, successes m - 1, draws q - 1)."""
    cdef double total = 0.0, power
    cdef Hypergeometric h
    if m == 1 or q == 1 or keep == 1.0:
        return 1.0
    h = hypergeometric(n - 1, m - 1, q - 1)
    power = pow(keep, <double>h.x)
    while True:
        total += probability(&h) * power
        if not next_value(&h):
            return total
        power *= keep


cdef struct Entries:
    # The judgments per (query, intent) pair of the ranked positions, and the
    # scratch arrays (one slot per pair, zero between groups) of a group's pairs.
    const int64_t* rel_offsets   # per position: its entries
    const int64_t* rel_pair      # per entry: the pair the doc counts for
    const double* rel_value      # per entry: its value (NULL: not summed)
    int64_t* in_group            # per pair: docs of the current group counting for it
    double* value_sum            # per pair: the sum of their values
    int64_t* touched             # the pairs the current group's docs count for


cdef int64_t _group_pairs(const Groups* g, const Entries* s) noexcept nogil:
    """The pairs the docs of the current group count for, each once, into
    `touched` (their number returned); per pair, into `in_group` its docs in
    the group and (`rel_value` not NULL) into `value_sum` the sum of their values."""
    cdef int64_t p, e, pair, count = 0
    for p in range(g.start, g.start + g.size):
        for e in range(s.rel_offsets[p], s.rel_offsets[p + 1]):
            pair = s.rel_pair[e]
            if s.in_group[pair] == 0:
                s.touched[count] = pair
                count += 1
            s.in_group[pair] += 1
            if s.rel_value != NULL:
                s.value_sum[pair] += s.rel_value[e]
    return count


cdef double _query_novelty(Groups* g, const Entries* s, const double* weight, double* novelty,
                           const double* discount, double keep) noexcept nogil:
    """One query's novelty-discounted gain; `novelty[pair]`: (1 - alpha)^(its relevant docs seen so far)."""
    cdef double total = 0.0, expected
    cdef int64_t e, pair, count, touched, t, q
    while next_group(g):
        if g.size == 1:
            for e in range(s.rel_offsets[g.start], s.rel_offsets[g.start + 1]):
                pair = s.rel_pair[e]
                total += weight[pair] * novelty[pair] * discount[g.rank]
                novelty[pair] *= keep
            continue
        touched = _group_pairs(g, s)
        for t in range(touched):
            pair = s.touched[t]
            count = s.in_group[pair]
            expected = 0.0
            for q in range(1, g.slots + 1):
                expected += discount[g.rank + q - 1] * _novelty_expectation(g.size, count, q, keep)
            total += weight[pair] * novelty[pair] * (<double>count / g.size) * expected
            novelty[pair] *= pow(keep, <double>count)
            s.in_group[pair] = 0
    return total


cdef void _query_per_intent(Groups* g, const Entries* s, const double* discount, double* found,
                            double* covered,
                            double* dcg) noexcept nogil:
    """One query's found, covered and dcg per pair (see per_intent)."""
    cdef double discount_sum, missed
    cdef int64_t e, pair, count, touched, t, j
    while next_group(g):
        if g.size == 1:
            for e in range(s.rel_offsets[g.start], s.rel_offsets[g.start + 1]):
                pair = s.rel_pair[e]
                found[pair] += 1.0
                covered[pair] = 1.0
                dcg[pair] += s.rel_value[e] * discount[g.rank]
            continue
        touched = _group_pairs(g, s)
        discount_sum = 0.0
        for j in range(g.slots):
            discount_sum += discount[g.rank + j]
        for t in range(touched):
            pair = s.touched[t]
            count = s.in_group[pair]
            # every slot holds each doc of the group with probability 1 / size
            found[pair] += (<double>count) * g.slots / g.size
            dcg[pair] += s.value_sum[pair] / g.size * discount_sum
            if covered[pair] < 1.0:
                # P(none of the count docs in the slots) = C(size - count, slots) / C(size, slots)
                missed = 1.0
                for j in range(g.slots):
                    missed *= (<double>(g.size - count - j)) / (g.size - j)
                    if missed <= 0.0:
                        missed = 0.0
                        break
                covered[pair] = 1.0 - missed
            s.in_group[pair] = 0
            s.value_sum[pair] = 0.0


cdef Entries _entries(const int64_t[::1] rel_offsets, const int64_t[::1] rel_pair,
                      const double* rel_value,
                      int64_t[::1] in_group, double[::1] value_sum, int64_t[::1] touched):
    cdef Entries s
    s.rel_offsets = &rel_offsets[0]
    s.rel_pair = &rel_pair[0] if rel_pair.shape[0] else NULL
    s.rel_value = rel_value
    s.in_group = &in_group[0]
    s.value_sum = &value_sum[0]
    s.touched = &touched[0]
    return s


def novelty_gain(const int64_t[::1] offsets, const int64_t[::1] query_groups,
                 const int64_t[::1] group_offsets,
                 const int64_t[::1] rel_offsets, const int64_t[::1] rel_pair,
                 const int64_t[:] pair_offsets,
                 const double[::1] weight, const int64_t[::1] cutoff, const double[::1] discount,
                 double alpha):
    """Per query: sum over ranks r <= k of d(r) * sum_i w_i * rel_i(r) * (1 - alpha)^(c_i(r)),
    c_i(r) the docs relevant to intent i ranked above r (expected over tied orders)."""
    cdef int64_t num_queries = offsets.shape[0] - 1, width = max(weight.shape[0], 1), query
    out = np.zeros(num_queries, dtype=np.float64)
    novelty_np = np.ones(width, dtype=np.float64)
    cdef double[::1] result = out, novelty = novelty_np
    # alive while the loop reads them
    scratch = np.zeros((2, width), dtype=np.int64), np.zeros(width)
    cdef Entries s = _entries(rel_offsets, rel_pair, NULL, scratch[0][0], scratch[1], scratch[0][1])
    cdef Groups g
    with nogil:
        for query in range(num_queries):
            g = query_tie_groups(&offsets[0], &query_groups[0], &group_offsets[0], query,
                                 cutoff[query])
            result[query] = _query_novelty(&g, &s, &weight[0], &novelty[0], &discount[0],
                                           1.0 - alpha)
    return out


def per_intent(const int64_t[::1] offsets, const int64_t[::1] query_groups,
               const int64_t[::1] group_offsets,
               const int64_t[::1] rel_offsets, const int64_t[::1] rel_pair,
               const double[::1] rel_value,
               int64_t num_pairs, const int64_t[::1] cutoff, const double[::1] discount):
    """Per (query, intent) pair, within each query's top k (expected over tied orders):
    the docs with an entry for the pair, whether one of them is there (0/1, or its
    probability), and the DCG of the entries' values."""
    cdef int64_t num_queries = offsets.shape[0] - 1, width = max(num_pairs, 1), query
    sums = np.zeros((3, width))  # found, covered, dcg
    cdef double[::1] found = sums[0], covered = sums[1], dcg = sums[2]
    # alive while the loop reads them
    scratch = np.zeros((2, width), dtype=np.int64), np.zeros(width)
    cdef Entries s = _entries(rel_offsets, rel_pair, &rel_value[0] if rel_value.shape[0] else NULL,
                              scratch[0][0], scratch[1], scratch[0][1])
    cdef Groups g
    with nogil:
        for query in range(num_queries):
            g = query_tie_groups(&offsets[0], &query_groups[0], &group_offsets[0], query,
                                 cutoff[query])
            _query_per_intent(&g, &s, &discount[0], &found[0], &covered[0], &dcg[0])
    return sums[0, :num_pairs].copy(), sums[1, :num_pairs].copy(), sums[2, :num_pairs].copy()


def greedy_ideal(const int64_t[:] pool_offsets, const int64_t[:] pool_doc_offsets,
                 const int64_t[:] pool_pair,
                 const double[:] weight, const int64_t[:] cutoff, const double[:] discount,
                 double alpha):
    """Per query: the novelty-discounted gain of NIST ndeval's greedy ideal ranking, to depth k.

    At each rank the unused judged doc with the highest gain
    sum_i w_i * (1 - alpha)^(c_i) is taken, ties going to the greatest doc id
    (ndeval's rule; the pool's docs come in ascending id order, so a later
    doc with an equal gain wins). Exact optimisation is NP-hard; ndeval and
    the TREC Web track use this greedy ideal.
    """
    cdef int64_t num_queries = pool_offsets.shape[0] - 1
    cdef int64_t num_pairs = weight.shape[0]
    cdef int64_t num_docs = pool_doc_offsets.shape[0] - 1
    out = np.zeros(num_queries, dtype=np.float64)
    novelty_np = np.ones(num_pairs, dtype=np.float64)
    used_np = np.zeros(max(num_docs, 1), dtype=np.uint8)
    cdef double[::1] result = out
    cdef double[::1] novelty = novelty_np
    cdef uint8_t[::1] used = used_np
    cdef double keep = 1.0 - alpha
    cdef int64_t query, rank, depth, doc, best, e
    cdef double total, gain, best_gain
    with nogil:
        for query in range(num_queries):
            depth = pool_offsets[query + 1] - pool_offsets[query]
            if cutoff[query] < depth:
                depth = cutoff[query]
            total = 0.0
            for rank in range(depth):
                best = -1
                best_gain = 0.0
                for doc in range(pool_offsets[query], pool_offsets[query + 1]):
                    if used[doc]:
                        continue
                    gain = 0.0
                    for e in range(pool_doc_offsets[doc], pool_doc_offsets[doc + 1]):
                        gain += weight[pool_pair[e]] * novelty[pool_pair[e]]
                    if best == -1 or gain >= best_gain:
                        best = doc
                        best_gain = gain
                if best_gain <= 0.0:
                    break
                used[best] = 1
                total += best_gain * discount[rank]
                for e in range(pool_doc_offsets[best], pool_doc_offsets[best + 1]):
                    novelty[pool_pair[e]] *= keep
            result[query] = total
    return out
