"""Every registered engine gives the numpy reference engine's numbers.

Randomized cases built to hit the edges: tie groups (also straddling the
cutoff), unjudged docs, queries with nothing relevant, cutoffs beyond the
list, empty rankings after condense, missing queries, every gain, discount,
ideal pool and denominator setting. Values agree to 1e-12, numerators,
denominators and the undefined flags too, and the errors are the same.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.engines import ENGINES, get_engine
from rankproof.errors import InputError, TieError

# Every registered engine, in the planner's order (a new engine's one registry line adds it here).
ENGINE_NAMES = list(ENGINES)

RANKED = [
    "dcg", "dcg@1", "dcg@5", "ideal_dcg@5", "ideal_dcg", "ndcg", "ndcg@1", "ndcg@3", "ndcg@25",
    "ndcg(gain=exp2)@5", "ndcg(gain=map:0=0.5/1=1/2=10/3=-1)@4", "ndcg(discount=reciprocal)@5",
    "ndcg(discount=log:10)@5", "dcg(discount=vector:1/0.5/0.25)@6", "ndcg(ideal=retrieved)@5",
    "ndcg(ideal=retrieved,gain=exp2)", "ap", "ap@3", "ap@30", "ap(rel=2)@5", "ap(ap_denominator=min_k)@4",
    "ap(ap_denominator=min_k)", "rr", "rr@2", "rr(rel=2)@5", "hit@1", "hit@3", "hit(rel=3)",
    "p@1", "p@5", "p@40", "p", "p(precision_denominator=retrieved)@8", "p(rel=2)@3",
    "r@5", "r", "r(recall_denominator=min_k)@3", "r(rel=2)@10", "rprec", "rprec(rel=2)",
    "bpref", "bpref@3", "bpref@7", "bpref(rel=2)@5", "judged@5", "judged", "num_ret@5", "num_ret",
    "num_rel", "num_rel(rel=2)", "num_rel_ret@5", "num_rel_ret(rel=2)",
]
HITS = ["ap(ap_denominator=hits)", "ap(ap_denominator=hits)@5"]
# Measures of trec_eval's families, which the compiled engine delegates; the
# ordered ones only where no tie is left to average over.
TREC = ["set_p", "set_p(rel=2)", "set_r", "set_relative_p", "set_ap", "set_f", "set_f(beta=0.5)", "utility",
        "utility(a=2,b=-0.5,c=-1,d=0.25,docs=40)", "relative_p@5", "relative_p", "rprec_mult(mult=2)",
        "rprec_mult(mult=0.3)", "num_nonrel_judged_ret@5", "num_nonrel_judged_ret", "unjudged@5", "unjudged",
        "rbp@10", "bing", "rndcg@10"]
TREC_ORDERED = ["infap", "iprec(recall=0.5)", "ndcg_rel@10"]
# User models of the kernel (ERR walks a tied group with its own recurrence).
USER_MODELS = ["err", "err@5", "err@1"]


def random_case(seed: int, *, ties: bool = True, missing: bool = True, real: bool = False):
    """A qrels + run pair with ties, unjudged docs, negative grades, queries
    without relevant docs or without any ranking (`real`: real-valued grades)."""
    rng = random.Random(seed)
    judgments, rankings = {}, {}
    for q in range(rng.randint(1, 12)):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(0, 30))]
        pool = {}
        nothing_relevant = rng.random() < 0.15
        for doc in docs:
            if rng.random() < 0.7:
                pool[doc] = 0 if nothing_relevant else rng.choice(GRADES[real])
        pool[f"unretrieved{q}"] = 0 if nothing_relevant else rng.choice(GRADES[real][2:])
        if rng.random() < 0.2:
            pool[f"negative{q}"] = -1
        judgments[query] = pool
        if missing and rng.random() < 0.1:
            continue  # judged, never ranked
        ranked = rng.sample(docs, rng.randint(0, len(docs)))
        if not ranked:
            ranked = [f"stray{q}"]
        levels = rng.randint(1, 4) if ties and rng.random() < 0.7 else 10**6
        rankings[query] = {doc: float(rng.randrange(levels)) for doc in ranked}
    if not rankings:
        rankings["q0"] = {"d0": 1.0}
    return Qrels.from_dict(judgments, grades="real" if real else "integer"), Run.from_dict(rankings)


GRADES = {False: [0, 0, 1, 1, 2, 3], True: [0, 0, 0.25, 1, 1.5, 2, 2.75, 3]}

PROTOCOLS = [
    Protocol(negative_grades="zero"),
    Protocol(negative_grades="unjudged", unjudged="condense", zero_ideal="exclude", missing_query="exclude"),
    Protocol(negative_grades="zero", ties="docid", zero_ideal="one"),
    Protocol(negative_grades="zero", ties="input", ideal="retrieved", gain="exp2", discount="reciprocal"),
    Protocol.preset("trec_eval").replace(missing_query="zero"),
]


def outcome(qrels, run, measures, protocol, engine):
    """Every measure's per-query arrays, or the error raised."""
    try:
        results = evaluate(qrels, run, measures, protocol, engine=engine)
    except (TieError, InputError) as error:
        return type(error), str(error)
    return {str(m): results.result(m) for m in results.measures}


