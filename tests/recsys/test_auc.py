"""Per-user AUC, GAUC and pooled AUC: hand-worked values, scikit-learn's
roc_auc_score per user and pooled, and RecBole's own GAUC metric code (weights
= the user's positives, our ``weights="clicks"``).

RecPack 0.3.6 is not a peer here: it would downgrade numpy to 1.26 and pandas to 2.3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import rankdata

from rankproof import Run
from rankproof.errors import InputError
from rankproof.recsys.auc import gauc, pooled_auc, user_auc

# u: a 0.9 (+), b 0.5, c 0.5 (+), d 0.1 -> pairs a>b, a>d, c=b (1/2), c>d: 3.5/4 = 0.875
# w: y 0.2 (+), z 0.8 -> 0/1 = 0;  v: x only (+), no negative -> undefined
RUN = Run.from_dict({"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}, "w": {"y": 0.2, "z": 0.8}, "v": {"x": 1.0}})
REL = {"u": ["a", "c"], "w": ["y"], "v": {"x": 2}}


def test_user_auc_hand_worked():
    values = user_auc(RUN, REL)
    assert values.per_query() == {"u": 0.875, "w": 0.0}
    assert values.undefined == 1


def test_gauc_hand_worked_each_weighting():
    # impressions: (4 x 0.875 + 2 x 0) / 6; clicks: (2 x 0.875 + 1 x 0) / 3; uniform: (0.875 + 0) / 2
    assert gauc(RUN, REL).value == pytest.approx(3.5 / 6)
    assert gauc(RUN, REL, weights="clicks").value == pytest.approx(1.75 / 3)
    assert gauc(RUN, REL, weights="uniform").value == pytest.approx(0.4375)
    result = gauc(RUN, REL)
    assert (result.users, result.positives, result.negatives) == (2, 3, 3)


def test_pooled_auc_hand_worked():
    # rows of v included: positives 0.9, 0.5, 0.2, 1.0 vs negatives 0.5, 0.1, 0.8: (3 + 1.5 + 1 + 3) / 12
    assert pooled_auc(RUN, REL).value == pytest.approx(8.5 / 12)


def test_grades_zero_are_not_positive_and_no_positive_is_nan():
    assert math.isnan(gauc(RUN, {"u": {"a": 0}}).value)


def test_unknown_weights_is_an_input_error():
    with pytest.raises(InputError, match="weights of gauc"):
        gauc(RUN, REL, weights="users")
    with pytest.raises(InputError, match="relevant must map"):
        gauc(RUN, 3)


def _random_log(seed=7, users=40):
    rng = np.random.default_rng(seed)
    run, rel = {}, {}
    for u in range(users):
        n = int(rng.integers(1, 12))
        scores = np.round(rng.random(n), 1)   # rounded: ties happen
        run[f"u{u}"] = {f"i{j}": float(s) for j, s in enumerate(scores)}
        rel[f"u{u}"] = [f"i{j}" for j in range(n) if rng.random() < 0.3]
    return Run.from_dict(run), run, rel


@pytest.mark.parity
def test_user_and_pooled_auc_equal_scikit_learn():
    from sklearn.metrics import roc_auc_score
    run, raw, rel = _random_log()
    ours = user_auc(run, rel).per_query()
    for u, items in raw.items():
        labels = [i in rel[u] for i in items]
        if 0 < sum(labels) < len(labels):
            assert ours[u] == pytest.approx(roc_auc_score(labels, list(items.values())))
        else:
            assert u not in ours
    labels = [i in rel[u] for u, items in raw.items() for i in items]
    scores = [s for items in raw.values() for s in items.values()]
    assert pooled_auc(run, rel).value == pytest.approx(roc_auc_score(labels, scores))


@pytest.mark.parity
def test_gauc_clicks_equals_recbole_gauc():
    try:
        from recbole.evaluator.metrics import GAUC
    except Exception as error:   # pragma: no cover - recbole is in the test extra
        pytest.skip(f"recbole not importable: {error}")
    run, raw, rel = _random_log(seed=11)
    rank_sums, lengths, positives = [], [], []
    for u, items in raw.items():
        labels = np.array([i in rel[u] for i in items])
        descending = rankdata(-np.array(list(items.values())))   # RecBole's rec.meanrank: average descending ranks
        rank_sums.append(descending[labels].sum())
        lengths.append(len(items))
        positives.append(labels.sum())
    theirs = GAUC.metric_info(object.__new__(GAUC), np.array(rank_sums, dtype=float)[:, None],
                              np.array(lengths, dtype=float), np.array(positives, dtype=float))
    assert gauc(run, rel, weights="clicks").value == pytest.approx(theirs)


def test_relevant_items_from_a_table_of_user_and_item():
    # A DataFrame of (user, item) rows names the relevant items as a mapping does (pandas' to_dict() would
    # give its columns instead, which must not be read as users).
    pandas = pytest.importorskip("pandas")
    table = pandas.DataFrame({"user": ["u", "u", "w"], "item": ["a", "c", "y"]})
    run = Run.from_dict({"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}, "w": {"y": 0.2, "z": 0.8}})
    # u: 3.5 of 4 pairs; w: 0 of 1 (hand-worked in the module's examples).
    assert user_auc(run, table).per_query() == {"u": 0.875, "w": 0.0}
