"""Small debts of issue 22: report.data.to_trec is linear and writes what it wrote before; explain aligns once."""

import numpy as np

import rankproof.evaluation
import rankproof.explain.explanation
from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.explain import explain
from rankproof.report.data import to_trec


def _results():
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}})
    run = Run.from_dict({"q1": ["a"], "q2": ["x", "b"], "q3": ["c"]}, name="sys")
    return evaluate(qrels, run, ["ndcg", "p@1"], Protocol(zero_ideal="exclude"))


def test_to_trec_writes_trec_eval_layout_by_hand():
    # ndcg: q1 1 (a first); q2 1 / log2(3) = 0.6309 (b second); q3 has nothing
    # relevant: excluded (zero_ideal=exclude), so no line. p@1: q1 1, q2 0, q3 0.
    # Means: ndcg (1 + 0.63093) / 2 = 0.81546; p@1 (1 + 0 + 0) / 3 = 0.3333.
    expected = (
        "ndcg                  \tq1\t1.0000\n"
        "p@1                   \tq1\t1.0000\n"
        "ndcg                  \tq2\t0.6309\n"
        "p@1                   \tq2\t0.0000\n"
        "p@1                   \tq3\t0.0000\n"
        "runid                 \tall\tsys\n"
        "ndcg                  \tall\t0.8155\n"
        "p@1                   \tall\t0.3333\n"
    )
    assert to_trec([_results()], per_query=True) == expected
    assert to_trec([_results()]) == expected[expected.index("runid"):]


def test_to_trec_reads_each_measure_column_once(monkeypatch):
    # The quadratic version copied every measure's whole column once per query.
    results = _results()
    calls = []
    original = type(results).values

    def counted(self, measure):
        calls.append(str(measure))
        return original(self, measure)

    monkeypatch.setattr(type(results), "values", counted)
    to_trec([results], per_query=True)
    assert sorted(calls) == ["ndcg", "p@1"]


def test_explain_aligns_once(monkeypatch):
    # No unjudged doc, tie or negative grade: explain compares no other policy,
    # so one alignment serves both the value and the rows shown.
    qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2}})
    run = Run.from_dict({"q1": {"B": 2.0, "A": 1.0}})
    calls = []
    # The step aligns inputs whose ids it normalised (align_inputs); explain calls align.
    for module, name in ((rankproof.evaluation, "align_inputs"), (rankproof.explain.explanation, "align")):
        original = getattr(module, name)

        def counted(*args, _original=original, **kwargs):
            calls.append(1)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    e = explain(qrels, run, "q1", "ndcg@2")
    assert len(calls) == 1
    # DCG = 2 + 3 / log2(3); ideal = 3 + 2 / log2(3)
    assert np.isclose(e.value, (2 + 3 / np.log2(3)) / (3 + 2 / np.log2(3)))
    assert e.policies == ()


def test_one_name_per_concept_with_the_earlier_names_as_aliases():
    import warnings

    import pytest

    from rankproof.errors import InputError
    from rankproof.report.figures import prepare
    from rankproof.stats.segments import by_segment

    results = _results()
    segment = {"q1": "s", "q2": "s", "q3": "t"}
    new = by_segment(results, segment, n_resamples=300, bootstrap_method="basic", seed=3)
    with pytest.warns(DeprecationWarning, match="(resamples|method)= is deprecated"):
        old = results.by(segment, resamples=300, method="basic", seed=3)
    assert new == old == results.by(segment, n_resamples=300, bootstrap_method="basic", seed=3)
    assert new == old and (new.n_resamples, new.bootstrap_method) == (300, "basic")
    assert (new.resamples, new.method) == (300, "basic")           # the earlier field names still read
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    runs = {"A": Run.from_dict({"q1": ["a"], "q2": ["x", "b"]}), "B": Run.from_dict({"q1": ["x"], "q2": ["b"]})}
    with pytest.warns(DeprecationWarning, match="resamples= is deprecated; use n_resamples="):
        earlier = prepare(qrels, runs, ["rr"], resamples=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        current = prepare(qrels, runs, ["rr"], n_resamples=100)
    assert earlier.comparison.rows == current.comparison.rows and current.comparison.n_resamples == 100
    with pytest.raises(InputError, match="resamples= and n_resamples= name the same setting"):
        prepare(qrels, runs, ["rr"], n_resamples=200, resamples=100)


def test_correct_names_the_correction_as_compare_does():
    import pytest

    from rankproof.stats.corrections import correct

    p = [0.01, 0.04, 0.03]
    # Holm by hand: sorted 0.01, 0.03, 0.04 times 3, 2, 1 -> 0.03, 0.06, 0.04 -> running max 0.03, 0.06, 0.06.
    assert correct(p, correction="holm").round(12).tolist() == [0.03, 0.06, 0.06]
    with pytest.warns(DeprecationWarning, match="method= is deprecated; use correction="):
        assert correct(p, method="bonferroni").round(12).tolist() == [0.03, 0.12, 0.09]
