"""The RAG frameworks' own metric code against their presets (the ``parity`` extra, ``make parity``).

The file of test_rag_presets.py: a duplicate (d1 twice in q1), an empty query
(q3), unjudged chunks (c7, c8, c1) and a query with nothing relevant (q4).
Each test imports its framework or skips naming it; ``make parity`` installs
them first. ragas could not be installed here: its dependencies (instructor)
would downgrade rich 15 to 13.9, a runtime dependency of rankproof, so the
hand-worked table of test_rag_presets.py::test_ragas stands in.
"""

from __future__ import annotations

import math

import pytest

from rankproof import Protocol, Qrels, Run, evaluate

QRELS = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}, "q4": {"d9": 0}}
LISTS = {"q1": ["d1", "d1", "c7", "d2"], "q2": ["c8", "d3"], "q3": [], "q4": ["d9", "c1"]}
RELEVANT = {q: [d for d, g in docs.items() if g > 0] for q, docs in QRELS.items()}


def _ours(preset, measure, queries=None) -> dict:
    queries = list(queries or QRELS)
    qrels = Qrels.from_dict({q: QRELS[q] for q in queries})
    run = Run.from_dict({q: LISTS[q] for q in queries if LISTS[q]})
    return evaluate(qrels, run, [measure], preset).per_query(measure)


def _same(ours: dict, theirs: dict) -> None:
    theirs = {q: v for q, v in theirs.items() if not (isinstance(v, float) and math.isnan(v))}
    assert ours.keys() == theirs.keys()
    for q in theirs:
        assert ours[q] == pytest.approx(theirs[q], abs=1e-9), q


def test_llamaindex():
    metrics = pytest.importorskip("llama_index.core.evaluation.retrieval.metrics",
                                  reason="llama-index-core is not installed (make parity installs it)")
    accepted = ["q1", "q2"]  # every LlamaIndex metric raises ValueError on q3 and q4 (empty lists)
    for metric in (metrics.HitRate(), metrics.MRR(), metrics.AveragePrecision(), metrics.NDCG()):
        with pytest.raises(ValueError):
            metric.compute(expected_ids=RELEVANT["q4"], retrieved_ids=LISTS["q4"])
    cases = [("llamaindex", "hit", metrics.HitRate()),
             ("llamaindex", "set_r", metrics.HitRate(use_granular_hit_rate=True)),
             ("llamaindex", "rr", metrics.MRR()),
             ("llamaindex", "ap", metrics.AveragePrecision()),
             ("llamaindex", "ndcg", metrics.NDCG()),
             ("llamaindex_sets", "set_p", metrics.Precision()),
             ("llamaindex_sets", "set_r", metrics.Recall())]
    for preset, measure, metric in cases:
        theirs = {q: metric.compute(expected_ids=RELEVANT[q], retrieved_ids=LISTS[q]).score for q in accepted}
        _same(_ours(preset, measure, accepted), theirs)


def test_haystack():
    pytest.importorskip("haystack", reason="haystack-ai is not installed (make parity installs it)")
    from haystack import Document
    from haystack.components.evaluators import (DocumentMAPEvaluator, DocumentMRREvaluator,
                                                DocumentNDCGEvaluator, DocumentRecallEvaluator)
    from haystack.components.evaluators.document_recall import RecallMode

    queries = list(QRELS)
    truth = [[Document(content=d) for d in RELEVANT[q]] for q in queries]
    retrieved = [[Document(content=d) for d in LISTS[q]] for q in queries]
    cases = [("rr", DocumentMRREvaluator()), ("ap", DocumentMAPEvaluator()),
             ("hit", DocumentRecallEvaluator(mode=RecallMode.SINGLE_HIT)),
             ("set_r", DocumentRecallEvaluator(mode=RecallMode.MULTI_HIT)), ("ndcg", DocumentNDCGEvaluator())]
    for measure, evaluator in cases:
        scores = evaluator.run(ground_truth_documents=truth, retrieved_documents=retrieved)["individual_scores"]
        _same(_ours("haystack", measure), dict(zip(queries, scores)))


def test_mlflow():
    metrics = pytest.importorskip("mlflow.metrics", reason="mlflow-skinny is not installed (make parity installs it)")
    import pandas as pd

    queries = list(QRELS)
    predictions = pd.Series([LISTS[q] for q in queries])
    targets = pd.Series([RELEVANT[q] for q in queries])
    for preset, measure, metric in (("mlflow", "p@3", metrics.precision_at_k(3)),
                                    ("mlflow_sets", "r@3", metrics.recall_at_k(3)),
                                    ("mlflow", "ndcg@3", metrics.ndcg_at_k(3)),
                                    ("mlflow", "ndcg@2", metrics.ndcg_at_k(2))):
        scores = metric.eval_fn(predictions, targets).scores
        _same(_ours(preset, measure), dict(zip(queries, scores)))


def test_mlflow_ndcg_at_k_on_random_lists_with_copies():
    """ndcg_at_k on random small lists (copies inside and beyond k, lists shorter than k, empty lists)."""
    metrics = pytest.importorskip("mlflow.metrics", reason="mlflow-skinny is not installed (make parity installs it)")
    import random

    import pandas as pd

    chooser = random.Random(27)
    docs = ["a", "b", "c", "d", "e"]
    qrels, lists = {}, {}
    for number in range(120):
        qrels[f"q{number}"] = {d: 1 for d in chooser.sample(docs, chooser.randint(1, 3))}
        lists[f"q{number}"] = [chooser.choice(docs + ["x", "y"]) for _ in range(chooser.randint(0, 6))]
    queries = list(qrels)
    for k in (1, 3, 5):
        scores = metrics.ndcg_at_k(k).eval_fn(pd.Series([lists[q] for q in queries]),
                                              pd.Series([list(qrels[q]) for q in queries])).scores
        ours = evaluate(Qrels.from_dict(qrels), Run.from_dict({q: lists[q] for q in queries if lists[q]}),
                        [f"ndcg@{k}"], "mlflow").per_query(f"ndcg@{k}")
        _same(ours, dict(zip(queries, scores)))


