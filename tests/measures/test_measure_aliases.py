"""Other tools' measure names resolve to rankproof's canonical measures.

Names come from trec_eval, ir_measures and ranx; each resolves to the measure
computing the same value under the protocol in force, and prints
canonically. The values are checked against ir_measures and ranx themselves
on tie-free random data (where tie order cannot separate the tools).
"""

from __future__ import annotations

import random

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import MeasureError
from rankproof.measures import parse_measure, parse_measures

NAMES = {
    # trec_eval
    "map": "ap", "P.10": "p@10", "P_10": "p@10", "recall.100": "r@100", "recall_100": "r@100",
    "ndcg_cut.10": "ndcg@10", "ndcg_cut_10": "ndcg@10", "recip_rank": "rr", "success.10": "hit@10",
    "success_10": "hit@10", "Rprec": "rprec", "bpref": "bpref", "map_cut.10": "ap@10",
    "iprec_at_recall_0.10": "iprec(recall=0.1)", "infAP": "infap", "set_P": "set_p", "11pt_avg": "interp_avg",
    # ir_measures
    "nDCG@10": "ndcg@10", "AP": "ap", "AP@10": "ap@10", "RR": "rr", "RR@10": "rr@10", "P@10": "p@10",
    "R@100": "r@100", "Success@10": "hit@10", "Judged@10": "judged(precision_denominator=retrieved)@10", "P(rel=2)@10": "p(rel=2)@10",
    "IPrec@0.2": "iprec(recall=0.2)", "NumRelRet": "num_rel_ret",
    # ranx
    "mrr": "rr", "mrr@10": "rr@10", "precision@10": "p@10", "recall@100": "r@100", "hit_rate@10": "hit@10",
    "map@10": "ap@10", "ndcg@10": "ndcg@10", "ndcg_burges@10": "ndcg(gain=exp2)@10", "hits@5": "num_rel_ret@5",
    "r-precision": "rprec",
    # the recommender libraries' hit rate (issue 28: HR@10 once suggested r@10)
    "HR@10": "hit@10", "HitRate@10": "hit@10", "hitrate@10": "hit@10", "hr@5": "hit@5",
    # case
    "NDCG@10": "ndcg@10", "MAP": "ap", "Recall@100": "r@100",
}


@pytest.mark.parametrize("text, canonical", NAMES.items())
def test_peer_names_resolve_to_the_canonical_measure(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert measure == parse_measure(canonical)


def test_first_command_of_a_peer_user_runs_and_prints_canonically():
    qrels = Qrels.from_dict({"q1": {"a": 2, "b": 0, "c": 1}})
    run = Run.from_dict({"q1": {"a": 3.0, "x": 2.0, "c": 1.0}})
    results = evaluate(qrels, run, ["ndcg@10", "map", "P@10", "recall@100", "mrr"])
    assert [str(m) for m in results.measures] == ["ndcg@10", "ap", "p@10", "r@100", "rr"]
    assert results.mean("P_10") == results.mean("p@10") == pytest.approx(2 / 10)
    assert results.mean("mrr") == 1.0


def test_an_alias_never_changes_the_protocol():
    qrels = Qrels.from_dict({"q1": {"a": 2, "b": 0, "c": 1}})
    run = Run.from_dict({"q1": {"a": 3.0, "x": 2.0, "c": 1.0}})
    for protocol in (Protocol(), Protocol.preset("trec_eval")):
        aliased = evaluate(qrels, run, ["ndcg_cut_10", "nDCG@10"], protocol)
        assert aliased.protocol == protocol
        assert aliased.measures == [parse_measure("ndcg@10")]


@pytest.mark.parametrize("text, expected", [
    ("recal@10", "r@10"), ("precison@5", "p@5"), ("reciprocal_rank", "rr"), ("mrrr", "rr"),
    ("hitrat@10", "hit@10"), ("average_precision", "ap"),
])
def test_suggestions_rank_by_meaning(text, expected):
    with pytest.raises(MeasureError) as caught:
        parse_measures([text])
    message = str(caught.value)
    assert f"did you mean {expected}" in message, message


def test_trec_families_of_cut_measures_ask_for_a_cutoff():
    with pytest.raises(MeasureError, match="ndcg_cut_10"):
        parse_measure("ndcg_cut")
    with pytest.raises(MeasureError, match="cutoff"):
        parse_measure("success")


def test_summaries_that_are_not_means_are_not_aliases():
    # trec_eval's gm_map is a geometric mean of ap over queries, not ap.
    with pytest.raises(MeasureError, match="unknown measure"):
        parse_measure("gm_map")


# -- the peers' own values ----------------------------------------------------------
def _random_data(seed: int):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(30):
        docs = [f"d{n}" for n in range(40)]
        judged = rng.sample(docs, 20)
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in judged}
        qrels[f"q{q}"][judged[0]] = max(1, qrels[f"q{q}"][judged[0]])  # something relevant
        retrieved = rng.sample(docs, 25)
        # Distinct scores, far apart even in float32: no tie for any tool to order.
        run[f"q{q}"] = {d: float(100 - i) for i, d in enumerate(retrieved)}
    return qrels, run


def _ours(qrels, run, names):
    results = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names)
    return {name: results.mean(name) for name in names}


def test_ir_measures_names_mean_what_ir_measures_computes():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _random_data(1)
    names = ["nDCG@10", "nDCG", "AP", "AP@10", "RR", "RR@10", "P@10", "R@20", "Success@10", "Judged@10",
             "Rprec", "Bpref", "P(rel=2)@5"]
    peer = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
    peer = {str(measure): value for measure, value in peer.items()}
    ours = _ours(qrels, run, names)
    for name in names:
        assert ours[name] == pytest.approx(peer[str(ir_measures.parse_measure(name))], abs=1e-6), name


def test_ranx_names_mean_what_ranx_computes():
    ranx = pytest.importorskip("ranx")
    qrels, run = _random_data(2)
    names = ["mrr", "mrr@10", "map", "map@10", "precision@10", "recall@20", "hit_rate@10", "hits@10",
             "ndcg@10", "ndcg_burges@10", "r-precision", "bpref"]
    peer = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, make_comparable=False)
    ours = _ours(qrels, run, names)
    for name in names:
        assert ours[name] == pytest.approx(peer[name], abs=1e-6), name


def test_a_bad_cutoff_is_named_as_typed():
    # issue 28 (item 6): "-m recall@abc" said "the cutoff k of r", the canonical name it was read as.
    with pytest.raises(MeasureError) as caught:
        parse_measures(["recall@abc"])
    message = str(caught.value)
    assert "the cutoff k of recall must be" in message and "'recall@abc'" in message and " of r " not in message
