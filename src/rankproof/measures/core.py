"""The core measures: the DCG family and the classic binary measures.

Each function computes one measure for all queries at once from the
:class:`~rankproof.measures.compute.Context`; the specs below are the
registry entries (data: name, definition, parameters, function).
"""

from __future__ import annotations

import numpy as np

from .base import Measure, MeasureSpec, register
from .compute import Context, Values, ratio

__all__ = ["CORE"]


def _dcg(ctx: Context, m: Measure) -> Values:
    gains = ctx.gains(m.setting("gain", ctx.protocol))
    discount = ctx.discount(m.setting("discount", ctx.protocol))
    return Values(ctx.ranked.dcg(gains, discount, ctx.k(m)))


def _ideal_dcg(ctx: Context, m: Measure) -> Values:
    return Values(ctx.ideal_dcg(m))


def _ndcg(ctx: Context, m: Measure) -> Values:
    return ratio(_dcg(ctx, m).value, ctx.ideal_dcg(m), True)


def _rel(ctx: Context, m: Measure) -> int:
    return m.setting("rel", ctx.protocol)


def _num_rel_ret(ctx: Context, m: Measure) -> Values:
    return Values(ctx.ranked.expected_count(ctx.relevant(_rel(ctx, m)), ctx.k(m)))


def _p(ctx: Context, m: Measure) -> Values:
    return ratio(_num_rel_ret(ctx, m).value, ctx.count_denominator(m), False)


def _r(ctx: Context, m: Measure) -> Values:
    return ratio(_num_rel_ret(ctx, m).value, ctx.num_rel(_rel(ctx, m)), True)


def _rprec(ctx: Context, m: Measure) -> Values:
    rel = _rel(ctx, m)
    num_rel = ctx.num_rel(rel)
    return ratio(ctx.ranked.expected_count(ctx.relevant(rel), num_rel), num_rel, True)


def _ap(ctx: Context, m: Measure) -> Values:
    rel = _rel(ctx, m)
    total = ctx.ranked.precision_sum(ctx.relevant(rel), ctx.k(m))
    values = ratio(total, ctx.num_rel(rel), True)
    return Values(values.value, undefined=values.undefined)


def _rr(ctx: Context, m: Measure) -> Values:
    return Values(ctx.ranked.first_relevant(ctx.relevant(_rel(ctx, m)), ctx.k(m))[0])


def _hit(ctx: Context, m: Measure) -> Values:
    return Values(ctx.ranked.first_relevant(ctx.relevant(_rel(ctx, m)), ctx.k(m))[1])


def _bpref(ctx: Context, m: Measure) -> Values:
    rel = _rel(ctx, m)
    a = ctx.alignment
    nonrelevant = (a.judged & (a.grade < rel)).astype(np.float64)
    num_rel = ctx.num_rel(rel)
    num_nonrel = np.bincount(ctx.pool_query[a.pool_grade < rel], minlength=a.num_queries)
    total = ctx.ranked.bpref_sum(ctx.relevant(rel), nonrelevant, num_rel, num_nonrel, ctx.k(m))
    values = ratio(total, num_rel, True)
    return Values(values.value, undefined=values.undefined)


def _judged(ctx: Context, m: Measure) -> Values:
    count = ctx.ranked.expected_count(ctx.alignment.judged.astype(np.float64), ctx.k(m))
    return ratio(count, ctx.count_denominator(m), False)


def _num_ret(ctx: Context, m: Measure) -> Values:
    return Values(np.minimum(ctx.ranked.lengths, ctx.k(m)).astype(np.float64))


def _num_rel(ctx: Context, m: Measure) -> Values:
    return Values(ctx.num_rel(_rel(ctx, m)).astype(np.float64))




_GAIN = ("gain", "discount")
CORE = [
    MeasureSpec("dcg", "discounted cumulative gain: sum of gain(g_i) * discount(i) over the top k", _GAIN, _dcg),
    MeasureSpec("ideal_dcg", "DCG of the ideal ranking of the ideal pool, cut at k", _GAIN + ("ideal",), _ideal_dcg),
    MeasureSpec("ndcg", "normalised DCG: DCG@k / ideal DCG@k", _GAIN + ("ideal",), _ndcg, normalised=True, ratio=True),
    MeasureSpec("ap", "average precision: mean over the R relevant docs of the precision at their ranks "
                "(0 if not in the top k)", ("rel",), _ap, normalised=True),
    MeasureSpec("rr", "reciprocal rank of the first relevant doc within the top k (0 if none)", ("rel",), _rr),
    MeasureSpec("p", "precision: relevant docs in the top k / k (no cutoff: / docs retrieved)", ("rel",), _p,
                ratio=True),
    MeasureSpec("r", "recall: relevant docs in the top k / R", ("rel",), _r, normalised=True, ratio=True),
    MeasureSpec("hit", "success: 1 if a relevant doc is in the top k, else 0", ("rel",), _hit),
    MeasureSpec("rprec", "R-precision: relevant docs in the top R / R", ("rel",), _rprec, cutoff=False,
                normalised=True, ratio=True),
    MeasureSpec("bpref", "binary preference (Buckley & Voorhees 2004, trec_eval's form): judged docs only",
                ("rel",), _bpref, normalised=True),
    MeasureSpec("judged", "fraction of the top k that is judged (no cutoff: of all retrieved)", (), _judged,
                ratio=True),
    MeasureSpec("num_ret", "number of docs retrieved within the top k", (), _num_ret),
    MeasureSpec("num_rel", "number of relevant docs judged for the query (R)", ("rel",), _num_rel, cutoff=False),
    MeasureSpec("num_rel_ret", "number of relevant docs within the top k", ("rel",), _num_rel_ret),
]
register(*CORE)
