"""The intent-aware measures (alpha_ndcg, err_ia, ndcg_ia, p_ia, s_recall) and IntentQrels.

Oracles: NIST's ndeval through pyndeval 0.0.8 (test-only dependency) on random
runs without tied scores; a plain-Python reference written here from ndeval's
source (ndeval.c 4.5) and the papers, for weights, nDCG-IA and rel; brute-force
enumeration of tied orders for ties=expected; hand-computed cases.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from rankproof import IntentQrels, Protocol, Qrels, Run, evaluate
from rankproof.errors import DuplicateError, InputError, MeasureError, ParseError

from paths import SRC


# -- the reference ---------------------------------------------------------------
def _actual(judged: dict, rel: int) -> list:
    """Intents with a doc of grade >= rel, in intent order (ndeval's actual subtopics)."""
    return [i for i in sorted(judged, key=_intent_key) if any(g >= rel for g in judged[i].values())]


def _intent_key(intent: str):
    return (0, int(intent), "") if intent.isdecimal() else (1, 0, intent)


def _weights(judged: dict, rel: int, weights: dict | None) -> dict:
    actual = _actual(judged, rel)
    if weights is None:
        return {i: 1.0 / len(actual) for i in actual}
    total = sum(weights[i] for i in actual)
    return {i: weights[i] / total for i in actual}


def _novelty_dcg(ranking: list, judged: dict, w: dict, alpha: float, k: int, discount) -> float:
    seen = {i: 0 for i in w}
    total = 0.0
    for r, doc in enumerate(ranking[:k], 1):
        gain = 0.0
        for i in w:
            if judged[i].get(doc, 0) >= REL:
                gain += w[i] * (1 - alpha) ** seen[i]
                seen[i] += 1
        total += gain * discount(r)
    return total


REL = 1


def _log2(r: int) -> float:
    return 1.0 / math.log2(r + 1)


def ref_alpha_ndcg(ranking, judged, k, alpha=0.5, weights=None):
    w = _weights(judged, REL, weights)
    if not w:
        return 0.0
    docs = sorted({d for i in judged for d in judged[i]})
    # ndeval's greedy ideal: highest gain at each rank, ties to the greatest doc id
    seen = {i: 0 for i in w}
    ideal = []
    for _ in range(min(k, len(docs))):
        best, best_gain = None, -1.0
        for doc in docs:
            if doc in ideal:
                continue
            gain = sum(w[i] * (1 - alpha) ** seen[i] for i in w if judged[i].get(doc, 0) >= REL)
            if gain >= best_gain:
                best, best_gain = doc, gain
        ideal.append(best)
        for i in w:
            if judged[i].get(best, 0) >= REL:
                seen[i] += 1
    top = _novelty_dcg(ideal, judged, w, alpha, k, _log2)
    return _novelty_dcg(ranking, judged, w, alpha, k, _log2) / top if top > 0 else 0.0


def ref_err_ia(ranking, judged, k, alpha=0.5, weights=None):
    w = _weights(judged, REL, weights)
    if not w:
        return 0.0
    normaliser = sum((1 - alpha) ** (r - 1) / r for r in range(1, k + 1))
    return _novelty_dcg(ranking, judged, w, alpha, k, lambda r: 1.0 / r) / normaliser


def ref_p_ia(ranking, judged, k, weights=None):
    w = _weights(judged, REL, weights)
    return sum(w[i] * sum(judged[i].get(d, 0) >= REL for d in ranking[:k]) for i in w) / k if w else 0.0


def ref_s_recall(ranking, judged, k, weights=None):
    w = _weights(judged, REL, weights)
    return sum(w[i] for i in w if any(judged[i].get(d, 0) >= REL for d in ranking[:k]))


def ref_ndcg_ia(ranking, judged, k, weights=None):
    w = _weights(judged, REL, weights)
    total = 0.0
    for i in w:
        dcg = sum(judged[i].get(d, 0) * _log2(r) for r, d in enumerate(ranking[:k], 1))
        best = sorted((g for g in judged[i].values() if g > 0), reverse=True)[:k]
        ideal = sum(g * _log2(r) for r, g in enumerate(best, 1))
        total += w[i] * (dcg / ideal if ideal > 0 else 0.0)
    return total


REFERENCES = {"alpha_ndcg": ref_alpha_ndcg, "err_ia": ref_err_ia, "p_ia": ref_p_ia, "s_recall": ref_s_recall,
              "ndcg_ia": ref_ndcg_ia}


# -- random data -------------------------------------------------------------------
def _random_case(seed: int, queries: int = 6, docs: int = 25, intents: int = 4, depth: int = 18, ties: bool = False):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        for d in range(docs):
            for i in range(1, intents + 1):
                if rng.random() < 0.25:
                    rows.append((str(q), str(i), f"d{d:02d}", int(rng.integers(0, 4))))
    run = {}
    for q in range(queries):
        chosen = rng.permutation(docs + 10)[: int(rng.integers(1, depth + 1))]
        scores = rng.integers(0, 4, len(chosen)).astype(float) if ties else rng.permutation(len(chosen)) + 1.0
        run[str(q)] = {f"d{d:02d}": float(s) for d, s in zip(chosen, scores)}
    return rows, run


def _intent_qrels(rows, weights=None) -> IntentQrels:
    return IntentQrels(query=[r[0] for r in rows], intent=[r[1] for r in rows], doc=[r[2] for r in rows],
                       grade=[r[3] for r in rows], weights=weights)


def _judged(rows) -> dict:
    out: dict = {}
    for q, i, d, g in rows:
        out.setdefault(q, {}).setdefault(i, {})[d] = g
    return out


# -- agreement with ndeval (pyndeval) ------------------------------------------------------
NDEVAL_NAMES = {"alpha_ndcg": "alpha-nDCG", "err_ia": "ERR-IA", "p_ia": "P-IA", "s_recall": "strec"}


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_ndeval(seed):
    pyndeval = pytest.importorskip("pyndeval")
    rows, run = _random_case(seed)
    cutoffs = [2, 5, 10, 20]
    names = [f"{NDEVAL_NAMES[m]}@{k}" for m in NDEVAL_NAMES for k in cutoffs]
    run_rows = [(q, d, s) for q in sorted(run) for d, s in run[q].items()]
    expected = pyndeval.ndeval(rows, run_rows, measures=names)
    results = evaluate(_intent_qrels(rows), Run.from_dict(run), [f"{m}@{k}" for m in NDEVAL_NAMES for k in cutoffs])
    checked = 0
    for m in NDEVAL_NAMES:
        for k in cutoffs:
            mine = results.per_query(f"{m}@{k}")
            for q, values in expected.items():
                assert mine[q] == pytest.approx(values[f"{NDEVAL_NAMES[m]}@{k}"], abs=1e-12), (m, k, q)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.9, 1.0])
