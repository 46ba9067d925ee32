"""Hand-computed checks of the reference (oracle) measures in reference.py."""

from __future__ import annotations

import inspect
import math
import random

import pytest

import reference as ref

approx = pytest.approx


def docs_with_grades(grades):
    """Docs "d1", "d2", ... in rank order, and the pool that grades them."""
    ranking = [f"d{i}" for i in range(1, len(grades) + 1)]
    return ranking, dict(zip(ranking, grades))


def rel_ranking(flags, num_relevant):
    """A ranking whose i-th doc is relevant iff flags[i]; the pool has
    ``num_relevant`` relevant docs (the unretrieved ones are added to it)."""
    ranking = [f"r{i}" for i in range(len(flags))]
    pool = {doc: (1 if f else 0) for doc, f in zip(ranking, flags)}
    missing = num_relevant - sum(flags)
    assert missing >= 0
    for j in range(missing):
        pool[f"unretrieved{j}"] = 1
    return ranking, pool


# ---------------------------------------------------------------------------
# DCG / NDCG
# ---------------------------------------------------------------------------

Q1 = {"A": 3, "B": 2, "C": 1, "D": 0}


def test_q1_dcg_ideal_ndcg():
    # dcg = 2/log2(2) + 1/log2(3) = 2 + 0.630930
    assert ref.dcg(["B", "C"], Q1, k=2) == approx(2.630930, abs=1e-6)
    # ideal over all pool gains [3, 2, 1, 0]: 3 + 2/log2(3)
    assert ref.ideal_dcg(["B", "C"], Q1, k=2) == approx(4.261860, abs=1e-6)
    assert ref.ndcg(["B", "C"], Q1, k=2) == approx(0.617320, abs=1e-6)


def test_q1_ndcg_retrieved_ideal():
    # the retrieved gains [2, 1] are already in the best order
    assert ref.ideal_dcg(["B", "C"], Q1, k=2, ideal="retrieved") == approx(2.630930, abs=1e-6)
    assert ref.ndcg(["B", "C"], Q1, k=2, ideal="retrieved") == approx(1.0, abs=1e-12)


def test_q1_perfect_and_short_rankings():
    assert ref.ndcg(["A", "B"], Q1, k=2) == approx(1.0, abs=1e-12)
    # a ranking shorter than k: the judged ideal still uses k=2 positions
    assert ref.ndcg(["B"], Q1, k=2) == approx(0.469279, abs=1e-6)


def test_graded_five_docs():
    ideal_ranking, ideal_pool = docs_with_grades([3, 3, 1, 0, 0])
    # 3 + 3/log2(3) + 1/2
    assert ref.dcg(ideal_ranking, ideal_pool, k=5) == approx(5.3928, abs=1e-4)
    assert ref.ideal_dcg(ideal_ranking, ideal_pool, k=5) == approx(5.3928, abs=1e-4)

    ranking, pool = docs_with_grades([1, 0, 3, 3, 0])
    # 1 + 0 + 3/2 + 3/log2(5)
    assert ref.dcg(ranking, pool, k=5) == approx(3.7920, abs=1e-4)
    assert ref.ndcg(ranking, pool, k=5) == approx(0.7032, abs=1e-4)
    # exp2 gains [1, 0, 7, 7, 0] against ideal [7, 7, 1, 0, 0]
    assert ref.ndcg(ranking, pool, k=5, gain="exp2") == approx(0.6306, abs=1e-4)


def test_gain_mapping_and_discounts():
    ranking, pool = docs_with_grades([1, 0, 2])
    gain = {0: 0.0, 1: 10.0, 2: 100.0}
    assert ref.dcg(ranking, pool, gain=gain, discount="reciprocal") == approx(10 + 0 + 100 / 3)
    # a discount vector: d(i) = vector[i-1], 0 past its end
    assert ref.dcg(ranking, pool, discount=[1.0, 0.5]) == approx(1.0)
    assert ref.dcg(ranking, pool, discount=(0.0, 0.0, 2.0)) == approx(4.0)
    # ideal gains [100, 10, 0] with d = [1, 0.5]: 105
    assert ref.ideal_dcg(ranking, pool, gain=gain, discount=[1.0, 0.5]) == approx(105.0)
    with pytest.raises(KeyError):
        ref.dcg(ranking, pool, gain={1: 1.0, 2: 3.0})  # no gain for grade 0


