"""Ranking a run's own columns in place (pipeline/inplace) gives the alignment the copying
path gives, and never writes a run or a table the caller can still reach."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings, strategies as st

from rankproof import Qrels, Run, evaluate_frame
from rankproof.data.arrays import read_only
from rankproof.errors import RankproofError
from rankproof.evaluation import evaluate_read
from rankproof.pipeline import alignment, inplace
from rankproof.protocol import Protocol

POLICIES = [f"ties={t} duplicates={d} unjudged={u}"
            for t in ("input", "docid", "expected") for d in ("first", "error") for u in ("zero", "condense", "error")]


def _rows(seed: int):
    rng = np.random.default_rng(seed)
    queries = int(rng.integers(1, 5))
    rows = [(f"q{q}", f"d{rng.integers(0, 9)}", float(rng.integers(0, 4)))
            for q in range(queries) if rng.random() < 0.9 for _ in range(int(rng.integers(1, 9)))]
    rows = rows or [("q0", "d0", 1.0)]
    judged = {f"q{q}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(8, size=3, replace=False)}
              for q in range(queries)}
    return rows, Qrels.from_dict(judged)


def _fresh_run(rows) -> Run:
    """A run whose columns only the run holds (codes and scores made here, then dropped)."""
    query, doc, score = zip(*rows)
    queries, query_codes = np.unique(np.array(query), return_inverse=True)
    docs, doc_codes = np.unique(np.array(doc), return_inverse=True)
    return Run(query_codes=query_codes.astype(np.int64), queries=queries, doc_codes=doc_codes.astype(np.int64),
               docs=docs, scores=np.array(score, dtype=np.float64))


def _outcome(build):
    try:
        return build()
    except RankproofError as error:
        return f"{type(error).__name__}: {error}"


def _counting(monkeypatch) -> list:
    calls: list = []
    original = inplace.rank_in_place

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(alignment, "rank_in_place", counted)
    return calls


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(POLICIES))
def test_in_place_equals_the_copying_path(seed, policy):
    rows, qrels = _rows(seed)
    protocol = Protocol.from_text(policy + " missing_query=zero")
    reused = _outcome(lambda: alignment.align(qrels, _fresh_run(rows), protocol, reuse=True))
    copied = _outcome(lambda: alignment.align(qrels, _fresh_run(rows), protocol))
    if isinstance(copied, str) or isinstance(reused, str):
        assert reused == copied
        return
    for field in dataclasses.fields(copied):
        a, b = getattr(reused, field.name), getattr(copied, field.name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), field.name
        else:
            assert a == b, field.name


def test_the_in_place_path_runs_on_a_run_only_the_alignment_holds(monkeypatch):
    calls = _counting(monkeypatch)
    rows = [("q1", "a", 0.1), ("q1", "b", 0.9), ("q2", "c", 0.5), ("q2", "a", 0.7)]
    qrels = Qrels.from_dict({"q1": {"b": 1}, "q2": {"c": 2}})
    a = alignment.align(qrels, _fresh_run(rows), Protocol(), reuse=True)
    assert calls == [1]
    # by hand: q1 ranks b (0.9) then a; q2 ranks a (0.7) then c
    assert [str(a.docs[d]) for d in a.doc] == ["b", "a", "a", "c"]
    assert a.grade.tolist() == [1, 0, 0, 2]


def test_a_run_the_caller_holds_is_never_written(monkeypatch):
    calls = _counting(monkeypatch)
    rows = [("q1", "a", 0.1), ("q1", "b", 0.9), ("q2", "c", 0.5), ("q2", "a", 0.7)]
    run = _fresh_run(rows)
    before = run.doc_codes.copy(), run.scores.copy()
    qrels = Qrels.from_dict({"q1": {"b": 1}, "q2": {"c": 2}})
    results = evaluate_read(lambda: (qrels, run), ["rr"])
    assert results.per_query("rr") == {"q1": 1.0, "q2": 0.5}
    assert calls == []
    assert np.array_equal(run.doc_codes, before[0]) and np.array_equal(run.scores, before[1])


def test_sole_owner_only_for_memory_nothing_else_reaches():
    mine = read_only(np.arange(5.0))
    assert inplace.sole_owner(mine) is not None
    theirs = np.arange(5.0)
    assert inplace.sole_owner(read_only(theirs)) is None  # the caller's array
    kept = read_only(np.arange(5.0))
    view = kept.base[1:]  # another view of the same memory
    assert inplace.sole_owner(kept) is None and view.size == 4
    shared = np.frombuffer(bytearray(40), dtype=np.float64)
    assert inplace.sole_owner(read_only(shared)) is None  # memory of another object


def test_frame_from_files_equals_frame_from_tables(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    rng = np.random.default_rng(3)
    users, per_user = 300, 12
    predictions = pd.DataFrame({"user": np.repeat(np.arange(users), per_user),
                                "item": rng.integers(0, 40, size=users * per_user) * 1000
                                + np.tile(np.arange(per_user), users),
                                "score": rng.integers(0, 6, size=users * per_user).astype(np.float64)})
    # every user judged (the in-place path takes runs whose every row is evaluated)
    truth = predictions.groupby("user").head(4)[["user", "item"]].assign(
        rating=lambda t: rng.integers(0, 4, size=len(t)))
    pq.write_table(pa.Table.from_pandas(truth, preserve_index=False), tmp_path / "truth.parquet")
    # Several row groups: the score column is read as chunks and copied into one array of
    # rankproof's own (one chunk would be read without a copy, as a view of Arrow's memory).
    pq.write_table(pa.Table.from_pandas(predictions, preserve_index=False), tmp_path / "predictions.parquet",
                   row_group_size=1000)
    kept = predictions.copy()
    measures = ["ndcg@5", "ap@10", "r@3"]
    from_files = evaluate_frame(str(tmp_path / "truth.parquet"), str(tmp_path / "predictions.parquet"), measures)
    assert calls  # the files' run is rankproof's own: ranked in place
    from_tables = evaluate_frame(truth, predictions, measures)
    pd.testing.assert_frame_equal(predictions, kept)  # the caller's table untouched
    for m in measures:
        assert from_files.values(m).tobytes() == from_tables.values(m).tobytes()
    assert from_files.counts == from_tables.counts