def test_alpha_agrees_with_ndeval(alpha):
    pyndeval = pytest.importorskip("pyndeval")
    rows, run = _random_case(7)
    run_rows = [(q, d, s) for q in sorted(run) for d, s in run[q].items()]
    expected = pyndeval.ndeval(rows, run_rows, measures=["alpha-nDCG@10", "ERR-IA@10"], alpha=alpha)
    results = evaluate(_intent_qrels(rows), Run.from_dict(run), [f"alpha_ndcg(alpha={alpha})@10",
                                                                   f"err_ia(alpha={alpha})@10"])
    for q, values in expected.items():
        assert results.per_query(f"alpha_ndcg(alpha={alpha})@10")[q] == pytest.approx(values["alpha-nDCG@10"], abs=1e-12)
        assert results.per_query(f"err_ia(alpha={alpha})@10")[q] == pytest.approx(values["ERR-IA@10"], abs=1e-12)


def test_err_ia_at_1_is_normalised_where_ndeval_is_not():
    """ndeval leaves ERR-IA@1 as the count of intents the first doc is relevant to;
    rankproof divides by the intents (A), as at every other k."""
    pyndeval = pytest.importorskip("pyndeval")
    rows = [("1", "1", "a", 1), ("1", "2", "a", 1), ("1", "3", "b", 1)]
    expected = pyndeval.ndeval(rows, [("1", "a", 2.0), ("1", "b", 1.0)], measures=["ERR-IA@1"])
    assert expected["1"]["ERR-IA@1"] == 2.0
    value = evaluate(_intent_qrels(rows), Run.from_dict({"1": {"a": 2.0, "b": 1.0}}), "err_ia@1").mean("err_ia@1")
    assert value == pytest.approx(2.0 / 3)


