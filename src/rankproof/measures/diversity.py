"""Intent-aware (diversity) measures: alpha-nDCG, ERR-IA, nDCG-IA, P-IA, subtopic recall.

They need judgments per intent (:class:`rankproof.IntentQrels`, ``rankproof
evaluate --intents``) and follow NIST's ndeval (version 4.5, the TREC Web
track's tool, also behind ir_measures' pyndeval provider):

- a doc is relevant to an intent when its grade for that intent is >= ``rel``
  (default 1; ndeval reads every grade >= 1 as 1, binary);
- the intents of a query are those with at least one relevant judged doc
  (ndeval's "actual subtopics"): an intent nobody found relevant is ignored;
  a query with none is undefined, and the protocol's ``zero_ideal`` policy
  decides its value (default 0, as ndeval);
- intent weights w_i default to uniform over those intents (1/A); weights
  given are renormalised to sum 1 over them;
- unjudged docs, and docs judged for none of the query's intents, gain 0;
- c_i(r) is the number of docs relevant to intent i ranked above rank r.

With ``ties=expected`` (the default) every measure here is the exact mean
over the orders of tied docs, in closed form (see :mod:`rankproof._libs.diversity`);
``ties=docid`` orders tied docs as trec_eval and ``ndeval -traditional`` do
(score descending, doc id descending). NIST's ndeval without ``-traditional``
orders by the rank column instead; pyndeval breaks ties by doc id ascending.

The novelty and per-intent loops are compiled (:mod:`rankproof._libs.diversity`).

Examples
--------
Intent 1: a (grade 2), b (1), d (0); intent 2: b (1), c (3). The run ranks
a, b, c; both intents have a relevant doc, so A = 2 and w = 1/2 each.

>>> from rankproof import IntentQrels, Run, evaluate
>>> qrels = IntentQrels.from_dict({"q1": {"1": {"a": 2, "b": 1, "d": 0}, "2": {"b": 1, "c": 3}}})
>>> run = Run.from_dict({"q1": ["a", "b", "c"]})

alpha-nDCG@3 (alpha = 0.5; sums of (1 - alpha)^c over the intents, before the
weights, which cancel): the run gains 1 (a: intent 1 new), 0.5 + 1 (b: intent
1 seen once, intent 2 new), 0.5 (c: intent 2 seen once), so alpha-DCG =
1 + 1.5/log2(3) + 0.5/2 = 2.19640. The greedy ideal takes b (gain 2), then c
and a tie at 0.5 and the greater doc id, c, goes first, then a:
2 + 0.5/log2(3) + 0.5/2 = 2.56546; 2.19640 / 2.56546 = 0.85614:

>>> round(evaluate(qrels, run, "alpha_ndcg@3").mean("alpha_ndcg@3"), 5)
0.85614

ERR-IA@3: (1/1 + 1.5/2 + 0.5/3) / (A * (1 + 0.5/2 + 0.25/3)) = 1.91667 / 2.66667:

>>> round(evaluate(qrels, run, "err_ia@3").mean("err_ia@3"), 5)
0.71875

nDCG-IA@3: intent 1 ranks a (2), b (1) as its ideal does: 1; intent 2 gets
(1/log2(3) + 3/2) / (3 + 1/log2(3)) = 0.58688; the mean is 0.79344:

>>> round(evaluate(qrels, run, "ndcg_ia@3").mean("ndcg_ia@3"), 5)
0.79344

P-IA@3: intent 1 has a, b in the top 3, intent 2 has b, c: (2 + 2) / (2 * 3);
subtopic recall@1: a covers intent 1 only:

>>> means = evaluate(qrels, run, ["p_ia@3", "s_recall@1", "s_recall@2"]).means()
>>> round(means["p_ia@3"], 5), means["s_recall@1"], means["s_recall@2"]
(0.66667, 0.5, 1.0)

Weights 3:1 for intents 1 and 2 make subtopic recall@1 = 3/4:

>>> weighted = qrels.with_weights({"q1": {"1": 3, "2": 1}})
>>> evaluate(weighted, run, "s_recall@1").mean("s_recall@1")
0.75
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, MeasureError, ProtocolError
from ..protocol import Discount, Ideal
from ..errors import literal
from .base import Measure, MeasureSpec, Param, TieSupport, parse_float, register, register_param
from .compute import Context, Values, discount_table, gains_of

__all__ = ["DIVERSITY", "intent_weights"]


def _parse_alpha(value) -> float:
    alpha = parse_float(value)
    if not 0.0 <= alpha <= 1.0:
        raise ProtocolError(what=f"alpha must be between 0 and 1 (ndeval's -alpha); got {literal(repr(value))}",
                            value=value)
    return alpha


register_param(Param(
    "alpha", _parse_alpha,
    "redundancy penalty of the novelty measures: a doc's gain for an intent already covered c times is "
    "(1 - alpha)^c (ndeval's -alpha; default 0.5)", policy=False))


def _kernel():
    from .._libs import diversity as _diversity

    return _diversity


def _table(ctx: Context, m: Measure):
    table = getattr(ctx.alignment, "intents", None)
    if table is None:
        raise MeasureError(what=f"{literal(m)} needs judgments per intent (query intent doc grade)",
                           fix="{do[intents]}")
    return table


def _filtered(offsets: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Offsets of a CSR array after dropping the entries where `keep` is False."""
    kept = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
    return kept[offsets]


