"""Hand-computed golden values and the policy contract of ``evaluate``.

Every expected number below is worked out by hand in the comment next to it.
Discounts used throughout (log2 discount, rank i weighs 1 / log2(i + 1)):

    rank 1: 1 / log2(2) = 1
    rank 2: 1 / log2(3) = 0.6309297536
    rank 3: 1 / log2(4) = 0.5
    rank 4: 1 / log2(5) = 0.4306765581
"""

from __future__ import annotations

import math

import pytest

from rankproof import Measure, Protocol, Qrels, Run, evaluate, parse_measure
from rankproof.errors import (
    DuplicateError,
    InputError,
    MeasureError,
    MissingQueryError,
    ParseError,
    ProtocolError,
    RankproofError,
    TieError,
    UnjudgedError,
    ZeroIdealError,
)
from rankproof.measures import ndcg

D2 = 0.6309297535714575  # 1 / log2(3), the discount of rank 2
D4 = 0.4306765580733931  # 1 / log2(5), the discount of rank 4

# The judged pool of the issue: q1 = {A: 3, B: 2, C: 1, D: 0}.
POOL = {"A": 3, "B": 2, "C": 1, "D": 0}
# DCG@2 of [B, C] = 2 * 1 + 1 * 0.6309297536 = 2.6309297536
DCG_BC = 2.6309297536
# Ideal DCG@2 over the judged pool = [A, B] = 3 * 1 + 2 * 0.6309297536 = 4.2618595071
IDEAL_AT_2 = 4.2618595071
# NDCG@2 of [B, C] = 2.6309297536 / 4.2618595071 = 0.6173196815
NDCG_BC = 0.6173196815


def pool_qrels() -> Qrels:
    return Qrels.from_dict({"q1": POOL})


def ndcg2(ranking: list[str], protocol: Protocol | None = None) -> float:
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ranking}), "ndcg@2", protocol or Protocol())
    return results.mean("ndcg@2")


# ---------------------------------------------------------------------------
# NDCG on the judged pool of the issue
# ---------------------------------------------------------------------------
def test_ndcg_parts_of_ranking_b_c_against_judged_ideal():
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["B", "C"]}), "ndcg@2")
    row = results.to_pandas().iloc[0]
    assert row["ndcg@2:dcg"] == pytest.approx(2.630930, abs=1e-6)
    assert row["ndcg@2:ideal_dcg"] == pytest.approx(4.261860, abs=1e-6)
    assert results.mean("ndcg@2") == pytest.approx(0.617320, abs=1e-6)


def test_ndcg_of_ranking_b_c_is_one_when_ideal_is_taken_from_retrieved_docs():
    # Ideal over the retrieved {B, C} is [B, C] itself: 2.6309 / 2.6309 = 1.
    assert ndcg2(["B", "C"], Protocol(ideal="retrieved")) == pytest.approx(1.0, abs=1e-12)


def test_ndcg_of_the_ideal_ranking_a_b_is_one():
    # [A, B] is the ideal order at k = 2: 4.2619 / 4.2619.
    assert ndcg2(["A", "B"]) == pytest.approx(1.0, abs=1e-12)


def test_short_ranking_keeps_the_judged_ideal_denominator():
    # [B]: DCG@2 = 2 * 1 = 2; the missing rank 2 gains 0 and the ideal stays 4.261860.
    # 2 / 4.2618595071 = 0.4692787260
    assert ndcg2(["B"]) == pytest.approx(0.469279, abs=1e-6)


# ---------------------------------------------------------------------------
# Unjudged docs
# ---------------------------------------------------------------------------
def test_unjudged_error_names_the_query_and_the_doc():
    with pytest.raises(UnjudgedError) as caught:
        ndcg2(["B", "E"], Protocol(unjudged="error"))
    message = str(caught.value)
    assert "q1" in message
    assert "doc E" in message