def test_unjudged_docs_gain_nothing_and_k_none():
    pool = {"a": 2, "b": 1}
    assert ref.dcg(["x", "a", "y", "b"], pool) == approx(2 / math.log2(3) + 1 / math.log2(5))
    # ideal="judged" with k=None uses all pool docs; "retrieved" all ranked docs
    assert ref.ideal_dcg(["x"], pool) == approx(2 + 1 / math.log2(3))
    assert ref.ideal_dcg(["x", "a"], pool, ideal="retrieved") == approx(2.0)
    assert ref.dcg([], pool, k=3) == 0.0


def test_ndcg_undefined_when_ideal_is_zero():
    assert ref.ndcg(["a", "b"], {"a": 0, "b": 0}, k=2) is None
    assert ref.ndcg(["a"], {}, k=1) is None
    # retrieved ideal is 0 when nothing retrieved is relevant, even if R > 0
    assert ref.ndcg(["x"], {"a": 1}, ideal="retrieved") is None
    assert ref.ndcg(["x"], {"a": 1}) == 0.0


# ---------------------------------------------------------------------------
# Set and rank measures
# ---------------------------------------------------------------------------


def test_ap_and_rr():
    ranking, pool = rel_ranking([1, 0, 1, 0, 1], num_relevant=3)
    assert ref.ap(ranking, pool) == approx((1 + 2 / 3 + 3 / 5) / 3, abs=1e-12)
    assert ref.ap(ranking, pool) == approx(0.7556, abs=1e-4)
    assert ref.ap(ranking, pool, k=3) == approx((1 + 2 / 3) / 3, abs=1e-12)

    ranking, pool = rel_ranking([0, 1, 0, 0], num_relevant=1)
    assert ref.rr(ranking, pool) == 0.5
    assert ref.rr(ranking, pool, k=1) == 0.0
    assert ref.rr(ranking, pool, k=2) == 0.5


def test_ap_counts_unretrieved_relevant_in_r():
    ranking, pool = rel_ranking([1, 0, 1, 0, 1], num_relevant=5)
    assert ref.ap(ranking, pool) == approx((1 + 2 / 3 + 3 / 5) / 5, abs=1e-12)


def test_precision_recall_hit_rprec_counts():
    ranking, pool = rel_ranking([1, 0, 1, 0, 1], num_relevant=4)
    assert ref.p(ranking, pool, k=2) == 0.5
    assert ref.p(ranking, pool, k=10) == 3 / 10  # divide by k, not by n
    assert ref.p(ranking, pool) == 3 / 5  # k=None divides by n
    assert ref.p([], pool) == 0.0
    assert ref.r(ranking, pool, k=3) == 2 / 4
    assert ref.r(ranking, pool) == 3 / 4
    assert ref.hit(ranking, pool, k=1) == 1.0
    assert ref.hit(ranking[1:], pool, k=1) == 0.0
    assert ref.rprec(ranking, pool) == 2 / 4  # top R=4: [1, 0, 1, 0]
    assert ref.rprec(ranking[:2], pool) == 1 / 4  # ranking shorter than R
    assert ref.num_ret(ranking, pool, k=3) == 3
    assert ref.num_ret(ranking, pool, k=10) == 5
    assert ref.num_ret(ranking, pool) == 5
    assert ref.num_rel(pool) == 4
    assert ref.num_rel_ret(ranking, pool, k=3) == 2
    assert ref.num_rel_ret(ranking, pool) == 3


