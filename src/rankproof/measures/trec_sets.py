"""trec_eval's interpolated, set-based and bookkeeping measures.

Each measure reproduces one trec_eval 10 measure (named in its description)
under the ``trec_eval`` preset, including its conventions for R = 0, cutoffs
past the end of the ranking and the rounding of rank cut-offs:

=========================  ==============================================
rankproof                  trec_eval 10
=========================  ==============================================
iprec(recall=x)            iprec_at_recall.x
interp_avg(levels=a/b/..)  11pt_avg.a,b,...
rprec_mult(mult=x)         Rprec_mult.x
relative_p@k               relative_P.k
set_p, set_relative_p      set_P, set_relative_P
set_r, set_ap              set_recall, set_map
set_f(beta=x)              set_F.x (beta enters unsquared, as there)
num_nonrel_judged_ret      num_nonrel_judged_ret
utility(a,b,c,d,docs)      utility.a,b,c,d with -N docs
unjudged@k                 unj.k
=========================  ==============================================

Set measures read the whole retrieved list after the protocol's policies
(``unjudged=condense`` drops unjudged docs first, as trec_eval's ``-J``).
Counts in the top k are linear in the positions, so the measures built on
them give the exact expectation over tied orders (``ties="exact"``); the
interpolated measures take a maximum over ranks and need one order
(``ties="ordered"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import MeasureError, ProtocolError
from ..protocol import IprecRounding
from ..errors import literal
from .base import Measure, MeasureSpec, Param, TieSupport, parse_float, register, register_param
from .compute import Context, Values, ratio
from .extremes import any_order, by_grade, by_unjudged

__all__ = ["TREC_SETS", "Number", "Levels"]


# -- parameters ----------------------------------------------------------------
class Number(float):
    """A float whose text form is its shortest repr, integers without ".0"
    (``0.2``, ``1``, ``-1``), so a measure's text round-trips."""

    def __str__(self) -> str:
        if self.is_integer() and abs(self) < 1e15:
            return str(int(self))
        return float.__repr__(self)

    __repr__ = __str__


class Levels(tuple):
    """Recall levels: a tuple of floats whose text form joins them with "/"."""

    def __str__(self) -> str:
        return "/".join(str(Number(x)) for x in self)

    __repr__ = __str__


def _number(name: str, value: Any, valid: str, ok) -> Number:
    """A finite number accepted by ``ok``; else a MeasureError naming the valid range."""
    try:
        number = parse_float(value)
    except ProtocolError:
        raise MeasureError(what=f"{name} must be {valid}; got {literal(repr(value))}",
                           value=value) from None
    if not ok(number):
        raise MeasureError(what=f"{name} must be {valid}; got {literal(repr(value))}", value=value)
    return Number(number)


def parse_recall(value: Any) -> Number:
    return _number("recall", value, "a number in [0, 1]", lambda x: 0.0 <= x <= 1.0)


def parse_levels(value: Any) -> Levels:
    """``0.25/0.5/0.75`` or a sequence of numbers, each in [0, 1]; kept sorted
    (their mean does not depend on the order), repeats kept (they weigh twice)."""
    if isinstance(value, Levels):
        return value
    items = value.split("/") if isinstance(value, str) else value
    try:
        items = list(items)
    except TypeError:
        items = [value]
    if not items or any(isinstance(item, str) and not item.strip() for item in items):
        raise MeasureError(what="levels must be recall levels in [0, 1] joined by '/', e.g. 0.25/0.5/0.75; got "
                           f"{literal(repr(value))}", value=value)
    levels = [_number("each of levels", item,
                      "a number in [0, 1] (levels are joined by '/', e.g. 0.25/0.5/0.75)",
                      lambda x: 0.0 <= x <= 1.0) for item in items]
    return Levels(sorted(levels))


def parse_mult(value: Any) -> Number:
    return _number("mult", value, "a number in (0, inf)", lambda x: x > 0.0)


def parse_beta(value: Any) -> Number:
    return _number("beta", value, "a number in [0, inf)", lambda x: x >= 0.0)


