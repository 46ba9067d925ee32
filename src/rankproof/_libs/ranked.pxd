# cython: language_level=3
"""The declarations of ranked.pyx: the layout of its plan (measure kinds,
columns, parameters, policies) and the tables its loop reads and writes.
Cython reads this file with ranked.pyx; what the kernels share is in
common.pxd, what a measure sums over one query in expected.pxd."""

from libc.stdint cimport int32_t, int64_t, uint8_t


# Measure kinds, the plan's first column: engines/compiled.py reads them by
# name (``Kind.NDCG``), the name in lower case being the measure's.
cpdef enum Kind:
    DCG = 0, IDEAL_DCG = 1, NDCG = 2, AP = 3, RR = 4, HIT = 5, P = 6, R = 7, RPREC = 8, BPREF = 9
    JUDGED = 10, NUM_RET = 11, NUM_REL = 12, NUM_REL_RET = 13
    # trec_eval's set and count measures
    SET_P = 14, SET_R = 15, SET_RELATIVE_P = 16, SET_AP = 17, SET_F = 18, UTILITY = 19
    RELATIVE_P = 20, RPREC_MULT = 21, NUM_NONREL_JUDGED_RET = 22, UNJUDGED = 23
    # user models
    ERR = 24

# The enums below stay plain C enums (a typed enum cannot index a pointer in
# Cython); ranked.pyx's plan_layout() hands them to engines/compiled.py, so
# each number is written here only.

# Real-valued parameters (the params row of a measure): rprec_mult's mult,
# set_f's beta, utility's a, b, c, d and docs.
cdef enum:
    MULT = 0, BETA = 0, UTILITY_A = 0, UTILITY_B = 1, UTILITY_C = 2, UTILITY_D = 3, UTILITY_DOCS = 4
    PARAM_COLUMNS = 5

# Plan columns.
cdef enum:
    KIND = 0, CUTOFF = 1, REL = 2, GAIN = 3, DISCOUNT = 4, POLICY = 5, SOURCE = 6, PLAN_COLUMNS = 7

# Denominator policies (POLICY column). P: 0 = k, 1 = retrieved;
# R: 0 = relevant, 1 = min_k; AP: 0 = relevant, 1 = min_k, 2 = hits.
cdef enum:
    BY_K = 0, RELEVANT = 0, MIN_K = 1, HITS = 2, RETRIEVED = 1

# Ideal sources: the judged pool (0) or the retrieved docs (1).
cdef enum:
    POOL_JUDGED = 0, POOL_RETRIEVED = 1


cdef struct Tables:
    # the alignment
    const int64_t* offsets          # positions of each query (queries + 1)
    const int64_t* query_groups     # first group of each query (queries + 1)
    const int64_t* group_offsets    # positions of each group (groups + 1)
    const int64_t* grade            # per position (0 when unjudged)
    const uint8_t* judged           # per position
    const int64_t* pool_offsets     # judged pool of each query (queries + 1)
    const int64_t* pool_grade
    int64_t num_queries
    # gains: per gain table, the gain of grade g at [g - grade_min]; the level
    # of each grade (distinct positive gains, highest first; -1: gain <= 0)
    const double* gains
    const int64_t* gain_formula     # per gain table: its GainKind (for grades outside the table)
    const int32_t* level_of
    const double* level_gain
    const int64_t* num_levels
    int64_t grade_min
    int64_t grade_span
    int64_t max_levels
    # discounts: d(i) at [i - 1], and D(i) at [i]
    const double* discount
    const double* cumulative
    int64_t table_length
    # the plan
    const int64_t* plan
    const double* params            # per measure, its real-valued parameters
    int64_t num_measures
    const int64_t* rels
    int64_t num_rels
    const int64_t* sources          # per ideal source: gain table, pool
    int64_t num_sources
    # outputs, (measures x queries)
    double* value
    double* numerator
    double* denominator
    uint8_t* undefined
    int64_t* crossings
    # per thread: R and N per rel, then the level counts of each ideal source
    int64_t* scratch
    int64_t scratch_width
