"""Group exposure under the uniform, log and geometric (RBP's) exposure models: hand-worked.
No recommender library installed here computes position-weighted group exposure
(RecBole, Elliot, LensKit's exposure metrics differ or do not install), so the
hand tables stand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankproof import Run
from rankproof.errors import InputError
from rankproof.recsys.exposure import group_exposure, position_exposure

RUN = Run.from_dict({"u": ["a", "b", "c"], "v": ["c", "a", "x"]})
GROUPS = {"a": "pop", "b": "pop", "c": "niche", "d": "niche"}


def test_uniform_is_a_share_of_the_slots():
    result = group_exposure(RUN, 2, groups_of=GROUPS, model="uniform")   # slots a, b | c, a
    assert result.exposure == {"niche": 1.0, "pop": 3.0}
    assert result.share == {"niche": 0.25, "pop": 0.75}
    assert result.per_item == {"niche": 0.5, "pop": 1.5}   # d never shown still counts in niche's items


def test_geometric_and_ungrouped_items():
    # ranks 1, 2, 3 at p = 0.5: 0.5, 0.25, 0.125. u: a .5, b .25, c .125; v: c .5, a .25, x .125 (no group)
    result = group_exposure(RUN, 3, groups_of=GROUPS, model="geometric", persistence=0.5)
    assert result.groups == ("", "niche", "pop")
    assert result.exposure == {"": 0.125, "niche": 0.625, "pop": 1.0}
    assert result.share["pop"] == pytest.approx(1.0 / 1.75)
    assert "" not in result.per_item
    assert result.measure == "exposure(model=geometric,persistence=0.5)@3"


def test_log_model_is_the_dcg_discount():
    assert position_exposure(np.array([1, 3, 7])).tolist() == pytest.approx([1.0, 0.5, 1 / 3])
    result = group_exposure(RUN, 2, groups_of=GROUPS)   # a 1 + 1/log2 3, b 1/log2 3, c 1
    assert result.exposure["pop"] == pytest.approx(1 + 2 / math.log2(3))


def test_bad_policies_are_input_errors():
    with pytest.raises(InputError, match="model must be"):
        group_exposure(RUN, 2, groups_of=GROUPS, model="cascade")
    with pytest.raises(InputError, match="persistence"):
        group_exposure(RUN, 2, groups_of=GROUPS, model="geometric", persistence=1.0)
    with pytest.raises(InputError, match="groups_of"):
        group_exposure(RUN, 2, groups_of=["a"])
