# cython: language_level=3
"""The compiled pass of the ranked measures: one loop over queries, every
requested measure of a query computed while its ranking is in cache.

Inputs are the flat arrays of an alignment (typed memoryviews, trusted: the
Python layer in :mod:`rankproof.engines.compiled` built and checked them) and
a *plan*, one row per measure (its layout is declared in ranked.pxd)::

    kind, cutoff (-1: none), rel id, gain table id, discount table id,
    denominator policy, ideal source id

Outputs are (measures x queries) arrays of value, numerator, denominator,
undefined, and the number of tied groups crossing the cutoff (for AP over the
hits, which has no closed form then: the caller raises).

What each measure adds up over a query's ranking, averaged over the orders
of its tie groups in closed form (McSherry & Najork 2008), is in
``expected.pxd`` (inline: compiled into this loop); this module runs the
plan: it counts each query's judged pool once (R, N and the ideal gains per
level), picks each measure's functions, cutoff and table, and turns their
sums into values over the denominators its policy names.
"""

from cython.parallel cimport prange, threadid
from libc.math cimport floor
from libc.stdint cimport INT64_MAX, INT64_MIN, int32_t, int64_t, uint8_t

from .common cimport EXP2, LINEAR, TABLE, ranking_of
from .expected cimport (
    Flag, GainTable, Query, bpref_sum, expected_count, expected_dcg, expected_err, first_relevant,
    flag, ideal_dcg, precision_sum, straddles_cutoff,
)

import numpy as np


# No cutoff for the ideal; "judged" as a relevance flag (any grade counts).
cdef int64_t NO_CUTOFF = INT64_MAX
cdef int64_t ANY_GRADE = INT64_MIN


cdef inline void _ratio(const Tables* t, int64_t at, double numerator, double denominator,
                        bint undefined) noexcept nogil:
    t.numerator[at] = numerator
    t.denominator[at] = denominator
    t.value[at] = numerator / denominator if denominator != 0 else 0.0
    t.undefined[at] = undefined


cdef void _set_measure(const Tables* t, int64_t at, int64_t kind, double found, int64_t retrieved,
                       int64_t num_rel, const double* params) noexcept nogil:
    """The set measures, from found = expected relevant retrieved (the whole
    ranking), retrieved and R:
    set_p = found / retrieved; set_r = found / R; set_relative_p = found /
    min(retrieved, R); set_ap = found^2 / (retrieved R); set_f = (beta + 1) P R
    / (beta P + R) (0 when nothing relevant is found); utility = a found +
    b (retrieved - found) + c (R - found) + d (docs + found - retrieved - R)."""
    cdef double precision, recall, denominator
    if kind == SET_P:
        _ratio(t, at, found, retrieved, False)
    elif kind == SET_R:
        _ratio(t, at, found, num_rel, num_rel == 0)
    elif kind == SET_RELATIVE_P:
        _ratio(t, at, found, retrieved if retrieved < num_rel else num_rel, num_rel == 0)
    elif kind == SET_AP:
        denominator = <double>retrieved * <double>num_rel
        t.value[at] = found * found / denominator if denominator > 0 else 0.0
        t.undefined[at] = num_rel == 0
    elif kind == SET_F:
        precision = found / retrieved if found > 0 else 0.0
        recall = found / num_rel if found > 0 else 0.0
        denominator = params[BETA] * precision + recall
        if found > 0 and denominator > 0:
            t.value[at] = (params[BETA] + 1.0) * precision * recall / denominator
        else:
            t.value[at] = 0.0
        t.undefined[at] = num_rel == 0
    else:
        t.value[at] = (params[UTILITY_A] * found + params[UTILITY_B] * (retrieved - found)
                       + params[UTILITY_C] * (num_rel - found)
                       + params[UTILITY_D] * (params[UTILITY_DOCS] + found - retrieved - num_rel))


cdef inline GainTable _table(const Tables* t, int64_t gain_id) noexcept nogil:
    """Gain table `gain_id` of the plan."""
    cdef GainTable table
    table.gain = t.gains + gain_id * t.grade_span
    table.grade_min = t.grade_min
    table.span = t.grade_span
    table.kind = t.gain_formula[gain_id]
    return table


