"""Recommender denominators as policies (P@k, R@k, AP@k), hit@k, rr@k, and catalogue coverage@k.

Expected values are computed by hand in the comments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof import Protocol, Qrels, Run, coverage, evaluate, parse_measure
from rankproof.errors import InputError, ProtocolError, TieError
from rankproof.protocol import ApDenominator, PrecisionDenominator, RecallDenominator

# One user, R = 3 relevant (a, b, c); the list has 4 items: x a y b (hits at ranks 2 and 4).
QRELS = Qrels.from_dict({"u": {"a": 1, "b": 1, "c": 1}, "v": {"d": 1}, "w": {"e": 0}})
RUN = Run.from_dict({"u": ["x", "a", "y", "b"], "v": ["d"], "w": ["e", "f"]})
# u, k = 2: one hit (rank 2).  precision sum @2 = 1/2;  @10: 1/2 + 2/4 = 1.
# v: one relevant at rank 1, list of 1.  w: nothing relevant (R = 0).
HAND = {
    # P@10 over k: u 2/10, v 1/10, w 0.  Over min(k, length): u 2/4, v 1/1, w 0/2.
    "p@10": {"u": 0.2, "v": 0.1, "w": 0.0},
    "p(precision_denominator=retrieved)@10": {"u": 0.5, "v": 1.0, "w": 0.0},
    # R@2 over R: u 1/3, v 1/1.  Over min(R, k): u 1/2, v 1/1.  (w: R = 0, zero_ideal -> 0)
    "r@2": {"u": 1 / 3, "v": 1.0, "w": 0.0},
    "r(recall_denominator=min_k)@2": {"u": 0.5, "v": 1.0, "w": 0.0},
    # AP@2: sum 1/2 over R = 3, min(3, 2) = 2, hits = 1.
    "ap@2": {"u": 1 / 6, "v": 1.0, "w": 0.0},
    "ap(ap_denominator=min_k)@2": {"u": 0.25, "v": 1.0, "w": 0.0},
    "ap(ap_denominator=hits)@2": {"u": 0.5, "v": 1.0, "w": 0.0},
    # AP@10: sum 1 over R = 3, min(3, 10) = 3, hits = 2.
    "ap@10": {"u": 1 / 3, "v": 1.0, "w": 0.0},
    "ap(ap_denominator=min_k)@10": {"u": 1 / 3, "v": 1.0, "w": 0.0},
    "ap(ap_denominator=hits)@10": {"u": 0.5, "v": 1.0, "w": 0.0},
    # hit@1: u's rank 1 is x (miss), v hits.  rr@3: u first hit at rank 2.
    "hit@1": {"u": 0.0, "v": 1.0, "w": 0.0},
    "rr@3": {"u": 0.5, "v": 1.0, "w": 0.0},
}


@pytest.mark.parametrize("measure", list(HAND))
def test_hand_values_per_measure_override(measure):
    got = evaluate(QRELS, RUN, measure).per_query(measure)
    assert got == pytest.approx(HAND[measure], abs=1e-15)


@pytest.mark.parametrize("policy, measure, override", [
    ("precision_denominator=retrieved", "p@10", "p(precision_denominator=retrieved)@10"),
    ("recall_denominator=min_k", "r@2", "r(recall_denominator=min_k)@2"),
    ("ap_denominator=min_k", "ap@2", "ap(ap_denominator=min_k)@2"),
    ("ap_denominator=hits", "ap@10", "ap(ap_denominator=hits)@10"),
])
def test_protocol_policy_gives_the_override_values(policy, measure, override):
    got = evaluate(QRELS, RUN, measure, Protocol.from_text(policy)).per_query(measure)
    assert got == pytest.approx(HAND[override], abs=1e-15)


def test_measure_override_wins_over_the_protocol():
    protocol = Protocol(ap_denominator="hits")
    got = evaluate(QRELS, RUN, "ap(ap_denominator=relevant)@2", protocol).per_query("ap(ap_denominator=relevant)@2")
    assert got == pytest.approx(HAND["ap@2"])


def test_zero_relevant_follows_zero_ideal_for_every_denominator():
    for measure in ["r(recall_denominator=min_k)@2", "ap(ap_denominator=min_k)@2", "ap(ap_denominator=hits)@2"]:
        one = evaluate(QRELS, RUN, measure, Protocol(zero_ideal="one"))
        assert one.per_query(measure)["w"] == 1.0
        assert one.counts["zero_ideal_queries"][measure] == 1
        excluded = evaluate(QRELS, RUN, measure, Protocol(zero_ideal="exclude"))
        assert "w" not in excluded.per_query(measure)


def test_a_missed_query_with_relevant_docs_scores_zero_not_undefined():
    # Query v has a relevant doc but the run does not rank it (missing_query=zero: an empty list).
    # min(R, length) = 0 without a cutoff: still a miss (0), not a zero-ideal query.
    run = Run.from_dict({"u": ["a"]})
    # The run ranks 1 of 3 judged queries: partial on purpose (issue 14 refuses it by default).
    results = evaluate(QRELS, run, ["r(recall_denominator=min_k)", "ap(ap_denominator=hits)"],
                       Protocol(zero_ideal="one"), allow_partial=True)
    assert results.per_query("r(recall_denominator=min_k)")["v"] == 0.0
    assert results.per_query("ap(ap_denominator=hits)")["v"] == 0.0
    assert results.counts["zero_ideal_queries"]["r(recall_denominator=min_k)"] == 1  # only w


def test_micro_aggregation_uses_the_chosen_denominator():
    # sum of hits / sum of min(k, length): (2 + 1 + 0) / (4 + 1 + 2) = 3 / 7
    protocol = Protocol(aggregation="micro", precision_denominator="retrieved")
    assert evaluate(QRELS, RUN, "p@10", protocol).mean("p@10") == pytest.approx(3 / 7)


def test_ap_over_hits_refuses_expected_ties_crossing_the_cutoff():
    qrels = Qrels.from_dict({"u": {"a": 1, "b": 1}})
    run = Run.from_dict({"u": {"a": 1.0, "x": 0.5, "b": 0.5}})  # x and b tie across rank 2
    with pytest.raises(TieError, match=r"query u: ap\(ap_denominator=hits\)@2 .* set the policy ties=docid"):
        evaluate(qrels, run, "ap(ap_denominator=hits)@2")
    # A tie wholly inside the cutoff is fine: hits do not depend on its order.
    # ranks 1 a; 2-3 {x, b}: E[sum] = 1 + (1/2)(2/2) + (1/2)(2/3) = 1 + 1/2 + 1/3; hits = 2.
    got = evaluate(qrels, run, "ap(ap_denominator=hits)@3").mean("ap(ap_denominator=hits)@3")
    assert got == pytest.approx((1 + 1 / 2 + 1 / 3) / 2)
    # Under ties=input the order is x then b: hits@2 = 1, sum = 1 -> 1.
    assert evaluate(qrels, run, "ap(ap_denominator=hits)@2", Protocol(ties="input")).mean(
        "ap(ap_denominator=hits)@2") == 1.0


# -- the policies as protocol values ----------------------------------------------------

def test_defaults_keep_the_canonical_text_and_old_texts_parse():
    p = Protocol()
    assert p.precision_denominator is PrecisionDenominator.K
    assert p.recall_denominator is RecallDenominator.RELEVANT
    assert p.ap_denominator is ApDenominator.RELEVANT
    assert "denominator" not in str(p)
    old_text = ("gain=linear discount=log2 ideal=judged unjudged=zero zero_ideal=zero missing_query=zero "
                "extra_query=ignore ties=expected duplicates=error negative_grades=error aggregation=macro "
                "rel=1 score_precision=float64 iprec_rounding=round")
    assert Protocol.from_text(old_text) == p and str(p) == old_text


def test_changed_denominators_are_in_the_text_and_round_trip():
    p = Protocol(recall_denominator="min_k", ap_denominator="hits")
    assert str(p).endswith(" recall_denominator=min_k ap_denominator=hits")
    assert Protocol.from_text(str(p)) == p
    assert p.fingerprint != Protocol().fingerprint


def test_unknown_denominator_lists_the_options():
    with pytest.raises(ProtocolError, match="policy ap_denominator does not accept 'k'; choose one of relevant, "
                                            "min_k, hits"):
        Protocol(ap_denominator="k")


def test_trec_eval_presets_keep_the_trec_denominators():
    for name in ("trec_eval", "trec_eval9"):
        preset = Protocol.preset(name)
        assert (preset.precision_denominator, preset.recall_denominator, preset.ap_denominator) == (
            PrecisionDenominator.K, RecallDenominator.RELEVANT, ApDenominator.RELEVANT)


def test_measure_text_round_trips_with_a_denominator():
    m = parse_measure("ap(ap_denominator=min_k)@10")
    assert str(m) == "ap(ap_denominator=min_k)@10" and parse_measure(str(m)) == m


# -- property: the denominators against a per-query loop written from the definitions ---------

@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
@settings(max_examples=60, deadline=None)
def test_denominators_match_their_definitions(seed, k):
    rng = np.random.default_rng(seed)
    judgments, rankings = {}, {}
    for q in range(int(rng.integers(1, 6))):
        docs = [f"d{i}" for i in rng.permutation(12)[: int(rng.integers(1, 10))]]
        judgments[f"q{q}"] = {f"d{i}": int(rng.integers(0, 2)) for i in rng.permutation(12)[:6]}
        rankings[f"q{q}"] = docs
    qrels, run = Qrels.from_dict(judgments), Run.from_dict(rankings)
    names = [f"p(precision_denominator=retrieved)@{k}", f"r(recall_denominator=min_k)@{k}",
             f"ap(ap_denominator=min_k)@{k}", f"ap(ap_denominator=hits)@{k}"]
    results = evaluate(qrels, run, names)
    for q, ranking in rankings.items():
        relevant = {d for d, g in judgments[q].items() if g >= 1}
        top = ranking[:k]
        hits = [d in relevant for d in top]
        precisions = [sum(hits[: i + 1]) / (i + 1) for i, h in enumerate(hits) if h]
        R = len(relevant)
        expected = [
            sum(hits) / min(k, len(ranking)),
            sum(hits) / min(R, k) if R else 0.0,
            sum(precisions) / min(R, k) if R else 0.0,
            sum(precisions) / sum(hits) if sum(hits) else 0.0,
        ]
        for name, value in zip(names, expected):
            assert results.per_query(name)[q] == pytest.approx(value, abs=1e-12), (name, q)


# -- catalogue coverage -------------------------------------------------------------------

def test_coverage_hand_values():
    run = Run.from_dict({"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "v": {"a": 2.0, "d": 1.0, "z": 0.5}})
    # top 2: u -> a, b; v -> a, d.  Catalogue a..f (6 items): a, b, d covered -> 3/6.
    result = coverage(run, 2, catalogue=list("abcdef"))
    assert result.value == 0.5
    assert (result.covered, result.catalogue_size, result.outside_catalogue) == (3, 6, 0)
    # top 3 adds c and z; z is not in the catalogue and is counted apart.
    result = coverage(run, 3, catalogue=list("abcdef"))
    assert result.value == 4 / 6 and result.outside_catalogue == 1


def test_coverage_of_a_table_with_integer_ids_and_catalogue():
    table = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 11, 10, 12], "score": [2.0, 1.0, 2.0, 1.0]})
    assert coverage(table, 1, catalogue=[10, 11, 12, 13]).value == 0.25   # only item 10
    assert coverage(table, 2, catalogue=np.arange(10, 14)).value == 0.75


def test_coverage_ties_across_the_cutoff():
    run = Run.from_dict({"u": {"a": 1.0, "b": 1.0}})
    with pytest.raises(TieError, match="ties=input"):
        coverage(run, 1, catalogue=["a", "b"])
    assert coverage(run, 1, catalogue=["a", "b"], protocol=Protocol(ties="input")).covered == 1
    # docid: doc id descending, so b first
    assert coverage(run, 1, catalogue=["a", "b"], protocol=Protocol(ties="docid")).value == 0.5


def test_coverage_bad_input():
    run = Run.from_dict({"u": ["a"]})
    with pytest.raises(InputError, match="catalogue is empty"):
        coverage(run, 5, catalogue=[])
    with pytest.raises(InputError, match="k of coverage must be an integer >= 1"):
        coverage(run, 0, catalogue=["a"])
