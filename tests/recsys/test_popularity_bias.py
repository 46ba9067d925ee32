"""PopRSP, PopREO, APLT and ACLT: hand-worked from Elliot's definitions (its source's
PopRSP, PopREO, APLT, ACLT and the popularity short-head split). Elliot is not a peer here:
it has no release pip can install on this machine, so the hand tables stand in.
"""

from __future__ import annotations

import math

import pytest

from rankproof import Run
from rankproof.errors import InputError
from rankproof.recsys.popularity_bias import aclt, aplt, pop_reo, pop_rsp, short_head

# users per item: a 3, b 2, c 1 (6 interactions, 0.8 x 6 = 4.8): head a, b; tail c
TRAIN = {"u": ["a", "b", "c"], "v": ["a", "b"], "w": ["a"]}


def test_short_head_stops_at_the_item_reaching_the_ratio_and_ties_go_by_id():
    assert short_head(TRAIN) == ({"a", "b"}, {"c"})
    assert short_head(TRAIN, ratio=0.5) == ({"a"}, {"b", "c"})   # 3 >= 3
    # b and c tie at 1 user each: b first by id; 0.5 x 2 = 1 -> head {b}
    assert short_head({"u": ["c"], "v": ["b"]}, ratio=0.5) == ({"b"}, {"c"})


def test_pop_rsp_counts_training_items_out_of_the_denominator_only():
    # v (trained a, b) gets c, a: head 1, tail 1; den head 2 - 2 = 0, tail 1
    # x (untrained) gets a, b: head 2; den head 2, tail 1 -> rates 3/2, 1/2
    run = Run.from_dict({"v": ["c", "a"], "x": ["a", "b"]})
    result = pop_rsp(run, 2, train=TRAIN)
    assert (result.head_rate, result.tail_rate) == (1.5, 0.5)
    assert result.value == pytest.approx(0.5 / 1.0)   # std 0.5, mean 1.0
    assert (result.head_items, result.tail_items) == (2, 1)


def test_pop_rsp_is_nan_when_a_group_has_no_candidate():
    assert math.isnan(pop_rsp(Run.from_dict({"u": ["a", "c"]}), 2, train=TRAIN).value)


def test_pop_reo_leaves_out_users_without_relevant_items():
    run = Run.from_dict({"x": ["a", "c"], "y": ["a", "b"], "z": ["c", "b"]})
    result = pop_reo(run, 2, train=TRAIN, relevant={"x": ["b", "c"], "y": ["a"]})
    assert (result.head_rate, result.tail_rate) == (0.5, 1.0)
    assert result.value == pytest.approx(0.25 / 0.75)
    # the cutoff: at k=1 x's hit c is gone, y keeps a -> head 1/2, tail 0/1: std 0.25, mean 0.25
    assert pop_reo(run, 1, train=TRAIN, relevant={"x": ["b", "c"], "y": ["a"]}).value == pytest.approx(1.0)


def test_bad_inputs_are_input_errors():
    run = Run.from_dict({"x": ["a"]})
    with pytest.raises(InputError, match="ratio"):
        pop_rsp(run, 1, train=TRAIN, ratio=1.5)
    with pytest.raises(InputError, match="train must map"):
        pop_rsp(run, 1, train=["a"])
    with pytest.raises(InputError, match="cutoff"):
        pop_rsp(run, 0, train=TRAIN)


def test_pop_rsp_by_name_with_train_side_data():
    import numpy as np

    from rankproof.recsys.registry import compute_side, parse_side_measure
    from rankproof.recsys.side import Interactions, SideData

    users = [u for u, items in TRAIN.items() for _ in items]
    items = [i for its in TRAIN.values() for i in its]
    side = SideData(train=Interactions(np.array(users), np.array(items), np.ones(len(items), dtype=np.int64)))
    run = Run.from_dict({"x": ["a", "c"], "y": ["a", "b"]})
    result = compute_side(parse_side_measure("pop_rsp@2"), run, side)
    assert result.value == pytest.approx(0.125 / 0.625)   # as the docstring's example: rates 0.75, 0.5
    assert dict(result.detail)["head_items"] == 2
    assert compute_side(parse_side_measure("pop_rsp(ratio=0.5)@2"), run, side).value == pytest.approx(1 / 3)


def test_aplt_and_aclt_by_hand():
    # Head {a, b}, tail {c} at ratio 0.8; at ratio 0.5 head {a}, tail {b, c}.
    run = Run.from_dict({"x": {"a": 3.0, "c": 2.0, "b": 1.0}, "y": {"d": 2.0, "c": 1.0}, "z": {"b": 1.0}})
    # k=2: x top a, c (1 tail of 2); y top d, c (d untrained: not tail; 1 of 2); z top b (0 of 1)
    assert aplt(run, 2, train=TRAIN).per_query() == {"x": 0.5, "y": 0.5, "z": 0.0}
    assert aplt(run, 2, train=TRAIN).mean == pytest.approx(1 / 3)
    assert aclt(run, 2, train=TRAIN).per_query() == {"x": 1.0, "y": 1.0, "z": 0.0}
    # ratio 0.5, k=3: x a, c, b -> 2 tail of 3; y 1 of 2; z b -> 1 of 1
    assert aplt(run, 3, train=TRAIN, ratio=0.5).per_query() == {"x": 2 / 3, "y": 0.5, "z": 1.0}
    assert aclt(run, 3, train=TRAIN, ratio=0.5).per_query() == {"x": 2.0, "y": 1.0, "z": 1.0}


def test_aplt_by_name_reads_the_training_users():
    import numpy as np

    from rankproof.recsys.registry import compute_side, parse_side_measure
    from rankproof.recsys.side import Interactions, SideData

    users = [u for u, items in TRAIN.items() for _ in items]
    items = [i for its in TRAIN.values() for i in its]
    side = SideData(train=Interactions(np.array(users), np.array(items), np.ones(len(items), dtype=np.int64)))
    run = Run.from_dict({"x": ["a", "c"], "y": ["c", "d"]})
    assert compute_side(parse_side_measure("aplt@2"), run, side).per_query() == {"x": 0.5, "y": 0.5}
    assert compute_side(parse_side_measure("aclt(ratio=0.5)@1"), run, side).per_query() == {"x": 0.0, "y": 1.0}
