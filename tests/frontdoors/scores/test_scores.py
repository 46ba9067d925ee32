"""evaluate_scores: hand values, the three input forms, the fast path against
the reference kernels, policies, counts, and bad input."""

from __future__ import annotations

import math
import zlib

from unittest import mock

import numpy as np
import pytest

from rankproof import Protocol, evaluate_scores
from rankproof.errors import InputError, MeasureError, ProtocolError, TieError
from rankproof.engines.dense import DenseEngine

LOG3 = math.log2(3)


def _heavy_ties(rng, rows, columns, levels=3):
    """Scores from a few values (many ties), integer grades 0-3, some all-zero rows."""
    y_true = rng.integers(0, 4, (rows, columns))
    y_true[rng.random(rows) < 0.2] = 0
    y_score = rng.integers(0, levels, (rows, columns)).astype(float) / 2
    return y_true, y_score


# -- hand-computed values ---------------------------------------------------------
def test_dense_matrix_by_hand():
    # Row 0: grades 2, 0, 1 in score order; DCG@2 = 2, ideal 2 + 1/log2(3).
    # Row 1: grades 0, 1, 3 in score order 0.1, 0.2, 0.3 -> order 3, 1, 0:
    # DCG@2 = 3 + 1/log2(3) = ideal, so 1.
    results = evaluate_scores([[2, 0, 1], [0, 1, 3]], [[0.9, 0.8, 0.1], [0.1, 0.2, 0.3]], ["ndcg@2", "dcg@2"])
    assert results.per_query("dcg@2") == pytest.approx({0: 2.0, 1: 3 + 1 / LOG3}, abs=1e-15)
    assert results.per_query("ndcg@2") == pytest.approx({0: 2 / (2 + 1 / LOG3), 1: 1.0}, abs=1e-15)


def test_tie_averaging_by_hand():
    # Grades 1, 0, 2 all tied: each rank gets the mean gain 1; DCG@2 = 1 + 1/log2(3).
    # Ideal: 2 + 1/log2(3). Masked entry (NaN) is not a candidate.
    results = evaluate_scores([[1, 0, 2, 5]], [[0.5, 0.5, 0.5, np.nan]], "ndcg@2")
    assert results.mean("ndcg@2") == pytest.approx((1 + 1 / LOG3) / (2 + 1 / LOG3), abs=1e-15)
    assert results.counts["masked_entries"] == 1


def test_tie_policies_by_hand():
    y_true, y_score = [[0, 1, 2]], [[1.0, 1.0, 1.0]]
    # input: column order 0, 1, 2 -> grades 0, 1, 2; DCG@1 = 0.
    assert evaluate_scores(y_true, y_score, "dcg@1", Protocol(ties="input")).mean("dcg@1") == 0.0
    # docid: column index descending -> grade 2 first.
    assert evaluate_scores(y_true, y_score, "dcg@1", Protocol(ties="docid")).mean("dcg@1") == 2.0
    # expected: mean gain 1.
    assert evaluate_scores(y_true, y_score, "dcg@1").mean("dcg@1") == pytest.approx(1.0)
    with pytest.raises(TieError, match=r"row 0 \(query 0\): columns 0, 1, 2 tie"):
        evaluate_scores(y_true, y_score, "dcg@1", Protocol(ties="error"))


def test_zero_rows_and_k_beyond_the_row():
    # A row with nothing relevant: 0 by default, 1 under zero_ideal=one, left out under exclude.
    y_true, y_score = [[0, 0], [1, 0]], [[0.2, 0.1], [0.1, 0.2]]
    assert evaluate_scores(y_true, y_score, "ndcg@5").per_query("ndcg@5") == pytest.approx(
        {0: 0.0, 1: 1 / LOG3})
    assert evaluate_scores(y_true, y_score, "ndcg@5", Protocol(zero_ideal="one")).values("ndcg@5")[0] == 1.0
    excluded = evaluate_scores(y_true, y_score, "ndcg@5", Protocol(zero_ideal="exclude"))
    assert excluded.per_query("ndcg@5") == pytest.approx({1: 1 / LOG3})


