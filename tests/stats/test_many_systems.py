"""Randomised Tukey HSD and MaxT over many systems: exact enumeration against a brute-force reference
written here, the two-system case against scipy's permutation test, properties (seeded, chunk-free,
invariant to the order of systems and topics), and the memory refusal."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rankproof.errors import InputError
from rankproof.stats import matrix as matrix_module
from rankproof.stats import permutation
from rankproof.stats.maxt import max_t
from rankproof.stats.tukey import tukey_hsd

SMALL = np.array([[0.10, 0.25, 0.40], [0.30, 0.20, 0.55], [0.15, 0.35, 0.45]])


def every_reassignment(scores):
    """Every within-topic permutation of the columns, as matrices (brute force)."""
    rows = [list(itertools.permutations(row)) for row in scores]
    for choice in itertools.product(*rows):
        yield np.array(choice)


def tukey_reference(scores, a, b):
    observed = abs(scores[:, a].mean() - scores[:, b].mean())
    count = total = 0
    for permuted in every_reassignment(scores):
        means = permuted.mean(axis=0)
        count += means.max() - means.min() >= observed - 1e-12
        total += 1
    return count / total


def t_stat(d):
    sd = d.std(ddof=1)
    if sd < 1e-12:
        return 0.0 if abs(d.mean()) < 1e-12 else math.copysign(math.inf, d.mean())
    return d.mean() / (sd / math.sqrt(len(d)))


def maxt_reference(scores, pairs):
    """Westfall-Young step-down, written out loop by loop."""
    observed = [abs(t_stat(scores[:, b] - scores[:, a])) for a, b in pairs]
    order = sorted(range(len(pairs)), key=lambda i: -observed[i])
    counts = [0] * len(pairs)
    total = 0
    for permuted in every_reassignment(scores):
        stats = [abs(t_stat(permuted[:, b] - permuted[:, a])) for a, b in pairs]
        for rank, i in enumerate(order):
            successive = max(stats[j] for j in order[rank:])
            counts[rank] += successive >= observed[i] * (1 - 1e-12)
        total += 1
    adjusted, running = [0.0] * len(pairs), 0.0
    for rank, i in enumerate(order):
        running = max(running, counts[rank] / total)
        adjusted[i] = running
    return adjusted


def test_tukey_exact_enumeration_matches_brute_force():
    result = tukey_hsd(SMALL, ["a", "b", "c"], n_resamples=10_000)
    assert result.exact and result.n_resamples == 6 ** 3
    for (i, x), (j, y) in itertools.combinations(enumerate("abc"), 2):
        assert result.pair(x, y).p_value == pytest.approx(tukey_reference(SMALL, i, j), abs=1e-12)


def test_tukey_random_permutations_approach_the_exact_p_values():
    rng = np.random.default_rng(3)
    scores = rng.random((5, 3)) + np.array([0.0, 0.1, 0.3])
    exact = tukey_hsd(scores, n_resamples=10 ** 6)
    sampled = tukey_hsd(scores, n_resamples=4000, seed=1)
    assert exact.exact and not sampled.exact
    for e, s in zip(exact.pairs, sampled.pairs):
        assert s.p_value == pytest.approx(e.p_value, abs=0.03)


@pytest.mark.slow
def test_tukey_agrees_with_the_studentized_range_on_normal_scores():
    """Many topics of normal noise: the permutation range distribution nears Tukey's parametric one."""
    from scipy import stats

    rng = np.random.default_rng(11)
    topics, systems = 60, 4
    scores = rng.normal(size=(topics, systems)) + rng.normal(size=(topics, 1)) + np.array([0, 0.2, 0.35, 0.5])
    result = tukey_hsd(scores, n_resamples=4000, seed=2)
    means = scores.mean(axis=0)
    residual = scores - scores.mean(axis=1, keepdims=True) - means + scores.mean()
    ms_error = (residual ** 2).sum() / ((topics - 1) * (systems - 1))
    for pair in result.pairs:
        q = abs(pair.difference) / math.sqrt(ms_error / topics)
        expected = stats.studentized_range.sf(q, systems, (topics - 1) * (systems - 1))
        assert pair.p_value == pytest.approx(expected, abs=0.04)


def test_maxt_exact_enumeration_matches_brute_force_all_pairs_and_baselines():
    pairs = [(0, 1), (0, 2), (1, 2)]
    result = max_t(SMALL, ["a", "b", "c"])
    assert result.exact
    assert [p.p_value for p in result.pairs] == pytest.approx(maxt_reference(SMALL, pairs), abs=1e-12)
    against = max_t(SMALL, ["a", "b", "c"], baselines=["b"])
    assert [(p.system_a, p.system_b) for p in against.pairs] == [("b", "a"), ("b", "c")]
    assert [p.p_value for p in against.pairs] == pytest.approx(maxt_reference(SMALL, [(1, 0), (1, 2)]), abs=1e-12)
    # A smaller family never adjusts more.
    for pair in against.pairs:
        assert pair.p_value <= result.pair(pair.system_a, pair.system_b).p_value + 1e-12