def _parse_coefficient(name: str):
    def parse(value: Any) -> Number:
        return _number(name, value, "a finite number", lambda x: True)
    parse.__name__ = f"parse_{name}"
    return parse


def parse_docs(value: Any) -> int:
    """The number of docs in the collection: an integer >= 0."""
    number = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number = int(value)
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            number = None
    if number is None or number < 0:
        raise MeasureError(what="docs (number of docs in the collection) must be an integer in [0, inf); got "
                           f"{literal(repr(value))}", value=value)
    return number


for _param in (
    Param("recall", parse_recall, "recall level in [0, 1]", policy=False),
    Param("levels", parse_levels, "recall levels in [0, 1] joined by '/'", policy=False),
    Param("mult", parse_mult, "multiple of R giving the rank cut-off, > 0", policy=False),
    Param("beta", parse_beta, "weight of recall against precision, >= 0 (unsquared)", policy=False),
    Param("a", _parse_coefficient("a"), "utility of a relevant doc retrieved", policy=False),
    Param("b", _parse_coefficient("b"), "utility of a non-relevant doc retrieved", policy=False),
    Param("c", _parse_coefficient("c"), "utility of a relevant doc not retrieved", policy=False),
    Param("d", _parse_coefficient("d"), "utility of a non-relevant doc not retrieved",
          policy=False),
    Param("docs", parse_docs, "number of docs in the collection (trec_eval -N), integer >= 0",
          policy=False),
):
    register_param(_param)

ELEVEN_LEVELS = Levels(Number(i / 10) for i in range(11))


# -- shared pieces -------------------------------------------------------------
def _rel(ctx: Context, m: Measure) -> int:
    return m.setting("rel", ctx.protocol)


def _count(ctx: Context, flags: np.ndarray, k: np.ndarray | None = None) -> np.ndarray:
    """Expected number of flagged docs in the top k (None: the whole ranking)."""
    return ctx.ranked.expected_count(flags, ctx.ranked.lengths if k is None else k)


def _rank_cutoff(levels: np.ndarray, num_rel: np.ndarray, rounding: IprecRounding) -> np.ndarray:
    """Rank of the relevant doc standing for each recall level: (levels, queries) int64.

    trec_eval 10 uses lround(x * R) (halves away from zero); trec_eval 9
    truncated x * R + 0.9. Both computed in float64 as the C code does.
    """
    scaled = levels[:, None] * num_rel.astype(np.float64)[None, :]
    if rounding is IprecRounding.LEGACY:
        return np.floor(scaled + 0.9).astype(np.int64)
    whole = np.floor(scaled)
    return (whole + (scaled - whole >= 0.5)).astype(np.int64)


def _reverse_segment_max(values: np.ndarray, segment: np.ndarray, num_segments: int) -> np.ndarray:
    """Per element, the max of ``values`` over it and the later elements of its
    segment (segments contiguous, non-decreasing). Exact: it works on the ranks
    of the distinct values, so no value is perturbed."""
    if len(values) == 0:
        return values
    distinct, rank = np.unique(values, return_inverse=True)
    # Later segments get smaller keys, so a running max from the end restarts
    # at each segment's last element.
    key = (num_segments - 1 - segment) * len(distinct) + rank.reshape(-1)
    running = np.maximum.accumulate(key[::-1])[::-1]
    return distinct[running % len(distinct)]


def _interpolated(ctx: Context, rel: int):
    """Per query: relevant docs retrieved (m), the index of its first relevant
    doc, and for the j-th relevant doc the interpolated precision at it,
    max_{j' >= j} j' / rank(j') (what trec_eval's backward scan holds there)."""
    key = ("trec_sets.interpolated", rel)
    if key not in ctx.cache:
        a = ctx.alignment
        lengths = ctx.ranked.lengths
        positions = np.flatnonzero(ctx.relevant(rel) > 0)
        query = np.repeat(np.arange(a.num_queries, dtype=np.int64), lengths)[positions]
        rank = positions - a.offsets[query] + 1
        found = np.bincount(query, minlength=a.num_queries)
        first = np.cumsum(found) - found
        nth = np.arange(len(positions)) - first[query] + 1
        precision = nth / rank.astype(np.float64)
        ctx.cache[key] = (found, first, _reverse_segment_max(precision, query, a.num_queries))
    return ctx.cache[key]