# -- the reference, for what ndeval does not have -------------------------------------------
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("measure", sorted(REFERENCES))
def test_agrees_with_the_reference(seed, measure):
    rows, run = _random_case(100 + seed)
    judged = _judged(rows)
    k = 1 + seed * 3
    values = evaluate(_intent_qrels(rows), Run.from_dict(run), f"{measure}@{k}").per_query(f"{measure}@{k}")
    for q, docs in run.items():
        ranking = sorted(docs, key=lambda d: -docs[d])
        assert values[q] == pytest.approx(REFERENCES[measure](ranking, judged[q], k), abs=1e-12), q


@pytest.mark.parametrize("measure", sorted(REFERENCES))
def test_weights_agree_with_the_reference(measure):
    rows, run = _random_case(42)
    judged = _judged(rows)
    rng = np.random.default_rng(5)
    weights = {q: {i: float(rng.integers(1, 5)) for i in judged[q]} for q in judged}
    values = evaluate(_intent_qrels(rows, weights), Run.from_dict(run), f"{measure}@10").per_query(f"{measure}@10")
    for q, docs in run.items():
        ranking = sorted(docs, key=lambda d: -docs[d])
        assert values[q] == pytest.approx(REFERENCES[measure](ranking, judged[q], 10, weights=weights[q]), abs=1e-12)


def test_uniform_weights_given_equal_no_weights():
    rows, run = _random_case(3)
    judged = _judged(rows)
    uniform = {q: {i: 0.25 for i in judged[q]} for q in judged}
    measures = [f"{m}@10" for m in REFERENCES]
    plain = evaluate(_intent_qrels(rows), Run.from_dict(run), measures).means()
    weighted = evaluate(_intent_qrels(rows, uniform), Run.from_dict(run), measures).means()
    assert weighted == pytest.approx(plain, abs=1e-15)


# -- tied scores ----------------------------------------------------------------------------
def _orders(docs: dict) -> list:
    """Every order of the ranking, tied docs permuted within their score."""
    groups = [sorted(d for d in docs if docs[d] == s) for s in sorted(set(docs.values()), reverse=True)]
    return [sum(choice, []) for choice in itertools.product(*[list(map(list, itertools.permutations(g)))
                                                             for g in groups])]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("measure", sorted(REFERENCES))
def test_expected_ties_are_the_mean_over_tied_orders(seed, measure):
    rows, run = _random_case(200 + seed, queries=3, docs=8, depth=7, ties=True)
    judged = _judged(rows)
    k = 2 + seed % 5
    values = evaluate(_intent_qrels(rows), Run.from_dict(run), f"{measure}@{k}").per_query(f"{measure}@{k}")
    for q, docs in run.items():
        orders = _orders(docs)
        mean = sum(REFERENCES[measure](order, judged[q], k) for order in orders) / len(orders)
        assert values[q] == pytest.approx(mean, abs=1e-12), q


def test_docid_ties_follow_trec_order():
    """ties=docid: score descending, then doc id descending (trec_eval, ndeval -traditional)."""
    rows, run = _random_case(9, ties=True)
    judged = _judged(rows)
    values = evaluate(_intent_qrels(rows), Run.from_dict(run), "alpha_ndcg@5",
                      Protocol(ties="docid")).per_query("alpha_ndcg@5")
    for q, docs in run.items():
        ranking = sorted(docs, key=lambda d: (-docs[d], [-ord(c) for c in d]))
        assert values[q] == pytest.approx(ref_alpha_ndcg(ranking, judged[q], 5), abs=1e-12)


def test_a_whole_tied_ranking_scores_the_mean_over_orders_by_hand():
    # intent 1: a, b; the run ties a, b, c. alpha-DCG@2 over the 6 orders:
    # ab, ba: 1 + 0.5/log2(3); ac, bc: 1; ca, cb: 1/log2(3). Ideal (a or b, then the other): 1 + 0.5/log2(3).
    qrels = IntentQrels.from_dict({"q": {"1": {"a": 1, "b": 1}}})
    run = Run.from_dict({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})
    third = 1 / math.log2(3)
    expected = (2 * (1 + 0.5 * third) + 2 * 1 + 2 * third) / 6 / (1 + 0.5 * third)
    assert evaluate(qrels, run, "alpha_ndcg@2").mean("alpha_ndcg@2") == pytest.approx(expected, abs=1e-15)


