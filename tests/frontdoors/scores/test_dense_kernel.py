"""The dense kernel (rankproof._libs.dense) on the cases its shortcuts must not change.

The kernel keeps only the entries that can reach the top k (those scored at
least the least of k column groups' maxima), counts integer grades 0-15 in
packed fields and 16-63 in a table, and reads float32 scores and int32
grades as they are. Each case is held to the general path's kernels
(the reference, over the aligned rows) and to scikit-learn where it applies.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Protocol, evaluate_scores
from rankproof.evaluation import evaluate_alignment, resolve_measures
from rankproof.frontdoors.scores import DenseAlignment
from rankproof.frontdoors.scores._align import score_alignment
from rankproof.frontdoors.scores._input import read_scores

# Some rows are one tie on purpose: the front door's warning about them is not what is tested here.
pytestmark = pytest.mark.filterwarnings("ignore:.*all their scores equal")

MEASURES = ["ndcg@1", "ndcg@3", "ndcg@5", "dcg@10", "ideal_dcg@19", "ndcg@20", "ndcg@39", "ndcg"]


def _wide(seed: int, rows: int = 70, columns: int = 40, top_grade: int = 4):
    """Rows far wider than k (the kept entries are a part of the row), with heavy ties, and rows of
    one score, of ties at the cutoff, of +inf and -inf, and rows that are mostly masked."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, top_grade, (rows, columns))
    y_score = rng.integers(0, 6, (rows, columns)) / 5
    y_score[::7] = 0.5                                  # one tie per row
    y_score[1::7, :25] = 1.0                            # 25 tied at the top: across every cutoff < 25
    y_score[2::7, 3] = np.inf
    y_score[3::7, 5:9] = -np.inf
    y_score[4::7] = rng.random((len(y_score[4::7]), columns))   # no tie at all
    return y_true, y_score


def _masked(y_score, seed: int):
    rng = np.random.default_rng(seed)
    y_score = y_score.copy()
    y_score[rng.random(y_score.shape) < 0.3] = np.nan
    y_score[5::11, 2:] = np.nan                        # rows of one or two candidates
    y_score[np.isneginf(y_score)] = -5.0               # -inf beside masks takes the general path
    return y_score


def _assert_equals_reference(y_true, y_score, protocol=Protocol()):
    scores = read_scores(y_true, y_score, None, None, protocol)
    measures = resolve_measures(MEASURES, protocol)
    fast = evaluate_alignment(DenseAlignment(scores, protocol), measures, protocol, run_name="y_score")
    reference = evaluate_alignment(score_alignment(scores, protocol), measures, protocol, run_name="y_score")
    for m in measures:
        np.testing.assert_allclose(fast.values(m), reference.values(m), rtol=0, atol=1e-12, err_msg=str(m))


@pytest.mark.parametrize("gain", ["linear", "exp2", "map:0=0/1=5/2=1/3=2/17=4/70=9"])
@pytest.mark.parametrize("masked", [False, True])
def test_kept_entries_give_the_reference_values(gain, masked):
    y_true, y_score = _wide(7)
    _assert_equals_reference(y_true, _masked(y_score, 8) if masked else y_score, Protocol(gain=gain))


@pytest.mark.parametrize("top_grade", [16, 17, 64, 65, 300])
def test_grades_counted_past_the_packed_fields_and_sorted_past_the_table(top_grade):
    # 0-15: packed fields; 16-63: the table of 64; 64 and more: the gains sorted by insertion.
    y_true, y_score = _wide(top_grade, top_grade=top_grade)
    y_true[::3, 0] = top_grade - 1                      # the highest grade in every third row
    _assert_equals_reference(y_true, y_score)
    _assert_equals_reference(y_true, _masked(y_score, top_grade))


def test_real_grades_and_rows_of_more_than_255_entries():
    # The packed counters are flushed every 255 entries; real grades are never counted.
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 3, (6, 700))
    y_score = rng.integers(0, 40, (6, 700)) / 4
    _assert_equals_reference(y_true, y_score)
    _assert_equals_reference(y_true * 0.75, y_score)


def test_float32_scores_and_int32_grades_are_read_as_given():
    y_true, y_score = _wide(11)
    y_score = y_score.astype(np.float32)
    y_score[4::7] = np.float32(1) / np.arange(1, 41, dtype=np.float32)   # values float32 rounds
    as_float64 = evaluate_scores(y_true.astype(np.int64), y_score.astype(np.float64), MEASURES)
    given = evaluate_scores(y_true.astype(np.int32), y_score, MEASURES)
    for m in MEASURES:
        np.testing.assert_array_equal(given.values(m), as_float64.values(m), err_msg=m)
    # no copy of the matrices: the kernel reads the caller's buffers
    grades = y_true.astype(np.int32)
    alignment = DenseAlignment(read_scores(grades, y_score, None, None, Protocol()), Protocol())
    assert np.shares_memory(alignment.dense_matrix.score, y_score)
    assert np.shares_memory(alignment.dense_matrix.relevance, grades)
    _assert_equals_reference(grades, y_score)


def test_sklearn_parity_on_wide_rows():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    y_true, y_score = _wide(5)
    finite = np.where(np.isinf(y_score), np.sign(y_score) * 9.0, y_score)  # sklearn refuses infinities
    for k in (1, 3, 10, 19, 40):
        ours = evaluate_scores(y_true, finite, f"ndcg@{k}").mean(f"ndcg@{k}")
        assert ours == pytest.approx(sklearn_metrics.ndcg_score(y_true, finite, k=k), abs=1e-12)