def _iprec_levels(ctx: Context, m: Measure, levels) -> np.ndarray:
    """Interpolated precision at each recall level: (levels, queries).

    Level x stands for the c-th relevant doc, c = cut-off(x * R). c > m
    (relevant docs retrieved): 0. c = 0: the first relevant doc (0 if none).
    """
    rel = _rel(ctx, m)
    found, first, interpolated = _interpolated(ctx, rel)
    cut = _rank_cutoff(np.asarray(levels, dtype=np.float64), ctx.num_rel(rel),
                       ctx.protocol.iprec_rounding)
    reached = (cut <= found[None, :]) & (found[None, :] > 0)
    if len(interpolated) == 0:
        return np.zeros(cut.shape)
    at = np.clip(first[None, :] + np.maximum(cut, 1) - 1, 0, len(interpolated) - 1)
    return np.where(reached, interpolated[at], 0.0)


def _nothing_relevant(ctx: Context, m: Measure) -> np.ndarray:
    return ctx.num_rel(_rel(ctx, m)) == 0


# -- measures ------------------------------------------------------------------
def _iprec(ctx: Context, m: Measure) -> Values:
    value = _iprec_levels(ctx, m, [m.setting("recall", ctx.protocol)])[0]
    return Values(value, undefined=_nothing_relevant(ctx, m))


def _interp_avg(ctx: Context, m: Measure) -> Values:
    levels = m.setting("levels", ctx.protocol)
    per_level = _iprec_levels(ctx, m, levels)
    # trec_eval adds the levels from the highest down.
    total = np.zeros(per_level.shape[1])
    for row in per_level[::-1]:
        total = total + row
    return Values(total / len(levels), undefined=_nothing_relevant(ctx, m))


def _rprec_mult(ctx: Context, m: Measure) -> Values:
    rel = _rel(ctx, m)
    num_rel = ctx.num_rel(rel)
    cut = np.floor(float(m.setting("mult", ctx.protocol)) * num_rel.astype(np.float64) + 0.9)
    # A huge mult (1e300) cuts past any ranking; held below 2^62 so that the
    # cast to int64 cannot wrap to a negative cut-off.
    cut = np.minimum(cut, float(2**62)).astype(np.int64)
    values = ratio(_count(ctx, ctx.relevant(rel), cut), cut, False)
    return Values(values.value, values.numerator, values.denominator, num_rel == 0)


def _relative_p(ctx: Context, m: Measure) -> Values:
    rel = _rel(ctx, m)
    num_rel = ctx.num_rel(rel)
    k = ctx.k(m)
    values = ratio(_count(ctx, ctx.relevant(rel), k), np.minimum(k, num_rel), False)
    return Values(values.value, values.numerator, values.denominator, num_rel == 0)


def _set_counts(ctx: Context, m: Measure):
    """(relevant retrieved, retrieved, R) per query, as float64."""
    rel = _rel(ctx, m)
    return (_count(ctx, ctx.relevant(rel)), ctx.ranked.lengths.astype(np.float64),
            ctx.num_rel(rel).astype(np.float64))


def _set_p(ctx: Context, m: Measure) -> Values:
    found, retrieved, _ = _set_counts(ctx, m)
    return ratio(found, retrieved, False)


def _set_relative_p(ctx: Context, m: Measure) -> Values:
    found, retrieved, num_rel = _set_counts(ctx, m)
    values = ratio(found, np.minimum(retrieved, num_rel), False)
    return Values(values.value, values.numerator, values.denominator, num_rel == 0)


def _set_r(ctx: Context, m: Measure) -> Values:
    found, _, num_rel = _set_counts(ctx, m)
    return ratio(found, num_rel, True)


def _set_ap(ctx: Context, m: Measure) -> Values:
    found, retrieved, num_rel = _set_counts(ctx, m)
    denominator = retrieved * num_rel
    value = np.divide(found * found, denominator, out=np.zeros(len(found)), where=denominator > 0)
    return Values(value, undefined=num_rel == 0)


