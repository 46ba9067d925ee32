"""The executors' table: one place chooses what runs the step; a new executor is one class and one line.

A toy executor registered in ``engines.EXECUTORS`` (as docs/architecture.md's
how-to says) is offered by ``--engine`` and run by ``rankproof evaluate``;
the command and ``evaluate_frame`` never test an executor's name.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import rankproof
from rankproof.cli.app import main
from rankproof.engines import EXECUTORS, EngineEntry, engine_names
from rankproof.engines.executor import Executor, Setting, Source, Step, choose, get_executor
from rankproof.engines.options import EvaluationOptions
from rankproof.errors import InputError
from rankproof.protocol import Protocol

CALLS: list[str] = []


class ToyExecutor(Executor):
    """Evaluates each run in memory with rankproof.evaluate and notes the call (and its own
    setting, --toy-note); takes grade maps only."""

    name = "toy"
    takes = frozenset({"grade_map"})
    settings = (Setting("--toy-note", "toy_note", "TEXT", "a note the toy keeps beside each run"),)
    summary = "a toy that notes its calls"

    def evaluate(self, step):
        qrels, runs = step.inputs.read(_Silent())
        for name, run in runs:
            CALLS.append(name if step.settings["toy_note"] is None else
                         f"{name}: {step.settings['toy_note']}")
            yield rankproof.evaluate(qrels, run, step.measures, step.protocol)


class _Silent:
    def step(self, text: str = "") -> None:
        pass


@pytest.fixture
def toy(monkeypatch):
    """The how-to's one line: the toy registered before the default (and offered to --engine)."""
    CALLS.clear()
    table = dict(EXECUTORS)
    entry = EngineEntry(__name__, "ToyExecutor", executor=True)
    monkeypatch.setattr("rankproof.engines.EXECUTORS", {"toy": entry, **table})
    yield
    CALLS.clear()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    (tmp_path / "run.txt").write_text("q1 Q0 b 1 2.0 x\nq1 Q0 a 2 1.0 x\nq2 Q0 c 1 3.0 x\n")
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def test_the_cli_runs_a_registered_toy_executor(toy, files, capsys):
    assert "toy" in engine_names()
    assert main(["evaluate", *files, "-m", "rr", "--engine", "toy", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert CALLS == ["run.txt"]
    # q1: first relevant at rank 2 (1/2), q2: rank 1 (1): mean 0.75, by hand.
    assert "0.75" in out


def test_the_toy_declares_its_own_option_and_the_cli_hands_it_over(toy, files, capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    assert "--engine toy (a toy that notes its calls):" in out   # its own section of the help
    assert re.search(r"--toy-note TEXT +with --engine toy: a note the toy keeps", out)
    assert re.search(r"or toy \(a toy that notes its calls\)", " ".join(out.split()))
    assert main(["evaluate", *files, "-m", "rr", "--engine", "toy", "--toy-note", "hi",
                 "--quiet"]) == 0
    assert CALLS == ["run.txt: hi"]


def test_the_toy_option_without_the_toy_is_one_line(toy, files, capsys):
    assert main(["evaluate", *files, "-m", "rr", "--toy-note", "hi"]) == 2
    assert capsys.readouterr().err.strip() == ("rankproof evaluate: --toy-note is for --engine "
                                               "toy; leave out --toy-note")
    assert CALLS == []


def test_a_dataset_refuses_an_executor_and_its_option_by_their_flags(toy, files, capsys):
    for extra, flags in [(["--toy-note", "hi"], "--toy-note"),
                         (["--engine", "toy", "--toy-note", "hi"], "--engine toy and --toy-note")]:
        assert main(["evaluate", "--dataset", "any", files[1], *extra]) == 2
        assert capsys.readouterr().err.strip() == ("rankproof evaluate: --dataset evaluates on this "
                                                   f"machine, in memory; leave out {flags}")
    assert CALLS == []


def test_the_toy_refuses_what_it_does_not_take_in_the_cli_words(toy, files, capsys):
    assert main(["evaluate", *files, "-m", "rr", "--engine", "toy", "--tie-range"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("rankproof evaluate: --tie-range evaluates on this machine, in memory; "
                   "leave out --engine toy")
    assert CALLS == []   # refused before any input is read


def test_without_the_toy_the_default_executor_runs(toy, files, capsys):
    assert main(["evaluate", *files, "-m", "rr", "--format", "csv"]) == 0
    assert CALLS == [] and "0.75" in capsys.readouterr().out


def _step(**changes) -> Step:
    step = Step(truth=Source("qrels.txt"), runs=(Source("run.txt", name="run"),), measures=(),
                protocol=Protocol(), options=EvaluationOptions(engine="compiled"))
    return step.replace(**changes)


def test_choose_asks_the_options_then_the_inputs_then_takes_the_default(tmp_path):
    assert choose(_step()).name == "memory"
    assert choose(_step(executor="spark")).name == "spark"
    truth, run = tmp_path / "truth.csv", tmp_path / "run.csv"
    truth.write_text("query,doc,grade\nq,a,1\n")
    run.write_text("query,doc,score\nq,a,1.0\n")
    columns = {"query": "query", "doc": "doc"}
    on_disk = _step(truth=Source(str(truth), {**columns, "grade": "grade"}),
                    runs=(Source(str(run), {**columns, "score": "score"}, name="run"),))
    assert choose(on_disk).name == "memory"              # small files: in memory
    assert choose(on_disk.replace(memory_budget=2**30)).name == "outofcore"   # a budget asks for it


def test_the_chosen_executor_refuses_and_another_ones_setting_is_refused():
    with pytest.raises(InputError, match="ties_range evaluates on this machine, in memory; "
                                         "leave out memory_budget"):
        choose(_step(memory_budget=2**30, options=EvaluationOptions(ties_range=True)))
    with pytest.raises(InputError, match="spark_master is for executor=spark"):
        choose(_step(settings={"spark_master": "local[1]"}))
    assert choose(_step(settings={"spark_master": None})).name == "memory"   # not given
    with pytest.raises(InputError, match="unknown executor"):
        get_executor("dask")


def test_evaluate_frame_budget_goes_through_the_out_of_core_executor(tmp_path, monkeypatch):
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [11, 13, 20], "rating": [1, 1, 1]})
    predictions = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 20, 21],
                                "score": [0.9, 0.8, 0.1, 0.7, 0.2]})
    truth.to_parquet(tmp_path / "truth.parquet")
    predictions.to_parquet(tmp_path / "predictions.parquet")
    from rankproof.executors import outofcore

    seen = []
    original = outofcore.OutOfCoreExecutor.evaluate
    monkeypatch.setattr(outofcore.OutOfCoreExecutor, "evaluate",
                        lambda self, step: seen.append(step.memory_budget) or original(self, step))
    paths = (str(tmp_path / "truth.parquet"), str(tmp_path / "predictions.parquet"))
    found = rankproof.evaluate_frame(*paths, ["r@2", "rr@2"], memory_budget="1GB")
    assert seen == [2**30]   # the budget parsed once, by the front door
    assert found.means() == {"r@2": 0.75, "rr@2": 0.75}   # (1/2 + 1) / 2 and (1/2 + 1) / 2, by hand