def test_unjudged_zero_scores_the_doc_zero_and_counts_it():
    # [E, B]: E gains 0 at rank 1, B gains 2 * 0.6309297536 = 1.2618595071 at rank 2.
    # 1.2618595071 / 4.2618595071 = 0.2960819110
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["E", "B"]}), ["ndcg@2", "ndcg@1"],
                       Protocol(unjudged="zero"))
    assert results.mean("ndcg@2") == pytest.approx(0.2960819110, abs=1e-9)
    assert results.counts["unjudged_retrieved"] == 1
    # E sits at rank 1, so it is inside both cutoffs.
    assert results.counts["unjudged_in_cutoff"]["ndcg@2"] == 1
    assert results.counts["unjudged_in_cutoff"]["ndcg@1"] == 1


def test_unjudged_doc_past_the_cutoff_is_not_counted_inside_it():
    # [B, C, E]: E at rank 3 is retrieved but outside the top 2.
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["B", "C", "E"]}), "ndcg@2")
    assert results.counts["unjudged_retrieved"] == 1
    assert results.counts["unjudged_in_cutoff"]["ndcg@2"] == 0
    assert results.mean("ndcg@2") == pytest.approx(NDCG_BC, abs=1e-9)


def test_unjudged_condense_drops_the_doc():
    # Condensed, [E, B] becomes [B]: 2 / 4.2618595071 = 0.4692787260.
    condensed = evaluate(pool_qrels(), Run.from_dict({"q1": ["E", "B"]}), "ndcg@2",
                         Protocol(unjudged="condense"))
    assert condensed.mean("ndcg@2") == pytest.approx(0.4692787260, abs=1e-9)
    assert condensed.mean("ndcg@2") == pytest.approx(ndcg2(["B"]), abs=1e-12)
    assert condensed.counts["unjudged_dropped"] == 1


# ---------------------------------------------------------------------------
# Cutoffs, grades and duplicates that must be refused
# ---------------------------------------------------------------------------
BAD_CUTOFFS = [0, -1, True, 2.5]


@pytest.mark.parametrize("k", BAD_CUTOFFS, ids=repr)
def test_bad_cutoff_is_refused_by_matmul(k):
    with pytest.raises(MeasureError):
        ndcg @ k


@pytest.mark.parametrize("k", BAD_CUTOFFS, ids=repr)
def test_bad_cutoff_is_refused_by_the_constructor(k):
    with pytest.raises(MeasureError):
        Measure("ndcg", k)


@pytest.mark.parametrize("text", ["ndcg@0", "ndcg@-1", "ndcg@2.5", "ndcg@True"])
def test_bad_cutoff_is_refused_in_text(text):
    with pytest.raises(MeasureError):
        parse_measure(text)


def test_bad_cutoff_is_refused_by_evaluate():
    with pytest.raises(MeasureError):
        evaluate(pool_qrels(), Run.from_dict({"q1": ["B"]}), "ndcg@0")


def test_negative_grade_is_refused_by_default():
    qrels = Qrels.from_dict({"q1": {"A": -1, "B": 1}})
    with pytest.raises(InputError) as caught:
        evaluate(qrels, Run.from_dict({"q1": ["A", "B"]}), "ndcg@2")
    assert "q1" in str(caught.value) and "doc A" in str(caught.value)


def test_fractional_grade_is_refused():
    with pytest.raises(ParseError):
        Qrels.from_dict({"q1": {"A": 1.5}})


def test_duplicate_doc_in_a_ranking_is_refused_by_default():
    with pytest.raises(DuplicateError) as caught:
        ndcg2(["B", "C", "B"])
    assert "q1" in str(caught.value) and "doc B" in str(caught.value)


def test_duplicates_first_keeps_the_first_occurrence_and_counts_the_rest():
    # [C, B, C] -> [C, B]: DCG@2 = 1 * 1 + 2 * 0.6309297536 = 2.2618595071,
    # NDCG@2 = 2.2618595071 / 4.2618595071 = 0.5307212740.
    # (Keeping the last C instead would give [B, C] = 0.6173196815.)
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["C", "B", "C"]}), "ndcg@2",
                       Protocol(duplicates="first"))
    assert results.mean("ndcg@2") == pytest.approx(0.5307212740, abs=1e-9)
    assert results.counts["duplicates_dropped"] == 1