def _set_f(ctx: Context, m: Measure) -> Values:
    found, retrieved, num_rel = _set_counts(ctx, m)
    beta = float(m.setting("beta", ctx.protocol))
    hit = found > 0
    precision = np.divide(found, retrieved, out=np.zeros(len(found)), where=hit)
    recall = np.divide(found, num_rel, out=np.zeros(len(found)), where=hit)
    # trec_eval's form: (beta + 1) P R / (beta P + R), beta unsquared.
    denominator = beta * precision + recall
    value = np.divide((beta + 1.0) * precision * recall, denominator, out=np.zeros(len(found)),
                      where=hit & (denominator > 0))
    return Values(value, undefined=num_rel == 0)


def _num_nonrel_judged_ret(ctx: Context, m: Measure) -> Values:
    a = ctx.alignment
    nonrelevant = (a.judged & (a.grade < _rel(ctx, m))).astype(np.float64)
    return Values(_count(ctx, nonrelevant, ctx.k(m)))


def _utility(ctx: Context, m: Measure) -> Values:
    found, retrieved, num_rel = _set_counts(ctx, m)
    a, b, c, d = (float(m.setting(name, ctx.protocol)) for name in "abcd")
    docs = float(m.setting("docs", ctx.protocol))
    value = (a * found + b * (retrieved - found) + c * (num_rel - found)
             + d * (docs + found - retrieved - num_rel))
    return Values(value)


def _hole(ctx: Context, m: Measure) -> Values:
    # MTEB's and BEIR's Hole@k (mteb/_evaluators/retrieval_metrics.py, hole): the docs of the top k
    # judged for no query at all (not in the qrels' doc vocabulary), over k.
    a = ctx.alignment
    if a.pool_docs is None:  # no doc ids (score matrices): judged for this query is all there is
        annotated = a.judged
    else:
        annotated = np.isin(np.asarray(a.docs, dtype=object),
                            np.asarray(a.pool_docs, dtype=object))[a.doc]
    count = ctx.ranked.expected_count((~annotated).astype(np.float64), ctx.k(m))
    return ratio(count, ctx.count_denominator(m), False)


def _unjudged(ctx: Context, m: Measure) -> Values:
    flags = (~ctx.alignment.judged).astype(np.float64)
    return ratio(_count(ctx, flags, ctx.k(m)), ctx.count_denominator(m), False)


_EXACT = "Ties: exact expectation (a count in the top k is linear in the positions)."
_SET = "Ties: order-free (the whole retrieved set)."
_ORDERED = ("Ties: needs one order (a max over ranks has no closed form), so set ties=docid or ties=input "
            "when the run has ties.")
