# cython: language_level=3
"""The compiled loops of the intent-aware (diversity) measures.

Inputs are flat arrays built by :mod:`rankproof.intent_alignment` and
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

from libc.math cimport exp, lgamma, pow
from libc.stdint cimport int64_t

import numpy as np


cdef inline double _log_choose(double n, double k) nogil:
    return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0)


cdef double _novelty_expectation(int64_t n, int64_t m, int64_t q, double keep) nogil:
    """E[keep^J], J ~ Hypergeometric(population n - 1, successes m - 1, draws q - 1)."""
    cdef int64_t population = n - 1, successes = m - 1, draws = q - 1
    cdef int64_t j, low, high
    cdef double probability, total = 0.0, power
    if successes == 0 or draws == 0 or keep == 1.0:
        return 1.0
    low = draws - (population - successes)
    if low < 0:
        low = 0
    high = successes if successes < draws else draws
    probability = exp(_log_choose(successes, low) + _log_choose(population - successes, draws - low)
                      - _log_choose(population, draws))
    power = pow(keep, <double>low)
    for j in range(low, high + 1):
        total += probability * power
        power *= keep
        # P(j + 1) / P(j) for the hypergeometric
        probability *= (<double>(successes - j) * (draws - j)) / (
            <double>(j + 1) * (population - successes - draws + j + 1))
    return total


def novelty_gain(const int64_t[:] offsets, const int64_t[:] query_groups, const int64_t[:] group_offsets,
                 const int64_t[:] rel_offsets, const int64_t[:] rel_pair, const int64_t[:] pair_offsets,
                 const double[:] weight, const int64_t[:] cutoff, const double[:] discount, double alpha):
    """Per query: sum over ranks r <= k of d(r) * sum_i w_i * rel_i(r) * (1 - alpha)^(c_i(r)),
    c_i(r) the docs relevant to intent i ranked above r (expected over tied orders)."""
    cdef int64_t num_queries = offsets.shape[0] - 1
    cdef int64_t num_pairs = weight.shape[0]
    out = np.zeros(num_queries, dtype=np.float64)
    novelty_np = np.ones(num_pairs, dtype=np.float64)
    in_group_np = np.zeros(num_pairs, dtype=np.int64)
    touched_np = np.zeros(max(num_pairs, 1), dtype=np.int64)
    cdef double[:] result = out
    cdef double[:] novelty = novelty_np      # (1 - alpha)^(relevant docs seen so far), per pair
    cdef int64_t[:] in_group = in_group_np   # relevant docs of the current group, per pair
    cdef int64_t[:] touched = touched_np
    cdef double keep = 1.0 - alpha
    cdef int64_t query, group, start, size, rank, k, slots, e, p, pair, count, touched_count, t, q
    cdef double total, expected
    with nogil:
        for query in range(num_queries):
            k = cutoff[query]
            total = 0.0
            group = query_groups[query]
            while group_offsets[group] < offsets[query + 1]:
                start = group_offsets[group]
                size = group_offsets[group + 1] - start
                rank = start - offsets[query]
                if rank >= k:
                    break
                if size == 1:
                    for e in range(rel_offsets[start], rel_offsets[start + 1]):
                        pair = rel_pair[e]
                        total += weight[pair] * novelty[pair] * discount[rank]
                        novelty[pair] *= keep
                else:
                    touched_count = 0
                    for p in range(start, start + size):
                        for e in range(rel_offsets[p], rel_offsets[p + 1]):
                            pair = rel_pair[e]
                            if in_group[pair] == 0:
                                touched[touched_count] = pair
                                touched_count += 1
                            in_group[pair] += 1
                    slots = k - rank
                    if slots > size:
                        slots = size
                    for t in range(touched_count):
                        pair = touched[t]
                        count = in_group[pair]
                        expected = 0.0
                        for q in range(1, slots + 1):
                            expected += discount[rank + q - 1] * _novelty_expectation(size, count, q, keep)
                        total += weight[pair] * novelty[pair] * (<double>count / size) * expected
                        novelty[pair] *= pow(keep, <double>count)
                        in_group[pair] = 0
                group += 1
            result[query] = total
    return out


def per_intent(const int64_t[:] offsets, const int64_t[:] query_groups, const int64_t[:] group_offsets,
               const int64_t[:] rel_offsets, const int64_t[:] rel_pair, const double[:] rel_value,
               int64_t num_pairs, const int64_t[:] cutoff, const double[:] discount):
    """Per (query, intent) pair, within each query's top k (expected over tied orders):
    the docs with an entry for the pair, whether one of them is there (0/1, or its
    probability), and the DCG of the entries' values."""
    cdef int64_t num_queries = offsets.shape[0] - 1
    count_np = np.zeros(num_pairs, dtype=np.float64)
    covered_np = np.zeros(num_pairs, dtype=np.float64)
    dcg_np = np.zeros(num_pairs, dtype=np.float64)
    in_group_np = np.zeros(num_pairs, dtype=np.int64)
    value_sum_np = np.zeros(num_pairs, dtype=np.float64)
    touched_np = np.zeros(max(num_pairs, 1), dtype=np.int64)
    cdef double[:] found = count_np
    cdef double[:] covered = covered_np
    cdef double[:] dcg = dcg_np
    cdef int64_t[:] in_group = in_group_np
    cdef double[:] value_sum = value_sum_np
    cdef int64_t[:] touched = touched_np
    cdef int64_t query, group, start, size, rank, k, slots, e, p, pair, count, touched_count, t, j
    cdef double discount_sum, missed
    with nogil:
        for query in range(num_queries):
            k = cutoff[query]
            group = query_groups[query]
            while group_offsets[group] < offsets[query + 1]:
                start = group_offsets[group]
                size = group_offsets[group + 1] - start
                rank = start - offsets[query]
                if rank >= k:
                    break
                if size == 1:
                    for e in range(rel_offsets[start], rel_offsets[start + 1]):
                        pair = rel_pair[e]
                        found[pair] += 1.0
                        covered[pair] = 1.0
                        dcg[pair] += rel_value[e] * discount[rank]
                else:
                    touched_count = 0
                    for p in range(start, start + size):
                        for e in range(rel_offsets[p], rel_offsets[p + 1]):
                            pair = rel_pair[e]
                            if in_group[pair] == 0:
                                touched[touched_count] = pair
                                touched_count += 1
                            in_group[pair] += 1
                            value_sum[pair] += rel_value[e]
                    slots = k - rank
                    if slots > size:
                        slots = size
                    discount_sum = 0.0
                    for j in range(slots):
                        discount_sum += discount[rank + j]
                    for t in range(touched_count):
                        pair = touched[t]
                        count = in_group[pair]
                        # every slot holds each doc of the group with probability 1 / size
                        found[pair] += (<double>count) * slots / size
                        dcg[pair] += value_sum[pair] / size * discount_sum
                        if covered[pair] < 1.0:
                            # P(none of the count docs in the slots) = C(size - count, slots) / C(size, slots)
                            missed = 1.0
                            for j in range(slots):
                                missed *= (<double>(size - count - j)) / (size - j)
                                if missed <= 0.0:
                                    missed = 0.0
                                    break
                            covered[pair] = 1.0 - missed
                        in_group[pair] = 0
                        value_sum[pair] = 0.0
                group += 1
    return count_np, covered_np, dcg_np


def greedy_ideal(const int64_t[:] pool_offsets, const int64_t[:] pool_doc_offsets, const int64_t[:] pool_pair,
                 const double[:] weight, const int64_t[:] cutoff, const double[:] discount, double alpha):
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
    cdef double[:] result = out
    cdef double[:] novelty = novelty_np
    cdef unsigned char[:] used = used_np
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