# ---------------------------------------------------------------------------
# Macro and micro aggregation
# ---------------------------------------------------------------------------
def macro_micro_data() -> tuple[Qrels, Run]:
    # ndcg@1 with linear gain; the rank-1 discount is 1 / log2(2) = 1, so
    #   qa = {a: 3}, ranking [a]:          DCG@1 = 3, ideal DCG@1 = 3 -> 3/3 = 1
    #   qb = {b: 1, c: 0}, ranking [c]:    DCG@1 = 0, ideal DCG@1 = 1 -> 0/1 = 0
    qrels = Qrels.from_dict({"qa": {"a": 3}, "qb": {"b": 1, "c": 0}})
    run = Run.from_dict({"qa": ["a"], "qb": ["c"]})
    return qrels, run


def test_macro_mean_averages_per_query_ndcg():
    # (1 + 0) / 2 = 0.5
    qrels, run = macro_micro_data()
    assert evaluate(qrels, run, "ndcg@1", Protocol(aggregation="macro")).mean("ndcg@1") == pytest.approx(0.5)


def test_micro_mean_divides_summed_dcg_by_summed_ideal():
    # (3 + 0) / (3 + 1) = 0.75
    qrels, run = macro_micro_data()
    assert evaluate(qrels, run, "ndcg@1", Protocol(aggregation="micro")).mean("ndcg@1") == pytest.approx(0.75)


# ---------------------------------------------------------------------------
# Queries with nothing relevant (ideal DCG 0)
# ---------------------------------------------------------------------------
# q1 ranks [B, C] against the full pool with k = 10:
#   DCG@10   = 2.6309297536 (as at k = 2; nothing else retrieved)
#   ideal@10 = 3 * 1 + 2 * 0.6309297536 + 1 * 0.5 = 4.7618595071
#   NDCG@10  = 2.6309297536 / 4.7618595071 = 0.5525004989
# qz judges x and y both 0: ideal DCG 0.
NDCG10_Q1 = 0.5525004989


def zero_ideal_results(policy: str):
    qrels = Qrels.from_dict({"q1": POOL, "qz": {"x": 0, "y": 0}})
    run = Run.from_dict({"q1": ["B", "C"], "qz": ["x", "y"]})
    return evaluate(qrels, run, "ndcg@10", Protocol(zero_ideal=policy))


def test_zero_ideal_zero_keeps_the_query_in_the_mean_and_counts_it():
    results = zero_ideal_results("zero")
    assert results.per_query("ndcg@10")["qz"] == 0.0
    # (0.5525004989 + 0) / 2 = 0.2762502495
    assert results.mean("ndcg@10") == pytest.approx(0.2762502495, abs=1e-9)
    assert results.counts["zero_ideal_queries"]["ndcg@10"] == 1


def test_zero_ideal_exclude_leaves_the_query_out_of_the_mean_and_counts_it():
    results = zero_ideal_results("exclude")
    assert "qz" not in results.per_query("ndcg@10")
    assert results.mean("ndcg@10") == pytest.approx(NDCG10_Q1, abs=1e-9)
    assert results.counts["zero_ideal_queries"]["ndcg@10"] == 1
    assert results.counts["excluded_queries"]["ndcg@10"] == 1


def test_zero_ideal_one_scores_the_query_one():
    results = zero_ideal_results("one")
    assert results.per_query("ndcg@10")["qz"] == 1.0
    # (0.5525004989 + 1) / 2 = 0.7762502495
    assert results.mean("ndcg@10") == pytest.approx(0.7762502495, abs=1e-9)


def test_zero_ideal_error_names_the_query():
    with pytest.raises(ZeroIdealError) as caught:
        zero_ideal_results("error")
    assert "qz" in str(caught.value)