def assert_same(expected, actual, label):
    if isinstance(expected, tuple):
        assert actual == expected, label
        return
    assert list(actual) == list(expected), label
    for name, want in expected.items():
        got = actual[name]
        where = f"{label} {name}"
        np.testing.assert_allclose(got.value, want.value, rtol=1e-12, atol=1e-12, err_msg=where)
        np.testing.assert_array_equal(got.included, want.included, err_msg=where)
        np.testing.assert_array_equal(got.zero_ideal, want.zero_ideal, err_msg=where)
        for field in ("numerator", "denominator"):
            a, b = getattr(got, field), getattr(want, field)
            assert (a is None) == (b is None), f"{where} {field}"
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=f"{where} {field}")


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINE_NAMES)
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.fingerprint)
def test_engines_agree_on_random_cases(engine, protocol):
    measures = RANKED + TREC + USER_MODELS + (TREC_ORDERED if protocol.ties.value != "expected" else [])
    errors = 0
    for seed in range(40):
        qrels, run = random_case(seed)
        expected = outcome(qrels, run, measures, protocol, "numpy")
        errors += isinstance(expected, tuple)
        assert_same(expected, outcome(qrels, run, measures, protocol, engine), f"seed {seed}")
    # Errors must agree too, but most cases must be evaluated for the test to mean anything.
    assert errors < 10


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINE_NAMES)
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.fingerprint)
def test_engines_agree_on_real_grades(engine, protocol):
    """grades=real: the compiled engine reads real grades through their ranks;
    every value, and a real rel threshold, as the numpy reference gives them."""
    protocol = protocol.replace(grades="real")
    measures = (RANKED + TREC + ["ap(rel=1.5)@10", "p(rel=0.2)@5", "ndcg(gain=map:0=0/1=1/2=3/3=7)@5", "err@10"]
                + (TREC_ORDERED if protocol.ties.value != "expected" else []))
    for seed in range(25):
        qrels, run = random_case(seed, real=True)
        expected = outcome(qrels, run, measures, protocol, "numpy")
        assert not isinstance(expected, tuple) or "real" not in expected[1]
        assert_same(expected, outcome(qrels, run, measures, protocol, engine), f"seed {seed}")


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_counting_measures_are_exact(engine):
    """Integer counts come out exactly equal, not merely close."""
    counts = ["num_ret@5", "num_ret", "num_rel", "num_rel(rel=2)", "num_rel_ret", "hit@2"]
    for seed in range(30):
        qrels, run = random_case(seed, ties=False)
        want = evaluate(qrels, run, counts, Protocol(negative_grades="zero"), engine="numpy")
        got = evaluate(qrels, run, counts, Protocol(negative_grades="zero"), engine=engine)
        for m in counts:
            assert got.values(m).tolist() == want.values(m).tolist()


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_ap_over_hits_refuses_ties_straddling_the_cutoff(engine):
    # Groups {a, b, c} (score 1) straddle k = 2: the count of hits depends on the order.
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1, "z": 1}})
    run = Run.from_dict({"q": {"z": 2.0, "a": 1.0, "b": 1.0, "c": 1.0}})
    with pytest.raises(TieError, match=r"query q: ap\(ap_denominator=hits\)@2 divides by .*\(1 such groups\)"):
        evaluate(qrels, run, "ap(ap_denominator=hits)@2", engine=engine)
    # Wholly inside or outside the cutoff, the hits do not depend on the order.
    for k in (1, 4):
        want = evaluate(qrels, run, f"ap(ap_denominator=hits)@{k}", engine="numpy").values(f"ap(ap_denominator=hits)@{k}")
        got = evaluate(qrels, run, f"ap(ap_denominator=hits)@{k}", engine=engine).values(f"ap(ap_denominator=hits)@{k}")
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_hits_denominator_on_random_cases(engine):
    for seed in range(30):
        qrels, run = random_case(seed)
        for protocol in (Protocol(negative_grades="zero"), Protocol(negative_grades="zero", ties="docid")):
            expected = outcome(qrels, run, HITS, protocol, "numpy")
            assert_same(expected, outcome(qrels, run, HITS, protocol, engine), f"seed {seed}")