def test_binary_measures_use_rel_and_the_general_path():
    y_true, y_score = [[0, 2, 1]], [[0.9, 0.8, 0.7]]
    results = evaluate_scores(y_true, y_score, ["rr", "ap", "p@2", "r@1"], Protocol(rel=2))
    assert results.means() == pytest.approx({"rr": 0.5, "ap": 0.5, "p@2": 0.5, "r@1": 0.0})


def test_weights_are_sample_weights():
    y_true, y_score = [[1, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]]
    protocol = Protocol(aggregation="weighted")
    # Row values: 1 and 1/log2(3); weighted mean (3 * 1 + 1 * 0.6309) / 4.
    assert evaluate_scores(y_true, y_score, "ndcg", protocol, weights=[3, 1]).mean("ndcg") == pytest.approx(
        (3 + 1 / LOG3) / 4)
    assert evaluate_scores(y_true, y_score, "ndcg", protocol, weights={"0": 3, "1": 1}).mean(
        "ndcg") == pytest.approx((3 + 1 / LOG3) / 4)


def test_negative_grades_policies():
    y_true, y_score = [[-1, 1]], [[0.9, 0.1]]
    # zero: the -1 is non-relevant; the relevant doc is at rank 2.
    assert evaluate_scores(y_true, y_score, "ndcg", Protocol(negative_grades="zero")).mean(
        "ndcg") == pytest.approx(1 / LOG3)
    unjudged = evaluate_scores(y_true, y_score, "ndcg", Protocol(negative_grades="unjudged"))
    assert unjudged.mean("ndcg") == pytest.approx(1 / LOG3)
    assert unjudged.counts["unjudged_retrieved"] == 1
    condensed = evaluate_scores(y_true, y_score, "ndcg", Protocol(negative_grades="unjudged", unjudged="condense"))
    assert condensed.mean("ndcg") == 1.0


def test_float32_score_precision_ties_nearly_equal_scores():
    # 1 + 1e-12 and 1 differ as float64 but not as float32.
    y_true, y_score = [[0, 1]], [[1 + 1e-12, 1.0]]
    assert evaluate_scores(y_true, y_score, "dcg@1").mean("dcg@1") == 0.0
    assert evaluate_scores(y_true, y_score, "dcg@1", Protocol(score_precision="float32")).mean("dcg@1") == 0.5


def test_queries_name_the_rows_and_summary_states_the_pool():
    results = evaluate_scores([[1, 0]], [[0.3, 0.2]], "ndcg@1", queries=["alice"])
    assert results.queries == ["alice"]
    assert "note pool: each row's candidates" in results.summary()


def test_real_valued_relevance_is_allowed():
    # scikit-learn accepts real relevance; linear gain uses it as is.
    results = evaluate_scores([[0.5, 1.5]], [[0.2, 0.1]], "dcg@2")
    assert results.mean("dcg@2") == pytest.approx(0.5 + 1.5 / LOG3)


# -- input forms ------------------------------------------------------------------
def test_dense_masked_ragged_and_flat_forms_agree():
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 9, 40)
    rows = [(rng.integers(0, 4, n), rng.integers(0, 3, n) / 2) for n in lengths]
    width = int(lengths.max())
    dense_true = np.zeros((len(rows), width))
    dense_score = np.full((len(rows), width), np.nan)
    for i, (t, s) in enumerate(rows):
        dense_true[i, :len(t)], dense_score[i, :len(s)] = t, s
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    measures = ["ndcg@3", "ap", "rr@5", "p@2"]
    masked = evaluate_scores(dense_true, dense_score, measures)
    listed = evaluate_scores([t for t, _ in rows], [s for _, s in rows], measures)
    flat = evaluate_scores(np.concatenate([t for t, _ in rows]), np.concatenate([s for _, s in rows]), measures,
                           offsets=offsets)
    for m in measures:
        np.testing.assert_allclose(masked.values(m), listed.values(m), rtol=0, atol=1e-15)
        np.testing.assert_allclose(masked.values(m), flat.values(m), rtol=0, atol=1e-15)
    assert masked.counts["masked_entries"] == len(rows) * width - lengths.sum()


def test_tensor_like_input_is_read_without_importing_its_library():
    class Tensor:  # duck-typed like torch.Tensor
        def __init__(self, array):
            self.array = np.asarray(array)

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return self.array

    results = evaluate_scores(Tensor([[1, 0]]), Tensor([[0.1, 0.9]]), "ndcg")
    assert results.mean("ndcg") == pytest.approx(1 / LOG3)


