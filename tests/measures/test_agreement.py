"""Every measure's vectorised kernel agrees with the one-query reference.

The reference (tests/support/reference.py) is plain Python written from the
specification alone; under ties=expected it enumerates every order of every
tied group, so these tests check the closed forms against brute force.
Cases hold several queries at once so segment boundaries are exercised.
"""

import math
import random

import numpy as np
import pytest

import reference
from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.measures import REGISTRY, Measure

DOC_IDS = ["d1", "d2", "d10", "D1", "a", "a#b", "zz", "é", "d3", "x9", "m", "d20"]
GAIN_MAP = {0: 0.0, 1: 1.0, 2: 3.0, 3: 2.0, 4: 10.0}  # deliberately not monotone
DISCOUNT_VECTOR = [1.0, 0.5, 0.25]


def random_case(rng: random.Random, num_queries: int):
    """{query: (pool, scored)} with ties, unjudged docs and empty-relevance queries."""
    case = {}
    for i in range(num_queries):
        docs = rng.sample(DOC_IDS, rng.randint(2, 9))
        pool_docs = rng.sample(docs, rng.randint(1, len(docs)))
        extra_judged = [f"j{i}{n}" for n in range(rng.randint(0, 3))]  # judged, never retrieved
        top_grade = rng.choice([0, 1, 2, 4])
        pool = {d: rng.randint(0, top_grade) for d in pool_docs + extra_judged}
        ranked = rng.sample(docs, rng.randint(1, min(len(docs), 8)))
        spread = rng.choice([1, 2, 3, 6])  # few distinct scores: many ties
        scored = [(d, float(rng.randint(0, spread))) for d in ranked]
        case[f"q{i}"] = (pool, scored)
    return case


def build(case):
    qrels = Qrels.from_dict({q: pool for q, (pool, _) in case.items()})
    run = Run.from_dict({q: dict(scored) for q, (_, scored) in case.items()})
    return qrels, run


def random_params(rng: random.Random, name: str):
    accepted = reference.MEASURE_PARAMS[name]
    ref_kwargs, ours = {}, {}
    if "k" in accepted and rng.random() < 0.75:
        ref_kwargs["k"] = rng.choice([1, 2, 3, 5, 20])
    if "gain" in accepted:
        choice = rng.choice(["linear", "exp2", "map"])
        ref_kwargs["gain"] = GAIN_MAP if choice == "map" else choice
        ours["gain"] = GAIN_MAP if choice == "map" else choice
    if "discount" in accepted:
        choice = rng.choice(["log2", "reciprocal", "vector"])
        ref_kwargs["discount"] = DISCOUNT_VECTOR if choice == "vector" else choice
        ours["discount"] = DISCOUNT_VECTOR if choice == "vector" else choice
    if "ideal" in accepted:
        ref_kwargs["ideal"] = ours["ideal"] = rng.choice(["judged", "retrieved"])
    if "rel" in accepted:
        ref_kwargs["rel"] = ours["rel"] = rng.choice([1, 1, 2])
    measure = Measure(name, ref_kwargs.get("k"), tuple(ours.items()))
    return measure, ref_kwargs


def check_agreement(name: str, seed: int, ties: str):
    rng = random.Random(seed)
    case = random_case(rng, rng.randint(1, 6))
    measure, kwargs = random_params(rng, name)
    qrels, run = build(case)
    protocol = Protocol(ties=ties, zero_ideal="exclude")
    results = evaluate(qrels, run, [measure], protocol)
    ours = results.per_query(measure)
    fn = reference.MEASURES[name]
    for query, (pool, scored) in case.items():
        if ties == "expected":
            want = reference.expected(fn, scored, pool, **kwargs)
        elif ties == "docid":
            want = fn(reference.order_docid(scored), pool, **kwargs)
        else:  # input: score descending, tied docs in the order given (sorted is stable)
            want = fn([d for d, _ in sorted(scored, key=lambda item: -item[1])], pool, **kwargs)
        if want is None:
            assert query not in ours, (measure, query)
        else:
            assert ours[query] == pytest.approx(want, abs=1e-12, rel=1e-12), (str(measure), query, case[query])


MEASURE_NAMES = sorted(reference.MEASURES)


@pytest.mark.parametrize("name", MEASURE_NAMES)
@pytest.mark.parametrize("ties", ["expected", "docid", "input"])
def test_agrees_with_reference(name, ties):
    for seed in range(60):
        check_agreement(name, seed * 7919 + len(name), ties)