def intent_weights(table, rel: int, queries: np.ndarray,
                   source: str = "qrels") -> tuple[np.ndarray, np.ndarray]:
    """(u, A): per (query, intent) pair the weight scaled to sum A over the query's
    intents with a doc of grade >= rel (0 for the others), and A per query.

    Uniform weights give u = 1 for every such intent, so that sums of gains are
    exactly ndeval's (which does not divide by A until the end).
    """
    pair_query = table.pair_query
    num_queries = len(table.pair_offsets) - 1
    num_pairs = len(pair_query)
    actual = np.bincount(table.pool_pair[table.pool_grade >= rel], minlength=num_pairs) > 0
    intents = np.bincount(pair_query[actual], minlength=num_queries).astype(np.float64)
    if table.weight is None:
        return actual.astype(np.float64), intents
    missing = actual & np.isnan(table.weight)
    if missing.any():
        pair = int(np.flatnonzero(missing)[0])
        raise InputError(what=f"intent {literal(table.pair_intent[pair])} has relevant {{docs}} but no weight",
                         source=source, query=queries[pair_query[pair]],
                         fix="give every intent with a relevant {doc} a weight (or give no weights: uniform)")
    given = np.where(actual, table.weight, 0.0)
    total = np.bincount(pair_query, weights=given, minlength=num_queries)
    zero = (intents > 0) & (total <= 0)
    if zero.any():
        query = queries[int(np.flatnonzero(zero)[0])]
        raise InputError(what="the weights of its intents with relevant {docs} sum to 0",
                         source=source, query=query,
                         fix="give at least one of them a positive weight")
    scale = np.divide(intents, total, out=np.zeros(num_queries), where=total > 0)
    return given * scale[pair_query], intents


class _Ranking:
    """The arrays every kernel call shares, per measure setting."""

    def __init__(self, ctx: Context, m: Measure) -> None:
        a = ctx.alignment
        self.table = _table(ctx, m)
        self.offsets = np.ascontiguousarray(a.offsets, dtype=np.int64)
        self.group_offsets = np.ascontiguousarray(a.group_offsets, dtype=np.int64)
        self.query_groups = np.searchsorted(self.group_offsets, self.offsets[:-1]).astype(np.int64)
        self.cutoff = np.ascontiguousarray(ctx.k(m), dtype=np.int64)
        pools = np.diff(self.table.pool_offsets)
        self.length = int(max(ctx.table_length, pools.max(initial=0), 1))


def _undefined(value: np.ndarray, intents: np.ndarray) -> Values:
    return Values(np.where(intents > 0, value, 0.0), undefined=intents == 0)


def _relevant_positions(table, rel: int) -> tuple[np.ndarray, np.ndarray]:
    keep = table.position_grade >= rel
    return _filtered(table.position_offsets, keep), np.ascontiguousarray(table.position_pair[keep])


def _refuse_retrieved_ideal(ctx: Context, m: Measure) -> None:
    if ctx.protocol.ideal is not Ideal.JUDGED:
        raise MeasureError(what=f"{literal(m)} takes its ideal from the judged pool (ndeval's greedy ideal); the "
                           f"protocol says ideal={ctx.protocol.ideal}, which it does not support: set the policy "
                           "ideal=judged")