# ---------------------------------------------------------------------------
# DCG and NDCG@5 of the textbook example, linear and exp2 gain
# ---------------------------------------------------------------------------
# Judged grades a=3, b=3, c=1, d=0, e=0, so the ideal order has grades [3, 3, 1, 0, 0].
TEXTBOOK = {"a": 3, "b": 3, "c": 1, "d": 0, "e": 0}
# The ranking [c, d, a, b, e] has grades [1, 0, 3, 3, 0].
TEXTBOOK_RANKING = ["c", "d", "a", "b", "e"]


def textbook(measures, protocol=None, ranking=TEXTBOOK_RANKING):
    return evaluate(Qrels.from_dict({"q": TEXTBOOK}), Run.from_dict({"q": ranking}), measures,
                    protocol or Protocol())


def test_dcg_at_5_of_the_ideal_linear_grades():
    # [3, 3, 1, 0, 0]: 3 * 1 + 3 * 0.6309297536 + 1 * 0.5 = 5.3927892607
    results = textbook(["dcg@5", "ideal_dcg@5"], ranking=["a", "b", "c", "d", "e"])
    assert results.mean("dcg@5") == pytest.approx(5.3928, abs=1e-4)
    assert results.mean("ideal_dcg@5") == pytest.approx(5.3927892607, abs=1e-9)


def test_dcg_and_ndcg_at_5_of_a_misordered_ranking_linear_gain():
    # [1, 0, 3, 3, 0]: 1 * 1 + 0 + 3 * 0.5 + 3 * 0.4306765581 + 0 = 3.7920296742
    # NDCG@5 = 3.7920296742 / 5.3927892607 = 0.7031666714
    results = textbook(["dcg@5", "ndcg@5"])
    assert results.mean("dcg@5") == pytest.approx(3.7920, abs=1e-4)
    assert results.mean("ndcg@5") == pytest.approx(0.7032, abs=1e-4)
    assert results.mean("ndcg@5") == pytest.approx(0.7031666714, abs=1e-9)


# exp2 gains 2^g - 1: grade 3 -> 7, grade 1 -> 1.
#   ranking [1, 0, 7, 7, 0]: 1 + 0 + 7 * 0.5 + 7 * 0.4306765581 = 7.5147359065
#   ideal   [7, 7, 1, 0, 0]: 7 + 7 * 0.6309297536 + 1 * 0.5     = 11.9165082750
#   NDCG@5 = 7.5147359065 / 11.9165082750 = 0.6306155908
NDCG5_EXP2 = 0.6306155908


def test_ndcg_at_5_with_exp2_gain_from_the_protocol():
    results = textbook("ndcg@5", Protocol(gain="exp2"))
    assert results.mean("ndcg@5") == pytest.approx(0.6306, abs=1e-4)
    assert results.mean("ndcg@5") == pytest.approx(NDCG5_EXP2, abs=1e-9)


def test_ndcg_at_5_with_exp2_gain_as_a_measure_override():
    measure = ndcg(gain="exp2") @ 5
    results = textbook([measure])  # protocol gain stays linear
    assert results.mean(measure) == pytest.approx(NDCG5_EXP2, abs=1e-9)
    assert results.mean("ndcg(gain=exp2)@5") == pytest.approx(NDCG5_EXP2, abs=1e-9)


def test_gain_map_and_discount_vector_policies():
    # Gain map {1: 1.5, 2: 3}: grade 3 is absent, so A gains 0; B gains 3, C 1.5.
    #   [B, C]: DCG@2 = 3 * 1 + 1.5 * 0.6309297536 = 3.9463946304
    # Discount vector 1/0.5 (ranks past 2 weigh 0), linear gain:
    #   [B, C]: DCG@2 = 2 * 1 + 1 * 0.5 = 2.5; ideal@3 = [3, 2, 1] -> 3 + 1 + 0 = 4,
    #   NDCG@3 = 2.5 / 4 = 0.625
    run = Run.from_dict({"q1": ["B", "C"]})
    mapped = evaluate(pool_qrels(), run, "dcg@2", Protocol(gain={1: 1.5, 2: 3}))
    assert mapped.mean("dcg@2") == pytest.approx(3.9463946304, abs=1e-9)
    vector = evaluate(pool_qrels(), run, ["dcg@2", "ndcg@3"], Protocol(discount=[1, 0.5]))
    assert vector.mean("dcg@2") == pytest.approx(2.5)
    assert vector.mean("ndcg@3") == pytest.approx(0.625)