def test_every_registered_measure_is_checked():
    # ideal_dcg is checked through ndcg's denominator below.
    core = {name for name, spec in REGISTRY.items() if spec.family == "core"}
    assert core - {"ideal_dcg"} == set(reference.MEASURES)


def test_ideal_dcg_matches_reference():
    rng = random.Random(5)
    for _ in range(40):
        case = random_case(rng, 4)
        qrels, run = build(case)
        k = rng.choice([None, 1, 3, 10])
        ideal = rng.choice(["judged", "retrieved"])
        measure = Measure("ideal_dcg", k, (("ideal", ideal),))
        ours = evaluate(qrels, run, [measure]).per_query(measure)
        for query, (pool, scored) in case.items():
            want = reference.ideal_dcg([d for d, _ in scored], pool, k=k, ideal=ideal)
            assert ours[query] == pytest.approx(want, abs=1e-12)


def test_many_queries_at_once_equal_one_at_a_time():
    """Vectorising over queries must not leak anything across query boundaries."""
    rng = random.Random(11)
    case = random_case(rng, 40)
    measures = ["ndcg@3", "ap", "rr@2", "p@5", "r@3", "hit@2", "rprec", "bpref@4", "judged@3"]
    together = evaluate(*build(case), measures, Protocol(zero_ideal="exclude"))
    for query in case:
        alone = evaluate(*build({query: case[query]}), measures, Protocol(zero_ideal="exclude"))
        for m in measures:
            assert together.per_query(m).get(query) == alone.per_query(m).get(query)


@pytest.mark.parametrize("size,relevant", [(12, 1), (12, 5), (40, 3), (200, 7)])
def test_large_tie_groups_match_closed_forms(size, relevant):
    """One big tied group: brute force is out of reach, so use known closed forms.

    With n tied docs, r of them relevant, every position is equally likely:
    E[P@k] = r/n; E[hit@k] = 1 - C(n-r, k)/C(n, k); E[RR] = sum_q P(first at q)/q;
    E[AP] = (1/r) * sum_q (r/n) * (1 + (q-1)(r-1)/(n-1)) / q.
    """
    docs = [f"d{i}" for i in range(size)]
    pool = {d: (1 if i < relevant else 0) for i, d in enumerate(docs)}
    qrels = Qrels.from_dict({"q": pool})
    run = Run.from_dict({"q": {d: 1.0 for d in docs}})
    k = 5
    res = evaluate(qrels, run, [f"p@{k}", f"hit@{k}", "rr", "ap"])
    n, r = size, relevant
    assert res.mean(f"p@{k}") == pytest.approx(r / n, rel=1e-12)
    assert res.mean(f"hit@{k}") == pytest.approx(1 - math.comb(n - r, k) / math.comb(n, k), rel=1e-12)
    first = [math.comb(n - q, r - 1) / math.comb(n, r) for q in range(1, n - r + 2)]
    assert res.mean("rr") == pytest.approx(sum(pq / q for q, pq in enumerate(first, 1)), rel=1e-10)
    ap = sum((r / n) * (1 + (q - 1) * (r - 1) / (n - 1)) / q for q in range(1, n + 1)) / r
    assert res.mean("ap") == pytest.approx(ap, rel=1e-10)


def test_sklearn_tie_averaged_dcg_and_ndcg():
    """scikit-learn's ndcg_score averages ties exactly like ties=expected with ideal=retrieved."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2, 12))
        y_true = rng.integers(0, 4, size=(5, n))
        y_score = rng.integers(0, 3, size=(5, n)).astype(float)
        k = int(rng.integers(1, n + 1))
        qrels = Qrels.from_dict({f"q{i}": {f"d{j}": int(y_true[i, j]) for j in range(n)} for i in range(5)})
        run = Run.from_dict({f"q{i}": {f"d{j}": float(y_score[i, j]) for j in range(n)} for i in range(5)})
        res = evaluate(qrels, run, [f"dcg@{k}", f"ndcg@{k}"], Protocol(ideal="retrieved"))
        want_dcg = sklearn_metrics.dcg_score(y_true, y_score, k=k)
        assert res.mean(f"dcg@{k}") == pytest.approx(want_dcg, rel=1e-12)
        if (y_true.sum(axis=1) > 0).all():  # sklearn scores all-zero rows 0; so do we by default
            want_ndcg = sklearn_metrics.ndcg_score(y_true, y_score, k=k)
            assert res.mean(f"ndcg@{k}") == pytest.approx(want_ndcg, rel=1e-12)