def test_the_evaluate_command_tests_no_executor_name():
    cli = Path(rankproof.__file__).parent / "cli"
    for name in ("commands/evaluate.py", "step.py", "engine.py"):
        source = (cli / name).read_text(encoding="utf-8").split('"""', 2)[2]   # after the docstring
        assert not re.search(r'"spark"|SPARK|== *"(memory|outofcore)"', source)
        assert "spark_master" not in source   # the executor's own option is its own


def test_the_memory_executor_hands_each_run_to_the_evaluation_alone(files, monkeypatch, capsys):
    """Only the evaluation holds the run it aligns (so the alignment may rank its columns in
    place and free them: a long log's largest arrays), through the CLI and evaluate_frame."""
    import rankproof.evaluation as evaluation

    reused = []
    align_inputs = evaluation.align_inputs
    monkeypatch.setattr(evaluation, "align_inputs",
                        lambda inputs, reuse=False: reused.append(reuse)
                        or align_inputs(inputs, reuse=reuse))
    assert main(["evaluate", *files, "-m", "rr", "--quiet"]) == 0
    truth = pd.DataFrame({"user": [1, 2], "item": [11, 20]})
    predictions = pd.DataFrame({"user": [1, 2], "item": [11, 20], "score": [0.9, 0.7]})
    assert rankproof.evaluate_frame(truth, predictions, ["rr"], rating=None).mean("rr") == 1.0
    assert reused == [True, True]
