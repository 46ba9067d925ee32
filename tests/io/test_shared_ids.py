"""io.shared_ids: within sharing(), a set of integer ids interned again gets the vocabulary made the
first time (one array for the truth and every run); the codes stay those of a plain reading, checked
against plain Python; another set of ids, or any reading outside the block, makes its own."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from rankproof.io import arrow
from rankproof.io.shared_ids import sharing


def _expected(values: list[int]) -> tuple[list[int], list[str]]:
    vocabulary = sorted({str(v) for v in values})  # Python's str order is code-point order
    where = {text: code for code, text in enumerate(vocabulary)}
    return [where[str(v)] for v in values], vocabulary


RNG = np.random.default_rng(7)
USERS = np.arange(3, 900)
# The truth and two runs: the same users, in other orders and numbers of rows.
TRUTH, FIRST, SECOND = (pa.chunked_array([RNG.permutation(np.repeat(USERS, times))]) for times in (2, 5, 3))
OTHER = pa.chunked_array([np.arange(3, 899)])   # one user fewer: its own set


def test_the_same_users_share_one_vocabulary_and_keep_their_codes():
    with sharing():
        interned = [arrow._intern_column(column) for column in (TRUTH, FIRST, SECOND, OTHER)]
    vocabularies = [vocabulary for _, vocabulary in interned]
    assert vocabularies[1] is vocabularies[0] and vocabularies[2] is vocabularies[0]
    assert vocabularies[3] is not vocabularies[0]
    assert not vocabularies[0].flags.writeable   # several files hold it
    for column, (codes, vocabulary) in zip((TRUTH, FIRST, SECOND, OTHER), interned):
        want_codes, want_vocabulary = _expected(column.to_pylist())
        assert vocabulary.tolist() == want_vocabulary
        assert codes.tolist() == want_codes


@pytest.mark.parametrize("shared", [False, True])
def test_nothing_is_shared_outside_the_block(shared):
    if shared:
        with sharing():
            arrow._intern_column(TRUTH)
    first = arrow._intern_column(TRUTH)[1]
    assert arrow._intern_column(FIRST)[1] is not first
    assert first.flags.writeable
