"""StreamingEvaluator: batches of (preds, target, indexes), against torchmetrics and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankproof import Protocol, evaluate_scores
from rankproof.errors import InputError
from rankproof.streaming import StreamingEvaluator


def _batches(seed, queries=60, batches=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, queries)
    indexes = np.repeat(rng.permutation(queries) * 3 + 100, sizes)  # index values need not be 0..n-1
    target = rng.integers(0, 4, len(indexes))
    target[np.isin(indexes, indexes[:: 7])] = 0  # some queries with nothing relevant
    preds = rng.integers(0, 3, len(indexes)) / 2  # heavy ties
    shuffle = rng.permutation(len(indexes))
    preds, target, indexes = preds[shuffle], target[shuffle], indexes[shuffle]
    cuts = np.sort(rng.integers(0, len(indexes), batches - 1))
    return np.split(preds, cuts), np.split(target, cuts), np.split(indexes, cuts)


def test_matches_torchmetrics_retrieval_normalized_dcg():
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    for k in (1, 3, 10):
        metric = retrieval.RetrievalNormalizedDCG(top_k=k)
        evaluator = StreamingEvaluator(f"ndcg@{k}")
        for preds, target, indexes in zip(*_batches(k)):
            p, t, i = torch.tensor(preds, dtype=torch.float32), torch.tensor(target), torch.tensor(indexes)
            metric.update(p, t, indexes=i)
            evaluator.update(p, t, i)
        # torchmetrics computes in float32: agreement to 1e-6.
        assert evaluator.compute().mean(f"ndcg@{k}") == pytest.approx(float(metric.compute()), abs=1e-6)


def test_tensors_that_require_grad_are_read():
    torch = pytest.importorskip("torch")
    evaluator = StreamingEvaluator("ndcg")
    evaluator.update(torch.tensor([0.2, 0.9], requires_grad=True), torch.tensor([1, 0]), torch.tensor([0, 0]))
    assert evaluator.compute().mean("ndcg") == pytest.approx(1 / math.log2(3))


def test_batches_equal_one_grouped_evaluation():
    preds, target, indexes = (np.concatenate(x) for x in _batches(1))
    evaluator = StreamingEvaluator(["ndcg@5", "ap", "rr"])
    for batch in zip(*_batches(1)):
        evaluator.update(*batch)
    streamed = evaluator.compute()
    order = np.argsort(indexes, kind="stable")
    names, starts = np.unique(indexes[order], return_index=True)
    grouped = evaluate_scores(target[order], preds[order], ["ndcg@5", "ap", "rr"],
                              offsets=np.append(starts, len(order)), queries=names.astype(str))
    assert streamed.queries == grouped.queries
    for m in ("ndcg@5", "ap", "rr"):
        np.testing.assert_array_equal(streamed.values(m), grouped.values(m))


def test_arrival_order_is_the_input_order_of_ties():
    # Query 5 gets grade 0 then grade 2, both scored 1.0, in two batches: ties=input keeps that order.
    evaluator = StreamingEvaluator("dcg@1", Protocol(ties="input"))
    evaluator.update(np.array([1.0]), np.array([0]), np.array([5]))
    evaluator.update(np.array([1.0, 0.3]), np.array([2, 1]), np.array([5, 4]))
    assert evaluator.compute().per_query("dcg@1") == {"4": 1.0, "5": 0.0}


def test_reset_and_empty_compute():
    evaluator = StreamingEvaluator("ndcg")
    evaluator.update([0.1], [1], [0])
    evaluator.reset()
    with pytest.raises(InputError, match=r"nothing to compute: call update"):
        evaluator.compute()


def test_stored_batches_are_copies():
    preds = np.array([0.1, 0.9])
    evaluator = StreamingEvaluator("dcg@1")
    evaluator.update(preds, np.array([1, 0]), np.array([0, 0]))
    preds[:] = [0.9, 0.1]  # a training loop reusing its buffer
    assert evaluator.compute().mean("dcg@1") == 0.0


@pytest.mark.parametrize("preds, target, indexes, message", [
    ([0.1, 0.2], [1], [0, 0], r"preds \(2,\), target \(1,\) and indexes \(2,\) must have the same shape"),
    ([0.1], [1], [0.5], r"indexes must be integers"),
    ([0.1], ["a"], [0], r"target holds <U1 values"),
])
def test_bad_batches(preds, target, indexes, message):
    with pytest.raises(InputError, match=message):
        StreamingEvaluator("ndcg").update(np.array(preds), np.array(target), np.array(indexes))