def test_rel_threshold():
    ranking, pool = docs_with_grades([1, 2, 0, 3])
    assert ref.num_rel(pool, rel=2) == 2
    assert ref.p(ranking, pool, k=2, rel=2) == 0.5
    assert ref.rr(ranking, pool, rel=2) == 0.5
    assert ref.ap(ranking, pool, rel=2) == approx((1 / 2 + 2 / 4) / 2)
    assert ref.r(ranking, pool, rel=4) is None


def test_undefined_when_no_relevant():
    pool = {"a": 0}
    for fn in (ref.r, ref.ap, ref.bpref):
        assert fn(["a"], pool) is None
    assert ref.rprec(["a"], pool) is None
    assert ref.rr(["a"], pool) == 0.0
    assert ref.hit(["a"], pool) == 0.0
    assert ref.p(["a"], pool) == 0.0


def test_judged():
    pool = {"a": 0, "b": 1}
    assert ref.judged(["a", "x", "b", "y"], pool, k=2) == 0.5
    assert ref.judged(["a", "x", "b", "y"], pool, k=10) == 2 / 10
    assert ref.judged(["a", "x", "b", "y"], pool) == 2 / 4
    assert ref.judged([], pool) == 0.0


# ---------------------------------------------------------------------------
# bpref
# ---------------------------------------------------------------------------


def test_bpref_hand_example():
    # Pool: relevant r1, r2, r3 (R = 3); judged non-relevant n1, n2 (N = 2);
    # u1, u2 are unjudged.  min(N, R) = 2.
    pool = {"r1": 1, "r2": 1, "r3": 1, "n1": 0, "n2": 0}
    ranking = ["r1", "u1", "n1", "r2", "n2", "u2", "r3"]
    # Walk: r1 -> no non-relevant seen yet:            +1
    #       u1 -> unjudged, skipped
    #       n1 -> nonrel_so_far = 1
    #       r2 -> 1 - min(1, 3) / 2 = 0.5             +0.5
    #       n2 -> nonrel_so_far = 2
    #       u2 -> unjudged, skipped
    #       r3 -> 1 - min(2, 3) / 2 = 0               +0
    # bpref = (1 + 0.5 + 0) / 3 = 0.5
    assert ref.bpref(ranking, pool) == approx(0.5, abs=1e-12)
    # k cuts positions of the ranking as given (unjudged u1 takes rank 2):
    # k=4 keeps r1, u1, n1, r2 -> (1 + 0.5) / 3;  k=3 keeps r1 only -> 1/3.
    assert ref.bpref(ranking, pool, k=4) == approx(0.5, abs=1e-12)
    assert ref.bpref(ranking, pool, k=3) == approx(1 / 3, abs=1e-12)
    # Unretrieved relevant docs still count in R: dropping r3 changes nothing
    # here because r3 contributed 0.
    assert ref.bpref(ranking[:-1], pool) == approx(0.5, abs=1e-12)


def test_bpref_min_n_r_and_threshold():
    # N = 4 > R = 1: min(nonrel, R) / min(N, R) = 1 after one non-relevant doc.
    pool = {"r": 2, "n1": 0, "n2": 0, "n3": 0, "n4": 0}
    assert ref.bpref(["n1", "r"], pool) == 0.0
    assert ref.bpref(["r", "n1"], pool) == 1.0
    # rel=2 makes "b" (grade 1) judged non-relevant: R = 1 (a), N = 2 (b, c).
    pool = {"a": 2, "b": 1, "c": 0}
    assert ref.bpref(["b", "a"], pool, rel=2) == 0.0
    # rel=1: R = 2 (a, b), N = 1 (c); no non-relevant doc precedes either.
    assert ref.bpref(["b", "a"], pool, rel=1) == 1.0
    # N = 0: every retrieved relevant doc scores 1.
    assert ref.bpref(["x", "a"], {"a": 1, "b": 1}) == 0.5


# ---------------------------------------------------------------------------
# Ties
# ---------------------------------------------------------------------------

