"""judged@k and the count measures as the peers define them (issue 36), held to ir_measures.

ir_measures' Judged@k divides the judged docs of the top k by min(k, the
list's length) (its judged provider), not by k; its NumRet, NumRel and
NumRelRet aggregate by sum (SumAgg), as trec_eval's summary does. The
alias ``Judged`` reads ``judged(precision_denominator=retrieved)``, and the
trec_eval presets set ``counts=sum``.
"""

from __future__ import annotations

import pytest

from rankproof import Protocol, Qrels, Run, evaluate

# q1: a (relevant), b (judged non-relevant), z (unjudged); q2: x (relevant), y (unjudged); q3 not ranked.
QRELS = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"x": 1}, "q3": {"x": 1}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "z": 1.0}, "q2": {"x": 1.0, "y": 0.5}}


def _means(measures, preset):
    return evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN), measures, preset, allow_partial=True).means()


def test_judged_at_k_by_hand():
    # q1: 2 judged of 3; q2: 1 of 2; q3 unranked: 0 (trec_eval9: left out).
    # Judged@10 over min(10, n): (2/3 + 1/2) / 2; judged@10 over 10: 0.15.
    got = _means(["Judged@10", "judged@10", "Judged@2"], "trec_eval9")
    assert got["judged(precision_denominator=retrieved)@10"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert got["judged@10"] == pytest.approx((2 / 10 + 1 / 10) / 2)
    assert got["judged(precision_denominator=retrieved)@2"] == pytest.approx((2 / 2 + 1 / 2) / 2)
    # ir_measures averages q3 in at 0
    assert _means(["Judged@10"], "ir_measures")["judged(precision_denominator=retrieved)@10"] == \
        pytest.approx((2 / 3 + 1 / 2) / 3)


def test_counts_summed_under_the_trec_presets():
    for preset in ("trec_eval9", "pytrec_eval"):
        assert _means(["num_ret", "num_rel", "num_rel_ret"], preset) == {
            "num_ret": 5.0, "num_rel": 3.0, "num_rel_ret": 2.0}, preset
    # ir_measures scores the unranked q3 too (missing_query=zero): its R counts here, 0 there (documented)
    assert _means(["num_ret", "num_rel", "num_rel_ret"], "ir_measures") == {
        "num_ret": 5.0, "num_rel": 4.0, "num_rel_ret": 2.0}
    # rankproof's default averages them, over the 3 judged queries (q3 ranks nothing: 0 retrieved)
    assert _means(["num_ret", "num_rel"], "rankproof") == pytest.approx({"num_ret": 5 / 3, "num_rel": 4 / 3})
    assert _means(["num_ret"], Protocol(counts="sum")) == {"num_ret": 5.0}
    assert str(Protocol.preset("rankproof")) == str(Protocol())   # the default text does not name counts
    assert "counts=sum" in str(Protocol.preset("trec_eval"))


def test_against_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import Judged, NumRel, NumRelRet, NumRet

    # ir_measures fills a judged query its provider skipped with the measure's default 0 (q3 here):
    # missing_query=zero; NumRel of such a query is 0 there and R here (a documented difference).
    ranked = {q: QRELS[q] for q in RUN}
    theirs = ir_measures.calc_aggregate([Judged @ 10, Judged @ 2, Judged @ 1, NumRet, NumRel, NumRelRet], QRELS, RUN)
    theirs[NumRel] = ir_measures.calc_aggregate([NumRel], ranked, RUN)[NumRel]
    ours = evaluate(Qrels.from_dict(QRELS), Run.from_dict(RUN),
                    ["Judged@10", "Judged@2", "Judged@1", "NumRet", "NumRel", "NumRelRet"], "ir_measures")
    for name, measure in (("Judged@10", Judged @ 10), ("Judged@2", Judged @ 2), ("Judged@1", Judged @ 1),
                          ("NumRet", NumRet), ("NumRel", NumRel), ("NumRelRet", NumRelRet)):
        wanted = theirs[measure] + (1 if name == "NumRel" else 0)   # q3's R
        assert ours.mean(name) == pytest.approx(wanted, abs=1e-12), name


def test_accuracy_by_hand():
    # q1 ranks a (relevant), b (non-relevant), z (unjudged: non-relevant): both pairs right, 1.0.
    # q: n, r, n, r: non-relevant above the relevant ones 1 and 2, of 2 x 2 pairs: 1 - 3/4.
    qrels = Qrels.from_dict({"q": {"r1": 1, "r2": 1, "n1": 0}, "all": {"a": 1}, "none": {"a": 0}})
    run = Run.from_dict({"q": ["n1", "r1", "n2", "r2"], "all": ["a"], "none": ["a", "b"]})
    results = evaluate(qrels, run, ["accuracy", "accuracy@2", "Accuracy@3"], "ir_measures")
    assert results.per_query("accuracy") == {"q": 0.25}          # "all" and "none" have no pair: left out
    assert results.per_query("accuracy@2") == {"q": 0.0}          # top 2: n1 above r1
    assert results.per_query("accuracy@3") == {"q": 0.5}          # n1 above r1, n2 below it: 1 - 1/(1 x 2)
    assert results.mean("accuracy") == 0.25
    assert results.counts["excluded_queries"]["accuracy"] == 2


def test_accuracy_against_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    import random

    chooser = random.Random(36)
    qrels, run = {}, {}
    for q in range(300):
        docs = [f"d{i}" for i in range(chooser.randint(1, 8))]
        qrels[f"q{q}"] = {d: chooser.choice([0, 1, 2]) for d in docs}
        ranked = chooser.sample(docs + ["u1", "u2"], chooser.randint(1, len(docs) + 2))
        run[f"q{q}"] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}   # no ties
    names = ["Accuracy", "Accuracy@1", "Accuracy@3", "Accuracy@5"]
    theirs: dict = {}
    measures = [ir_measures.parse_measure(n) for n in names]
    for measure in measures:   # ir_measures divides by zero on a top k without a non-relevant doc
        for query in qrels:
            try:
                found = list(ir_measures.iter_calc([measure], {query: qrels[query]}, {query: run[query]}))
            except ZeroDivisionError:
                continue
            # no value: no relevant doc in the top k (ir_measures' accuracy provider skips the query)
            theirs.setdefault(str(measure), {})[query] = found[0].value if found else None
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names, "ir_measures")
    for name, measure in zip(names, measures):
        got = ours.per_query(name)
        for query, value in theirs[str(measure)].items():
            if value is None:
                assert query not in got, (name, query)   # left out of the mean on both sides
            else:
                assert got[query] == pytest.approx(value, abs=1e-12), (name, query)