cdef void _pool_counts(const Tables* t, int64_t q, const Query* x, int64_t* scratch) noexcept nogil:
    """Into `scratch`: R and N (judged non-relevant) of each rel, from the
    judged pool; then each ideal source's pool, counted per gain level (a
    counting sort)."""
    cdef int64_t i, p, gain_id, level
    cdef int64_t* num_rel_of = scratch
    cdef int64_t* num_nonrel_of = scratch + t.num_rels
    cdef int64_t* counts = scratch + 2 * t.num_rels
    for i in range(t.num_rels):
        num_rel_of[i] = 0
        num_nonrel_of[i] = 0
    for p in range(t.pool_offsets[q], t.pool_offsets[q + 1]):
        for i in range(t.num_rels):
            if t.pool_grade[p] >= t.rels[i]:
                num_rel_of[i] += 1
            else:
                num_nonrel_of[i] += 1
    for i in range(t.num_sources):
        gain_id = t.sources[2 * i]
        for level in range(t.max_levels):
            counts[i * t.max_levels + level] = 0
        if t.sources[2 * i + 1] == POOL_JUDGED:
            for p in range(t.pool_offsets[q], t.pool_offsets[q + 1]):
                level = t.level_of[gain_id * t.grade_span + t.pool_grade[p] - t.grade_min]
                if level >= 0:
                    counts[i * t.max_levels + level] += 1
        else:
            for p in range(x.ranking.first, x.ranking.first + x.ranking.length):
                if t.judged[p]:
                    level = t.level_of[gain_id * t.grade_span + t.grade[p] - t.grade_min]
                    if level >= 0:
                        counts[i * t.max_levels + level] += 1


cdef void _gain_measure(const Tables* t, int64_t at, const int64_t* row, const Query* x, int64_t k,
                        const int64_t* counts) noexcept nogil:
    """DCG@k, ideal DCG@k or nDCG@k of one query (`counts`: the ideal sources' level counts)."""
    cdef GainTable table = _table(t, row[GAIN])
    cdef const double* discount = t.discount + row[DISCOUNT] * t.table_length
    cdef int64_t source = row[SOURCE], gain_id
    cdef double dcg = 0.0, ideal
    if row[KIND] != IDEAL_DCG:
        dcg = expected_dcg(x, &table, discount,
                           t.cumulative + row[DISCOUNT] * (t.table_length + 1), k)
        if row[KIND] == DCG:
            t.value[at] = dcg
            return
    gain_id = t.sources[2 * source]
    ideal = ideal_dcg(counts + source * t.max_levels, t.level_gain + gain_id * t.max_levels,
                       t.num_levels[gain_id], discount,
                       row[CUTOFF] if row[CUTOFF] >= 0 else NO_CUTOFF)
    if row[KIND] == IDEAL_DCG:
        t.value[at] = ideal
    else:
        _ratio(t, at, dcg, ideal, ideal == 0)