def _alpha_ndcg(ctx: Context, m: Measure) -> Values:
    _refuse_retrieved_ideal(ctx, m)
    r = _Ranking(ctx, m)
    rel, alpha = m.setting("rel", ctx.protocol), m.setting("alpha", ctx.protocol)
    u, intents = intent_weights(r.table, rel, ctx.alignment.queries, r.table.source)
    discount = discount_table(m.setting("discount", ctx.protocol), r.length)
    offsets, pairs = _relevant_positions(r.table, rel)
    kernel = _kernel()
    gain = kernel.novelty_gain(r.offsets, r.query_groups, r.group_offsets, offsets, pairs,
                               r.table.pair_offsets, u, r.cutoff, discount, alpha)
    keep = r.table.pool_grade >= rel
    ideal = kernel.greedy_ideal(r.table.pool_offsets, _filtered(r.table.pool_doc_offsets, keep),
                                np.ascontiguousarray(r.table.pool_pair[keep]), u, r.cutoff,
                                discount, alpha)
    value = np.divide(gain, ideal, out=np.zeros(len(gain)), where=ideal > 0)
    return Values(value, gain, ideal, intents == 0)


def _err_ia(ctx: Context, m: Measure) -> Values:
    if m.cutoff is None:
        raise MeasureError(what=f"{literal(m)} needs a cutoff (ndeval normalises ERR-IA by the top k of an ideal "
                           "ranking relevant to every intent)", fix="write err_ia@20, for instance")
    r = _Ranking(ctx, m)
    rel, alpha = m.setting("rel", ctx.protocol), m.setting("alpha", ctx.protocol)
    u, intents = intent_weights(r.table, rel, ctx.alignment.queries, r.table.source)
    reciprocal = discount_table(Discount.RECIPROCAL, r.length)
    offsets, pairs = _relevant_positions(r.table, rel)
    gain = _kernel().novelty_gain(r.offsets, r.query_groups, r.group_offsets, offsets, pairs,
                                  r.table.pair_offsets, u, r.cutoff, reciprocal, alpha)
    # ndeval's "ideal ideal": a doc relevant to every intent at every rank.
    ranks = np.arange(1, m.cutoff + 1, dtype=np.float64)
    normaliser = float(np.sum((1.0 - alpha) ** (ranks - 1) / ranks))
    return _undefined(np.divide(gain, intents * normaliser, out=np.zeros(len(gain)),
                                where=intents > 0), intents)


def _per_intent(ctx: Context, m: Measure, values_of=None, discount=None):
    r = _Ranking(ctx, m)
    rel = m.setting("rel", ctx.protocol)
    u, intents = intent_weights(r.table, rel, ctx.alignment.queries, r.table.source)
    if values_of is None:
        offsets, pairs = _relevant_positions(r.table, rel)
        values = np.ones(len(pairs))
    else:
        all_values = values_of(r.table.position_grade)
        keep = all_values != 0
        offsets, pairs = (_filtered(r.table.position_offsets, keep),
                          np.ascontiguousarray(r.table.position_pair[keep]))
        values = np.ascontiguousarray(all_values[keep])
    table = discount_table(discount if discount is not None else Discount.LOG2, r.length)
    found, covered, dcg = _kernel().per_intent(r.offsets, r.query_groups, r.group_offsets, offsets,
                                               pairs,
                                               values, len(u), r.cutoff, table)
    return r, u, intents, found, covered, dcg, table


def _p_ia(ctx: Context, m: Measure) -> Values:
    r, u, intents, found, _, _, _ = _per_intent(ctx, m)
    hits = np.bincount(r.table.pair_query, weights=u * found, minlength=len(intents))
    denominator = intents * r.cutoff
    return _undefined(np.divide(hits, denominator, out=np.zeros(len(hits)), where=denominator > 0),
                      intents)


def _s_recall(ctx: Context, m: Measure) -> Values:
    r, u, intents, _, covered, _, _ = _per_intent(ctx, m)
    covered_weight = np.bincount(r.table.pair_query, weights=u * covered, minlength=len(intents))
    return _undefined(np.divide(covered_weight, intents, out=np.zeros(len(intents)),
                                where=intents > 0), intents)


