"""Differential parity: ranx, ir_measures and pytrec_eval against their presets on 10,000 random cases each.

Each framework gets every case in one call (one query per case), and so does
rankproof; every per-query value is compared, and any difference fails
unless the preset's documentation names it (then the case is counted as left
out, with the reason). The case counts are printed after the run
(conftest.py). Edges drawn (cases.py): lists empty (a query the run leaves
out), shorter than k, tied scores, judgments all 0, and all negative for
ranx (negative grades crash pytrec_eval 0.5.11's ndcg_cut, so ir_measures
and pytrec_eval are held to the trec_eval binaries on those, in tests/trec).
"""

from __future__ import annotations

import pytest

from differential_cases import KS, count, draw, same
from rankproof import Qrels, Run, evaluate


def _inputs(cases, with_scores=True):
    qrels = {c.query: c.truth for c in cases if c.truth}
    run = {c.query: dict(zip(c.ranking, c.scores)) for c in cases if c.ranking and c.query in qrels}
    return qrels, run


def _ours(cases, names, preset):
    qrels, run = _inputs(cases)
    results = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), [f"{n}@{k}" for n in names for k in KS]
                       + ["ap", "ndcg", "rr", "rprec", "bpref", "num_ret", "num_rel", "num_rel_ret"], preset,
                       allow_partial=True)
    return results, qrels, run


def test_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    # Negative grades crash pytrec_eval 0.5.11 (ndcg_cut segfaults on them): the trec_eval binaries
    # hold the presets on negative grades (tests/trec); here the grades are 0 to 3.
    cases = draw(3601, ties=True, empty_truths=False)
    results, qrels, run = _ours(cases, ["ndcg", "ap", "p", "r", "hit"], "pytrec_eval")
    cuts = ",".join(map(str, KS))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{cuts}", f"map_cut.{cuts}", f"P.{cuts}",
                                                       f"recall.{cuts}", f"success.{cuts}", "ndcg", "map",
                                                       "recip_rank", "Rprec", "bpref", "num_ret", "num_rel",
                                                       "num_rel_ret"})
    theirs = evaluator.evaluate(run)
    count("pytrec_eval", "queries in one call", len(cases))
    # pytrec_eval leaves out a judged query the run does not rank (missing_query=exclude): absent on both sides
    for ours_name, name in (("ndcg@{k}", "ndcg_cut_{k}"), ("ap@{k}", "map_cut_{k}"), ("p@{k}", "P_{k}"),
                            ("r@{k}", "recall_{k}"), ("hit@{k}", "success_{k}")):
        for k in KS:
            same("pytrec_eval", ours_name.format(k=k), results.per_query(ours_name.format(k=k)),
                 {q: v[name.format(k=k)] for q, v in theirs.items()}, cases)
    for ours_name, name in (("ndcg", "ndcg"), ("ap", "map"), ("rr", "recip_rank"), ("rprec", "Rprec"),
                            ("bpref", "bpref"), ("num_ret", "num_ret"), ("num_rel", "num_rel"),
                            ("num_rel_ret", "num_rel_ret")):
        same("pytrec_eval", ours_name, results.per_query(ours_name), {q: v[name] for q, v in theirs.items()}, cases)
    # the counts aggregate by sum under the preset, as trec_eval's summary does
    assert results.mean("num_ret") == sum(v["num_ret"] for v in theirs.values())


def test_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    cases = draw(3602, ties=True, empty_truths=False)   # no negative grades: they crash pytrec_eval
    names = [f"{m}@{k}" for m in ("nDCG", "AP", "P", "R", "Success", "Judged") for k in KS] + [
        "nDCG", "AP", "RR", "Rprec", "Bpref", "NumRet", "NumRelRet"]
    qrels, run = _inputs(cases)
    # ir_measures reads the run file's scores; tied docs: its pytrec_eval provider orders them by doc id
    # descending, its Judged provider by doc id ascending (documented): Judged is compared on untied cases.
    theirs: dict = {}
    for metric in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run):
        theirs.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names, "ir_measures", allow_partial=True)
    count("ir_measures", "queries in one call", len(cases))
    for name in names:
        peer = str(ir_measures.parse_measure(name))
        tie_gap = (lambda c: "ties ordered by doc id ascending in Judged" if c.tied else None) \
            if name.startswith("Judged") else None
        same("ir_measures", name, ours.per_query(name), theirs[peer], cases, tie_gap)
    aggregate = ir_measures.calc_aggregate([ir_measures.NumRet, ir_measures.NumRelRet], qrels, run)
    assert ours.mean("NumRet") == aggregate[ir_measures.NumRet]
    assert ours.mean("NumRelRet") == aggregate[ir_measures.NumRelRet]


def test_ranx():
    ranx = pytest.importorskip("ranx")
    cases = draw(3603, negatives=True, empty_truths=False, ties=True)
    # ranx keeps only judgments at the relevance level and above: a query judged all below it has no
    # qrels there; queries missing from the run score 0 (make_comparable=True, the preset's missing_query=zero)
    qrels, run = _inputs(cases)
    kept = {q: {d: g for d, g in docs.items() if g >= 1} for q, docs in qrels.items()}
    kept = {q: docs for q, docs in kept.items() if docs}
    names = [f"{m}@{k}" for m in ("ndcg", "map", "mrr", "precision", "recall", "hit_rate") for k in KS]
    theirs = ranx.evaluate(ranx.Qrels(kept), ranx.Run({q: r for q, r in run.items()}), names, return_mean=False,
                           make_comparable=True)
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), names, "ranx", allow_partial=True)
    count("ranx", "queries in one call", len(cases))
    queries = sorted(kept)
    for name in names:
        values = dict(zip(queries, [float(v) for v in theirs[name]]))
        same("ranx", name, {q: v for q, v in ours.per_query(name).items() if q in kept}, values, cases)
    # a query with no judgment at the relevance level: ranx has no qrels for it; rankproof scores it 0
    count("ranx", "left out: no judgment at the relevance level (ranx drops the query)",
          len(qrels) - len(kept))
