"""Properties every measure must have, checked with hypothesis."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.measures import REGISTRY

ALL_MEASURES = ["ndcg", "ndcg@3", "dcg@5", "ideal_dcg@3", "ap", "ap@5", "rr", "rr@3", "p@3", "p", "r@5",
                "r", "hit@2", "rprec", "bpref", "bpref@3", "judged@5", "num_ret@4", "num_rel",
                "num_rel_ret@3", "num_q"]
assert {m.split("@")[0] for m in ALL_MEASURES} == {n for n, s in REGISTRY.items() if s.family == "core"}

doc_ids = st.sampled_from([f"d{i}" for i in range(12)] + ["D0", "a#", "zz", "é"])


@st.composite
def collections(draw, max_queries=6):
    """{query: (pool, {doc: score})}: ties, unjudged docs, queries with nothing relevant."""
    num_queries = draw(st.integers(1, max_queries))
    case = {}
    for i in range(num_queries):
        pool = draw(st.dictionaries(doc_ids, st.integers(0, 4), min_size=1, max_size=8))
        ranked = draw(st.lists(doc_ids, min_size=1, max_size=10, unique=True))
        scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=len(ranked),
                               max_size=len(ranked)))
        case[f"q{i}"] = (pool, dict(zip(ranked, scores)))
    return case


def run_case(case, measures, protocol=Protocol(), order=None):
    queries = list(case) if order is None else order
    qrels = Qrels.from_dict({q: case[q][0] for q in queries})
    run = Run.from_dict({q: case[q][1] for q in queries})
    return evaluate(qrels, run, measures, protocol)


@settings(max_examples=150, deadline=None)
@given(collections(), st.sampled_from(["judged", "retrieved"]), st.sampled_from(["linear", "exp2"]),
       st.sampled_from(["expected", "docid", "input"]))
def test_normalised_measures_lie_in_unit_interval(case, ideal, gain, ties):
    measures = ["ndcg", "ndcg@3", "ap", "rr", "p@3", "r", "hit@2", "rprec", "bpref", "judged@5"]
    results = run_case(case, measures, Protocol(ideal=ideal, gain=gain, ties=ties))
    for m in measures:
        values = np.array(list(results.per_query(m).values()))
        assert np.all(values >= -1e-12) and np.all(values <= 1 + 1e-12), m


@settings(max_examples=100, deadline=None)
@given(collections(), st.integers(1, 12), st.sampled_from(["linear", "exp2"]))
def test_ideal_ranking_scores_one(case, k, gain):
    # Rank every judged doc by grade, best first, with distinct scores.
    ideal_case = {}
    for q, (pool, _) in case.items():
        ordered = sorted(pool, key=lambda d: -pool[d])
        ideal_case[q] = (pool, {d: float(len(ordered) - i) for i, d in enumerate(ordered)})
    results = run_case(ideal_case, [f"ndcg@{k}", "ap", "rprec", "rr"],
                       Protocol(gain=gain, zero_ideal="exclude"))
    for m in (f"ndcg@{k}", "ap", "rprec"):
        for q, value in results.per_query(m).items():
            assert value == pytest.approx(1.0, abs=1e-12), (m, q)


@settings(max_examples=100, deadline=None)
@given(collections(), st.randoms(use_true_random=False))
def test_query_order_changes_nothing(case, rnd):
    order = list(case)
    rnd.shuffle(order)
    a = run_case(case, ALL_MEASURES)
    b = run_case(case, ALL_MEASURES, order=order)
    for m in ALL_MEASURES:
        assert a.per_query(m) == b.per_query(m)


@settings(max_examples=100, deadline=None)
@given(collections(), st.randoms(use_true_random=False))
def test_renaming_docs_changes_nothing_under_expected_ties(case, rnd):
    names = sorted({d for pool, scores in case.values() for d in list(pool) + list(scores)})
    renamed = names[:]
    rnd.shuffle(renamed)
    rename = {old: f"x{new}" for old, new in zip(names, renamed)}
    other = {q: ({rename[d]: g for d, g in pool.items()}, {rename[d]: s for d, s in scores.items()})
             for q, (pool, scores) in case.items()}
    a = run_case(case, ALL_MEASURES)
    b = run_case(other, ALL_MEASURES)
    for m in ALL_MEASURES:
        left, right = a.per_query(m), b.per_query(m)
        assert left.keys() == right.keys()
        for q in left:
            assert left[q] == pytest.approx(right[q], abs=1e-12), (m, q)


@settings(max_examples=80, deadline=None)
@given(collections(), st.floats(-100, 100), st.floats(0.1, 10))
def test_monotone_score_transforms_change_nothing(case, shift, scale):
    moved = {q: (pool, {d: s * scale + shift for d, s in scores.items()}) for q, (pool, scores) in case.items()}
    # Distinct scores must stay distinct and ties stay ties; exact float
    # arithmetic can merge near values, so keep only cases where it does not.
    for q in case:
        before = case[q][1]
        after = moved[q][1]
        if len(set(before.values())) != len(set(after.values())):
            return
    a = run_case(case, ALL_MEASURES)
    b = run_case(moved, ALL_MEASURES)
    for m in ALL_MEASURES:
        for q, value in a.per_query(m).items():
            assert b.per_query(m)[q] == pytest.approx(value, abs=1e-12)


def test_expected_ties_equal_mean_of_docid_over_random_renamings():
    """ties=expected is the mean over orders; docid with random names samples orders.

    Averaging docid results over every renaming of a tied group's docs visits
    every order equally often, so the mean must equal ties=expected.
    """
    import itertools

    pool = {"a": 3, "b": 0, "c": 1, "d": 2}
    scores = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}
    names = ["a", "b", "c"]
    values = []
    for perm in itertools.permutations(names):
        rename = dict(zip(names, perm))
        p2 = {rename.get(d, d): g for d, g in pool.items()}
        s2 = {rename.get(d, d): s for d, s in scores.items()}
        values.append(run_case({"q": (p2, s2)}, ["ndcg@2", "ap", "rr"], Protocol(ties="docid")).means())
    expected = run_case({"q": (pool, scores)}, ["ndcg@2", "ap", "rr"]).means()
    for m in expected:
        assert np.mean([v[m] for v in values]) == pytest.approx(expected[m], abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(collections(), st.sampled_from(["expected", "docid"]), st.booleans())
def test_row_order_of_the_run_changes_nothing(case, ties, presort):
    """Sorted input takes a fast path that skips the sort; both paths must agree."""
    if presort:
        shuffled = {q: (pool, dict(sorted(scores.items(), key=lambda item: (-item[1], [-ord(c) for c in item[0]]))))
                    for q, (pool, scores) in case.items()}
    else:
        shuffled = {q: (pool, dict(reversed(list(scores.items())))) for q, (pool, scores) in case.items()}
    a = run_case(case, ALL_MEASURES, Protocol(ties=ties))
    b = run_case(shuffled, ALL_MEASURES, Protocol(ties=ties))
    for m in ALL_MEASURES:
        for q, value in a.per_query(m).items():
            assert b.per_query(m)[q] == pytest.approx(value, abs=1e-12), (m, q)


@settings(max_examples=150, deadline=None)
@given(collections(), st.integers(1, 6), st.sampled_from(["expected", "docid"]))
def test_cutoff_counts_equal_a_per_query_count(case, k, ties):
    """unjudged_in_cutoff: unjudged docs inside the top k, where a group of equal
    scores averaged over (ties=expected) that starts within the top k holds as many
    of its unjudged docs as it has slots there (min of the two); tied_groups_crossing_cutoff:
    groups of equal scores holding ranks k and k + 1."""
    results = run_case(case, [f"p@{k}"], Protocol(ties=ties))
    unjudged = crossing = 0
    for pool, ranking in case.values():
        scores = sorted(ranking.values(), reverse=True)
        in_group: dict = {}  # group start -> its unjudged docs
        for doc, score in ranking.items():
            first_rank_of_score = scores.index(score)  # 0-based
            start = first_rank_of_score if ties == "expected" else None
            if start is None:  # one doc per group: its rank in trec_eval's order (score, then id, descending)
                by_id = sorted(ranking, reverse=True)
                start = sorted(by_id, key=lambda d: -ranking[d]).index(doc)
            if doc not in pool and start < k:
                in_group[start] = in_group.get(start, 0) + 1
        unjudged += sum(min(count, k - start) for start, count in in_group.items())
        if len(scores) > k and scores[k - 1] == scores[k]:
            crossing += 1
    assert results.counts["unjudged_in_cutoff"][f"p@{k}"] == unjudged
    assert results.counts["tied_groups_crossing_cutoff"][f"p@{k}"] == crossing