def _alignments(seed: int):
    """(alignment, protocol, measures) of each kind an engine may support: a run against
    qrels (the pipeline's alignment) and a dense score matrix (evaluate_scores's)."""
    from rankproof.pipeline.alignment import align
    from rankproof.frontdoors.scores import DenseAlignment
    from rankproof.frontdoors.scores._input import read_scores

    for protocol in PROTOCOLS:
        qrels, run = random_case(seed)
        measures = RANKED + TREC + (TREC_ORDERED if protocol.ties.value != "expected" else [])
        yield align(qrels, run, protocol), protocol, measures
    rng = np.random.default_rng(seed)
    y_true, y_score = rng.integers(0, 4, (15, 7)), rng.integers(0, 3, (15, 7)) / 2
    for protocol in (Protocol(), Protocol(gain="exp2", discount="reciprocal")):
        scores = read_scores(y_true, y_score, None, None, protocol)
        yield DenseAlignment(scores, protocol), protocol, RANKED + TREC


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_every_engine_agrees_with_numpy_on_every_alignment_it_supports(engine):
    """The planner preferring `engine` gives the values of the planner preferring numpy, on
    runs against qrels and on score matrices; and the engine computes some measure itself."""
    from rankproof.engines.options import EvaluationOptions
    from rankproof.engines.plan import plan
    from rankproof.evaluation import evaluate_alignment, resolve_measures

    computed = 0
    for seed in range(8):
        for alignment, protocol, names in _alignments(seed):
            measures = resolve_measures(names, protocol)
            outcomes = []
            for preferred in ("numpy", engine):
                try:
                    results = evaluate_alignment(alignment, measures, protocol, run_name="run",
                                                 options=EvaluationOptions(engine=preferred))
                    outcomes.append({str(m): results.result(m) for m in results.measures})
                except (TieError, InputError) as error:
                    outcomes.append((type(error), str(error)))
            assert_same(outcomes[0], outcomes[1], f"seed {seed} {protocol.fingerprint}")
            computed += sum(len(mine) for chosen, mine in plan(alignment, measures, protocol, engine)
                            if chosen.name == engine)
    assert computed, f"the {engine} engine supported no measure on any alignment tried"


def test_the_planner_prefers_the_engine_asked_for_and_falls_back_in_registry_order():
    from rankproof.engines.plan import plan
    from rankproof.measures.parse import parse_measures
    from rankproof.pipeline.alignment import align

    qrels, run = random_case(2, ties=False)
    protocol = Protocol(negative_grades="zero")
    alignment = align(qrels, run, protocol)
    measures = parse_measures(["ndcg@5", "infap", "ap"])
    by_engine = {engine.name: [str(m) for m in mine] for engine, mine in plan(alignment, measures, protocol)}
    # infap has no kernel: the numpy engine, last, takes it.
    assert by_engine == {"compiled": ["ndcg@5", "ap"], "numpy": ["infap"]}
    preferred = {engine.name: [str(m) for m in mine] for engine, mine in plan(alignment, measures, protocol, "numpy")}
    assert preferred == {"numpy": ["ndcg@5", "infap", "ap"]}