# -- policies -------------------------------------------------------------------------------
def test_a_query_without_relevant_intents_follows_zero_ideal():
    qrels = IntentQrels.from_dict({"q1": {"1": {"a": 1}}, "q2": {"1": {"b": 0}}})
    run = Run.from_dict({"q1": ["a"], "q2": ["b"]})
    assert evaluate(qrels, run, "alpha_ndcg@5").per_query("alpha_ndcg@5") == {"q1": 1.0, "q2": 0.0}
    excluded = evaluate(qrels, run, "s_recall@5", Protocol(zero_ideal="exclude"))
    assert excluded.mean("s_recall@5") == 1.0
    with pytest.raises(Exception, match="q2"):
        evaluate(qrels, run, "err_ia@5", Protocol(zero_ideal="error"))


def test_intents_without_relevant_docs_are_ignored():
    # intent 2 has only a grade-0 judgment: A = 1, as ndeval's actual subtopics.
    qrels = IntentQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 0}}})
    assert evaluate(qrels, Run.from_dict({"q": ["a"]}), "s_recall@1").mean("s_recall@1") == 1.0


def test_rel_raises_the_threshold():
    qrels = IntentQrels.from_dict({"q": {"1": {"a": 1, "b": 2}, "2": {"a": 2}}})
    run = Run.from_dict({"q": ["a", "b"]})
    # rel=2: intent 1 relevant doc b, intent 2 doc a; a covers intent 2 only at k = 1.
    assert evaluate(qrels, run, "s_recall(rel=2)@1").mean("s_recall(rel=2)@1") == 0.5
    assert evaluate(qrels, run, "s_recall@1").mean("s_recall@1") == 1.0


def test_unjudged_docs_gain_nothing_and_condense_drops_them():
    qrels = IntentQrels.from_dict({"q": {"1": {"a": 1}}})
    run = Run.from_dict({"q": ["x", "a"]})
    assert evaluate(qrels, run, "p_ia@2").mean("p_ia@2") == 0.5
    assert evaluate(qrels, run, "p_ia@2", Protocol(unjudged="condense")).mean("p_ia@2") == 0.5
    assert evaluate(qrels, run, "alpha_ndcg@1", Protocol(unjudged="condense")).mean("alpha_ndcg@1") == 1.0
    assert evaluate(qrels, run, "alpha_ndcg@1").mean("alpha_ndcg@1") == 0.0


def test_other_measures_read_the_highest_grade_over_intents():
    qrels = IntentQrels.from_dict({"q": {"1": {"a": 1, "b": 3}, "2": {"a": 2}}})
    run = Run.from_dict({"q": ["a", "b"]})
    plain = Qrels.from_dict({"q": {"a": 2, "b": 3}})
    assert evaluate(qrels, run, "ndcg@2").mean("ndcg@2") == evaluate(plain, run, "ndcg@2").mean("ndcg@2")


def test_diversity_measures_need_intents():
    with pytest.raises(MeasureError, match="IntentQrels"):
        evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["a"]}), "alpha_ndcg@5")


def test_err_ia_needs_a_cutoff_and_ideal_retrieved_is_refused():
    qrels, run = IntentQrels.from_dict({"q": {"1": {"a": 1}}}), Run.from_dict({"q": ["a"]})
    with pytest.raises(MeasureError, match="cutoff"):
        evaluate(qrels, run, "err_ia")
    with pytest.raises(MeasureError, match="ideal=judged"):
        evaluate(qrels, run, "alpha_ndcg@5", Protocol(ideal="retrieved"))


def test_alpha_out_of_range_is_refused():
    with pytest.raises(MeasureError, match="alpha"):
        evaluate(IntentQrels.from_dict({"q": {"1": {"a": 1}}}), Run.from_dict({"q": ["a"]}), "alpha_ndcg(alpha=2)@5")


def test_engines_agree():
    rows, run = _random_case(11, ties=True)
    measures = [f"{m}@10" for m in REFERENCES]
    compiled = evaluate(_intent_qrels(rows), Run.from_dict(run), measures).means()
    numpy = evaluate(_intent_qrels(rows), Run.from_dict(run), measures, engine="numpy").means()
    assert compiled == numpy


def test_missing_and_zero_weights_are_refused():
    qrels = IntentQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}})
    run = Run.from_dict({"q": ["a"]})
    with pytest.raises(InputError, match="intent 2 has relevant docs but no weight"):
        evaluate(qrels.with_weights({"q": {"1": 1.0}}), run, "s_recall@1")
    with pytest.raises(InputError, match="sum to 0"):
        evaluate(qrels.with_weights({"q": {"1": 0, "2": 0}}), run, "s_recall@1")
    with pytest.raises(InputError, match="finite non-negative"):
        qrels.with_weights({"q": {"1": -1}})