_REL = ("rel",)
TREC_SETS = [
    MeasureSpec("iprec",
                "interpolated precision at recall level x: max precision at any rank holding the "
                "c-th relevant doc or a later one, c = cut-off(x*R) by the iprec_rounding policy (0 if fewer "
                f"than c relevant retrieved) [trec_eval iprec_at_recall]. {_ORDERED}",
                _REL + ("recall",), _iprec, cutoff=False, normalised=True, ties=TieSupport.ORDERED,
                ideal_is_best=True,
                defaults=(("recall", Number(0.0)),), family="trec", tie_merit=by_grade),
    MeasureSpec("interp_avg",
                "mean interpolated precision over recall levels (default the 11 levels "
                f"0, 0.1, ..., 1) [trec_eval 11pt_avg]. {_ORDERED}",
                _REL + ("levels",), _interp_avg, cutoff=False, normalised=True,
                ties=TieSupport.ORDERED, ideal_is_best=True,
                defaults=(("levels", ELEVEN_LEVELS),), family="trec", tie_merit=by_grade),
    MeasureSpec("rprec_mult",
                "precision at rank c = (long)(mult*R + 0.9), dividing by c even past the end of "
                f"the ranking (0 if c = 0) [trec_eval Rprec_mult]. {_EXACT}",
                _REL + ("mult",), _rprec_mult, cutoff=False, normalised=True, ratio=True,
                kernel="rprec_mult", ideal_is_best=True,
                defaults=(("mult", Number(1.0)),), family="trec", tie_merit=by_grade),
    MeasureSpec("relative_p",
                "relative precision: relevant docs in the top k / min(k, R), i.e. precision up "
                "to R and recall after (no cutoff: k = docs retrieved) [trec_eval relative_P]. "
                + _EXACT,
                _REL, _relative_p, normalised=True, ratio=True, family="trec", kernel="relative_p",
                ideal_is_best=True, tie_merit=by_grade),
    MeasureSpec("set_p", f"set precision: relevant retrieved / retrieved [trec_eval set_P]. {_SET}",
                _REL, _set_p, cutoff=False, ratio=True, family="trec", kernel="set_p",
                ideal_is_best=True, tie_merit=any_order),
    MeasureSpec("set_relative_p", "relative set precision: relevant retrieved / min(retrieved, R) "
                f"[trec_eval set_relative_P]. {_SET}",
                _REL, _set_relative_p, cutoff=False, normalised=True, ratio=True, family="trec",
                kernel="set_relative_p", ideal_is_best=True, tie_merit=any_order),
    MeasureSpec("set_r", f"set recall: relevant retrieved / R [trec_eval set_recall]. {_SET}",
                _REL, _set_r, cutoff=False, normalised=True, ratio=True, family="trec",
                kernel="set_r",
                ideal_is_best=True, tie_merit=any_order),
    MeasureSpec("set_ap",
                "unranked set AP: relevant retrieved^2 / (retrieved * R), set precision times set "
                f"recall [trec_eval set_map]. {_SET}",
                _REL, _set_ap, cutoff=False, normalised=True, family="trec", kernel="set_ap",
                ideal_is_best=True, tie_merit=any_order),
    MeasureSpec("set_f",
                "set F: (beta + 1) P R / (beta P + R) over the retrieved set, with beta unsquared as in "
                f"trec_eval (0 if nothing relevant retrieved) [trec_eval set_F]. {_SET}",
                _REL + ("beta",), _set_f, cutoff=False, normalised=True, kernel="set_f",
                ideal_is_best=True,
                defaults=(("beta", Number(1.0)),), family="trec", tie_merit=any_order),
    MeasureSpec("num_nonrel_judged_ret", "number of judged non-relevant docs within the top k "
                f"[trec_eval num_nonrel_judged_ret]. {_EXACT}",
                _REL, _num_nonrel_judged_ret, count=True, family="trec",
                kernel="num_nonrel_judged_ret",
                value_range=(0.0, float("inf"))),
    MeasureSpec("utility",
                "set utility a*(rel retrieved) + b*(nonrel retrieved) + c*(rel not retrieved) + "
                "d*(nonrel not retrieved), nonrel not retrieved = docs - retrieved - R + rel retrieved "
                f"(docs: trec_eval -N) [trec_eval utility]. {_SET}",
                _REL + ("a", "b", "c", "d", "docs"), _utility, cutoff=False,
                defaults=(("a", Number(1.0)), ("b", Number(-1.0)), ("c", Number(0.0)),
                          ("d", Number(0.0)),
                          ("docs", 0)), family="trec", kernel="utility",
                value_range=(float("-inf"), float("inf")), tie_merit=any_order),
    MeasureSpec("unjudged",
                "fraction of the top k not judged (never pooled, or pooled but unjudged); no "
                f"cutoff: of all retrieved [trec_eval unj]. {_EXACT}",
                (), _unjudged, ratio=True, family="trec", kernel="unjudged", tie_merit=by_unjudged),
]
register(*TREC_SETS)
# Not trec_eval's, but its neighbour unjudged@k's: MTEB's and BEIR's Hole@k.
register(MeasureSpec("hole",
                     "fraction of the top k judged for no query at all (MTEB's and BEIR's Hole@k; "
                     "unjudged@k counts those not judged for this query)", (), _hole, ratio=True,
                     family="trec",
                     reads_all_judgments=True))