def test_an_engine_of_the_earlier_interface_is_still_planned():
    """An Engine whose supports() takes the measure alone (the interface before the planner)."""

    class Counting:
        name = "counting"

        def supports(self, measure):
            return measure.name == "num_ret"

        def evaluate(self, alignment, measures, protocol):
            from rankproof.measures.compute import Values

            return {m: Values(np.diff(alignment.offsets).astype(float)) for m in measures}

    qrels = Qrels.from_dict({"q": {"a": 1}})
    run = Run.from_dict({"q": ["a", "b", "c"]})
    results = evaluate(qrels, run, ["num_ret", "p@2"], engine=Counting())
    assert results.means() == {"num_ret": 3.0, "p@2": 0.5}


def test_engine_names_are_the_choices_and_the_executors():
    from rankproof.engines import engine_names

    assert engine_names() == ["compiled", "numpy", "spark"]
    with pytest.raises(InputError, match="spark is an executor"):
        get_engine("spark")


def test_hand_computed_tied_group_straddling_the_cutoff():
    # Ranking: x (grade 2) alone, then {a: 1, b: 0, c: 0} tied. NDCG@2 with
    # linear gain: DCG = 2 + mean gain (1/3) * 1/log2(3); ideal 2 + 1/log2(3).
    qrels = Qrels.from_dict({"q": {"x": 2, "a": 1, "b": 0, "c": 0}})
    run = Run.from_dict({"q": {"x": 3.0, "a": 1.0, "b": 1.0, "c": 1.0}})
    results = evaluate(qrels, run, ["ndcg@2", "rr", "p@2", "bpref@2"])
    d2 = 1 / np.log2(3)
    assert results.mean("ndcg@2") == pytest.approx((2 + d2 / 3) / (2 + d2), abs=1e-12)
    assert results.mean("rr") == pytest.approx(1.0, abs=1e-12)
    # P@2: x, plus a with probability 1/3 in the second slot.
    assert results.mean("p@2") == pytest.approx((1 + 1 / 3) / 2, abs=1e-12)
    # bpref@2 (R = 2, N = 2): x scores 1; a is in the top 2 with probability 1/3,
    # ranked first in its group, with no non-relevant doc above: 1. (1 + 1/3) / 2.
    assert results.mean("bpref@2") == pytest.approx((1 + 1 / 3) / 2, abs=1e-12)


def test_engine_choice_is_not_a_policy():
    qrels, run = random_case(3)
    protocol = Protocol(negative_grades="zero")
    a = evaluate(qrels, run, "ndcg@5", protocol, engine="numpy")
    b = evaluate(qrels, run, "ndcg@5", protocol)
    assert a.protocol == b.protocol and a.protocol.fingerprint == b.protocol.fingerprint


def test_unknown_engine_is_named():
    qrels, run = random_case(1)
    with pytest.raises(InputError, match="unknown engine 'fast'; choose one of compiled, numpy"):
        evaluate(qrels, run, "ndcg", Protocol(negative_grades="zero"), engine="fast")


def test_compiled_engine_says_what_it_delegates():
    from rankproof.measures.parse import parse_measure

    compiled = get_engine("compiled")
    assert compiled.supports(parse_measure("ndcg@10"))
    assert compiled.supports(parse_measure("bpref"))
    assert not compiled.supports(parse_measure("infap"))
    assert get_engine("numpy").supports(parse_measure("infap"))


def test_measures_command_names_the_engine_of_each_measure(capsys):
    from rankproof.cli.app import main

    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    # One line names the measures the compiled engine hands to the numpy one.
    engine_line = next(line for line in out.splitlines() if line.startswith("engine:"))
    delegated = engine_line.split(" but ", 1)[1].removesuffix(" (numpy)").split(", ")
    assert "infap" in delegated
    assert "ndcg" not in delegated and "bpref" not in delegated


