"""score_precision=bfloat16 and float16: scores rounded as the formats hold them
(torch's bfloat16 and numpy's float16 conversions are the oracles), and the
count of tied groups the rounding made."""

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.pipeline.rows import apply_score_precision, precision_ties, round_bfloat16


def _samples() -> np.ndarray:
    rng = np.random.default_rng(7)
    # Every float32 bit pattern class: random bits (normals, subnormals, infinities, NaNs), halfway
    # cases (low 16 bits exactly 0x8000, odd and even kept bit), and numbers near the overflow.
    random_bits = rng.integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    kept = rng.integers(0, 2**16, size=2000, dtype=np.uint64).astype(np.uint32) << 16
    halfway = (kept | 0x8000).view(np.float32)
    near = (kept | 0x7FFF).view(np.float32)
    edges = np.array([0.0, -0.0, 1.0, 3.14159, -0.1, 3.3895314e38, 3.40e38, np.finfo(np.float32).max,
                      np.finfo(np.float32).tiny, 1e-45, np.inf, -np.inf], dtype=np.float32)
    with np.errstate(invalid="ignore"):  # NaN bit patterns
        return np.concatenate([random_bits, halfway, near, edges]).astype(np.float64)


def test_bfloat16_equals_torch():
    torch = pytest.importorskip("torch")
    scores = _samples()
    ours = round_bfloat16(scores)
    theirs = torch.from_numpy(scores.astype(np.float32)).to(torch.bfloat16).to(torch.float64).numpy()
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours[~nan], theirs[~nan])
    # The sign of zero is kept too.
    assert np.array_equal(np.signbit(ours[~nan]), np.signbit(theirs[~nan]))


def test_bfloat16_from_float64_rounds_through_float32_as_torch_does():
    torch = pytest.importorskip("torch")
    # 1 + 2^-8 + 2^-30: directly it would round up to 1 + 2^-7; float32 first drops 2^-30, leaving
    # a halfway case that rounds to even (1.0).
    scores = np.array([1 + 2**-8 + 2**-30, 1 + 2**-8, 1 + 3 * 2**-8, 1e300, -1e300, 1e-300])
    theirs = torch.from_numpy(scores).to(torch.bfloat16).to(torch.float64).numpy()
    assert round_bfloat16(scores).tolist() == theirs.tolist()
    assert round_bfloat16(scores)[0] == 1.0


def test_float16_equals_numpy():
    scores = _samples()
    held = apply_score_precision(scores, Protocol(score_precision="float16"))
    with np.errstate(over="ignore"):
        expected = scores.astype(np.float16).astype(np.float64)
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(held), nan)
    assert np.array_equal(held[~nan], expected[~nan])


@pytest.mark.parametrize("precision", ["float32", "bfloat16", "float16"])
def test_tied_groups_from_precision_counted(precision):
    # q1: 0.5001 and 0.5002 differ in float32 but not in bfloat16 (7 bits: steps of 2^-8 near 0.5)
    # nor in float16 (steps of 2^-11 = 0.00049); 0.9 stays apart. q2: 1.0 and 1.0 + 1e-9 tie
    # already in float32. q3: the tie of 0.25, 0.25 was there at full precision: not made by it.
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 1}, "q3": {"e": 1}})
    run = Run.from_dict({"q1": {"a": 0.5001, "b": 0.5002, "x": 0.9},
                         "q2": {"c": 1.0, "d": 1.0 + 1e-9},
                         "q3": {"e": 0.25, "f": 0.25}})
    counts = evaluate(qrels, run, ["p@1"], Protocol(score_precision=precision)).counts
    made = {"float32": 1, "bfloat16": 2, "float16": 2}[precision]
    assert counts["tied_groups_from_precision"] == made
    assert counts["tied_groups"] == made + 1
    assert "tied_groups_from_precision" not in evaluate(qrels, run, ["p@1"]).counts


def test_precision_ties_by_hand():
    query = np.array([0, 0, 0, 0, 1, 1, 1])
    score = np.array([1.0, 1.1, 1.2, 3.0, 2.0, 2.0, 2.05])
    held = np.array([1.0, 1.0, 1.0, 3.0, 2.0, 2.0, 2.0])
    # query 0: one group of three made from distinct scores; query 1: one group (2.0, 2.0, 2.05) made.
    assert precision_ties(query, score, held) == 2
    assert precision_ties(query, score, score) == 0
    assert precision_ties(np.array([0]), np.array([1.0]), np.array([1.0])) == 0


def test_precision_parses_and_round_trips():
    for text in ("bfloat16", "float16"):
        protocol = Protocol(score_precision=text)
        assert Protocol.from_text(str(protocol)) == protocol


@pytest.mark.parametrize("ragged", [False, True])
def test_score_matrices_count_the_ties_they_make(ragged):
    from rankproof import evaluate_scores

    # Row 0: 0.5001 and 0.5002 tie in bfloat16; row 1: 0.25 and 0.25 tied already, 0.7 apart.
    y_true = [[1, 0, 0], [0, 1, 0]]
    y_score = [[0.5001, 0.5002, 0.1], [0.25, 0.25, 0.7]]
    if ragged:
        y_true, y_score = [np.array(r) for r in y_true], [np.array(r) for r in y_score]
    counts = evaluate_scores(y_true, y_score, ["ndcg@1"], "score_precision=bfloat16").counts
    assert counts["tied_groups_from_precision"] == 1 and counts["tied_groups"] == 2
    assert "tied_groups_from_precision" not in evaluate_scores(y_true, y_score, ["ndcg@1"]).counts