def test_inputs_are_never_modified():
    rng = np.random.default_rng(5)
    y_true, y_score = _heavy_ties(rng, 20, 6)
    y_score[0, 0] = np.nan
    before = (y_true.copy(), y_score.copy())
    evaluate_scores(y_true, y_score, ["ndcg@3", "ap"], Protocol(negative_grades="zero"))
    np.testing.assert_array_equal(y_true, before[0])
    np.testing.assert_array_equal(y_score, before[1])


# -- the dense fast path against the reference kernels ------------------------------------
def _reference(y_true, y_score, measures, protocol):
    """Every measure by the reference kernels over the general alignment (no fast path)."""
    from rankproof.evaluation import evaluate_alignment, resolve_measures
    from rankproof.frontdoors.scores._align import score_alignment
    from rankproof.frontdoors.scores._input import read_scores

    scores = read_scores(y_true, y_score, None, None, protocol)
    return evaluate_alignment(score_alignment(scores, protocol), resolve_measures(measures, protocol), protocol,
                              run_name="y_score")


def _evaluate_noting_the_path(y_true, y_score, measures, protocol=Protocol()):
    """(results, did the dense fast path compute a measure)."""
    original = DenseEngine.evaluate
    taken = []

    def evaluate(self, alignment, measures, protocol):
        values = original(self, alignment, measures, protocol)
        taken.append(bool(values))
        return values

    with mock.patch.object(DenseEngine, "evaluate", evaluate):
        results = evaluate_scores(y_true, y_score, measures, protocol)
    return results, any(taken)


def _assert_fast_path_equals_reference(y_true, y_score, measures, protocol=Protocol()):
    """The dense fast path is taken and equals the general path's kernels, counts included."""
    fast, taken = _evaluate_noting_the_path(y_true, y_score, measures, protocol)
    assert taken
    reference = _reference(y_true, y_score, measures, protocol)
    for m in measures:
        np.testing.assert_allclose(fast.values(m), reference.values(m), rtol=0, atol=1e-12)
    assert fast.counts == reference.counts


def test_other_measures_use_the_reference_kernels_alongside_the_fast_path():
    rng = np.random.default_rng(2)
    y_true, y_score = _heavy_ties(rng, 100, 8)
    measures = ["ndcg@3", "ap@5", "rr", "p@2", "dcg@4"]
    _assert_fast_path_equals_reference(y_true, y_score, measures)


@pytest.mark.parametrize("gain", ["linear", "exp2", "map:0=0/1=5/2=1/3=2"])
@pytest.mark.parametrize("discount", ["log2", "reciprocal", "log:10", "vector:1/0.5/0.25"])
def test_fast_path_agrees_with_the_reference_kernel(gain, discount):
    # A seed from the parameters' text: hash() of a str changes between processes.
    rng = np.random.default_rng(zlib.crc32(f"{gain} {discount}".encode()))
    y_true, y_score = _heavy_ties(rng, 300, 9)
    measures = ["ndcg@1", "ndcg@3", "dcg@4", "ideal_dcg@2", "ndcg@9", "ndcg@20", "ndcg"]
    _assert_fast_path_equals_reference(y_true, y_score, measures, Protocol(gain=gain, discount=discount))


def test_fast_path_with_real_relevance():
    rng = np.random.default_rng(11)
    y_true = rng.random((50, 6)) * 3
    y_score = rng.integers(0, 2, (50, 6)).astype(float)
    fast = evaluate_scores(y_true, y_score, ["ndcg@2", "ndcg@6"])
    reference = _reference(y_true, y_score, ["ndcg@2", "ndcg@6"], Protocol())
    for m in ["ndcg@2", "ndcg@6"]:
        np.testing.assert_allclose(fast.values(m), reference.values(m), rtol=0, atol=1e-12)


