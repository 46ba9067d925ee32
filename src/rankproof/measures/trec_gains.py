"""trec_eval's gain-based and sampling measures: G, binG, ndcg_rel, Rndcg, infAP, rbp, rbp_resid.

Each reproduces the trec_eval 10 measure of (nearly) the same name under the
``trec_eval`` preset; the descriptions below give the formulas. Shared notation,
per query:

- g_i: gain of the doc at rank i (the ``gain`` policy; unjudged docs gain 0);
- I_1 >= I_2 >= ... >= I_P > 0: the positive gains of the judged pool, sorted
  (P = number of judged docs with positive gain; I_j = 0 for j > P);
- DCG@i = sum_{j<=i} g_j / log2(j + 1), IDCG@t = sum_{j<=t} I_j / log2(j + 1);
- R: judged docs with grade >= rel.

A cutoff k means what trec_eval's ``-M k`` means: only the top k docs of the
ranking are looked at; every normaliser (P, R, the ideal) still comes from the
whole judged pool.

Gains: trec_eval's ``-m G.1=3,2=9`` overrides the listed levels and leaves
every other level at gain = level; a rankproof gain map gives unlisted grades
gain 0, so list every grade: ``g(gain=map:0=0/1=3/2=9/3=3)``. The linear gain
is trec_eval's default.
"""

from __future__ import annotations

import numpy as np

from ..errors import MeasureError, ProtocolError
from ..kernels.ranked import straddling_draws
from ..protocol import Discount, GainMap
from ..errors import literal
from .base import Measure, MeasureSpec, Param, TieSupport, parse_float, register, register_param
from .compute import Context, Values, gains_of
from .extremes import by_gain_rbp

__all__ = ["TREC_GAINS"]

# trec_eval's INFAP_EPSILON: keeps infAP's precision among judged docs defined.
_INFAP_EPSILON = 0.00001


def _parse_persistence(value) -> float:
    """RBP's persistence p: a number strictly between 0 and 1."""
    try:
        number = parse_float(value)
    except ProtocolError:
        raise MeasureError(what="the persistence p must be a number in the range (0, 1), e.g. p=0.9; got "
                           f"{literal(repr(value))}", value=value) from None
    if not 0.0 < number < 1.0:
        raise MeasureError(what=f"the persistence p must be a number in the range (0, 1), e.g. p=0.9; got {number!r}",
                           value=value)
    return number


register_param(Param(
    "p", _parse_persistence,
    "persistence of the RBP user, in the range (0, 1): the chance of reading on (default 0.9)",
    policy=False))


# -- shared pieces ----------------------------------------------------------------
def _position_query(ctx: Context) -> np.ndarray:
    key = ("trec_gains", "position_query")
    if key not in ctx.cache:
        a = ctx.alignment
        ctx.cache[key] = np.repeat(np.arange(a.num_queries, dtype=np.int64), a.lengths)
    return ctx.cache[key]


def _rank0(ctx: Context) -> np.ndarray:
    """0-based rank of every position within its query."""
    key = ("trec_gains", "rank0")
    if key not in ctx.cache:
        a = ctx.alignment
        ctx.cache[key] = np.arange(a.offsets[-1], dtype=np.int64) - a.offsets[_position_query(ctx)]
    return ctx.cache[key]


def _inside(ctx: Context, m: Measure) -> np.ndarray:
    """Per position: within the measure's cutoff (all positions without one)."""
    if m.cutoff is None:
        return np.ones(ctx.alignment.offsets[-1], dtype=bool)
    return _rank0(ctx) < m.cutoff


