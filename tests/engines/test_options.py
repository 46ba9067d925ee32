"""One options value for every front door (rankproof.engines.options).

Every front door takes the step's options as keywords and builds one
EvaluationOptions from them before reading anything, so a bad option is
refused by each with the same error and the same fields; and a good one
(allow_partial, min_coverage) has the same effect through each. The expected
errors are written out by hand here, not taken from the code under test.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from rankproof import Qrels, Run, compare, evaluate, evaluate_frame, evaluate_rag
from rankproof.engines.options import OPTION_NAMES, EvaluationOptions
from rankproof.errors import CoverageError, InputError
from rankproof.spark import evaluate as spark_evaluate

# Two judged queries; the run ranks one of them: coverage 1/2.
JUDGED = {"q1": {"a": 1}, "q2": {"b": 1}}
RANKED = {"q1": ["a", "x"]}


def _evaluate(**options):
    return evaluate(Qrels.from_dict(JUDGED), Run.from_dict(RANKED), ["rr"], **options)


def _frame(**options):
    truth = pd.DataFrame({"user": ["q1", "q2"], "item": ["a", "b"]})
    predictions = pd.DataFrame({"user": ["q1", "q1"], "item": ["a", "x"], "score": [2.0, 1.0]})
    return evaluate_frame(truth, predictions, ["rr"], rating=None, **options)


def _compare(**options):
    runs = {"one": Run.from_dict(RANKED), "two": Run.from_dict({"q1": ["x", "a"]})}
    return compare(Qrels.from_dict(JUDGED), runs, ["rr"], test="t", n_resamples=200, **options)


def _rag(**options):
    rows = [{"query_id": "q1", "retrieved": ["a", "x"], "relevant": ["a"]}]
    return evaluate_rag(rows, ["rr"], judgments=JUDGED, **options)


def _spark(**options):
    # The options are refused before Spark starts and before these (absent) files are looked at.
    return spark_evaluate("absent-qrels.parquet", "absent-run.parquet", ["rr"], **options)


FRONT_DOORS = {"evaluate": _evaluate, "evaluate_frame": _frame, "compare": _compare, "evaluate_rag": _rag,
               "spark.evaluate": _spark}

# (option, bad value, the error's `what`, its `value` field)
BAD = [
    ("min_coverage", 1.5, "min_coverage must be a share between 0 and 1; got 1.5", "1.5"),
    ("min_coverage", "half", "min_coverage must be a share between 0 and 1; got 'half'", "'half'"),
    ("allow_partial", "no", "allow_partial must be True or False; got 'no'", "'no'"),
]


@pytest.mark.parametrize("door", FRONT_DOORS)
@pytest.mark.parametrize("option, bad, what, value", BAD)
def test_every_front_door_refuses_a_bad_option_with_the_same_fielded_error(door, option, bad, what,
                                                                          value):
    with pytest.raises(InputError) as raised:
        FRONT_DOORS[door](**{option: bad})
    fields = raised.value.fields()
    assert (fields["what"], fields["value"]) == (what, value)
    assert type(raised.value) is InputError


@pytest.mark.parametrize("door", [d for d in FRONT_DOORS if d != "spark.evaluate"])
def test_every_front_door_takes_allow_partial_and_min_coverage_alike(door):
    # Coverage 1/2: refused below min_coverage=0.75, evaluated at 0.5 (the default) and with
    # allow_partial.
    with pytest.raises(CoverageError):
        FRONT_DOORS[door](min_coverage=0.75)
    assert FRONT_DOORS[door](min_coverage=0.75, allow_partial=True) is not None
    assert FRONT_DOORS[door](min_coverage=0.5) is not None


@pytest.mark.parametrize("field, bad", [("bounds", 1), ("ties_range", "yes"), ("complete_judgments", None),
                                        ("notes", "one note"), ("notes", 7), ("weights", "heavy"),
                                        ("engine", "fast")])
def test_the_value_refuses_each_bad_option_naming_it(field, bad):
    with pytest.raises(InputError) as raised:
        EvaluationOptions(**{field: bad})
    assert field in raised.value.fields()["what"] or "engine" in str(raised.value)


def test_the_value_is_frozen_and_knows_its_names():
    options = EvaluationOptions(notes=["a", "b"], bounds=True)
    assert options.notes == ("a", "b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.bounds = False  # type: ignore[misc]
    assert OPTION_NAMES == ("weights", "engine", "min_coverage", "allow_partial", "bounds", "query_ids", "notes",
                            "complete_judgments", "ties_range")
    assert EvaluationOptions.of(options, allow_partial=True) == EvaluationOptions(
        notes=("a", "b"), bounds=True, allow_partial=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bound'"):
        EvaluationOptions.of(None, bound=True)


def test_the_step_receives_the_value_not_the_keywords():
    import importlib
    import inspect

    from rankproof.cli.multirun import evaluated_runs as evaluated_as_read
    from rankproof.evaluation import evaluate_alignment, evaluate_read
    from rankproof.stats.comparison_inputs import evaluated_runs

    # `weights` of evaluate_alignment is the per-query array made of the options' weights.
    declared_again = set(OPTION_NAMES) - {"weights"}
    on_spark = importlib.import_module("rankproof.spark.evaluate")  # the package's name is the function
    for step in (evaluate_read, evaluate_alignment, evaluated_runs, on_spark._evaluate_on,
                 evaluated_as_read):
        parameters = inspect.signature(step).parameters
        assert "options" in parameters, step.__name__
        assert not declared_again & set(parameters), step.__name__
        # and no door left open for them as keywords (**keywords)
        assert not any(p.kind is p.VAR_KEYWORD for p in parameters.values()), step.__name__


def test_the_step_refuses_the_options_as_keywords():
    from rankproof import Qrels, Run
    from rankproof.evaluation import evaluate_read

    read = lambda: (Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["b", "a"]}))  # noqa: E731
    with pytest.raises(TypeError, match="allow_partial"):
        evaluate_read(read, "rr", allow_partial=True)
    assert evaluate_read(read, "rr", options=EvaluationOptions(allow_partial=True)).mean("rr") == 0.5


def test_a_step_holds_the_options_value():
    from rankproof.engines.executor import Source, Step
    from rankproof.protocol import Protocol

    step = Step(truth=Source("qrels.txt"), runs=(), measures=(), protocol=Protocol(),
                options=EvaluationOptions(bounds=True))
    assert step.option("bounds") is True and step.wants("bounds")
    assert step.option("intents") is None and not step.wants("intents")   # a use, not an option
    with pytest.raises(TypeError, match="Step.options must be an EvaluationOptions"):
        step.replace(options={"bounds": True})
