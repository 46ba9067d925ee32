"""Differential parity: the RAG frameworks' own metric code against their presets, 10,000 random cases each.

A case is one RAG row: the retrieved ids in order (duplicates, empty lists)
and the relevant ids (empty ground truths). Each framework's code runs on
every case (in one call where it takes a batch), rankproof's preset on all of
them in one evaluation, and every value is compared; a difference fails
unless the preset's documentation names it (docs/guide/rag.md), and then the
case is counted as left out with the reason. conftest.py prints the counts.
ragas is not installed (its dependencies would downgrade rich): the
hand-worked tables of tests/protocol/test_rag_presets.py and
test_rag_edges.py stand in for it.
"""

from __future__ import annotations

import warnings

import pytest

from differential_cases import KS, count, draw, same
from rankproof import Qrels, Run, evaluate
from rankproof.errors import RankproofError


def _rag(cases):
    """rankproof's inputs of RAG rows: relevant ids at grade 1 (an empty list declared), lists as given."""
    return Qrels.from_dict({c.query: {d: 1 for d in c.relevant} for c in cases}), \
        Run.from_dict({c.query: list(c.ranking) for c in cases})


def _ours(cases, measures, preset):
    qrels, run = _rag(cases)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(qrels, run, measures, preset, allow_partial=True)


def test_haystack():
    pytest.importorskip("haystack", reason="haystack-ai is not installed (make parity installs it)")
    from haystack import Document
    from haystack.components.evaluators import (DocumentMAPEvaluator, DocumentMRREvaluator,
                                                DocumentNDCGEvaluator, DocumentRecallEvaluator)
    from haystack.components.evaluators.document_recall import RecallMode

    cases = draw(3611, duplicates=True)
    truth = [[Document(content=d) for d in c.relevant] for c in cases]
    retrieved = [[Document(content=d) for d in c.ranking] for c in cases]
    ours = _ours(cases, ["rr", "ap", "hit", "set_r", "ndcg"], "haystack")
    count("haystack", "rows in one call", len(cases))
    for measure, evaluator in (("rr", DocumentMRREvaluator()), ("ap", DocumentMAPEvaluator()),
                               ("hit", DocumentRecallEvaluator(mode=RecallMode.SINGLE_HIT)),
                               ("set_r", DocumentRecallEvaluator(mode=RecallMode.MULTI_HIT)),
                               ("ndcg", DocumentNDCGEvaluator())):
        scores = evaluator.run(ground_truth_documents=truth, retrieved_documents=retrieved)["individual_scores"]
        same("haystack", measure, ours.per_query(measure), {c.query: float(s) for c, s in zip(cases, scores)}, cases)
        # the empty rows score 0 and are averaged in: the means agree too
        assert ours.mean(measure) == pytest.approx(sum(scores) / len(scores), abs=1e-9), measure


def test_llamaindex():
    metrics = pytest.importorskip("llama_index.core.evaluation.retrieval.metrics",
                                  reason="llama-index-core is not installed (make parity installs it)")
    cases = draw(3612, duplicates=True)
    accepted = [c for c in cases if c.ranking and c.relevant]
    refused = [c for c in cases if not (c.ranking and c.relevant)]
    for preset, measure, metric in (("llamaindex", "hit", metrics.HitRate()),
                                    ("llamaindex", "set_r", metrics.HitRate(use_granular_hit_rate=True)),
                                    ("llamaindex", "rr", metrics.MRR()),
                                    ("llamaindex", "ap", metrics.AveragePrecision()),
                                    ("llamaindex", "ndcg", metrics.NDCG()),
                                    ("llamaindex_sets", "set_p", metrics.Precision()),
                                    ("llamaindex_sets", "set_r", metrics.Recall())):
        theirs = {c.query: metric.compute(expected_ids=c.relevant, retrieved_ids=c.ranking).score for c in accepted}
        same("llamaindex", f"{preset} {measure}", _ours(accepted, [measure], preset).per_query(measure), theirs,
             accepted)
        for case in refused:   # every metric raises ValueError on an empty retrieved or expected list
            with pytest.raises(ValueError):
                metric.compute(expected_ids=case.relevant, retrieved_ids=case.ranking)
    count("llamaindex", "refused by both", len(refused))
    with pytest.raises(RankproofError):   # the whole batch, as LlamaIndex fails on its first empty row
        _ours(cases, ["hit"], "llamaindex")
    for case in refused[:40]:             # and each empty row alone (one query), both kinds
        with pytest.raises(RankproofError):
            _ours([case], ["hit"], "llamaindex")
    count("llamaindex", "single-query refusals checked", min(40, len(refused)))


