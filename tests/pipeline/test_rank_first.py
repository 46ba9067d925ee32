"""Ranking the rows before looking up their judgments (less memory) gives the alignment
the input-order path gives: same rows, same order, same counts, same errors.

The property: for random runs (shuffled scores, ties, duplicates, unjudged docs,
queries missing from either side) under every combination of the policies that
read the input order, ``align`` equals the alignment built the old way, rows looked
up in input order and then sorted (``_ranked_rows`` then ``_in_rank_order``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
from hypothesis import given, settings, strategies as st

from rankproof import Qrels, Run
from rankproof.errors import RankproofError
from rankproof.pipeline import alignment
from rankproof.protocol import Protocol

POLICIES = [f"ties={t} duplicates={d} unjudged={u}"
            for t in ("input", "docid", "expected") for d in ("first", "error") for u in ("zero", "condense", "error")]


def _input_order_align(qrels, run, protocol):
    """align() with the rank-first path switched off: the input-order path alone."""
    original = alignment._ranked_first
    alignment._ranked_first = lambda *args, **kwargs: None
    try:
        return alignment.align(qrels, run, protocol)
    finally:
        alignment._ranked_first = original


def _outcome(qrels, run, protocol, build):
    try:
        return build(qrels, run, protocol)
    except RankproofError as error:
        return f"{type(error).__name__}: {error}"


@st.composite
def inputs(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    judged = {q: {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(8, size=rng.integers(1, 6), replace=False)}
              for q in queries if rng.random() < 0.85}
    rows = []
    for q in queries:
        if rng.random() < 0.15:
            continue
        for _ in range(int(rng.integers(1, 9))):
            # few distinct scores: ties; a small doc range: repeats
            rows.append((q, f"d{rng.integers(0, 9)}", float(rng.integers(0, 4))))
    if not rows or not judged:
        rows, judged = [("q0", "d0", 1.0)], {"q0": {"d0": 1}}
    query, doc, score = map(list, zip(*rows))
    run = Run.from_table(pa.table({"query": query, "doc": doc, "score": score}))
    return Qrels.from_dict(judged), run


@settings(max_examples=150, deadline=None)
@given(inputs(), st.sampled_from(POLICIES))
def test_rank_first_equals_the_input_order_path(data, policy):
    qrels, run = data
    protocol = Protocol.from_text(policy + " missing_query=zero")
    fast = _outcome(qrels, run, protocol, alignment.align)
    slow = _outcome(qrels, run, protocol, _input_order_align)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
        return
    for field in dataclasses.fields(slow):
        a, b = getattr(fast, field.name), getattr(slow, field.name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), field.name
        else:
            assert a == b, field.name


def test_the_rank_first_path_is_taken_on_a_shuffled_run():
    """The property above would pass vacuously if the fast path never ran."""
    calls = []
    original = alignment._ranked_first

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(result is not None)
        return result

    alignment._ranked_first = spy
    try:
        run = Run.from_dict({"q": {"a": 0.1, "b": 0.9, "c": 0.5}})
        a = alignment.align(Qrels.from_dict({"q": {"b": 1}}), run, Protocol())
    finally:
        alignment._ranked_first = original
    assert calls == [True]
    assert a.docs[a.doc].tolist() == ["b", "c", "a"] and a.grade.tolist() == [1, 0, 0]
