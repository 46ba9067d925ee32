"""The key sort and lookup under alignment, against plain numpy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof.pipeline import _look_up, _sorted_with_rows

small_keys = st.lists(st.integers(0, 50), max_size=200)
# Keys too large to leave room for the row index take the argsort path.
huge_keys = st.lists(st.integers(0, 2**62), max_size=200)


@settings(max_examples=200, deadline=None)
@given(st.one_of(small_keys, huge_keys))
def test_sorted_with_rows_is_a_stable_argsort(values):
    keys = np.array(values, dtype=np.int64)
    sorted_keys, rows = _sorted_with_rows(keys)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(rows, order)
    np.testing.assert_array_equal(sorted_keys, keys[order])


def test_both_paths_are_taken():
    # 3 rows need 2 bits: keys below 2**60 are packed, larger ones are not.
    for top in (2**60 - 1, 2**60):
        keys = np.array([top, 0, top], dtype=np.int64)
        sorted_keys, rows = _sorted_with_rows(keys)
        assert rows.tolist() == [1, 0, 2]
        assert sorted_keys.tolist() == [0, top, top]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=60, unique=True), st.lists(st.integers(0, 40), max_size=60, unique=True))
def test_look_up_finds_each_row_key_among_the_keys(row_values, key_values):
    row_keys = np.array(row_values, dtype=np.int64)
    keys = np.array(key_values, dtype=np.int64)
    values = keys * 10 + 1
    sorted_keys, rows = _sorted_with_rows(row_keys)
    found, value = _look_up(sorted_keys, rows, keys, values)
    expected = {k: v for k, v in zip(key_values, values.tolist())}
    assert found.tolist() == [k in expected for k in row_values]
    assert value.tolist() == [expected.get(k, 0) for k in row_values]


@pytest.mark.parametrize("n_rows, n_keys", [(0, 3), (3, 0), (0, 0)])
def test_look_up_with_nothing_to_find(n_rows, n_keys):
    sorted_keys, rows = _sorted_with_rows(np.arange(n_rows, dtype=np.int64))
    found, value = _look_up(sorted_keys, rows, np.arange(n_keys, dtype=np.int64), np.ones(n_keys, np.int64))
    assert found.tolist() == [False] * n_rows and value.tolist() == [0] * n_rows
