"""``rankproof.sklearn.scorer(..., qid=...)`` for per-document rankers, against LightGBM's own eval
(issue 14, point 12). LightGBM is a test-only dependency.

LGBMRanker is fitted on rows grouped by query; its ``evals_result_`` holds
LightGBM's ndcg@k of the eval set, which the scorer with the ``lightgbm``
preset must reproduce from ``predict`` and the query ids alone.
"""

from __future__ import annotations

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")
sklearn = pytest.importorskip("sklearn")
from sklearn.model_selection import GridSearchCV, GroupKFold  # noqa: E402

from rankproof.errors import InputError  # noqa: E402
from rankproof.sklearn import grouped_scores, ndcg_scorer, scorer  # noqa: E402

# eval_set is deprecated in LightGBM 4.7 for eval_X / eval_y, which older versions lack.
pytestmark = pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")

PARAMS = dict(n_estimators=8, num_leaves=4, min_child_samples=5, learning_rate=0.3, verbose=-1, n_jobs=1,
              deterministic=True, random_state=1)


def _queries(seed: int, count: int = 60):
    """Rows grouped by query (contiguous, as LightGBM wants), sizes 1-14, labels 0-3."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, count)
    qid = np.repeat(rng.permutation(10_000)[:count], sizes)   # ids not in sorted order
    y = rng.integers(0, 4, len(qid))
    X = rng.random((len(qid), 4))
    X[:, 0] += y * 0.3   # a learnable signal
    return X, y, qid, sizes


class QidRanker(lgb.LGBMRanker):
    """LGBMRanker taking a per-row ``qid`` (which scikit-learn can split by fold) instead of group sizes."""

    def fit(self, X, y, qid=None, **kwargs):
        starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
        return super().fit(X, y, group=np.diff(np.r_[starts, len(qid)]), **kwargs)


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_column_qid_scorer_matches_lightgbms_eval(k):
    X, y, qid, sizes = _queries(0)
    Xv, yv, qidv, sizesv = _queries(1)
    # The query id is column 4 of X (a feature LightGBM sees, as users sometimes leave it).
    X, Xv = np.column_stack([X, qid]), np.column_stack([Xv, qidv])
    ranker = lgb.LGBMRanker(**PARAMS).fit(X, y, group=sizes, eval_set=[(Xv, yv)], eval_group=[sizesv],
                                          eval_at=[k])
    expected = ranker.evals_result_["valid_0"][f"ndcg@{k}"][-1]
    assert ndcg_scorer(k, "lightgbm", qid=4)(ranker, Xv, yv) == pytest.approx(expected, abs=1e-12)
    # The rankproof default (linear gain, ties averaged, empty queries 0) is another number.
    assert abs(ndcg_scorer(k, qid=4)(ranker, Xv, yv) - expected) > 1e-6


def test_grid_search_with_routed_qid_matches_lightgbms_eval_on_every_split():
    X, y, qid, _ = _queries(2, 90)
    cv = GroupKFold(3)
    grid = {"num_leaves": [2, 4]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(QidRanker(**PARAMS).set_fit_request(qid=True), grid, cv=cv,
                              scoring=ndcg_scorer(5, "lightgbm", qid=True)).fit(X, y, qid=qid, groups=qid)
    for split, (train, test) in enumerate(cv.split(X, y, groups=qid)):
        for i, leaves in enumerate(grid["num_leaves"]):
            model = QidRanker(**{**PARAMS, "num_leaves": leaves})
            starts = np.flatnonzero(np.r_[True, qid[test][1:] != qid[test][:-1]])
            model.fit(X[train], y[train], qid=qid[train], eval_set=[(X[test], y[test])],
                      eval_group=[np.diff(np.r_[starts, len(test)])], eval_at=[5])
            expected = model.evals_result_["valid_0"]["ndcg@5"][-1]
            got = search.cv_results_[f"split{split}_test_score"][i]
            assert got == pytest.approx(expected, abs=1e-12), (split, leaves)


def test_grouped_scores_by_hand_and_pandas_columns():
    import pandas as pd

    true, score, offsets = grouped_scores([1, 0, 2, 0], [0.5, 0.1, 0.3, 0.9], [3, 1, 3, 1])
    assert (true.tolist(), score.tolist(), offsets.tolist()) == ([1, 2, 0, 0], [0.5, 0.3, 0.1, 0.9], [0, 2, 4])

    class FirstColumn:
        def predict(self, X):
            return X["score"].to_numpy()

    X = pd.DataFrame({"score": [0.9, 0.2, 0.5, 0.8], "qid": ["a", "a", "b", "b"]})
    y = np.array([0, 1, 1, 0])
    # Query a: relevant row at rank 2 (rr 1/2); b: relevant row at rank 2 (rr 1/2).
    assert scorer("rr", qid="qid")(FirstColumn(), X, y) == 0.5
    with pytest.raises(InputError, match="qid='user': X has no such column"):
        scorer("rr", qid="user")(FirstColumn(), X, y)
    with pytest.raises(InputError, match="one query id per row"):
        grouped_scores([1, 0], [0.5, 0.1], [1])
    with pytest.raises(InputError, match="qid must be a column name or index"):
        scorer("rr", qid=1.5)
    with pytest.raises(InputError, match=r"needs sklearn.set_config\(enable_metadata_routing=True\)"):
        scorer("rr", qid=True)