cdef void _measure(const Tables* t, int64_t j, int64_t q, const Query* x,
                   const int64_t* scratch) noexcept nogil:
    """Measure j of the plan for query q (`scratch`: as _pool_counts left it)."""
    cdef const int64_t* row = t.plan + j * PLAN_COLUMNS
    cdef int64_t kind = row[KIND], cutoff = row[CUTOFF], length = x.ranking.length
    cdef int64_t k = cutoff if cutoff >= 0 else length, at = j * t.num_queries + q
    cdef int64_t rel = t.rels[row[REL]] if row[REL] >= 0 else ANY_GRADE
    cdef int64_t num_rel = scratch[row[REL]] if row[REL] >= 0 else 0
    cdef int64_t count_k
    cdef Flag relevant = flag(rel, 1, True)
    cdef GainTable stop
    cdef double total, rr, hit
    if kind == DCG or kind == IDEAL_DCG or kind == NDCG:
        _gain_measure(t, at, row, x, k, scratch + 2 * t.num_rels)
    elif kind == AP:
        total = precision_sum(x, &relevant, k)
        if row[POLICY] == RELEVANT:
            _ratio(t, at, total, num_rel, num_rel == 0)
        elif row[POLICY] == MIN_K:
            _ratio(t, at, total, num_rel if num_rel < k else k, num_rel == 0)
        else:
            _ratio(t, at, total, expected_count(x, &relevant, k), num_rel == 0)
            if cutoff >= 0:
                t.crossings[at] = straddles_cutoff(x, k)
    elif kind == RR or kind == HIT:
        first_relevant(x, &relevant, k, &rr, &hit)
        t.value[at] = rr if kind == RR else hit
    elif kind == P or kind == JUDGED:  # judged: rel = ANY_GRADE; precision_denominator for both
        count_k = k if row[POLICY] != RETRIEVED or k < length else length
        _ratio(t, at, expected_count(x, &relevant, k), count_k, False)
    elif kind == R:
        count_k = num_rel if row[POLICY] != MIN_K or num_rel < k else k
        _ratio(t, at, expected_count(x, &relevant, k), count_k, num_rel == 0)
    elif kind == RPREC:
        _ratio(t, at, expected_count(x, &relevant, num_rel), num_rel, num_rel == 0)
    elif kind == BPREF:
        total = bpref_sum(x, rel, k, num_rel, scratch[t.num_rels + row[REL]])
        _ratio(t, at, total, num_rel, num_rel == 0)
    elif kind == NUM_RET:
        t.value[at] = length if length < k else k
    elif kind == NUM_REL:
        t.value[at] = num_rel
    elif kind == NUM_REL_RET:
        t.value[at] = expected_count(x, &relevant, k)
    elif kind >= SET_P and kind <= UTILITY:
        _set_measure(t, at, kind, expected_count(x, &relevant, length), length, num_rel,
                     t.params + j * PARAM_COLUMNS)
    elif kind == RELATIVE_P:
        _ratio(t, at, expected_count(x, &relevant, k), k if k < num_rel else num_rel, num_rel == 0)
    elif kind == RPREC_MULT:
        # trec_eval's cut-off c = (long)(mult * R + 0.9)
        count_k = <int64_t>floor(t.params[j * PARAM_COLUMNS + MULT] * <double>num_rel + 0.9)
        _ratio(t, at, expected_count(x, &relevant, count_k), count_k, num_rel == 0)
    elif kind == NUM_NONREL_JUDGED_RET:
        relevant.at_least = False  # judged with grade < rel
        t.value[at] = expected_count(x, &relevant, k)
    elif kind == UNJUDGED:
        relevant.judged = 0  # rel = ANY_GRADE: not judged
        _ratio(t, at, expected_count(x, &relevant, k), k, False)
    elif kind == ERR:
        stop = _table(t, row[GAIN])
        stop.kind = TABLE
        t.value[at] = expected_err(x, &stop, k)


cdef void _one_query(const Tables* t, int64_t q, int64_t* scratch) noexcept nogil:
    """Every measure of the plan for query q."""
    cdef Query x
    cdef int64_t j
    x.ranking = ranking_of(t.offsets, t.query_groups, t.group_offsets, q)
    x.grade = t.grade
    x.judged = t.judged
    _pool_counts(t, q, &x, scratch)
    for j in range(t.num_measures):
        _measure(t, j, q, &x, scratch)


cdef void _first_groups(const int64_t[::1] offsets, const int64_t[::1] group_offsets,
                        int64_t[::1] query_groups) noexcept nogil:
    """First group of each query (groups never cross a query boundary): the
    first group of query q + 1 lies within the len(q) groups after the first
    of q, so a binary search over that short range finds it."""
    cdef int64_t q, lo, hi, mid, num_queries = offsets.shape[0] - 1
    lo = 0
    for q in range(num_queries + 1):
        # Smallest g >= lo with group_offsets[g] >= offsets[q].
        hi = lo + (offsets[q] - offsets[q - 1] if q > 0 else 0)
        if hi > group_offsets.shape[0] - 1:
            hi = group_offsets.shape[0] - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if group_offsets[mid] < offsets[q]:
                lo = mid + 1
            else:
                hi = mid
        query_groups[q] = lo


def plan_layout():
    """ranked.pxd's plan enums and common.pxd's GainKind by name, for engines/compiled.py."""
    return {
        "Column": {"KIND": KIND, "CUTOFF": CUTOFF, "REL": REL, "GAIN": GAIN, "DISCOUNT": DISCOUNT,
                   "POLICY": POLICY, "SOURCE": SOURCE, "PLAN_COLUMNS": PLAN_COLUMNS},
        "Param": {"MULT": MULT, "BETA": BETA, "UTILITY_A": UTILITY_A, "UTILITY_B": UTILITY_B,
                  "UTILITY_C": UTILITY_C, "UTILITY_D": UTILITY_D, "UTILITY_DOCS": UTILITY_DOCS,
                  "PARAM_COLUMNS": PARAM_COLUMNS},
        "Denominator": {"BY_K": BY_K, "RELEVANT": RELEVANT, "MIN_K": MIN_K, "HITS": HITS,
                        "RETRIEVED": RETRIEVED},
        "Pool": {"POOL_JUDGED": POOL_JUDGED, "POOL_RETRIEVED": POOL_RETRIEVED},
        "GainKind": {"LINEAR": LINEAR, "EXP2": EXP2, "TABLE": TABLE},
    }