@pytest.mark.parametrize("gain", ["linear", "exp2", "map:0=0.5/1=1/2=3/3=2"])
@pytest.mark.parametrize("real", [False, True])
def test_fast_path_with_masked_entries_agrees_with_the_reference_kernel(gain, real):
    rng = np.random.default_rng(17)
    y_true, y_score = _heavy_ties(rng, 200, 9)
    y_true = y_true * 1.5 if real else y_true
    mask = rng.random(y_score.shape) < 0.4  # many rows shorter than k, a few empty
    mask[:3] = True
    y_score[mask] = np.nan
    if real:
        y_true[mask] = np.nan  # relevance of masked entries is never read
    measures = ["ndcg@1", "ndcg@3", "dcg@5", "ideal_dcg@4", "ndcg@12", "ndcg"]
    _assert_fast_path_equals_reference(y_true, y_score, measures, Protocol(gain=gain))


def test_a_real_minus_infinity_score_beside_masked_entries_takes_the_general_path():
    y_true, y_score = [[1, 0, 2]], [[-np.inf, np.nan, 0.5]]
    results, taken = _evaluate_noting_the_path(y_true, y_score, "dcg@2")
    assert not taken
    assert results.mean("dcg@2") == pytest.approx(2 + 1 / LOG3)


def test_fast_path_counts_ties_crossing_the_cutoff():
    # Row 0: scores 3, 2, 2, 2, 1 -> the tied group of three holds ranks 2-4: crosses k=2.
    results, taken = _evaluate_noting_the_path([[1, 0, 1, 0, 1]], [[3, 2, 2, 2, 1]], "ndcg@2")
    assert taken
    assert results.counts["tied_groups_crossing_cutoff"] == {"ndcg@2": 1}
    assert (results.counts["tied_groups"], results.counts["tied_docs"]) == (1, 3)
    # Rank 2 holds one of the three tied docs (grades 0, 1, 0): expected gain 1/3.
    # DCG@2 = 1 + (1/3) / log2(3); ideal 1 + 1/log2(3).
    assert results.mean("ndcg@2") == pytest.approx((1 + 1 / 3 / LOG3) / (1 + 1 / LOG3), abs=1e-15)


def test_to_pandas_works_on_the_fast_path():
    results = evaluate_scores([[1, 0], [0, 0]], [[0.1, 0.2], [0.3, 0.3]], "ndcg@1")
    frame = results.to_pandas()
    assert frame["query"].tolist() == [0, 1]   # the row index, an integer
    assert frame["ndcg@1:ideal_dcg"].tolist() == [1.0, 0.0]


# -- bad input ----------------------------------------------------------------------
BAD_INPUT = [
    # (y_true, y_score, kwargs, error, message fragment)
    ([[1, 0]], [[0.1, 0.2, 0.3]], {}, InputError, r"y_true has shape \(1, 2\) but y_score has shape \(1, 3\)"),
    ([1, 0], [0.1, 0.2], {}, InputError, r"y_true has shape \(2,\); give 2-D arrays"),
    ([[[1]]], [[[0.1]]], {}, InputError, r"shape \(1, 1, 1\)"),
    ([[1, -1]], [[0.1, 0.2]], {}, InputError, r"row 0 \(query 0\), column 1: negative relevance -1; set the policy negative_grades=zero"),
    ([[1, 0], [1, np.nan]], [[0.1, 0.2], [0.3, 0.4]], {}, InputError, r"row 1 \(query 1\), column 1: relevance is nan"),
    ([[1, np.inf]], [[0.1, 0.2]], {}, InputError, r"column 1: relevance is inf"),
    ([["a", "b"]], [[0.1, 0.2]], {}, InputError, r"y_true holds <U1 values; give numbers"),
    ([[1, 0]], [[0.1, 0.2]], {"queries": ["a", "b"]}, InputError, r"queries= names 2 rows but there are 1"),
    ([[1, 0], [0, 1]], [[0.1, 0.2]] * 2, {"queries": ["a", "a"]}, InputError, r"names 'a' twice"),
    ([np.array([1, 0]), np.array([1])], [np.array([0.1, 0.2]), np.array([0.1, 0.2])], {}, InputError,
     r"row 1: 1 relevance values but 2 scores"),
    ([1, 0, 1], [0.1, 0.2, 0.3], {"offsets": [0, 2]}, InputError, r"offsets must start at 0 and end at the number of entries \(3\)"),
    ([1, 0, 1], [0.1, 0.2, 0.3], {"offsets": [0, 2, 1, 3]}, InputError, r"offsets decrease at row 1"),
    ([1, 0, 1], [0.1, np.nan, 0.3], {"offsets": [0, 2, 3]}, InputError, r"row 0 \(query 0\), position 1: the score is NaN"),
    ([1, 0, 1], [0.1, 0.2], {"offsets": [0, 2, 3]}, InputError, r"y_true has 3 entries and y_score 2"),
    (np.zeros((0, 3)), np.zeros((0, 3)), {}, InputError, r"there are no rows to evaluate"),
    ([[1, 0]], [[0.1, 0.2]], {"weights": [1]}, InputError, r"set the policy aggregation=weighted"),
    ([[1, 0]], [[0.1, 0.2]], {"weights": [1, 2], "protocol": Protocol(aggregation="weighted")}, InputError,
     r"weights has 2 values for 1 rows"),
    ([[1, 0]], [[0.1, 0.2]], {"weights": [-1], "protocol": Protocol(aggregation="weighted")}, InputError,
     r"row 0 \(query 0\) has weight -1.0"),
    ([[1, 0]], [[0.1, 0.2]], {"protocol": Protocol(aggregation="weighted")}, InputError,
     r"pass weights=\[one per row\]"),
    ([[1, 0]], [[0.1, 0.2]], {"measures": "ndcg@0"}, MeasureError, r"the cutoff k of ndcg must be >= 1"),
    ([[1, 0]], [[0.1, 0.2]], {"protocol": "sklearnn"}, ProtocolError, r"unknown preset 'sklearnn'; did you mean sklearn"),
]