# -- reading ----------------------------------------------------------------------------------
def test_read_trec_diversity_qrels(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text("# ndeval qrels\n1 1 a 2\n1 2 a 0\n\n1 2 b 1\n2 1 c 1\n")
    qrels = IntentQrels.read(path)
    assert qrels.to_dict() == {"1": {"1": {"a": 2}, "2": {"a": 0, "b": 1}}, "2": {"1": {"c": 1}}}
    assert qrels.lines.tolist() == [2, 3, 5, 6]


@pytest.mark.parametrize("text, message", [
    ("1 1 a\n", "line 1: expected 4 columns (query intent doc grade), found 3"),
    ("1 1 a 1\n1 2 b x\n", "line 2: query 1, doc b: grade 'x' is not an integer"),
    ("1 1 a 1\n1 1 a 1\n", "line 2: query 1, doc a: intent 1 is judged twice (lines 1 and 2)"),
    ("1 Q0 a 1 2.5 run\n", "check that the qrels and run files are not swapped"),
    ("# nothing\n", "holds no judgments"),
])
def test_bad_diversity_qrels(tmp_path, text, message):
    path = tmp_path / "bad.qrels"
    path.write_text(text)
    with pytest.raises((ParseError, DuplicateError), match=re.escape(message)):
        IntentQrels.read(path)


def test_read_a_table_with_an_intent_column(tmp_path):
    path = tmp_path / "div.csv"
    path.write_text("qid,subtopic,docno,rel\n1,1,a,1\n1,2,b,1\n")
    qrels = IntentQrels.read(path, query="qid", intent="subtopic", doc="docno", grade="rel")
    assert qrels.to_dict() == {"1": {"1": {"a": 1}, "2": {"b": 1}}}
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": ["1", "1"], "intent": ["x", None], "doc": ["a", "b"], "grade": [1, 1]})
    with pytest.raises(ParseError, match="row 2: query 1, doc b: no intent"):
        IntentQrels.from_table(frame)


def test_read_intent_weights(tmp_path):
    path = tmp_path / "weights.txt"
    path.write_text("1 1 3\n1 2 1\n")
    qrels = IntentQrels.from_dict({"1": {"1": {"a": 1}, "2": {"b": 1}}}, weights=None).with_weights(path)
    assert evaluate(qrels, Run.from_dict({"1": ["a"]}), "s_recall@1").mean("s_recall@1") == 0.75
    path.write_text("1 1 3\n1 2 -1\n")
    with pytest.raises(ParseError, match="line 2: query 1: intent 2: weight '-1'"):
        qrels.with_weights(path)


# -- the command line ------------------------------------------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "rankproof.cli", *args], capture_output=True, text=True, env=env)


def test_cli_evaluates_diversity_qrels(tmp_path):
    (tmp_path / "div.qrels").write_text("1 1 a 2\n1 1 b 1\n1 1 d 0\n1 2 b 1\n1 2 c 3\n")
    (tmp_path / "run.txt").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n")
    (tmp_path / "w.txt").write_text("1 1 3\n1 2 1\n")
    done = _cli("evaluate", "--intents", str(tmp_path / "div.qrels"), str(tmp_path / "run.txt"),
                "-m", "alpha-nDCG@3", "-m", "s_recall@1", "--format", "csv", "--quiet")
    assert done.returncode == 0, done.stderr
    values = {line.split(",")[2]: line.split(",")[3] for line in done.stdout.strip().splitlines()[1:]}
    assert float(values["alpha_ndcg@3"]) == pytest.approx(0.8561391, abs=1e-6)
    assert float(values["s_recall@1"]) == 0.5
    weighted = _cli("evaluate", "--intents", "--intent-weights", str(tmp_path / "w.txt"), str(tmp_path / "div.qrels"),
                    str(tmp_path / "run.txt"), "-m", "s_recall@1", "--format", "csv", "--quiet")
    assert weighted.returncode == 0, weighted.stderr
    assert "0.75" in weighted.stdout


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "div.qrels").write_text("1 1 a 2\n1 1 a 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 a 1 3 r\n")
    done = _cli("evaluate", "--intents", str(tmp_path / "div.qrels"), str(tmp_path / "run.txt"), "-m", "alpha_ndcg@5")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "intent 1 is judged twice" in done.stderr
    without = _cli("evaluate", str(tmp_path / "run.txt"), str(tmp_path / "run.txt"), "--intent-weights", "x")
    assert without.returncode == 2 and "add --intents" in without.stderr