SKLEARN_GRADES = dict(zip("abcde", [10, 0, 0, 1, 5]))
SKLEARN_SCORED = list(zip("abcde", [1, 0, 0, 0, 1]))


def test_tie_groups_and_order_docid():
    assert ref.tie_groups(SKLEARN_SCORED) == [["e", "a"], ["d", "c", "b"]]
    assert ref.order_docid(SKLEARN_SCORED) == ["e", "a", "d", "c", "b"]
    scored = [("a", 0.5), ("B", 0.5), ("b", 0.5), ("z", 2.0), ("y", -1)]
    # code point order: "B" < "a" < "b"
    assert ref.order_docid(scored) == ["z", "b", "a", "B", "y"]
    assert ref.tie_groups(scored) == [["z"], ["b", "a", "B"], ["y"]]
    assert ref.order_docid([]) == []
    assert ref.tie_groups([]) == []
    with pytest.raises(ValueError):
        ref.order_docid([("a", 1.0), ("a", 2.0)])


def test_sklearn_documented_tie_example():
    # scikit-learn's dcg_score/ndcg_score docs: true relevance [10, 0, 0, 1, 5],
    # scores [1, 0, 0, 0, 1], k=1 -> dcg 7.5 = (10 + 5) / 2, ndcg 0.75.
    assert ref.expected(ref.dcg, SKLEARN_SCORED, SKLEARN_GRADES, k=1) == approx(7.5, abs=1e-12)
    assert ref.expected(ref.ndcg, SKLEARN_SCORED, SKLEARN_GRADES, k=1) == approx(0.75, abs=1e-12)
    # trec_eval's tie-break puts "e" (grade 5) first.
    assert ref.dcg(ref.order_docid(SKLEARN_SCORED), SKLEARN_GRADES, k=1) == 5.0


def test_expected_without_ties_is_the_measure():
    scored = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    pool = {"a": 0, "b": 1, "c": 2}
    for name, fn in ref.MEASURES.items():
        value = fn(["a", "b", "c"], pool)
        got = ref.expected(fn, scored, pool)
        assert got == approx(value, abs=1e-12), name


def test_expected_none_when_undefined():
    scored = [("a", 1.0), ("b", 1.0)]
    assert ref.expected(ref.ap, scored, {"a": 0}) is None
    assert ref.expected(ref.ndcg, scored, {"a": 0, "b": 0}, k=1) is None
    assert ref.expected(ref.ndcg, scored, {"x": 1}, ideal="retrieved") is None


def _closed_form_p(scored, pool, k, rel=1):
    """E[p@k] = sum over tie groups of r_g * m_g / n_g, divided by k.

    A group of n_g docs, r_g of them relevant, occupying m_g of the top-k
    positions puts r_g * m_g / n_g relevant docs in the top k on average.
    """
    groups = ref.tie_groups(scored)
    n = len(scored)
    cutoff = n if k is None else k
    start = 0
    total = 0.0
    for group in groups:
        n_g = len(group)
        r_g = sum(1 for d in group if d in pool and pool[d] >= rel)
        m_g = max(0, min(start + n_g, cutoff) - start)
        total += r_g * m_g / n_g
        start += n_g
    if cutoff == 0:
        return 0.0
    return total / cutoff


def _closed_form_dcg(scored, pool, k):
    """E[dcg@k]: each position gets the mean gain of its tie group."""
    groups = ref.tie_groups(scored)
    n = len(scored)
    limit = n if k is None else min(k, n)
    total = 0.0
    i = 1
    for group in groups:
        mean_gain = sum(pool.get(d, 0) for d in group) / len(group)
        for _ in group:
            if i <= limit:
                total += mean_gain / math.log2(i + 1)
            i += 1
    return total