@pytest.mark.parametrize("y_true, y_score, kwargs, error, message", BAD_INPUT)
def test_bad_input_gets_a_clear_error(y_true, y_score, kwargs, error, message):
    kwargs = dict(kwargs)
    measures = kwargs.pop("measures", "ndcg@2")
    protocol = kwargs.pop("protocol", None)
    with pytest.raises(error, match=message):
        evaluate_scores(y_true, y_score, measures, protocol, **kwargs)


def _edge_inputs():
    rng = np.random.default_rng(23)
    infinite = rng.integers(0, 3, (20, 6)) * 1.0
    infinite[0, :] = np.inf
    infinite[1, :2] = -np.inf
    return {
        "one column": (rng.integers(0, 3, (20, 1)), rng.integers(0, 2, (20, 1)) * 1.0),
        "uint8 grades, float32 scores": (rng.integers(0, 3, (20, 5)).astype(np.uint8),
                                         rng.random((20, 5)).astype(np.float32)),
        "wide grade range": (rng.integers(0, 1000, (20, 6)), rng.integers(0, 3, (20, 6)) * 1.0),
        "bool grades, Fortran order": (rng.random((20, 6)) < 0.3,
                                       np.asfortranarray(rng.integers(0, 3, (20, 6)) * 1.0)),
        "infinite scores": (rng.integers(0, 3, (20, 6)), infinite),
    }


@pytest.mark.parametrize("case", list(_edge_inputs()))
def test_fast_path_edge_inputs_agree_with_the_reference_kernel(case):
    y_true, y_score = _edge_inputs()[case]
    measures = ["ndcg@1", "ndcg@3", "ndcg@100", "dcg"]
    _assert_fast_path_equals_reference(y_true, y_score, measures)


def test_row_names_keep_their_dtype_and_row_order():
    # Issue 14, point 6: rows named by integer user ids come back as integers, in row order.
    y_true, y_score = [[1, 0], [0, 1], [1, 0]], [[0.9, 0.1], [0.9, 0.1], [0.1, 0.9]]
    results = evaluate_scores(y_true, y_score, "p@1", queries=[101, 7, 55])
    assert results.per_query("p@1") == {101: 1.0, 7: 0.0, 55: 0.0}
    assert results.to_pandas()["query"].tolist() == [101, 7, 55]
    assert evaluate_scores(y_true, y_score, "p@1").queries == [0, 1, 2]
    weighted = evaluate_scores(y_true, y_score, "p@1", "aggregation=weighted", weights={0: 1, 1: 0, 2: 0})
    assert weighted.mean("p@1") == 1.0


