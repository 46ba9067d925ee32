"""Gini index, entropy, ARP and miscalibration: hand-worked values, each library's
documented definition worked by hand, RecBole's own metric code, and properties.

RecBole 1.2.1 is the peer run here (the test extra installs it). RecPack 0.3.6
would downgrade numpy to 1.26 and pandas to 2.3, and Elliot has no release
pip can install here: their Gini is worked by hand from their source's formula.
No library computes Steck's miscalibration: it is held to hand-worked cases.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankproof import Run
from rankproof.errors import InputError, TieError
from rankproof.protocol import Protocol
from rankproof.recsys.calibration import arp, miscalibration
from rankproof.recsys.concentration import entropy, gini, item_counts

# Top 2 of three lists: a, b | a, c | a, b. Slots: a 3, b 2, c 1 (6 in all); catalogue a..e.
RUN = Run.from_dict({"u": ["a", "b", "z"], "v": ["a", "c"], "w": ["a", "b"]})
CATALOGUE = list("abcde")


def test_item_counts_are_the_top_k_slots():
    ids, counts = item_counts(RUN, 2)
    assert ids.tolist() == ["a", "b", "c"] and counts.tolist() == [3, 2, 1]


# Each library's Gini on RUN at k = 2, worked by hand from its documented formula:
# RecBole GiniIndex: counts sorted [1, 2, 3] at indices 3, 4, 5 of num_items = 5:
#   (0 * 1 + 2 * 2 + 4 * 3) / 6 / 5 = 16 / 30.
# Elliot Gini: 1 - sum_j (2 (j + offset + 1) - n - 1) p_j / (n - 1), offset = 5 - 3:
#   1 - (0 * 1/6 + 2 * 2/6 + 4 * 3/6) / 4 = 1 - (8/3) / 4 = 1/3.
# RecPack ItemGini: 2 sum_i i x_i / (n sum x) - (n + 1) / n over x = [1, 2, 3]:
#   2 * 14 / 18 - 4/3 = 4/18.
@pytest.mark.parametrize("preset, expected", [("recbole", 16 / 30), ("elliot", 1 / 3), ("recpack", 4 / 18)])
def test_each_librarys_gini_by_its_documented_formula(preset, expected):
    value = gini(RUN, 2, catalogue=CATALOGUE if preset != "recpack" else None, preset=preset).value
    assert value == pytest.approx(expected, abs=1e-12)


def test_gini_is_zero_for_equal_shares_and_its_maximum_for_one_item():
    equal = Run.from_dict({"u": ["a", "b"], "v": ["c", "d"]})
    assert gini(equal, 2, catalogue=list("abcd")).value == pytest.approx(0.0, abs=1e-15)
    one = Run.from_dict({"u": ["a"], "v": ["a"]})
    assert gini(one, 1, catalogue=list("abcd")).value == pytest.approx(3 / 4)            # (n - 1) / n
    assert gini(one, 1, catalogue=list("abcd"), normaliser="n-1").value == pytest.approx(1.0)


def test_gini_counts_items_outside_the_catalogue_and_names_its_choices():
    result = gini(RUN, 2, catalogue=["a", "b", "d"])
    assert result.outside_catalogue == 1 and result.items == 4 and result.slots == 6
    assert result.measure == "gini(universe=catalogue,normaliser=n)@2"


def test_gini_refuses_what_it_cannot_decide():
    with pytest.raises(InputError, match="needs the catalogue"):
        gini(RUN, 2)
    with pytest.raises(InputError, match="takes universe='recommended'"):
        gini(RUN, 2, preset="recpack", universe="catalogue", catalogue=CATALOGUE)
    with pytest.raises(InputError, match="no Gini preset"):
        gini(RUN, 2, preset="surprise")


def test_entropy_in_bits_nats_and_recboles_per_item():
    # shares 1/2, 1/3, 1/6
    h = -(0.5 * math.log(0.5) + 1 / 3 * math.log(1 / 3) + 1 / 6 * math.log(1 / 6))
    assert entropy(RUN, 2, base="e").value == pytest.approx(h, abs=1e-12)
    assert entropy(RUN, 2).value == pytest.approx(h / math.log(2), abs=1e-12)
    assert entropy(RUN, 2, preset="recbole").value == pytest.approx(h / 3, abs=1e-12)


def test_entropy_is_log_n_for_n_equal_shares():
    equal = Run.from_dict({"u": ["a", "b"], "v": ["c", "d"]})
    assert entropy(equal, 2).value == pytest.approx(2.0)


def test_a_tie_across_the_cutoff_is_refused_under_ties_expected():
    tied = Run.from_dict({"u": {"a": 1.0, "b": 0.5, "c": 0.5}})
    with pytest.raises(TieError):
        gini(tied, 2, catalogue=CATALOGUE)
    assert item_counts(tied, 2, Protocol(ties="input"))[0].tolist() == ["a", "b"]


def test_arp_is_the_mean_training_count_of_each_list():
    training = {"a": 10, "b": 4, "c": 1}
    values = arp(RUN, 2, training=training)
    assert values.per_query() == {"u": 7.0, "v": 5.5, "w": 7.0}
    assert values.mean == pytest.approx((7 + 5.5 + 7) / 3)


def test_miscalibration_is_zero_when_the_list_mixes_categories_as_the_history():
    genres = {"a": "x", "b": "y", "c": {"x", "y"}, "z": "x"}
    run = Run.from_dict({"u": ["a", "b"]})
    assert miscalibration(run, 2, history={"u": ["c"]}, categories=genres).per_query()["u"] == \
        pytest.approx(0.0, abs=1e-15)


def test_miscalibration_by_hand_with_rank_weights():
    # History: x only (p = 1, 0). List: a (x) at rank 1, b (y) at rank 2, weighted 1 and 1/log2 3.
    genres = {"a": "x", "b": "y"}
    run = Run.from_dict({"u": ["a", "b"]})
    w2 = 1 / math.log2(3)
    q_x = 1 / (1 + w2)
    alpha = 0.1
    expected = math.log(1 / ((1 - alpha) * q_x + alpha))
    got = miscalibration(run, 2, history={"u": ["a"]}, categories=genres, alpha=alpha, rank_weight="log")
    assert got.per_query()["u"] == pytest.approx(expected, abs=1e-12)
    unsmoothed = miscalibration(Run.from_dict({"u": ["b"]}), 1, history={"u": ["a"]}, categories=genres, alpha=0)
    assert unsmoothed.values.tolist() == [math.inf]


def test_miscalibration_of_a_user_without_history_is_undefined_and_items_need_categories():
    genres = {"a": "x", "b": "y"}
    run = Run.from_dict({"u": ["a"], "v": ["b"]})
    result = miscalibration(run, 1, history={"u": ["a"]}, categories=genres)
    assert result.undefined == 1 and math.isnan(result.values[1])
    with pytest.raises(InputError, match="has no category"):
        miscalibration(Run.from_dict({"u": ["q"]}), 1, history={"u": ["a"]}, categories=genres)


def test_miscalibration_reads_the_history_from_a_table():
    import pyarrow as pa

    genres = {"a": "x", "b": "y"}
    run = Run.from_dict({"u": ["a", "b"]})
    table = pa.table({"user": ["u", "u"], "item": ["a", "b"]})
    assert miscalibration(run, 2, history=table, categories=genres).values.tolist() == \
        pytest.approx(miscalibration(run, 2, history={"u": ["b", "a"]}, categories=genres).values.tolist())
    assert np.allclose(miscalibration(run, 2, history=table, categories=genres).values, 0.0)


def _random_lists(seed: int, users: int = 40, k: int = 5, items: int = 30):
    """Full top-k lists (RecBole's item matrix is users x k) with a popularity skew."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, items + 1)
    matrix = np.array([rng.choice(items, size=k, replace=False, p=weights / weights.sum()) for _ in range(users)])
    run = Run.from_dict({f"u{u}": [f"i{i}" for i in row] for u, row in enumerate(matrix)})
    return matrix, run


@pytest.mark.parametrize("seed", range(5))
def test_recbole_gini_entropy_and_average_popularity(seed):
    """Held to RecBole's own metric code (recbole.evaluator.metrics, installed by the test extra)."""
    metrics = pytest.importorskip("recbole.evaluator.metrics")
    items = 30
    matrix, run = _random_lists(seed, items=items)
    rng = np.random.default_rng(seed + 100)
    train_counts = {i: int(c) for i, c in enumerate(rng.integers(0, 20, size=items)) if c}

    recbole_gini = metrics.GiniIndex.__new__(metrics.GiniIndex).get_gini(matrix, items)
    ours = gini(run, 5, catalogue=[f"i{i}" for i in range(items)], preset="recbole").value
    assert ours == pytest.approx(recbole_gini, abs=1e-12)

    recbole_entropy = metrics.ShannonEntropy.__new__(metrics.ShannonEntropy).get_entropy(matrix)
    assert entropy(run, 5, preset="recbole").value == pytest.approx(recbole_entropy, abs=1e-12)

    popularity = metrics.AveragePopularity.__new__(metrics.AveragePopularity)
    per_user = popularity.metric_info(popularity.get_pop(matrix, train_counts).astype(np.float64))[:, -1]
    ours_arp = arp(run, 5, training={f"i{i}": c for i, c in train_counts.items()})
    assert ours_arp.mean == pytest.approx(per_user.mean(), abs=1e-12)
