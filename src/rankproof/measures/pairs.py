"""Pairwise accuracy within a ranking: ir_measures' ``Accuracy``.

accuracy@k is the share of (relevant, non-relevant) pairs among the docs of
the top k that the ranking orders right, the relevant one first:

.. math:: \\mathrm{accuracy@}k = 1 - \\frac{\\sum_{i \\in R_k} n_{<i}}{|R_k| \\, |N_k|}

with R_k the relevant docs of the top k (judged at grade ``rel`` or above),
N_k the others (unjudged docs are non-relevant), and n_{<i} the non-relevant
docs ranked above relevant doc i; without a cutoff, over the whole list. It
is the AUC of the list's own docs (rankproof's ``user_auc`` on the same
docs, without tied scores). A query whose top k holds no relevant doc or no
non-relevant doc has no pair: the value is undefined and the query leaves
this measure's mean whatever ``zero_ideal`` says (ir_measures skips the
first, and divides by zero on the second). Tied scores need one order
(``ties=docid`` or ``input``): under ``ties=expected`` a run with ties is
refused.
"""

from __future__ import annotations

import numpy as np

from .base import Measure, MeasureSpec, TieSupport, register
from .compute import Context, Values

__all__ = ["PAIRS"]


def _accuracy(ctx: Context, m: Measure) -> Values:
    ranked = ctx.ranked
    query, rank = ranked.position_query, ranked.position_rank
    inside = rank < ctx.k(m)[query]
    relevant = ctx.relevant(m.setting("rel", ctx.protocol)) > 0
    nonrelevant = inside & ~relevant
    relevant = inside & relevant
    # non-relevant docs above each position of its query: prefix[i] counts those before position i
    prefix = np.concatenate([[0], np.cumsum(nonrelevant)])
    starts = np.concatenate([[0], np.cumsum(ranked.lengths)[:-1]]).astype(np.int64)
    before = prefix[:-1] - prefix[starts[query]]
    num_q = ranked.num_queries
    misordered = np.bincount(query[relevant], weights=before[relevant], minlength=num_q)
    pairs = (np.bincount(query[relevant], minlength=num_q)
             * np.bincount(query[nonrelevant], minlength=num_q)
             ).astype(np.float64)
    undefined = pairs == 0
    value = np.divide(misordered, pairs, out=np.zeros(num_q), where=~undefined)
    value = np.where(undefined, np.nan, 1.0 - value)
    return Values(value, undefined=undefined)


PAIRS = [
    # Not ideal_is_best: the ideal list of the relevant docs alone holds no pair, so no value.
    MeasureSpec("accuracy",
                "pairwise accuracy: the share of (relevant, non-relevant) pairs of the top k ranked "
                "relevant first (ir_measures' Accuracy); undefined without such a pair", ("rel",),
                _accuracy,
                # no merit order: a tie range enumerates
                ties=TieSupport.ORDERED, always_excluded=True,
                family="pairs"),
]
register(*PAIRS)
