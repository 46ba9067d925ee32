"""The compact letter display (Piepho 2004): its defining property on random sets of significant pairs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankproof.report.letters import compact_letters, pair_matrix


@pytest.mark.parametrize("seed", range(20))
def test_letters_share_exactly_when_not_significant(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 8))
    means = rng.random(count)
    pairs = [pair for pair in itertools.combinations(range(count), 2) if rng.random() < 0.5]
    letters = compact_letters(means, pairs)
    for a, b in itertools.combinations(range(count), 2):
        shared = bool(set(letters[a]) & set(letters[b]))
        assert shared == ((a, b) not in pairs), (letters, pairs)


def test_the_best_system_gets_a_and_the_display_is_order_free():
    means = [0.2, 0.5, 0.3, 0.45]
    significant = [(0, 1), (0, 3), (2, 1)]
    letters = compact_letters(means, significant)
    assert "a" in letters[1]
    shuffled = [3, 1, 0, 2]
    index = {old: new for new, old in enumerate(shuffled)}
    again = compact_letters([means[i] for i in shuffled], [(index[a], index[b]) for a, b in significant])
    assert [again[index[i]] for i in range(4)] == letters


def test_matrix_marks_untested_pairs_blank():
    text = pair_matrix(["base", "x", "y"], [0.3, 0.5, 0.1], {(0, 1): True, (0, 2): False})
    rows = {line.split()[0]: line for line in text.splitlines()[1:]}
    assert rows["x"].split() == ["x", "+"] and rows["y"].split() == ["y", "."]