def test_compiled_engine_gives_the_same_bits_on_any_number_of_threads(monkeypatch):
    from rankproof.engines import compiled

    # 2,000 queries: several chunks of queries per thread.
    rng = random.Random(5)
    judgments = {f"q{q}": {f"d{i}": rng.choice([0, 1, 2]) for i in range(0, 20, 2)} for q in range(2000)}
    rankings = {f"q{q}": {f"d{i}": float(rng.randrange(6)) for i in range(15)} for q in range(2000)}
    qrels, run = Qrels.from_dict(judgments), Run.from_dict(rankings)
    measures = ["ndcg@5", "ap", "rr@3", "p@5", "r", "bpref"]
    protocol = Protocol(negative_grades="zero")
    monkeypatch.setattr(compiled, "_threads", lambda num_queries: 1)
    one = evaluate(qrels, run, measures, protocol)
    monkeypatch.setattr(compiled, "_threads", lambda num_queries: 3)
    three = evaluate(qrels, run, measures, protocol)
    for m in measures:
        assert one.values(m).tobytes() == three.values(m).tobytes()


@pytest.mark.parametrize("grades", ["integer", "real"])
def test_a_huge_grade_builds_no_gain_table_the_size_of_its_span(grades):
    # One judgment of grade 10^8: the gain measures go to the numpy engine, and the
    # others must not allocate tables over 0..10^8 (they once took 2 GB here).
    import tracemalloc

    qrels = Qrels.from_dict({"q": {"a": 10**8 + (0.5 if grades == "real" else 0), "b": 0, "c": 1}},
                            **({"grades": "real"} if grades == "real" else {}))
    run = Run.from_dict({"q": ["b", "a", "c"]})
    protocol = Protocol(grades=grades)
    measures = ["ap", "p@1", "rr", "ndcg@2"]
    tracemalloc.start()
    try:
        compiled = evaluate(qrels, run, measures, protocol)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    reference = evaluate(qrels, run, measures, protocol, engine="numpy")
    for measure in measures:
        assert compiled.mean(measure) == pytest.approx(reference.mean(measure), abs=1e-12)
    assert compiled.mean("ap") == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_the_kernel_kinds_are_registered_measures_and_tested_here():
    """The compiled engine's kinds come from the kernel's enum (Kind.NDCG computes
    "ndcg"): each names a registered measure, and this file's random cases cover it."""
    from rankproof._libs.ranked import Kind
    from rankproof.engines.compiled import KINDS
    from rankproof.measures.base import REGISTRY

    assert KINDS == {kind.name.lower(): int(kind) for kind in Kind}
    assert len(set(KINDS.values())) == len(KINDS) == len(Kind)
    assert set(KINDS) <= set(REGISTRY)
    covered = {text.split("(")[0].split("@")[0] for text in RANKED + HITS + TREC + USER_MODELS}
    assert set(KINDS) <= covered, sorted(set(KINDS) - covered)


def test_the_hypergeometric_tail_matches_scipy():
    """straddling_draws (bpref's and binG's groups straddling the cutoff) against
    scipy.stats.hypergeom: each in-group position's law, summing to 1."""
    from scipy.stats import hypergeom

    from rankproof.kernels.ranked import straddling_draws

    n, successes, m = np.array([2, 5, 7, 30, 12]), np.array([0, 2, 6, 11, 0]), np.array([1, 3, 6, 17, 4])
    group, x, chance = straddling_draws(n, successes, m)
    at = 0
    for i in range(len(n)):
        for q in range(1, m[i] + 1):
            support = np.arange(min(successes[i], q - 1) + 1)
            want = hypergeom.pmf(support, n[i] - 1, successes[i], q - 1)
            got = chance[at:at + len(support)]
            assert group[at:at + len(support)].tolist() == [i] * len(support)
            assert x[at:at + len(support)].tolist() == support.tolist()
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
            assert got.sum() == pytest.approx(1.0, abs=1e-12)
            at += len(support)
    assert at == len(group)


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_engines_agree_on_err(engine):
    """ERR (tests/measures/test_user_models.py holds its hand-computed values and gdeval's)."""
    measures = ["err", "err@1", "err@5", "err(max_grade=4)@10", "err@30"]
    for protocol in PROTOCOLS:
        for seed in range(30):
            qrels, run = random_case(seed)
            expected = outcome(qrels, run, measures, protocol, "numpy")
            assert_same(expected, outcome(qrels, run, measures, protocol, engine), f"seed {seed}")
