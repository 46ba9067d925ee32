"""Qrels and Run are immutable values: frozen dataclasses whose array columns
are read-only, built without touching the caller's arrays."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rankproof import Qrels, Run


def _arrays(value) -> dict[str, np.ndarray]:
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)
            if isinstance(getattr(value, f.name), np.ndarray)}


def _given():
    # Rows already grouped by query and sorted by doc: the constructors sort
    # nothing, so they could hold these very arrays.
    return dict(query_codes=np.array([0, 0, 1], dtype=np.int64), queries=np.array(["q1", "q2"]),
                doc_codes=np.array([0, 1, 0], dtype=np.int64), docs=np.array(["a", "b"]))


def test_qrels_columns_are_read_only_and_the_callers_arrays_are_not():
    given = _given()
    grades = np.array([2, 0, 1], dtype=np.int64)
    lines = np.array([3, 1, 2], dtype=np.int64)
    qrels = Qrels(**given, grades=grades, lines=lines)
    arrays = _arrays(qrels)
    assert set(arrays) == {"queries", "offsets", "docs", "doc_codes", "grades", "lines"}
    for name, array in arrays.items():
        assert not array.flags.writeable, name
        with pytest.raises(ValueError):
            array[:1] = array[:1]
    for array in (*given.values(), grades, lines):
        assert array.flags.writeable
    assert qrels.to_dict() == {"q1": {"a": 2, "b": 0}, "q2": {"a": 1}}
    assert qrels.lines.tolist() == [3, 1, 2]
    with pytest.raises(dataclasses.FrozenInstanceError):
        qrels.source = "other"  # type: ignore[misc]  # the point: a frozen field refuses


def test_run_columns_are_read_only_and_the_callers_arrays_are_not():
    given = _given()
    scores = np.array([0.9, 0.1, 0.5])
    run = Run(**given, scores=scores, name="bm25")
    arrays = _arrays(run)
    assert set(arrays) == {"queries", "offsets", "docs", "doc_codes", "scores", "lines"}
    for name, array in arrays.items():
        assert not array.flags.writeable, name
    for array in (*given.values(), scores):
        assert array.flags.writeable
    assert run.queries.tolist() == ["q1", "q2"] and run.offsets.tolist() == [0, 2, 3]
    assert run.scores.tolist() == [0.9, 0.1, 0.5]
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.name = "other"  # type: ignore[misc]  # the point: a frozen field refuses
