"""MeasureSpec.of_rank: a measure as a function of one positive's rank equals the measure evaluated on a
ranking whose one relevant doc is at that rank (sampled evaluation reads it)."""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Qrels, Run, evaluate
from rankproof.measures import REGISTRY

SPECS = [name for name, spec in REGISTRY.items() if spec.of_rank is not None]


def test_the_sampled_measures_are_the_papers():
    assert sorted(SPECS) == ["ap", "hit", "ndcg", "p", "r", "rr"]


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("k", [None, 3])
def test_of_rank_is_the_measure_with_one_relevant_doc(name, k):
    of_rank = REGISTRY[name].of_rank
    if k is None and of_rank.needs_cutoff:
        pytest.skip("defined with a cutoff only")
    docs = [f"d{i}" for i in range(6)]
    queries = {f"q{r}": docs[r - 1] for r in range(1, 7)}      # q3's relevant doc is ranked 3rd
    qrels = Qrels.from_dict({q: {doc: 1} for q, doc in queries.items()})
    run = Run.from_dict({q: docs for q in queries})
    text = name if k is None else f"{name}@{k}"
    values = evaluate(qrels, run, [text]).per_query(text)
    expected = of_rank.function(np.arange(1.0, 7.0), k)
    assert [values[q] for q in queries] == pytest.approx(expected.tolist())
