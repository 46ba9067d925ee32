"""One name per concept: the earlier keyword names still work as deprecated aliases."""

from rankproof import Protocol, Qrels, Run, evaluate


def _results():
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}})
    run = Run.from_dict({"q1": ["a"], "q2": ["x", "b"], "q3": ["c"]}, name="sys")
    return evaluate(qrels, run, ["ndcg", "p@1"], Protocol(zero_ideal="exclude"))

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