def test_empty_gain_map_gives_every_grade_gain_zero_or_is_refused():
    # "grades absent from it have gain 0": with no entry every gain is 0, DCG 0.
    # Refusing an empty map up front with a ProtocolError would also honour the
    # error contract; crashing with an internal error would not.
    try:
        protocol = Protocol(gain={})
    except ProtocolError:
        return
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["B", "C"]}), "dcg@2", protocol)
    assert results.mean("dcg@2") == 0.0


# ---------------------------------------------------------------------------
# AP and RR
# ---------------------------------------------------------------------------
def test_average_precision_of_relevance_1_0_1_0_1():
    # Relevant at ranks 1, 3, 5, R = 3: (1/1 + 2/3 + 3/5) / 3 = 2.2666667 / 3 = 0.7555556
    qrels = Qrels.from_dict({"q": {"r1": 1, "r2": 1, "r3": 1, "n1": 0, "n2": 0}})
    run = Run.from_dict({"q": ["r1", "n1", "r2", "n2", "r3"]})
    assert evaluate(qrels, run, "ap").mean("ap") == pytest.approx(0.7556, abs=1e-4)
    assert evaluate(qrels, run, "ap").mean("ap") == pytest.approx(0.7555555556, abs=1e-9)


def test_reciprocal_rank_of_first_relevant_at_rank_2():
    # First relevant at rank 2: 1/2
    qrels = Qrels.from_dict({"q": {"r1": 1, "n1": 0, "n2": 0}})
    run = Run.from_dict({"q": ["n1", "r1", "n2"]})
    assert evaluate(qrels, run, "rr").mean("rr") == 0.5


# ---------------------------------------------------------------------------
# Tied scores
# ---------------------------------------------------------------------------
# scikit-learn's dcg_score example: true relevance [10, 0, 0, 1, 5], scores
# [1, 0, 0, 0, 1]. Docs d0..d4 carry those grades and scores; d0 (grade 10) and
# d4 (grade 5) tie at the top score 1.
TIE_GRADES = {"d0": 10, "d1": 0, "d2": 0, "d3": 1, "d4": 5}
TIE_SCORES = {"d0": 1.0, "d1": 0.0, "d2": 0.0, "d3": 0.0, "d4": 1.0}


def tie_results(protocol: Protocol, order=("d0", "d1", "d2", "d3", "d4"), measures=("dcg@1",)):
    run = Run.from_dict({"q1": {doc: TIE_SCORES[doc] for doc in order}})
    return evaluate(Qrels.from_dict({"q1": TIE_GRADES}), run, list(measures), protocol)


def test_ties_expected_averages_the_tied_gains():
    # Rank 1 holds d0 or d4 with probability 1/2 each: (10 + 5) / 2 = 7.5
    assert tie_results(Protocol(ties="expected")).mean("dcg@1") == pytest.approx(7.5)


def test_ties_docid_puts_the_larger_doc_id_first():
    # Doc id descending (trec_eval): "d4" > "d0", so d4 (grade 5) takes rank 1 -> 5.
    assert tie_results(Protocol(ties="docid")).mean("dcg@1") == pytest.approx(5.0)


def test_ties_error_names_the_query_and_the_tied_docs():
    with pytest.raises(TieError) as caught:
        tie_results(Protocol(ties="error"))
    message = str(caught.value)
    assert "q1" in message
    assert "d0" in message and "d4" in message


def test_ties_input_breaks_the_tie_by_the_given_order():
    # d0 given before d4: [d0, d4, ...] -> DCG@1 = 10.
    assert tie_results(Protocol(ties="input")).mean("dcg@1") == pytest.approx(10.0)


