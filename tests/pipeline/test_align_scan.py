"""The compiled passes of alignment (rankproof._libs.align_scan) against plain Python.

``mark_rows`` is held to a dictionary walk of the rows in input order;
``cutoff_counts`` to a position-by-position count. Every compiled module's
doctests run here too (pytest does not collect doctests from extensions).
"""

import doctest
import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof._libs.align_scan import cutoff_counts, mark_rows

COMPILED = ["rankproof._libs.align_scan", "rankproof._libs.ranked", "rankproof._libs.trec_scan", "rankproof._libs.vocabulary",
            "rankproof._libs.interner", "rankproof._libs.dense", "rankproof._libs.diversity"]


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


rows = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 7)), max_size=60)
judgments = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7), st.integers(-2, 4)), max_size=40)


def _grouped(pairs):
    # Rows grouped by query, in input order within each query (as a Run holds them).
    return sorted(pairs, key=lambda pair: pair[0])


@settings(max_examples=300, deadline=None)
@given(rows, judgments, st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), max_size=10),
       st.booleans())
def test_mark_rows_matches_a_walk_of_the_rows(row_pairs, judged, pooled, real):
    row_pairs = _grouped(row_pairs)
    # One judgment per (query, doc), sorted by query.
    judged = sorted({(q, d): g for q, d, g in judged}.items())
    pooled = sorted(set(pooled))
    grades = {key: (g + 0.5 if real else g) for key, g in judged}
    i64 = lambda values: np.array(values, dtype=np.int64).reshape(-1)  # noqa: E731
    # The rows of query q are offsets[q] .. offsets[q + 1] (queries 0-4; some without rows).
    offsets = np.concatenate([[0], np.cumsum(np.bincount([q for q, _ in row_pairs], minlength=5))])
    repeated, is_judged, grade, is_pooled = mark_rows(
        i64(offsets), i64([d for _, d in row_pairs]), 8,
        i64([q for (q, _), _ in judged]), i64([d for (_, d), _ in judged]),
        np.array([grades[key] for key, _ in judged], dtype=np.float64 if real else np.int64),
        i64([q for q, _ in pooled]), i64([d for _, d in pooled]))
    seen = set()
    expected_repeated = []
    for pair in row_pairs:
        expected_repeated.append(pair in seen)
        seen.add(pair)
    assert repeated.tolist() == expected_repeated
    assert is_judged.tolist() == [pair in grades for pair in row_pairs]
    assert grade.tolist() == [grades.get(pair, 0) for pair in row_pairs]
    assert is_pooled.tolist() == [pair in grades or pair in set(pooled) for pair in row_pairs]
    assert grade.dtype == (np.float64 if real else np.int64)


def test_mark_rows_refuses_offsets_that_do_not_delimit_the_rows():
    i64 = lambda *values: np.array(values, dtype=np.int64)  # noqa: E731
    none = i64()
    with pytest.raises(ValueError, match="non-decreasing"):
        mark_rows(i64(0, 2, 1, 2), i64(0, 0), 1, none, none, none, none, none)
    with pytest.raises(ValueError, match="from 0 to the number of rows"):
        mark_rows(i64(0, 1), i64(0, 0), 1, none, none, none, none, none)
    with pytest.raises(ValueError, match="code outside"):
        mark_rows(i64(0, 2), i64(0, 3), 2, none, none, none, none, none)


def _groups(sizes):
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


@st.composite
def rankings(draw):
    """Queries of rankings, each cut into groups (averaged ties) and tie groups."""
    lengths = draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    group_sizes, tie_sizes = [], []
    for length in lengths:
        left = length
        while left:
            size = draw(st.integers(1, left))
            tie_sizes.append(size)
            # Groups are either the tie groups (ties=expected) or single positions.
            group_sizes.extend([size] if draw(st.booleans()) else [1] * size)
            left -= size
    judged = draw(st.lists(st.booleans(), min_size=sum(lengths), max_size=sum(lengths)))
    return lengths, group_sizes, tie_sizes, judged


@settings(max_examples=300, deadline=None)
@given(rankings(), st.lists(st.integers(1, 14), min_size=1, max_size=4))
def test_cutoff_counts_match_a_count_by_position(ranking, cutoffs):
    lengths, group_sizes, tie_sizes, judged = ranking
    cutoffs = sorted(cutoffs)
    offsets, groups, ties = _groups(lengths), _groups(group_sizes), _groups(tie_sizes)
    unjudged, crossing = cutoff_counts(offsets, groups, ties, np.array(judged, dtype=np.uint8),
                                       np.array(cutoffs, dtype=np.int64))
    for i, k in enumerate(cutoffs):
        expected_unjudged = expected_crossing = 0
        for q, length in enumerate(lengths):
            start = offsets[q]
            for position in range(start, start + length):
                group_start = groups[np.searchsorted(groups, position, side="right") - 1]
                if group_start - start + 1 > k or judged[position]:
                    continue
                # An unjudged doc of a group crossing the cutoff is inside only while the
                # group has slots left inside: the first `slots` unjudged docs of the group count.
                slots = k - (group_start - start)
                earlier = sum(not judged[p] for p in range(group_start, position))
                expected_unjudged += earlier < slots
            if length > k:
                tie_at_k = np.searchsorted(ties, start + k - 1, side="right")
                expected_crossing += ties[tie_at_k] > start + k
        assert unjudged[i] == expected_unjudged
        assert crossing[i] == expected_crossing


def test_runs_and_qrels_built_on_unsorted_vocabularies_align_like_sorted_ones():
    # Codes into vocabularies given out of order ("q2" before "q10", docs reversed):
    # the constructors sort them, so alignment (which walks queries in code order) sees
    # the same data as from_dict does.
    from rankproof import Qrels, Run, evaluate

    queries, docs = np.array(["q2", "q10"]), np.array(["d3", "d2", "d1"])
    run = Run(query_codes=[0, 0, 1, 1], queries=queries, doc_codes=[0, 1, 2, 0], docs=docs,
              scores=[0.9, 0.5, 0.8, 0.1])
    qrels = Qrels(query_codes=[0, 1, 1], queries=queries, doc_codes=[1, 2, 0], docs=docs, grades=[1, 2, 1])
    expected_run = Run.from_dict({"q2": {"d3": 0.9, "d2": 0.5}, "q10": {"d1": 0.8, "d3": 0.1}})
    expected_qrels = Qrels.from_dict({"q2": {"d2": 1}, "q10": {"d1": 2, "d3": 1}})
    measures = ["ndcg@2", "ap", "rr"]
    got = evaluate(qrels, run, measures, protocol="ties=docid")
    want = evaluate(expected_qrels, expected_run, measures, protocol="ties=docid")
    assert list(got.queries) == list(want.queries) == ["q10", "q2"]
    for measure in measures:
        assert got.values(measure).tolist() == want.values(measure).tolist()
