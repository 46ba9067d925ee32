"""The named presets: each peer's conventions as the policies that reproduce it.

A preset is data here (policy name -> value), frozen; :data:`rankproof.protocol.PRESETS`
holds them as :class:`~rankproof.protocol.Protocol` values and
:meth:`Protocol.preset <rankproof.protocol.Protocol.preset>` looks them up.
Each comment says where the peer's convention comes from.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from .policies import (
    ApDenominator,
    Duplicates,
    CountSummary,
    ExtraQuery,
    Gain,
    IdenticalIds,
    Ideal,
    IprecRounding,
    MissingQuery,
    NegativeGrades,
    PrecisionDenominator,
    ScorePrecision,
    Ties,
    ZeroIdeal,
)

__all__ = ["PRESET_SETTINGS"]

# trec_eval 10 as far as the measures of this package go: linear gain, log2
# discount, ideal from the judged pool, unjudged docs non-relevant, ties broken
# by doc id descending, negative grades in the pool but unjudged, queries
# without relevant docs scored 0, and (without -c) an abort when a judged query
# is missing from the run.
#
# Grades: trec_eval 10 reads the grade column with C's atol (get_qrels.c), which
# stops at the first character that is not a digit, silently: 1.5 counts as 1,
# 2.9 as 2, 0.7 and -0.5 as 0 (judged non-relevant), 1e2 as 1. The presets keep
# grades=integer, so such a grade is an error here rather than a silent
# truncation; `rankproof trec-eval` (the drop-in) reads them as atol does and
# stays byte-identical to trec_eval. Evaluating real grades as reals is
# grades=real, which no trec_eval version offers.
_TREC_EVAL: dict[str, Any] = dict(
    ties=Ties.DOCID,
    negative_grades=NegativeGrades.UNJUDGED,
    missing_query=MissingQuery.ERROR,
    extra_query=ExtraQuery.IGNORE,
    zero_ideal=ZeroIdeal.ZERO,
    duplicates=Duplicates.ERROR,
    # num_ret, num_rel and num_rel_ret are summed over the queries in trec_eval's summary
    # (and in pytrec_eval's users' and ir_measures' SumAgg), not averaged.
    counts=CountSummary.SUM,
)

_SETTINGS: dict[str, dict[str, Any]] = {
    "rankproof": {},
    "trec_eval": _TREC_EVAL,
    # trec_eval 9 and pytrec_eval differ from trec_eval 10 in three ways:
    # scores held as float32 (nearly equal scores tie, then doc id
    # descending), the older interpolated-precision cut-off, and the mean over
    # the queries in both run and qrels.
    "trec_eval9": dict(
        _TREC_EVAL,
        missing_query=MissingQuery.EXCLUDE,
        score_precision=ScorePrecision.FLOAT32,
        iprec_rounding=IprecRounding.LEGACY,
    ),
}

# scikit-learn's ndcg_score / dcg_score: linear gain (the y_true values),
# log2 discount, ties averaged over their orders (McSherry & Najork, as
# rankproof's ties=expected), rows without relevance scored 0, negative y_true
# refused (ndcg_score does), a plain mean over rows. sample_weight is
# aggregation=weighted with weights=sample_weight; ignore_ties=True is
# documented in rankproof.frontdoors.scores.
_SETTINGS["sklearn"] = {}

# LightGBM's ndcg@k eval metric (src/metric/rank_metric.hpp, dcg_calculator.cpp):
# label_gain 2^i - 1, discount 1/log2(2 + i) at 0-based position i, a stable
# sort by score descending (tied docs keep their input order), a query whose
# labels are all 0 scores 1, negative labels refused.
_SETTINGS["lightgbm"] = dict(gain=Gain.EXP2, ties=Ties.INPUT, zero_ideal=ZeroIdeal.ONE)

# ranx (ranx/metrics/ndcg.py, data_structures/common.py), its `ndcg` (Jarvelin's
# linear gain; `ndcg_burges` is gain=exp2): log2 discount, the ideal from the
# judged docs, judgments below the relevance level (negative grades among them)
# dropped, so they gain 0; an ideal DCG of 0 divides by 1, giving 0. Runs are
# ordered by numba's np.argsort of the negated scores, a quicksort that keeps
# tied docs in file order on small groups (insertion sort below 16 elements)
# but not always on long lists: ties=input is the nearest stated policy, and
# reproduces ranx on the bundled Cranfield runs. evaluate(...,
# make_comparable=True) scores queries missing from the run 0 and drops extra
# ones (without it ranx refuses differing query sets). Known difference
# (tests/parity): a query judged only below the relevance level has no qrels in
# ranx, which then does not score it; the preset scores it 0 (zero_ideal=zero).
_SETTINGS["ranx"] = dict(ties=Ties.INPUT, negative_grades=NegativeGrades.ZERO)

# Spark MLlib's RankingMetrics and pyspark.ml.evaluation.RankingEvaluator
# (mllib/evaluation/RankingMetrics.scala), which take, per user, the predicted
# items in order and the set of relevant items: precisionAt(k) divides by k;
# recallAt(k) by the number of relevant items; meanAveragePrecisionAt(k) by
# min(relevant, k), meanAveragePrecision by the number relevant; ndcgAt(k)
# gains 1 per relevant item, its ideal from min(relevant, k) of them; a user
# with no relevant item scores 0 (logged). Predictions are ordered lists, so
# their order is the ranking: ties=input. MLlib ignores graded relevance
# (README, "Spark"): this preset matches it on binary judgments.
_SETTINGS["spark"] = dict(ties=Ties.INPUT, ap_denominator=ApDenominator.MIN_K)

# pytrec_eval wraps trec_eval 9.0.8's C code (float32 scores, the mean over the
# queries of both run and qrels): the trec_eval9 settings, under the name its
# users know. ir_measures computes nDCG, AP, P, R, RR, Success, Rprec and bpref
# with pytrec_eval by default (its first provider for them), so its numbers for
# those measures are pytrec_eval's. Known difference (tests/parity): its Judged provider
# orders tied docs by doc id ascending, its pytrec_eval provider (and the preset) descending,
# so Judged@k differs when a tie crosses the cutoff; NumRel of a judged query the run
# leaves out is its default 0 there, R here. Negative grades crash pytrec_eval 0.5.11's
# ndcg_cut (a segfault): the trec_eval binaries hold those cases.
_SETTINGS["pytrec_eval"] = dict(_SETTINGS["trec_eval9"])
# ir_measures' Evaluator.iter_calc then yields every (measure, judged query) its provider did
# not with the measure's DEFAULT, 0: a judged query the run does not rank scores 0 and is
# averaged in (missing_query=zero), where pytrec_eval alone leaves it out. Known difference
# (docs/guide/protocols.md): such a query's num_rel is that default 0 there, its R here.
_SETTINGS["ir_measures"] = dict(_SETTINGS["trec_eval9"], missing_query=MissingQuery.ZERO)

# ---- RAG frameworks (issue 27). Each takes, per query, the retrieved ids as
# an ordered list (ties=input) and the relevant ids as a set; where one
# framework's metrics disagree among themselves on duplicates, a second preset
# (NAME_sets) holds the set-based ones. `rankproof why --peer NAME` names each
# policy that differs from rankproof's defaults. Read in the frameworks' source.

# ragas (0.2-0.4): src/ragas/metrics/_context_precision.py. IDBasedContextPrecision
# counts the relevant entries of the list of retrieved ids over its length, so a
# relevant id listed twice counts twice (set_p under duplicates=count); the
# non-LLM (and LLM) context precision is sum(precision@k * v_k) / (retrieved
# relevant + 1e-10): AP whose denominator is the number of relevant chunks
# retrieved (ap_denominator=hits), each retrieved context scored on its own
# (duplicates=count), 0 when none is relevant. An empty retrieved list gives
# NaN, which ragas' mean skips (missing_query=exclude).
_RAG_LIST = dict(ties=Ties.INPUT, duplicates=Duplicates.COUNT)
_SETTINGS["ragas"] = dict(_RAG_LIST, ap_denominator=ApDenominator.HITS,
                          missing_query=MissingQuery.EXCLUDE)
# ragas IDBasedContextRecall (src/ragas/metrics/_context_recall.py): |set(retrieved) & reference| /
# |reference| (set_r), a repeated id counted once, 0 for an empty retrieved list, NaN
# (skipped by the mean) without reference ids (zero_ideal=exclude).
_SETTINGS["ragas_sets"] = dict(ties=Ties.INPUT, duplicates=Duplicates.FIRST,
                               zero_ideal=ZeroIdeal.EXCLUDE)

# LlamaIndex (llama-index-core 0.14, llama_index/core/evaluation/retrieval/metrics.py):
# HitRate is hit (any relevant in the list), granular HitRate hits over the list
# / len(expected) (set_r: a repeated relevant id counts again, so 2.0 is
# possible); MRR the reciprocal rank of the first relevant (rr); AveragePrecision
# sums precision at every relevant entry of the list over |expected| (ap: a
# repeated id counts again); NDCG the list's DCG over an ideal of
# len(expected_ids) relevant docs, uncut (ndcg: copies gain again). Every metric
# raises ValueError on an empty retrieved or expected list (missing_query=error,
# zero_ideal=error, which refuses a query with nothing relevant for every measure).
_SETTINGS["llamaindex"] = dict(_RAG_LIST, missing_query=MissingQuery.ERROR,
                               zero_ideal=ZeroIdeal.ERROR)
# LlamaIndex Precision and Recall take set(retrieved_ids): |set & expected| / |set| and
# / |expected| (set_p, set_r with repeated ids dropped).
_SETTINGS["llamaindex_sets"] = dict(_SETTINGS["llamaindex"], duplicates=Duplicates.FIRST)

# Haystack (haystack-ai 2.x/3.x, haystack/components/evaluators/document_*.py):
# DocumentMRREvaluator the first relevant (rr); DocumentMAPEvaluator removes a
# ground-truth value once credited, so a repeated doc keeps its rank but earns
# nothing (ap under duplicates=once); DocumentRecallEvaluator single_hit (hit)
# and multi_hit (set_r) over sets; DocumentNDCGEvaluator pops a relevant value
# once credited (duplicates=once; PR #11959 fixed nDCG above 1), its ideal from
# the ground truth's scores (linear gain), 0 when that ideal is 0. An empty
# retrieved list and an empty ground truth both score 0 and are averaged in
# (missing_query=zero, zero_ideal=zero: the evaluators log "Score will be set to 0").
_SETTINGS["haystack"] = dict(ties=Ties.INPUT, duplicates=Duplicates.ONCE)

# MLflow (mlflow/metrics/metric_definitions.py): precision_at_k counts the
# relevant entries of prediction[:k] over len(prediction[:k]) (duplicates=count,
# precision_denominator=retrieved), 0 for an empty list. ndcg_at_k
# (_prepare_row_for_ndcg, _expand_duplicate_retrieved_docs) makes each repeated
# occurrence of a relevant id in prediction[:k] an extra relevant target, so
# every copy gains (duplicates=count) and is one more relevant doc in the ideal,
# and scores with sklearn's ndcg_score at k=len(prediction[:k]): the ideal cut
# at the list's length (ideal=expanded); an empty list scores 0. Known difference
# (docs/guide/rag.md): recall_at_k and ndcg_at_k score 1 a row whose prediction
# and target are both empty; the presets score it 0.
_SETTINGS["mlflow"] = dict(_RAG_LIST, precision_denominator=PrecisionDenominator.RETRIEVED,
                           ideal=Ideal.EXPANDED)
# MLflow recall_at_k: |set(prediction[:k]) & set(target)| / |set(target)|: copies keep their
# slots in the top k but count once (duplicates=once).
_SETTINGS["mlflow_sets"] = dict(ties=Ties.INPUT, duplicates=Duplicates.ONCE)

# MTEB (mteb/_evaluators/retrieval_metrics.py, calculate_retrieval_scores) and
# BEIR (beir/retrieval/evaluation.py): ndcg_cut, map_cut, recall, P and success
# from pytrec_eval (the trec_eval9 settings), MRR@k in their own code with ties
# by doc id descending as pytrec_eval does, and, for the tasks that set
# ignore_identical_ids (ArguAna, Quora, ...), a retrieved doc whose id is the
# query's own id removed from the results first (identical_ids=drop). R_cap@k
# is r(recall_denominator=min_k)@k, their top-k accuracy is hit@k (the name Accuracy is
# ir_measures' pairwise accuracy, measures/pairs.py),
# Hole@k the measure hole (measures/core.py); max_over_subqueries is the policy
# subqueries=max, set beside this preset for the tasks that report it. Known difference
# (tests/parity): recall_cap gives None for a query with nothing relevant; the preset
# scores it 0 (zero_ideal=zero), as the task's pytrec_eval measures do.
_SETTINGS["mteb"] = dict(_SETTINGS["trec_eval9"], identical_ids=IdenticalIds.DROP)
_SETTINGS["beir"] = dict(_SETTINGS["mteb"])

# sentence-transformers' InformationRetrievalEvaluator
# (sentence_transformers/sentence_transformer/evaluation/information_retrieval.py,
# compute_metrics): hits sorted by (-score, corpus_id), queries without a
# relevant doc dropped when the evaluator is built (__init__: queries_ids), so
# left out of every mean, accuracy@k, precision@k and MRR@k too
# (zero_ideal=drop); accuracy@k (hit@k), precision@k / k, recall@k / R, MRR@k
# (rr@k), binary NDCG@k with an ideal of min(R, k), and MAP@k over min(k, R)
# (ap_denominator=min_k).
_SETTINGS["sentence_transformers"] = dict(ties=Ties.INPUT, zero_ideal=ZeroIdeal.DROP,
                                          ap_denominator=ApDenominator.MIN_K)

# name -> {policy: value}, read-only at both levels.
PRESET_SETTINGS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {name: MappingProxyType(settings) for name, settings in _SETTINGS.items()})
