"""The top k rows of every query (pipeline.cuts.top_rows), against a plain-Python oracle: each
query's rows ranked by score descending (ties in input order, or by doc id descending under
ties=docid), the first k kept; under ties=expected and ties=error a tie across rank k is refused."""

from __future__ import annotations

import numpy as np
import pytest

from rankproof.data.run import Run
from rankproof.errors import TieError
from rankproof.pipeline.cuts import top_rows
from rankproof.protocol import Protocol


def _oracle(run: Run, k: int, ties: str) -> list[int] | None:
    """The rows kept, or None when a tie crosses rank k (ties=expected, ties=error)."""
    kept = []
    for q in range(run.num_queries):
        rows = list(range(int(run.offsets[q]), int(run.offsets[q + 1])))
        docs = run.docs[run.doc_codes].tolist()
        if ties == "docid":
            rows.sort(key=lambda r: (-run.scores[r], [-ord(c) for c in docs[r]] + [1]))
        else:
            rows.sort(key=lambda r: -run.scores[r])  # stable: input order within a tie
        if ties in ("expected", "error") and len(rows) > k and run.scores[rows[k - 1]] == run.scores[rows[k]]:
            return None
        kept.extend(rows[:k])
    return kept


def _random_run(rng: np.random.Generator) -> Run:
    rankings = {}
    for q in range(int(rng.integers(1, 7))):
        docs = rng.choice(40, int(rng.integers(0, 9)), replace=False)
        tied = rng.random() < 0.6
        rankings[f"q{q}"] = {f"d{d}": float(rng.integers(0, 4)) if tied else float(rng.random()) for d in docs}
    return Run.from_dict(rankings)


@pytest.mark.parametrize("ties", ["expected", "input", "docid", "error"])
def test_top_rows_are_the_first_k_of_each_ranking(ties: str) -> None:
    rng = np.random.default_rng(35)
    refused = 0
    for _ in range(60):
        run = _random_run(rng)
        for k in (1, 2, 3, 10):
            want = _oracle(run, k, ties)
            if want is None:
                refused += 1
                with pytest.raises(TieError, match=f"across rank {k}"):
                    top_rows(run, k, Protocol(ties=ties))
            else:
                assert top_rows(run, k, Protocol(ties=ties)).tolist() == want
    assert (refused > 0) == (ties in ("expected", "error"))  # the refusal was exercised


def test_a_run_without_scores_keeps_its_order() -> None:
    run = Run.from_dict({"u": ["c", "a", "b"], "v": [], "w": ["x"]})
    assert run.docs[run.doc_codes[top_rows(run, 2, Protocol())]].tolist() == ["c", "a", "x"]