def test_mlflow():
    metrics = pytest.importorskip("mlflow.metrics", reason="mlflow-skinny is not installed (make parity installs it)")
    import pandas as pd

    cases = draw(3613, duplicates=True)
    predictions = pd.Series([list(c.ranking) for c in cases])
    targets = pd.Series([list(c.relevant) for c in cases])

    def both_empty(case):   # docs/guide/rag.md: recall_at_k and ndcg_at_k score such a row 1, the presets 0
        return "prediction and target both empty" if not case.ranking and not case.relevant else None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for k in (1, 3, 10):
            for preset, measure, metric, gap in (("mlflow", f"p@{k}", metrics.precision_at_k(k), None),
                                                 ("mlflow_sets", f"r@{k}", metrics.recall_at_k(k), both_empty),
                                                 ("mlflow", f"ndcg@{k}", metrics.ndcg_at_k(k), both_empty)):
                scores = metric.eval_fn(predictions, targets).scores
                same("mlflow", measure, _ours(cases, [measure], preset).per_query(measure),
                     {c.query: float(s) for c, s in zip(cases, scores)}, cases, gap)
    count("mlflow", "rows per call", len(cases))


def test_sentence_transformers():
    module = pytest.importorskip("sentence_transformers.sentence_transformer.evaluation.information_retrieval",
                                 reason="sentence-transformers is not installed (make parity installs it)")
    # A corpus search lists each doc once, with distinct scores (the evaluator breaks ties by corpus id
    # ascending, which no tie policy does: docs/guide/rag.md).
    cases = draw(3614)
    corpus = {d: d for c in cases for d in [*c.ranking, *c.truth]}
    evaluator = module.InformationRetrievalEvaluator(
        {c.query: c.query for c in cases}, corpus, {c.query: set(c.relevant) for c in cases},
        mrr_at_k=list(KS), ndcg_at_k=list(KS), accuracy_at_k=list(KS), precision_recall_at_k=list(KS),
        map_at_k=list(KS), write_csv=False, show_progress_bar=False)
    by_id = {c.query: c for c in cases}
    results = [[{"corpus_id": d, "score": s} for d, s in zip(by_id[q].ranking, by_id[q].scores)]
               for q in evaluator.queries_ids]
    theirs = evaluator.compute_metrics(results)
    names = {"accuracy@k": "hit@{k}", "precision@k": "p@{k}", "recall@k": "r@{k}", "mrr@k": "rr@{k}",
             "ndcg@k": "ndcg@{k}", "map@k": "ap@{k}"}
    ours = _ours(cases, [m.format(k=k) for m in names.values() for k in KS], "sentence_transformers")
    for name, measure in names.items():
        for k in KS:
            assert ours.mean(measure.format(k=k)) == pytest.approx(theirs[name][k], abs=1e-9), (name, k)
    count("sentence_transformers", "queries in one call (means compared)", len(cases))
    count("sentence_transformers", "of them dropped by both (no relevant doc)", len(cases) - len(results))


def test_mteb():
    retrieval = pytest.importorskip("mteb._evaluators.retrieval_evaluator",
                                    reason="mteb is not installed (make parity installs it)")
    metrics = pytest.importorskip("mteb._evaluators.retrieval_metrics")
    cases = draw(3615, ties=True, empty_truths=False)
    for i, case in enumerate(cases):   # a doc named as its query, for ignore_identical_ids
        if i % 9 == 0 and case.ranking:
            case.ranking[0] = case.query
    qrels = {c.query: c.truth for c in cases}
    results = {c.query: dict(zip(c.ranking, c.scores)) for c in cases if c.ranking}
    found = retrieval.RetrievalEvaluator.evaluate(None, qrels, {q: dict(r) for q, r in results.items()}, list(KS),
                                                  ignore_identical_ids=True)
    names = [f"{m}@{k}" for m in ("ndcg", "ap", "r", "p", "hit", "rr", "R_cap") for k in KS]
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(results), names, "mteb", allow_partial=True)
    count("mteb", "queries in one call", len(cases))
    for measure, key in (("ndcg", "ndcg_cut_{k}"), ("ap", "map_cut_{k}"), ("r", "recall_{k}"), ("p", "P_{k}"),
                         ("hit", "success_{k}")):
        for k in KS:
            same("mteb", f"{measure}@{k}", ours.per_query(f"{measure}@{k}"),
                 {q: v[key.format(k=k)] for q, v in found.all_scores.items()}, cases)
    dropped = {q: {d: s for d, s in r.items() if d != q} for q, r in results.items()}
    for k in KS:
        assert ours.mean(f"rr@{k}") == pytest.approx(found.mrr[f"MRR@{k}"], abs=1e-9), k
        capped = metrics.recall_cap(qrels, dropped, [k])[f"R_cap_at_{k}"]
        # recall_cap gives None for a query with nothing relevant; the preset scores it 0, as pytrec_eval's
        # measures of the same task do (zero_ideal=zero; docs/guide/rag.md)
        same("mteb", f"R_cap@{k}", ours.per_query(f"R_cap@{k}"), dict(zip(dropped, capped)), cases,
             lambda c: "R_cap None for nothing relevant" if not c.relevant else None)