def evaluate_ranked(
    const int64_t[::1] offsets, const int64_t[::1] group_offsets,
    const int64_t[::1] grade, const uint8_t[::1] judged,
    const int64_t[::1] pool_offsets, const int64_t[::1] pool_grade,
    const double[:, ::1] gains, const int32_t[:, ::1] level_of, const double[:, ::1] level_gain,
    const int64_t[::1] num_levels, const int64_t[::1] gain_formula, int64_t grade_min,
    const double[:, ::1] discount, const double[:, ::1] cumulative,
    const int64_t[:, ::1] plan, const double[:, ::1] params, const int64_t[::1] rels,
    const int64_t[:, ::1] sources,
    int num_threads=1,
):
    """Run the plan over every query; return (value, numerator, denominator,
    undefined, crossings), each of shape (measures, queries).

    Every array is trusted: offsets consistent, grades inside the gain tables'
    range, discount tables at least as long as the longest ranking and pool,
    plan ids inside their tables (engines/compiled.py builds them).
    """
    cdef Tables t
    cdef int64_t num_queries = offsets.shape[0] - 1
    cdef int64_t num_measures = plan.shape[0]
    cdef Py_ssize_t q
    cdef int tid
    value = np.zeros((num_measures, num_queries))
    numerator = np.zeros((num_measures, num_queries))
    denominator = np.zeros((num_measures, num_queries))
    undefined = np.zeros((num_measures, num_queries), dtype=np.uint8)
    crossings = np.zeros((num_measures, num_queries), dtype=np.int64)
    width = max(2 * rels.shape[0] + sources.shape[0] * level_gain.shape[1], 1)
    scratch = np.zeros((max(num_threads, 1), width), dtype=np.int64)
    cdef double[:, ::1] value_view = value, numerator_view = numerator
    cdef double[:, ::1] denominator_view = denominator
    cdef uint8_t[:, ::1] undefined_view = undefined
    cdef int64_t[:, ::1] crossings_view = crossings, scratch_view = scratch
    cdef int64_t[::1] query_groups
    if num_queries == 0 or num_measures == 0:
        return value, numerator, denominator, undefined, crossings
    query_groups = np.empty(num_queries + 1, dtype=np.int64)
    with nogil:
        _first_groups(offsets, group_offsets, query_groups)

    t.offsets = &offsets[0]
    t.query_groups = &query_groups[0]
    t.group_offsets = &group_offsets[0]
    t.grade = &grade[0] if grade.shape[0] else NULL
    t.judged = &judged[0] if judged.shape[0] else NULL
    t.pool_offsets = &pool_offsets[0]
    t.pool_grade = &pool_grade[0] if pool_grade.shape[0] else NULL
    t.num_queries = num_queries
    t.gains = &gains[0, 0]
    t.gain_formula = &gain_formula[0]
    t.level_of = &level_of[0, 0]
    t.level_gain = &level_gain[0, 0]
    t.num_levels = &num_levels[0]
    t.grade_min = grade_min
    t.grade_span = gains.shape[1]
    t.max_levels = level_gain.shape[1]
    t.discount = &discount[0, 0]
    t.cumulative = &cumulative[0, 0]
    t.table_length = discount.shape[1]
    t.plan = &plan[0, 0]
    t.params = &params[0, 0]
    t.num_measures = num_measures
    t.rels = &rels[0] if rels.shape[0] else NULL
    t.num_rels = rels.shape[0]
    t.sources = &sources[0, 0] if sources.shape[0] else NULL
    t.num_sources = sources.shape[0]
    t.value = &value_view[0, 0]
    t.numerator = &numerator_view[0, 0]
    t.denominator = &denominator_view[0, 0]
    t.undefined = &undefined_view[0, 0]
    t.crossings = &crossings_view[0, 0]
    t.scratch = &scratch_view[0, 0]
    t.scratch_width = width

    if num_threads <= 1:
        with nogil:
            for q in range(num_queries):
                _one_query(&t, q, t.scratch)
    else:
        # Queries are independent and each writes only its own outputs: the
        # result does not depend on the number of threads or the schedule.
        with nogil:
            for q in prange(num_queries, num_threads=num_threads, schedule="static", chunksize=256):
                tid = threadid()
                _one_query(&t, q, t.scratch + tid * t.scratch_width)
    return value, numerator, denominator, undefined, crossings