def test_ties_input_still_orders_by_score():
    # Given order d1, d4, d2, d0, d3. ties=input decides only between equal
    # scores, so the top-score group {d4, d0} comes first, in the given order:
    # [d4, d0, d1, d2, d3] -> DCG@1 = 5, DCG@2 = 5 + 10 * 0.6309297536 = 11.3092975357.
    results = tie_results(Protocol(ties="input"), order=("d1", "d4", "d2", "d0", "d3"),
                          measures=("dcg@1", "dcg@2"))
    assert results.mean("dcg@1") == pytest.approx(5.0)
    assert results.mean("dcg@2") == pytest.approx(11.3092975357, abs=1e-9)


# ---------------------------------------------------------------------------
# Weighted aggregation
# ---------------------------------------------------------------------------
def weighted_data() -> tuple[Qrels, Run]:
    # Three queries judged like q1, with ndcg@2:
    #   qa [B, C] -> 0.6173196815, qb [A, B] -> 1, qc [D] -> 0 (D has grade 0)
    qrels = Qrels.from_dict({"qa": POOL, "qb": POOL, "qc": POOL})
    run = Run.from_dict({"qa": ["B", "C"], "qb": ["A", "B"], "qc": ["D"]})
    return qrels, run


def test_weighted_mean_uses_the_query_weights():
    # (2 * 0.6173196815 + 1 * 1 + 1 * 0) / (2 + 1 + 1) = 2.2346393630 / 4 = 0.5586598408
    qrels, run = weighted_data()
    results = evaluate(qrels, run, "ndcg@2", Protocol(aggregation="weighted"),
                       weights={"qa": 2, "qb": 1, "qc": 1})
    assert results.mean("ndcg@2") == pytest.approx(0.5586598408, abs=1e-9)


def test_weighted_mean_without_a_weight_for_a_query_is_an_error():
    qrels, run = weighted_data()
    with pytest.raises(RankproofError) as caught:
        evaluate(qrels, run, "ndcg@2", Protocol(aggregation="weighted"), weights={"qa": 2, "qb": 1})
    assert "qc" in str(caught.value)


def test_weights_without_weighted_aggregation_are_an_error():
    qrels, run = weighted_data()
    with pytest.raises(RankproofError):
        evaluate(qrels, run, "ndcg@2", Protocol(), weights={"qa": 2, "qb": 1, "qc": 1})


# ---------------------------------------------------------------------------
# Queries on one side only
# ---------------------------------------------------------------------------
def missing_query_results(policy: str):
    # q1 ranks [B, C] (0.6173196815); q2 is judged but not ranked.
    qrels = Qrels.from_dict({"q1": POOL, "q2": POOL})
    return evaluate(qrels, Run.from_dict({"q1": ["B", "C"]}), "ndcg@2", Protocol(missing_query=policy))


def test_missing_query_zero_scores_it_zero_and_counts_it():
    results = missing_query_results("zero")
    assert results.per_query("ndcg@2") == pytest.approx({"q1": NDCG_BC, "q2": 0.0}, abs=1e-9)
    # (0.6173196815 + 0) / 2 = 0.3086598408
    assert results.mean("ndcg@2") == pytest.approx(0.3086598408, abs=1e-9)
    assert results.counts["queries_missing_from_run"] == 1


def test_missing_query_exclude_drops_it():
    results = missing_query_results("exclude")
    assert list(results.per_query("ndcg@2")) == ["q1"]
    assert results.mean("ndcg@2") == pytest.approx(NDCG_BC, abs=1e-9)


def test_missing_query_error_names_it():
    with pytest.raises(MissingQueryError) as caught:
        missing_query_results("error")
    assert "q2" in str(caught.value)


def extra_query_results(policy: str):
    # q9 is ranked but not judged.
    run = Run.from_dict({"q1": ["B", "C"], "q9": ["A"]})
    return evaluate(pool_qrels(), run, "ndcg@2", Protocol(extra_query=policy))


def test_extra_query_ignore_skips_it_and_counts_it():
    results = extra_query_results("ignore")
    assert list(results.per_query("ndcg@2")) == ["q1"]
    assert results.mean("ndcg@2") == pytest.approx(NDCG_BC, abs=1e-9)
    assert results.counts["queries_missing_from_qrels"] == 1