def test_lookups_by_search_agree_with_lookup_tables(monkeypatch):
    """attach_intents looks ranked docs up in a dense table when the query x doc
    space is small, by binary search otherwise: both give the same values."""
    import rankproof.pipeline.intents as intent_alignment

    rows, run = _random_case(21, ties=True)
    measures = [f"{m}@10" for m in REFERENCES]
    dense = evaluate(_intent_qrels(rows), Run.from_dict(run), measures).means()
    monkeypatch.setattr(intent_alignment, "_DENSE_PER_ELEMENT", -10**9)
    searched = evaluate(_intent_qrels(rows), Run.from_dict(run), measures).means()
    assert searched == dense


@pytest.mark.parametrize("alpha", [0.0, 0.25, 1.0])
def test_expected_ties_hold_for_every_alpha(alpha):
    rows, run = _random_case(300, queries=4, docs=8, depth=7, ties=True)
    judged = _judged(rows)
    measures = [f"alpha_ndcg(alpha={alpha})@4", f"err_ia(alpha={alpha})@4"]
    results = evaluate(_intent_qrels(rows), Run.from_dict(run), measures)
    for q, docs in run.items():
        orders = _orders(docs)
        for measure, reference in zip(measures, (ref_alpha_ndcg, ref_err_ia)):
            mean = sum(reference(order, judged[q], 4, alpha=alpha) for order in orders) / len(orders)
            assert results.per_query(measure)[q] == pytest.approx(mean, abs=1e-12), (measure, q)


def test_fractional_grades_are_refused_whatever_the_constructor():
    with pytest.raises(ParseError, match="query q, doc a: grade 1.5 is not an integer"):
        IntentQrels(query=["q"], intent=["1"], doc=["a"], grade=[1.5])


def test_cli_compares_runs_on_diversity_qrels(tmp_path):
    lines = [f"{q} 1 a 1\n{q} 1 b 1\n{q} 2 c 1\n" for q in range(8)]
    (tmp_path / "div.qrels").write_text("".join(lines))
    (tmp_path / "x.run").write_text("".join(f"{q} Q0 a 1 3 x\n{q} Q0 b 2 2 x\n{q} Q0 c 3 1 x\n" for q in range(8)))
    (tmp_path / "y.run").write_text("".join(f"{q} Q0 a 1 3 y\n{q} Q0 c 2 2 y\n{q} Q0 b 3 1 y\n" for q in range(8)))
    done = _cli("compare", "--intents", str(tmp_path / "div.qrels"), str(tmp_path / "x.run"), str(tmp_path / "y.run"),
                "-m", "s_recall@2", "--resamples", "200")
    assert done.returncode == 0, done.stderr
    # x covers intent 1 only in its top 2 (0.5), y both intents (1.0)
    row = next(line for line in done.stdout.splitlines() if line.startswith("s_recall@2"))
    assert row.split()[3:5] == ["0.5000", "1.0000"]


def test_a_large_tied_group_matches_sampled_orders():
    """40 tied docs: too many orders to enumerate; the exact expectation must sit
    within sampling error of the mean over 4,000 random orders (seeded)."""
    rng = np.random.default_rng(8)
    rows = [("q", str(i), f"d{d:02d}", 1) for d in range(40) for i in range(1, 4) if rng.random() < 0.3]
    qrels = _intent_qrels(rows)
    run = Run.from_dict({"q": {f"d{d:02d}": 1.0 for d in range(40)}})
    judged = _judged(rows)["q"]
    docs = [f"d{d:02d}" for d in range(40)]
    for measure, reference in (("alpha_ndcg@10", ref_alpha_ndcg), ("err_ia@10", ref_err_ia),
                               ("s_recall@3", ref_s_recall)):
        k = int(measure.split("@")[1])
        samples = [reference(list(rng.permutation(docs)), judged, k) for _ in range(4000)]
        exact = evaluate(qrels, run, measure).mean(measure)
        assert abs(exact - np.mean(samples)) < 4 * np.std(samples) / np.sqrt(len(samples)) + 1e-9, measure