# -- the matrix and the long-log paths share one pool (issue 14, point 7) ----------------
def _candidates_and_truth(seed: int):
    """Users with a few liked items in a catalogue of 30, and 6 scored candidates each
    (a retrieval stage's output: most liked items are not among them)."""
    rng = np.random.default_rng(seed)
    users = 12
    liked = [rng.choice(30, size=rng.integers(1, 6), replace=False) for _ in range(users)]
    candidates = [rng.choice(30, size=6, replace=False) for _ in range(users)]
    # Integer scores: ties, averaged the same way by both paths (ties=expected).
    scores = [rng.integers(0, 4, size=6).astype(float) for _ in range(users)]
    return liked, candidates, scores


@pytest.mark.parametrize("seed", range(5))
def test_num_relevant_makes_the_matrix_agree_with_the_long_log(seed):
    import pandas as pd
    from rankproof import evaluate_frame

    liked, candidates, scores = _candidates_and_truth(seed)
    truth = pd.DataFrame({"user": np.repeat(np.arange(len(liked)), [len(x) for x in liked]),
                          "item": np.concatenate(liked)})
    predictions = pd.DataFrame({"user": np.repeat(np.arange(len(candidates)), 6),
                                "item": np.concatenate(candidates), "score": np.concatenate(scores)})
    y_true = [np.isin(c, x).astype(int) for c, x in zip(candidates, liked)]
    measures = ["r@3", "r@20", "ndcg@3", "ndcg", "ap", "rr", "p@3"]
    frame = evaluate_frame(truth, predictions, measures, rating=None)
    matrix = evaluate_scores(np.array(y_true), np.array(scores), measures, num_relevant=[len(x) for x in liked])
    assert frame.queries == matrix.queries == list(range(12))
    for measure in measures:
        np.testing.assert_allclose(matrix.values(measure), frame.values(measure), rtol=0, atol=1e-12,
                                   err_msg=measure)
    assert matrix.counts["relevant_outside_candidates"] == sum(len(x) for x in liked) - sum(
        int(t.sum()) for t in y_true)
    assert "num_relevant=" in matrix.summary()
    # Without num_relevant each row is its own pool: r@20 counts only the relevant
    # candidates (1 for every row with a hit), and the summary says what is missed.
    alone = evaluate_scores(np.array(y_true), np.array(scores), "r@20")
    hits = np.array([t.any() for t in y_true])
    assert alone.values("r@20")[hits].tolist() == [1.0] * int(hits.sum())
    assert "recall and ideal DCG miss the relevant items outside them: pass num_relevant=" in alone.summary()


def test_num_relevant_by_hand_and_its_errors():
    # One liked item of 4 is a candidate, ranked 2nd: r@3 = 1/4, rr = 1/2,
    # ndcg@3 = (1/log2 3) / (1 + 1/log2 3 + 1/2), ap = (1/2) / 4.
    results = evaluate_scores([[0, 1, 0]], [[0.9, 0.5, 0.1]], ["r@3", "rr", "ndcg@3", "ap"], num_relevant=[4])
    assert results.means() == pytest.approx({"r@3": 0.25, "rr": 0.5, "ndcg@3": (1 / LOG3) / (1.5 + 1 / LOG3),
                                             "ap": 0.125}, abs=1e-15)
    with pytest.raises(InputError, match=r"row 0 \(query 0\) says 0 relevant items, but 1 of its candidates"):
        evaluate_scores([[0, 1, 0]], [[0.9, 0.5, 0.1]], "r@3", num_relevant=[0])
    with pytest.raises(InputError, match=r"num_relevant has 2 values for 1 rows"):
        evaluate_scores([[0, 1, 0]], [[0.9, 0.5, 0.1]], "r@3", num_relevant=[1, 2])
    with pytest.raises(InputError, match=r"num_relevant: row 0 \(query 0\) has 1.5"):
        evaluate_scores([[0, 1, 0]], [[0.9, 0.5, 0.1]], "r@3", num_relevant=[1.5])


@pytest.mark.parametrize("rows", [1, 2, 9, 10, 11, 99, 100, 101, 12345, 100001])
def test_rows_are_named_by_their_number(rows):
    from rankproof.frontdoors.scores._input import decimal_names

    names = decimal_names(rows)
    assert names.shape == (rows,)
    assert names.tolist() == [str(i) for i in range(rows)]