def test_maxt_of_two_systems_is_scipys_exact_permutation_test():
    from scipy import stats

    rng = np.random.default_rng(5)
    scores = rng.random((9, 2))
    result = max_t(scores, n_resamples=2 ** 9)
    assert result.exact
    peer = stats.permutation_test((scores[:, 1], scores[:, 0]), lambda x, y: np.mean(x - y),
                                  permutation_type="samples", n_resamples=np.inf)
    assert result.pairs[0].p_value == pytest.approx(peer.pvalue, abs=1e-12)


@pytest.mark.parametrize("procedure", [tukey_hsd, max_t])
def test_seeded_and_independent_of_the_chunk_size(procedure, monkeypatch):
    rng = np.random.default_rng(7)
    scores = rng.random((20, 4))
    first = procedure(scores, n_resamples=500, seed=9)
    assert procedure(scores, n_resamples=500, seed=9) == first
    monkeypatch.setattr(permutation, "BLOCK_VALUES", 37)
    assert procedure(scores, n_resamples=500, seed=9) == first


@pytest.mark.parametrize("procedure", [tukey_hsd, max_t])
def test_invariant_to_the_order_of_systems_and_topics(procedure):
    names = ["a", "b", "c"]
    result = procedure(SMALL, names)
    reordered = procedure(SMALL[::-1][:, [2, 0, 1]], ["c", "a", "b"])
    for pair in result.pairs:
        other = reordered.pair(pair.system_a, pair.system_b)
        assert other.p_value == pytest.approx(pair.p_value, abs=1e-12)
        assert abs(other.difference) == pytest.approx(abs(pair.difference), abs=1e-12)


def test_too_large_a_problem_is_refused_up_front(monkeypatch):
    monkeypatch.setattr(permutation, "MAX_CELLS", 100)
    monkeypatch.setattr(matrix_module, "MAX_CELLS", 100)
    with pytest.raises(InputError) as caught:
        max_t(np.random.default_rng(0).random((30, 5)))
    assert "\n" not in str(caught.value) and "fewer systems" in str(caught.value)


@pytest.mark.parametrize("bad, words", [
    ([[0.1, 0.2, 0.3]], "at least"),
    ([[0.1, np.nan], [0.2, 0.3]], "missing"),
    ([0.1, 0.2], "matrix"),
])
def test_bad_matrices_are_refused_in_one_line(bad, words):
    with pytest.raises(InputError, match=words):
        tukey_hsd(bad)


def test_unknown_baseline_is_refused():
    with pytest.raises(InputError, match="baseline z"):
        max_t(SMALL, ["a", "b", "c"], baselines="z")


@pytest.mark.slow
def test_tukey_near_statsmodels_pairwise_tukeyhsd_without_topic_effects():
    """Where the designs meet: no topic effect, many topics, normal noise. statsmodels' one-way Tukey HSD
    (k(n-1) residual degrees of freedom) and the randomised, topic-blocked one give close p-values."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    rng = np.random.default_rng(21)
    topics = 80
    scores = rng.normal(size=(topics, 3)) + np.array([0.0, 0.25, 0.45])
    result = tukey_hsd(scores, ["a", "b", "c"], n_resamples=4000, seed=4)
    peer = pairwise_tukeyhsd(scores.T.ravel(), np.repeat(["a", "b", "c"], topics))
    for (a, b), p in zip(itertools.combinations("abc", 2), peer.pvalues):
        assert result.pair(a, b).p_value == pytest.approx(p, abs=0.04)


def test_gram_paired_t_is_the_paired_t_of_the_differences_batched_or_not():
    # The Gram sums (step_down.gram_paired_t, what MaxT and its normal limit both read) against
    # scipy's paired t of each pair's differences; a constant difference is +-inf (the sign of
    # b - a), none is 0.
    from scipy.stats import ttest_rel

    from rankproof.stats.step_down import gram_paired_t

    rng = np.random.default_rng(7)
    scores = rng.random((9, 4))
    scores[:, 3] = scores[:, 0] + 0.125
    scores[:, 2] = scores[:, 1]
    first, second = np.array([0, 0, 1, 1, 0]), np.array([1, 2, 3, 2, 3])
    centred = scores - scores.mean(axis=1, keepdims=True)
    expected = [ttest_rel(scores[:, b], scores[:, a]).statistic
                for a, b in zip(first[:3], second[:3])]
    t = gram_paired_t(centred, first, second)
    assert t[:3] == pytest.approx(expected, rel=1e-9)
    assert t[3] == 0.0 and t[4] == math.inf
    batched = gram_paired_t(np.stack([centred, centred[::-1]]), first, second)
    assert batched[0].tolist() == t.tolist() and batched[1] == pytest.approx(t, rel=1e-12)