def _segment_cumsum(values: np.ndarray, offsets: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` within each segment."""
    total = np.concatenate([[0.0], np.cumsum(values, dtype=np.float64)])
    return total[1:] - total[offsets[:-1]][segment]


def _before(flags: np.ndarray, offsets: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Per position: how many flagged positions come before it in its query."""
    counts = np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])
    return counts[:-1] - counts[offsets[:-1]][segment]


class _Ideal:
    """The positive gains of each query's judged pool, sorted descending, as flat arrays."""

    def __init__(self, ctx: Context, gain) -> None:
        a = ctx.alignment
        pool_gain = gains_of(a.pool_grade, gain)
        positive = pool_gain > 0
        gains, query = pool_gain[positive], ctx.pool_query[positive]
        order = np.lexsort((-gains, query))
        self.gain = gains[order]
        self.query = query[order]
        self.count = np.bincount(self.query, minlength=a.num_queries).astype(np.int64)  # P
        self.offsets = np.concatenate([[0], np.cumsum(self.count)]).astype(np.int64)
        self.rank0 = np.arange(len(self.gain), dtype=np.int64) - self.offsets[self.query]

    def prefix(self, per_item: np.ndarray) -> np.ndarray:
        """Inclusive per-query prefix sums of a value per ideal item."""
        return _segment_cumsum(per_item, self.offsets, self.query)

    def at(self, prefix: np.ndarray, query: np.ndarray, t: np.ndarray) -> np.ndarray:
        """prefix summed over the first t ideal items of each query (0 when t = 0)."""
        index = self.offsets[query] + t - 1
        safe = np.clip(index, 0, max(len(prefix) - 1, 0))
        return np.where(t > 0, prefix[safe] if len(prefix) else 0.0, 0.0)


def _ideal(ctx: Context, gain) -> _Ideal:
    key = ("trec_gains", "ideal", str(gain))
    if key not in ctx.cache:
        ctx.cache[key] = _Ideal(ctx, gain)
    return ctx.cache[key]


def _log2_discount(ctx: Context) -> np.ndarray:
    return ctx.discount(Discount.LOG2)


# -- G ----------------------------------------------------------------------------
def _g(ctx: Context, m: Measure) -> Values:
    a = ctx.alignment
    gain = m.setting("gain", ctx.protocol)
    ideal = _ideal(ctx, gain)
    query, rank0 = _position_query(ctx), _rank0(ctx)
    g = np.where(_inside(ctx, m), ctx.gains(gain), 0.0)
    results_sum = _segment_cumsum(g, a.offsets, query)
    # Cost of the ideal so far: sum_{j<=i} max(I_j, 1), with I_j = 0 past P.
    cost = ideal.prefix(np.maximum(ideal.gain, 1.0))
    rank = rank0 + 1
    within = np.minimum(rank, ideal.count[query])
    cost_sum = ideal.at(cost, query, within) + (rank - within)
    active = g != 0
    term = np.zeros(len(g))
    term[active] = g[active] / np.log2(2.0 + cost_sum[active] - results_sum[active])
    total = np.bincount(query, weights=term, minlength=a.num_queries)
    ideal_total = np.bincount(ideal.query, weights=ideal.gain, minlength=a.num_queries)
    undefined = ideal.count == 0
    value = np.divide(total, ideal_total, out=np.zeros(a.num_queries), where=~undefined)
    return Values(value, undefined=undefined)


# -- binG -------------------------------------------------------------------------
def _bing(ctx: Context, m: Measure) -> Values:
    """Exact under ties: for a relevant doc of a tie group with u non-relevant docs,
    its count of non-relevant docs ranked before it is (those of earlier groups) + X,
    X uniform on 0..u (its place among itself and the u). For the group straddling
    the cutoff, X given the doc's in-group position q is hypergeometric."""
    rel = m.setting("rel", ctx.protocol)
    a, ranked = ctx.alignment, ctx.ranked
    num_rel = ctx.num_rel(rel)
    relevant = ctx.relevant(rel)
    r = ranked.group_sum(relevant)
    n = ranked.size
    u = (n - r).astype(np.int64)
    every_group = np.arange(ranked.num_groups)
    # non-relevant docs in earlier groups of the query
    before = (ranked.start - np.rint(ranked.before_group(relevant, every_group))).astype(np.int64)
    # h(y) = 1 / log2(2 + y), y = non-relevant docs ranked above; H its prefix sums.
    h = 1.0 / np.log2(2.0 + np.arange(ctx.table_length + 2, dtype=np.float64))
    H = np.concatenate([[0.0], np.cumsum(h)])
    lo, hi = ranked.slots(ctx.k(m))
    whole = (hi - lo) == n
    contribution = np.zeros(ranked.num_groups)
    exact = (r > 0) & whole
    one = exact & (u == 0)
    contribution[one] = r[one] * h[before[one]]
    many = exact & (u > 0)
    contribution[many] = r[many] / (u[many] + 1) * (H[before[many] + u[many] + 1] - H[before[many]])
    straddling = np.flatnonzero((r > 0) & (hi > lo) & ~whole)
    if len(straddling):
        contribution[straddling] = _straddling_bing(
            n[straddling], r[straddling], u[straddling], before[straddling], (hi - lo)[straddling],
            h)
    total = ranked.query_sum(contribution)
    undefined = num_rel == 0
    value = np.divide(total, num_rel, out=np.zeros(a.num_queries), where=~undefined)
    return Values(value, undefined=undefined)


def _straddling_bing(n, r, u, before, m, h) -> np.ndarray:
    """(r/n) * sum_{q=1}^{m} E[h(before + X_q)], X_q ~ HG(n - 1 others, u non-relevant, q - 1 drawn),
    for each group straddling the cutoff (at most one per query), all at once."""
    group, x, chance = straddling_draws(n, u, m)
    per_group = np.bincount(group, weights=chance * h[before[group] + x], minlength=len(n))
    return r / n * per_group


# -- ndcg_rel -----------------------------------------------------------------------
def _ndcg_rel(ctx: Context, m: Measure) -> Values:
    a = ctx.alignment
    gain = m.setting("gain", ctx.protocol)
    ideal = _ideal(ctx, gain)
    discount = _log2_discount(ctx)
    query, rank0 = _position_query(ctx), _rank0(ctx)
    g = np.where(_inside(ctx, m), ctx.gains(gain), 0.0)
    dcg = _segment_cumsum(g * discount[rank0], a.offsets, query)
    ideal_dcg = ideal.prefix(ideal.gain * discount[ideal.rank0])
    P = ideal.count
    counted = g > 0
    at = np.minimum(rank0[counted] + 1, P[query[counted]])
    ratios = dcg[counted] / ideal.at(ideal_dcg, query[counted], at)
    total = np.bincount(query[counted], weights=ratios, minlength=a.num_queries).astype(np.float64)
    # Positive-gain docs not retrieved (within k) score DCG at the end / the full ideal DCG.
    dcg_end = np.bincount(query, weights=g * discount[rank0], minlength=a.num_queries)
    full_ideal = ideal.at(ideal_dcg, np.arange(a.num_queries), P)
    missed = P - np.bincount(query[counted], minlength=a.num_queries)
    undefined = P == 0
    total += np.divide(missed * dcg_end, full_ideal, out=np.zeros(a.num_queries), where=~undefined)
    # trec_eval reports 0 unless the sum is positive (negative gains can make it negative).
    value = np.divide(total, P, out=np.zeros(a.num_queries), where=~undefined & (total > 0))
    return Values(value, undefined=undefined)


# -- Rndcg ------------------------------------------------------------------------
def _rndcg(ctx: Context, m: Measure) -> Values:
    """Exact under ties: it is a mean of DCG at ranks fixed by the pool and the
    ranking's length, and the expected DCG@j is linear (every position of a tie
    group gets the group's mean gain)."""
    a, ranked = ctx.alignment, ctx.ranked
    gain = m.setting("gain", ctx.protocol)
    rel = m.setting("rel", ctx.protocol)
    ideal = _ideal(ctx, gain)
    discount = _log2_discount(ctx)
    query, rank0 = _position_query(ctx), _rank0(ctx)
    P = ideal.count
    length = np.minimum(a.lengths, ctx.k(m)).astype(np.int64)
    # Boundaries j: where the ideal gain changes between ranks j and j + 1
    # (always at P), and the ranking's end when it reaches P + 2 or beyond.
    change = np.zeros(len(ideal.gain), dtype=bool)
    change[:-1] = ideal.gain[1:] != ideal.gain[:-1]
    last = ideal.rank0 == P[ideal.query] - 1
    change |= last
    b_query = ideal.query[change]
    b_rank = ideal.rank0[change] + 1
    tail = np.flatnonzero(length >= P + 2)
    b_query = np.concatenate([b_query, tail])
    b_rank = np.concatenate([b_rank, length[tail]])
    # Expected DCG@j of each query's first j positions, j = 1..length.
    mean_gain = ranked.group_sum(ctx.gains(gain)) / ranked.size
    per_position = mean_gain[ranked.group_of_position] * discount[rank0]
    expected_dcg = _segment_cumsum(per_position, a.offsets, query)
    upto = np.minimum(b_rank, length[b_query])
    index = np.clip(a.offsets[b_query] + upto - 1, 0, max(len(expected_dcg) - 1, 0))
    dcg_at = np.where(upto > 0, expected_dcg[index] if len(expected_dcg) else 0.0, 0.0)
    ideal_dcg = ideal.prefix(ideal.gain * discount[ideal.rank0])
    ideal_at = ideal.at(ideal_dcg, b_query, np.minimum(b_rank, P[b_query]))
    ratios = np.divide(dcg_at, ideal_at, out=np.zeros(len(dcg_at)), where=ideal_at > 0)
    total = np.bincount(b_query, weights=ratios, minlength=a.num_queries)
    count = np.bincount(b_query, minlength=a.num_queries)
    undefined = (ctx.num_rel(rel) == 0) | (P == 0)
    value = np.divide(total, count, out=np.zeros(a.num_queries), where=~undefined)
    return Values(value, undefined=undefined)


# -- infAP ------------------------------------------------------------------------
def _infap(ctx: Context, m: Measure) -> Values:
    a = ctx.alignment
    rel = m.setting("rel", ctx.protocol)
    query, rank0 = _position_query(ctx), _rank0(ctx)
    inside = _inside(ctx, m)
    relevant = a.judged & (a.grade >= rel) & inside
    nonrelevant = a.judged & (a.grade < rel) & inside
    pooled_unjudged = a.pooled & ~a.judged & inside
    rel_before = _before(relevant, a.offsets, query)[relevant]
    nonrel_before = _before(nonrelevant, a.offsets, query)[relevant]
    unjudged_before = _before(pooled_unjudged, a.offsets, query)[relevant]
    j = rank0[relevant].astype(np.float64)
    # Docs never pooled count only through the rank j: precision above is
    # (pooled docs above / j) * (relevant / judged among them, smoothed).
    with np.errstate(invalid="ignore", divide="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
            (rel_before + nonrel_before + unjudged_before) / j) * (
            (rel_before + _INFAP_EPSILON) / (rel_before + nonrel_before + 2 * _INFAP_EPSILON))
    term = np.where(j == 0, 1.0, term)
    total = np.bincount(query[relevant], weights=term, minlength=a.num_queries)
    num_rel = ctx.num_rel(rel)
    undefined = num_rel == 0
    value = np.divide(total, num_rel, out=np.zeros(a.num_queries), where=~undefined)
    return Values(value, undefined=undefined)


# -- rbp, rbp_resid ---------------------------------------------------------------
def _persistence_discount(ctx: Context, p: float) -> np.ndarray:
    """p^(i-1) for ranks i = 1..: RBP's chance that the user reaches rank i.

    Built by repeated multiplication, as trec_eval does: np.power differs in
    the last bits, which can flip the 4th printed decimal.
    """
    table = np.full(ctx.table_length + 1, p, dtype=np.float64)
    table[0] = 1.0
    return np.cumprod(table)


def _rbp_gains(ctx: Context, gain) -> np.ndarray:
    """Gains rescaled per query to [0, 1] when any falls outside: (g - lo) / (hi - lo),
    lo and hi over the gains of grades 0..(the query's top judged grade), plus every
    value a gain map lists (as trec_eval's rbp does with its gain table)."""
    a = ctx.alignment
    top_grade = np.zeros(a.num_queries, dtype=a.pool_grade.dtype)  # real grades stay real
    if len(a.pool_grade):
        np.maximum.at(top_grade, ctx.pool_query, a.pool_grade)
    if isinstance(gain, GainMap):
        listed = np.array([grade for grade, _ in gain.gains], dtype=np.int64)
        values = np.array([v for _, v in gain.gains], dtype=np.float64)
        # Some grade in 0..top is unlisted, hence gain 0.
        listed_inside = (np.searchsorted(listed, top_grade, side="right")
                         - np.searchsorted(listed, 0))
        has_zero = listed_inside < top_grade + 1
        lo = np.where(has_zero, min(values.min(), 0.0), values.min())
        hi = np.where(has_zero, max(values.max(), 0.0), values.max())
    else:
        # linear and exp2 increase from gain(0) = 0.
        lo = np.zeros(a.num_queries)
        hi = gains_of(top_grade, gain)
    rescale = (lo < 0) | (hi > 1)
    query = _position_query(ctx)
    g = ctx.gains(gain)
    scaled = (g - lo[query]) / np.where(rescale, hi - lo, 1.0)[query]
    # Unjudged docs keep gain 0 (trec_eval rescales its table, not them).
    return np.where(rescale[query] & a.judged, scaled, g)


def _rbp(ctx: Context, m: Measure) -> Values:
    """RBP = (1 - p) sum_i g_i p^(i-1).

    Hand-computed: relevant docs at ranks 1 and 3, p = 1/2: (1/2)(1 + 1/4).

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> evaluate(qrels, Run.from_dict({"q": ["a", "x", "c", "b"]}), "rbp(p=0.5)").mean("rbp(p=0.5)")
    0.625
    """
    p = m.setting("p", ctx.protocol)
    gains = _rbp_gains(ctx, m.setting("gain", ctx.protocol))
    return Values((1.0 - p) * ctx.ranked.dcg(gains, _persistence_discount(ctx, p), ctx.k(m)))


def _rbp_resid(ctx: Context, m: Measure) -> Values:
    """Exact under ties: the unjudged part is linear in positions; the tail p^n is
    added when some unjudged doc is within k, whose chance is a hit probability.

    Hand-computed: x unjudged at rank 2 of 4, p = 1/2: (1/2)(1/2) + (1/2)^4.

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> evaluate(qrels, Run.from_dict({"q": ["a", "x", "c", "b"]}), "rbp_resid(p=0.5)").mean("rbp_resid(p=0.5)")
    0.3125
    """
    p = m.setting("p", ctx.protocol)
    k = ctx.k(m)
    unjudged = (~ctx.alignment.judged).astype(np.float64)
    powers = _persistence_discount(ctx, p)
    inside = (1.0 - p) * ctx.ranked.dcg(unjudged, powers, k)
    _, any_unjudged = ctx.ranked.first_relevant(unjudged, k)
    length = np.minimum(ctx.ranked.lengths, k)
    return Values(inside + powers[length] * any_unjudged)


_RANKING_CUT = " A cutoff k looks at the top k docs only (trec_eval -M k)."


def _trec(name: str, definition: str, params: tuple[str, ...], compute, *,
          exact: str | None = None, **spec) -> MeasureSpec:
    """A trec_eval measure's spec; its description is `definition`, then what tied scores
    do (with `exact`, the reason the expectation under ties=expected is exact; without,
    the measure needs one order), then what a cutoff does."""
    if exact is None:
        ties, tied = TieSupport.ORDERED, ("needs one order (no closed form), so set ties=docid or "
                                          "ties=input when the run has ties.")
    else:
        ties, tied = TieSupport.EXACT, f"exact expectation under ties=expected ({exact})."
    return MeasureSpec(name, f"{definition} Tied scores: {tied}{_RANKING_CUT}", params, compute,
                       ties=ties, family="trec", **spec)


TREC_GAINS = [
    _trec(
        "g", "trec_eval's G (normalised gain): sum over ranks i of g_i / log2(2 + C_i - S_i), "
        "S_i = sum of g_j for j <= i, C_i = sum_{j<=i} max(I_j, 1) (I: the ideal gains, 0 past P), "
        "divided by the sum of the pool's positive gains; undefined when no judged doc has positive "
        "gain. Gains may be 0 or negative.",
        ("gain",), _g, normalised=True, ideal_is_best=True),
    _trec(
        "bing", "trec_eval's binG: mean over the R relevant docs of 1 / log2(2 + non-relevant docs "
        "ranked above it) (0 for those not retrieved); undefined when R = 0.",
        ("rel",), _bing, normalised=True, ideal_is_best=True,
        exact="the count of non-relevant docs above a tied relevant doc is uniform, or "
              "hypergeometric across the cutoff"),
    _trec(
        "ndcg_rel", "trec_eval's ndcg_rel: mean over the P judged docs of positive gain of "
        "DCG@i / IDCG@min(i, P) at the rank i of each retrieved one, and DCG at the ranking's end / "
        "IDCG@P for each not retrieved; 0 when that sum is not positive; undefined when P = 0. "
        "log2 discount.",
        ("gain",), _ndcg_rel, normalised=True, ideal_is_best=True),
    _trec(
        "rndcg", "trec_eval's Rndcg: mean of DCG@j / IDCG@min(j, P) over the ranks j where the "
        "ideal gain changes (I_j != I_j+1, including j = P) and the ranking's length n when "
        "n >= P + 2; undefined when R = 0 or P = 0. log2 discount.",
        ("gain", "rel"), _rndcg, normalised=True, ideal_is_best=True, exact="DCG@j is linear"),
    _trec(
        "infap", "trec_eval's infAP (Yilmaz & Aslam 2006): (1/R) * sum over relevant docs at rank "
        "j + 1 of 1/(j+1) + j/(j+1) * (pooled docs above / j) * (relevant above + e) / "
        "(judged above + 2e), e = 1e-5; docs never pooled count only in j, pooled but unjudged docs "
        "(negative grades under negative_grades=unjudged) count as pooled, not judged; undefined when "
        "R = 0.",
        ("rel",), _infap, normalised=True, ideal_is_best=True),
    _trec(
        "rbp", "rank-biased precision (Moffat & Zobel 2008), trec_eval's rbp: (1 - p) * sum_i "
        "g_i * p^(i-1); gains are rescaled per query to [0, 1] by (g - min) / (max - min) when any "
        "gain of grades 0..the query's top judged grade (or listed in a gain map) lies outside.",
        ("p", "gain"), _rbp, defaults=(("p", 0.9),), tie_merit=by_gain_rbp,
        exact="linear in positions"),
    _trec(
        "rbp_resid", "trec_eval's rbp_resid, the RBP residual: (1 - p) * sum over unjudged docs in "
        "the top k of p^(i-1), plus p^n (n = docs looked at); 0 when no unjudged doc is within the "
        "top k, as in trec_eval.",
        ("p",), _rbp_resid, defaults=(("p", 0.9),),
        exact="linear, and p^n times the chance of an unjudged doc within k"),
]
register(*TREC_GAINS)