def test_extra_query_error_names_it():
    with pytest.raises(MissingQueryError) as caught:
        extra_query_results("error")
    assert "q9" in str(caught.value)


# ---------------------------------------------------------------------------
# Negative grades
# ---------------------------------------------------------------------------
def negative_grade_results(policy: str):
    # B is judged -1; the ranking [A, B, C] retrieves it at rank 2.
    qrels = Qrels.from_dict({"q1": {"A": 3, "B": -1, "C": 1}})
    return evaluate(qrels, Run.from_dict({"q1": ["A", "B", "C"]}), ["judged@3", "ndcg@3"],
                    Protocol(negative_grades=policy))


def test_negative_grades_zero_reads_them_as_judged_grade_zero():
    results = negative_grade_results("zero")
    # All three ranked docs are judged: 3 / 3.
    assert results.mean("judged@3") == pytest.approx(1.0)
    # DCG@3 = 3 * 1 + 0 + 1 * 0.5 = 3.5; ideal [3, 1, 0] = 3 + 0.6309297536 = 3.6309297536
    # NDCG@3 = 3.5 / 3.6309297536 = 0.9639404333
    assert results.mean("ndcg@3") == pytest.approx(0.9639404333, abs=1e-9)
    assert results.counts["negative_grades"] == 1


def test_negative_grades_unjudged_drops_the_judgment():
    results = negative_grade_results("unjudged")
    # B no longer counts as judged: 2 of the top 3.
    assert results.mean("judged@3") == pytest.approx(2 / 3)
    assert results.counts["negative_grades"] == 1
    assert results.counts["unjudged_retrieved"] == 1


# ---------------------------------------------------------------------------
# summary() and to_pandas()
# ---------------------------------------------------------------------------
def test_summary_names_protocol_fingerprint_and_nonzero_counts():
    protocol = Protocol(gain="exp2")
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["E", "B"]}), "ndcg@2", protocol)
    text = results.summary()
    assert str(protocol) in text
    assert protocol.fingerprint in text
    assert "unjudged_retrieved=1" in text
    assert "unjudged_in_cutoff[ndcg@2]=1" in text
    assert "duplicates_dropped" not in text  # zero counts stay out
    warnings = [line for line in text.splitlines() if line.lower().startswith("warning")]
    assert len(warnings) == 1 and "unjudged" in warnings[0]


def test_summary_has_no_warning_when_every_doc_in_the_cutoff_is_judged():
    # E is at rank 3, outside the cutoff 2.
    results = evaluate(pool_qrels(), Run.from_dict({"q1": ["B", "C", "E"]}), "ndcg@2")
    assert "warning" not in results.summary().lower()


def test_to_pandas_has_one_row_per_query_with_ndcg_parts():
    qrels = Qrels.from_dict({"q1": POOL, "qz": {"x": 0}})
    run = Run.from_dict({"q1": ["B", "C"], "qz": ["x"]})
    frame = evaluate(qrels, run, ["ndcg@10", "ap"]).to_pandas()
    assert frame["query"].tolist() == ["q1", "qz"]
    for column in ("ndcg@10", "ap", "ndcg@10:dcg", "ndcg@10:ideal_dcg"):
        assert column in frame.columns
    row = frame.set_index("query").loc["q1"]
    assert row["ndcg@10:dcg"] == pytest.approx(2.6309297536, abs=1e-9)
    assert row["ndcg@10:ideal_dcg"] == pytest.approx(4.7618595071, abs=1e-9)
    assert row["ndcg@10"] == pytest.approx(NDCG10_Q1, abs=1e-9)
    # AP of [B, C], 3 relevant (A, B, C): (1/1 + 2/2) / 3 = 2/3
    assert row["ap"] == pytest.approx(2 / 3)
    assert math.isclose(frame.set_index("query").loc["qz", "ndcg@10:ideal_dcg"], 0.0)
