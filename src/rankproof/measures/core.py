"""The core measures: the DCG family and the classic binary measures.

Each function computes one measure for all queries at once from the
:class:`~rankproof.measures.compute.Context`; the specs below are the
registry entries (data: name, definition, parameters, function).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import TieError
from ..protocol import ApDenominator, Ideal, PrecisionDenominator, RecallDenominator
from ..kernels.ranked import Ranked
from ..errors import literal
from .base import Dcg, GradeTable, Measure, MeasureSpec, register
from .compute import Context, Values, ratio
from . import of_rank, working as w
from .extremes import any_order, by_gain, by_grade, by_grade_ap, by_judged

__all__ = ["CORE", "refuse_straddling_ties"]


def _dcg(ctx: Context, m: Measure) -> Values:
    gains = ctx.gains(m.setting("gain", ctx.protocol))
    discount = ctx.discount(m.setting("discount", ctx.protocol))
    return Values(ctx.ranked.dcg(gains, discount, ctx.k(m)))


def _ideal_dcg(ctx: Context, m: Measure) -> Values:
    return Values(ctx.ideal_dcg(m))


def _ndcg(ctx: Context, m: Measure) -> Values:
    found = ratio(_dcg(ctx, m).value, ctx.ideal_dcg(m), True)
    if m.setting("ideal", ctx.protocol) is Ideal.EXPANDED and found.undefined is not None:
        # cut at an empty list's length, the ideal is 0 too: the value is 0, defined when something
        # is relevant
        relevant = ctx.has_positive_pool(m.setting("gain", ctx.protocol))
        found = dataclasses.replace(found, undefined=found.undefined & ~relevant)
    return found


def _rel(ctx: Context, m: Measure) -> int:
    return m.setting("rel", ctx.protocol)


def _num_rel_ret(ctx: Context, m: Measure) -> Values:
    return Values(ctx.ranked.expected_count(ctx.relevant(_rel(ctx, m)), ctx.k(m)))


def _p(ctx: Context, m: Measure) -> Values:
    denominator = ctx.count_denominator(m)
    if m.setting("precision_denominator", ctx.protocol) is PrecisionDenominator.RETRIEVED:
        denominator = np.minimum(denominator, ctx.ranked.lengths)
    return ratio(_num_rel_ret(ctx, m).value, denominator, False)


def _capped(numerator: np.ndarray, denominator: np.ndarray, num_rel: np.ndarray) -> Values:
    """numerator / denominator, undefined where nothing is relevant (R = 0).

    A denominator such as min(R, k) can be 0 while R > 0 (an empty ranking
    measured without a cutoff): that query scores 0, like any other miss.
    """
    values = ratio(numerator, denominator, False)
    return Values(values.value, values.numerator, values.denominator, num_rel == 0)


def _r(ctx: Context, m: Measure) -> Values:
    num_rel = ctx.num_rel(_rel(ctx, m))
    if m.setting("recall_denominator", ctx.protocol) is RecallDenominator.MIN_K:
        return _capped(_num_rel_ret(ctx, m).value, np.minimum(num_rel, ctx.k(m)), num_rel)
    return ratio(_num_rel_ret(ctx, m).value, num_rel, True)


def _rprec(ctx: Context, m: Measure) -> Values:
    """Relevant docs in the top R / R; cut at k (``rprec@k``, Microsoft Recommenders'
    ``r_precision_at_k``): relevant docs in the top min(R, k) / R.

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 1, "c": 1}})   # R = 3
    >>> evaluate(qrels, Run.from_dict({"q": ["a", "x", "b"]}), ["rprec", "rprec@2"]).means()
    {'rprec': 0.6666666666666666, 'rprec@2': 0.3333333333333333}
    """
    rel = _rel(ctx, m)
    num_rel = ctx.num_rel(rel)
    depth = num_rel if m.cutoff is None else np.minimum(num_rel, ctx.k(m))
    return ratio(ctx.ranked.expected_count(ctx.relevant(rel), depth), num_rel, True)


def _ap(ctx: Context, m: Measure) -> Values:
    rel = _rel(ctx, m)
    total = ctx.ranked.precision_sum(ctx.relevant(rel), ctx.k(m))
    num_rel = ctx.num_rel(rel)
    policy = m.setting("ap_denominator", ctx.protocol)
    if policy is ApDenominator.RELEVANT:
        values = ratio(total, num_rel, True)
    elif policy is ApDenominator.MIN_K:
        values = _capped(total, np.minimum(num_rel, ctx.k(m)), num_rel)
    else:  # the planner refused a tied group crossing k (refuse_straddling_ties)
        values = _capped(total, _num_rel_ret(ctx, m).value, num_rel)
    return Values(values.value, undefined=values.undefined)


def refuse_straddling_ties(alignment, m: Measure, protocol) -> None:
    """AP over the hits divides by a count that, under ties=expected, varies
    with the order of a tied group crossing the cutoff; the mean of a ratio is
    not the ratio of the means, so there is no exact closed form. The
    planner runs this (``MeasureSpec.check_ties``) before any engine."""
    if m.setting("ap_denominator", protocol) is not ApDenominator.HITS or m.cutoff is None:
        return
    ranked = Ranked(alignment.offsets, alignment.group_offsets)
    if ranked.all_singletons:
        return
    k = ranked.cutoff(m.cutoff)[ranked.tied_query]
    crossing = (ranked.tied_start < k) & (ranked.tied_start + ranked.tied_size > k)
    if crossing.any():
        query = alignment.queries[ranked.tied_query[np.argmax(crossing)]]
        raise TieError(what=f"{literal(m)} divides by the relevant {{docs}} in the top {m.cutoff}, which depends on "
                       f"the order of tied {{docs}} crossing the cutoff ({int(crossing.sum())} such groups)",
                       query=query,
                       fix="set the policy ties=docid or ties=input, or ap_denominator=relevant or min_k")


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
    denominator = ctx.count_denominator(m)
    if m.setting("precision_denominator", ctx.protocol) is PrecisionDenominator.RETRIEVED:
        # ir_measures' Judged@k: over min(k, len(list)), a list shorter than k not penalised
        denominator = np.minimum(denominator, ctx.ranked.lengths)
    return ratio(count, denominator, False)


def _num_ret(ctx: Context, m: Measure) -> Values:
    return Values(np.minimum(ctx.ranked.lengths, ctx.k(m)).astype(np.float64))


def _num_q(ctx: Context, m: Measure) -> Values:
    return Values(np.ones(len(ctx.ranked.lengths)))


def _num_rel(ctx: Context, m: Measure) -> Values:
    return Values(ctx.num_rel(_rel(ctx, m)).astype(np.float64))




_GAIN = ("gain", "discount")
_UNBOUNDED = (0.0, float("inf"))
CORE = [
    MeasureSpec("dcg", "discounted cumulative gain: sum of gain(g_i) * discount(i) over the top k",
                _GAIN, _dcg,
                kernel="dcg", dcg=Dcg.SUM, grade_table=GradeTable.GAIN, value_range=_UNBOUNDED,
                tie_merit=by_gain),
    MeasureSpec("ideal_dcg", "DCG of the ideal ranking of the ideal pool, cut at k",
                _GAIN + ("ideal",), _ideal_dcg,
                kernel="ideal_dcg", dcg=Dcg.IDEAL, grade_table=GradeTable.GAIN,
                value_range=_UNBOUNDED, tie_merit=any_order),
    MeasureSpec("ndcg", "normalised DCG: DCG@k / ideal DCG@k", _GAIN + ("ideal",), _ndcg,
                normalised=True, ratio=True,
                kernel="ndcg", dcg=Dcg.NORMALISED, grade_table=GradeTable.GAIN, ideal_is_best=True,
                tie_merit=by_gain,
                of_rank=of_rank.NDCG),
    MeasureSpec("ap",
                "average precision: sum of the precision at each relevant doc's rank within the top k, "
                "over R (ap_denominator: R, min(R, k) or the hits)", ("rel", "ap_denominator"), _ap,
                normalised=True, kernel="ap", ideal_is_best=True, check_ties=refuse_straddling_ties,
                tie_merit=by_grade_ap,
                working=w.ap_working, of_rank=of_rank.RECIPROCAL),
    MeasureSpec("rr", "reciprocal rank of the first relevant doc within the top k (0 if none)",
                ("rel",), _rr,
                kernel="rr", ideal_is_best=True, first_relevant_only=True, tie_merit=by_grade,
                working=w.rr_working, of_rank=of_rank.RECIPROCAL),
    MeasureSpec("p", "precision: relevant docs in the top k / k (no cutoff: / docs retrieved; "
                "precision_denominator=retrieved: / min(k, docs retrieved))",
                ("rel", "precision_denominator"), _p,
                ratio=True, kernel="p", ideal_is_best=True, tie_merit=by_grade, working=w.p_working,
                of_rank=of_rank.PRECISION),
    MeasureSpec("r",
                "recall: relevant docs in the top k / R (recall_denominator=min_k: / min(R, k))",
                ("rel", "recall_denominator"), _r, normalised=True, ratio=True, kernel="r",
                ideal_is_best=True, tie_merit=by_grade,
                working=w.r_working, of_rank=of_rank.HIT),
    MeasureSpec("hit", "success: 1 if a relevant doc is in the top k, else 0", ("rel",), _hit,
                kernel="hit",
                ideal_is_best=True, first_relevant_only=True, tie_merit=by_grade,
                working=w.hit_working, of_rank=of_rank.HIT),
    MeasureSpec("rprec",
                "R-precision: relevant docs in the top R / R; rprec@k (Microsoft Recommenders' "
                "r_precision_at_k): relevant docs in the top min(R, k) / R", ("rel",), _rprec,
                normalised=True, ratio=True, kernel="rprec", kernel_cutoff=False,
                ideal_is_best=True,
                tie_merit=by_grade, working=w.rprec_working),
    MeasureSpec("bpref",
                "binary preference (Buckley & Voorhees 2004, trec_eval's form): judged docs only",
                ("rel",), _bpref, normalised=True, kernel="bpref", ideal_is_best=True,
                tie_merit=by_grade),
    MeasureSpec("judged",
                "fraction of the top k that is judged: judged docs in the top k / k (no cutoff: / docs "
                "retrieved; precision_denominator=retrieved: / min(k, docs retrieved), ir_measures' Judged@k)",
                ("precision_denominator",), _judged,
                ratio=True, kernel="judged", ideal_is_best=True, tie_merit=by_judged),
    MeasureSpec("num_ret", "number of docs retrieved within the top k", (), _num_ret,
                kernel="num_ret",
                value_range=_UNBOUNDED, count=True, tie_merit=any_order),
    MeasureSpec("num_q",
                "number of queries: 1 per query evaluated (under missing_query=zero a judged query the "
                "run misses is evaluated, as trec_eval -c); counts=sum gives the count (ir_measures' NumQ)",
                (), _num_q, cutoff=False, value_range=_UNBOUNDED, count=True, tie_merit=any_order),
    MeasureSpec("num_rel", "number of relevant docs judged for the query (R)", ("rel",), _num_rel,
                cutoff=False,
                kernel="num_rel", value_range=_UNBOUNDED, count=True, tie_merit=any_order,
                working=w.num_rel_working),
    MeasureSpec("num_rel_ret", "number of relevant docs within the top k", ("rel",), _num_rel_ret,
                kernel="num_rel_ret", value_range=_UNBOUNDED, count=True, tie_merit=by_grade,
                working=w.num_rel_ret_working),
]
register(*CORE)
