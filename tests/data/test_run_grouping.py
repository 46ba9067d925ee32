"""Grouping a run's rows by query: the block shortcut equals a stable sort."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof.data.run import _grouping_order


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 4)), min_size=1, max_size=12))
def test_grouping_order_is_the_stable_sort_by_query(blocks):
    # Blocks of rows of one query each; the same query may come back later.
    codes = np.concatenate([np.full(length, code) for code, length in blocks])
    order = _grouping_order(codes)
    expected = np.argsort(codes, kind="stable")
    got = np.arange(len(codes)) if order is None else order
    assert np.array_equal(got, expected)