def _ndcg_ia(ctx: Context, m: Measure) -> Values:
    _refuse_retrieved_ideal(ctx, m)
    gain = m.setting("gain", ctx.protocol)
    r, u, intents, _, _, dcg, table = _per_intent(
        ctx, m, lambda grades: gains_of(grades, gain), m.setting("discount", ctx.protocol))
    # Ideal DCG@k of each intent: its judged gains, highest first.
    t = r.table
    gains = np.maximum(gains_of(t.pool_grade, gain), 0.0)
    order = np.lexsort((-gains, t.pool_pair))
    pair_sorted = t.pool_pair[order]
    starts = np.searchsorted(pair_sorted, np.arange(len(u)))
    rank = np.arange(len(order)) - starts[pair_sorted]
    k = r.cutoff[t.pair_query][pair_sorted]
    weight = np.where(rank < k, table[np.minimum(rank, len(table) - 1)], 0.0)
    ideal = np.bincount(pair_sorted, weights=gains[order] * weight, minlength=len(u))
    per_intent = np.divide(dcg, ideal, out=np.zeros(len(u)), where=ideal > 0)
    total = np.bincount(t.pair_query, weights=u * per_intent, minlength=len(intents))
    return _undefined(np.divide(total, intents, out=np.zeros(len(intents)), where=intents > 0),
                      intents)


_TIES = " Tied scores: exact expectation under ties=expected."
_NDEVAL = " Needs judgments per intent (IntentQrels, --intents)."
DIVERSITY = [
    MeasureSpec(
        "alpha_ndcg",
        "alpha-nDCG: alpha-DCG@k / ideal alpha-DCG@k, alpha-DCG@k = sum_{r<=k} d(r) * sum_i w_i * "
        "rel_i(r) * (1 - alpha)^c_i(r), c_i(r) = docs relevant to intent i above rank r, the ideal being NIST "
        "ndeval's greedy one over the judged docs (at each rank the doc with the highest gain, ties to the greatest "
        "doc id). Clarke and colleagues, SIGIR 2008; ndeval's alpha-nDCG." + _TIES + _NDEVAL,
        ("alpha", "rel", "discount"), _alpha_ndcg, normalised=True, ratio=True,
        ties=TieSupport.EXACT,
        defaults=(("alpha", 0.5),), family="diversity", needs_intents=True),
    MeasureSpec(
        "err_ia",
        "ERR-IA as NIST ndeval computes it: sum_{r<=k} (1/r) * sum_i w_i * rel_i(r) * (1 - alpha)^c_i(r) "
        "over sum_{r<=k} (1 - alpha)^(r-1) / r (a doc relevant to every intent at every rank). With alpha = 0.5 "
        "it is the mean over intents of ERR (Chapelle and colleagues, CIKM 2009) with binary grades (R = 1/2), "
        "normalised. Needs a cutoff. ndeval leaves ERR-IA@1 unnormalised (a sum over intents): rankproof divides "
        "at k = 1 too." + _TIES + _NDEVAL,
        ("alpha", "rel"), _err_ia, normalised=True, ties=TieSupport.EXACT,
        defaults=(("alpha", 0.5),),
        family="diversity", needs_intents=True, needs_cutoff=True),
    MeasureSpec(
        "ndcg_ia",
        "intent-aware nDCG: sum_i w_i * nDCG_i@k, nDCG_i@k from the grades for intent i (gain and "
        "discount policies) over the ideal of its judged docs. Agrawal and colleagues, WSDM 2009; not in "
        "ndeval." + _TIES + _NDEVAL,
        ("gain", "discount", "rel"), _ndcg_ia, normalised=True, ties=TieSupport.EXACT,
        family="diversity", needs_intents=True),
    MeasureSpec(
        "p_ia",
        "intent-aware precision: sum_i w_i * (docs relevant to intent i in the top k) / k, k even past the "
        "ranking's end (no cutoff: / docs retrieved). NIST ndeval's P-IA." + _TIES + _NDEVAL,
        ("rel",), _p_ia, normalised=True, ties=TieSupport.EXACT, family="diversity",
        needs_intents=True),
    MeasureSpec(
        "s_recall",
        "subtopic recall: sum_i w_i * [a doc relevant to intent i is in the top k] (uniform weights: "
        "intents covered / intents). Zhai and colleagues, SIGIR 2003; NIST ndeval's strec." + _TIES
        + _NDEVAL,
        ("rel",), _s_recall, normalised=True, ideal_is_best=True, ties=TieSupport.EXACT,
        family="diversity", needs_intents=True),
]
register(*DIVERSITY)