def test_sentence_transformers():
    module = pytest.importorskip("sentence_transformers.sentence_transformer.evaluation.information_retrieval",
                                 reason="sentence-transformers is not installed (make parity installs it)")
    lists = dict(LISTS, q1=["d1", "c7", "d2"])  # a corpus search lists each doc once
    queries = ["q1", "q2", "q3"]  # the evaluator drops q4 (no relevant doc) when built: zero_ideal=drop
    corpus = {d: d for docs in [*lists.values(), *RELEVANT.values()] for d in docs}
    results = [[{"corpus_id": d, "score": float(len(lists[q]) - i)} for i, d in enumerate(lists[q])]
               for q in queries]
    measures = {"accuracy@k": "hit@3", "precision@k": "p@3", "recall@k": "r@3", "mrr@k": "rr@3",
                "ndcg@k": "ndcg@3", "map@k": "ap@3"}
    # q4 (judged, nothing relevant, ranked) stays in the qrels and the run: the preset leaves it out of every mean.
    qrels = Qrels.from_dict(QRELS)
    run = Run.from_dict({q: docs for q, docs in lists.items() if docs})
    ours = evaluate(qrels, run, list(measures.values()), "sentence_transformers")
    for name, measure in measures.items():
        evaluator = module.InformationRetrievalEvaluator(
            {q: q for q in QRELS}, corpus, {q: set(RELEVANT[q]) for q in QRELS}, mrr_at_k=[3], ndcg_at_k=[3],
            accuracy_at_k=[3], precision_recall_at_k=[3], map_at_k=[3], write_csv=False)
        assert evaluator.queries_ids == queries
        assert ours.mean(measure) == pytest.approx(evaluator.compute_metrics(results)[name][3], abs=1e-9), name


def test_mteb():
    retrieval = pytest.importorskip("mteb._evaluators.retrieval_evaluator",
                                    reason="mteb is not installed (make parity installs it)")
    metrics = pytest.importorskip("mteb._evaluators.retrieval_metrics")
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 1}, "q5": {"d5": 1}}
    lists = {"q1": ["d1", "c7", "d2"], "q5": ["q5", "d5", "c9"]}
    results = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in lists.items()}
    # RetrievalEvaluator.evaluate uses nothing of its instance; ignore_identical_ids drops q5 from q5.
    found = retrieval.RetrievalEvaluator.evaluate(None, qrels, {q: dict(r) for q, r in results.items()}, [2],
                                                  ignore_identical_ids=True)
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(results), ["ndcg@2", "ap@2", "r@2", "p@2", "hit@2",
                                                                     "rr@2", "R_cap@2"], "mteb")
    for measure, key in (("ndcg@2", "ndcg_cut_2"), ("ap@2", "map_cut_2"), ("r@2", "recall_2"), ("p@2", "P_2"),
                         ("hit@2", "success_2")):
        _same(ours.per_query(measure), {q: found.all_scores[q][key] for q in qrels})
    assert ours.mean("rr@2") == pytest.approx(found.mrr["MRR@2"])
    dropped = {q: {d: s for d, s in r.items() if d != q} for q, r in results.items()}
    capped = metrics.recall_cap(qrels, dropped, [2])["R_cap_at_2"]
    _same(ours.per_query("R_cap@2"), dict(zip(qrels, capped)))
    lists = {"q1": ["d1", "d5", "c7"], "q5": ["c9", "d5", "d1"]}  # d5 is judged, but for q5 only
    ranked = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in lists.items()}
    holes = metrics.hole(qrels, ranked, [2, 3])
    for k in (2, 3):
        ours_hole = evaluate(Qrels.from_dict(qrels), Run.from_dict(ranked), [f"Hole@{k}"], "mteb")
        _same(ours_hole.per_query(f"hole@{k}"), dict(zip(lists, holes[f"Hole_at_{k}"])))


def test_mteb_max_over_subqueries():
    metrics = pytest.importorskip("mteb._evaluators.retrieval_metrics",
                                  reason="mteb is not installed (make parity installs it)")
    qrels = {"a_1": {"x": 1, "v": 1}, "a_2": {"x": 1, "v": 1}, "b_1": {"z": 1}, "b_2": {"z": 1}}
    results = {"a_1": {"x": 0.2, "y": 0.9, "v": 0.1}, "a_2": {"x": 0.95, "u": 0.3},
               "b_1": {"z": 0.1, "w": 0.5}, "b_2": {"w": 0.4, "t": 0.6}}
    found = metrics.max_over_subqueries(qrels, results, [1, 3])
    ours = evaluate(Qrels.from_dict(qrels), Run.from_dict(results), ["ndcg@1", "ndcg@3", "r@3", "ap@3", "rr@3"],
                    Protocol.preset("mteb").replace(subqueries="max"))
    for measure, key in (("ndcg@1", "ndcg_at_1"), ("ndcg@3", "ndcg_at_3"), ("r@3", "recall_at_3"),
                         ("ap@3", "map_at_3"), ("rr@3", "mrr_at_3")):
        assert ours.mean(measure) == pytest.approx(found["max_over_subqueries_" + key], abs=1e-5), measure