@pytest.mark.parametrize(
    "scores, grades, k",
    [
        ([1, 1, 1], [1, 0, 0], 1),  # one group of 3 with 1 relevant: 1/3
        ([1, 1, 1], [1, 0, 0], 2),  # 1 * 2/3 / 2 = 1/3
        ([2, 1, 1, 0], [0, 1, 1, 0], 2),  # group {b,c} straddles rank 2-3
        ([5, 5, 3, 3, 3, 1], [1, 0, 1, 1, 0, 1], 3),
        ([5, 5, 3, 3, 3, 1], [1, 0, 1, 1, 0, 1], 4),
        ([0, 0, 0, 0], [2, 1, 0, 0], 10),  # k past the end
        ([0, 0, 0, 0], [2, 1, 0, 0], None),
    ],
)
def test_expected_p_matches_closed_form(scores, grades, k):
    docs = [chr(ord("a") + i) for i in range(len(scores))]
    scored = list(zip(docs, scores))
    pool = dict(zip(docs, grades))
    got = ref.expected(ref.p, scored, pool, k=k)
    assert got == approx(_closed_form_p(scored, pool, k), abs=1e-12)


def test_expected_p_closed_form_spot_values():
    scored = [("a", 1), ("b", 1), ("c", 1)]
    assert ref.expected(ref.p, scored, {"a": 1}, k=1) == approx(1 / 3, abs=1e-12)
    scored = [("a", 2), ("b", 1), ("c", 1), ("d", 0)]
    # group {b, c} has one relevant doc and one of its two slots is in the top 2
    assert ref.expected(ref.p, scored, {"b": 1}, k=2) == approx(0.25, abs=1e-12)


def test_expected_random_small_cases_match_closed_forms():
    rng = random.Random(20240611)
    for _ in range(300):
        n = rng.randint(0, 7)
        docs = [f"doc{i}" for i in range(n)]
        rng.shuffle(docs)
        scored = [(d, rng.choice([0.0, 0.5, 1.0, 2.0])) for d in docs]
        pool = {d: rng.randint(0, 3) for d in docs if rng.random() < 0.8}
        pool.update({f"extra{j}": rng.randint(0, 3) for j in range(rng.randint(0, 2))})
        k = rng.choice([None, 1, 2, 3, 5, 9])
        rel = rng.choice([1, 2])
        got = ref.expected(ref.p, scored, pool, k=k, rel=rel)
        assert got == approx(_closed_form_p(scored, pool, k, rel), abs=1e-12)
        got = ref.expected(ref.dcg, scored, pool, k=k)
        assert got == approx(_closed_form_dcg(scored, pool, k), abs=1e-12)


def test_expected_counts_every_order_once():
    # 2 groups of sizes 2 and 3 -> 2! * 3! = 12 orders; num_ret is constant.
    calls = []

    def spy(ranking, pool, **kwargs):
        calls.append(tuple(ranking))
        return 1.0

    ref.expected(spy, SKLEARN_SCORED, SKLEARN_GRADES)
    assert len(calls) == 12
    assert len(set(calls)) == 12
    assert all(set(c[:2]) == {"a", "e"} for c in calls)


# ---------------------------------------------------------------------------
# Registry and input checks
# ---------------------------------------------------------------------------


def test_measures_registry_matches_signatures():
    assert set(ref.MEASURES) == set(ref.MEASURE_PARAMS)
    for name, fn in ref.MEASURES.items():
        params = list(inspect.signature(fn).parameters)
        assert params[:2] == ["ranking", "pool"], name
        assert set(params[2:]) == ref.MEASURE_PARAMS[name], name
        # every measure runs with its defaults
        fn(["a", "x"], {"a": 1, "b": 0})


def test_input_validation():
    with pytest.raises(ValueError):
        ref.p(["a", "a"], {"a": 1})
    with pytest.raises(ValueError):
        ref.p(["a"], {"a": 1}, k=0)
    with pytest.raises(ValueError):
        ref.p(["a"], {"a": -1})
    with pytest.raises(ValueError):
        ref.dcg(["a"], {"a": 1}, gain="square")
    with pytest.raises(ValueError):
        ref.ndcg(["a"], {"a": 1}, ideal="best")
