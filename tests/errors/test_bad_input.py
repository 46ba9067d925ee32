"""A table of bad inputs: each must raise the right error with a usable message.

Every user error is a RankproofError (and a ValueError), and its message is one
line that says what was wrong, where (file, line, query, doc) and what to do.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

from rankproof import Measure, Protocol, Qrels, Run, evaluate, parse_measure
from rankproof.errors import (
    DuplicateError,
    InputError,
    MeasureError,
    MissingQueryError,
    ParseError,
    ProtocolError,
    RankproofError,
    TieError,
    UnjudgedError,
    ZeroIdealError,
)

from paths import SRC


def judged() -> Qrels:
    return Qrels.from_dict({"q1": {"A": 1, "B": 0}})


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@dataclasses.dataclass(frozen=True)
class Bad:
    """One bad input: how to make it, the error, and what the message must hold."""

    id: str
    call: Callable[[Path], Any]  # takes tmp_path, for the file cases
    error: type[Exception]
    what: str  # the problem, in words the user recognises
    where: tuple[str, ...]  # file name, line, query, doc, measure or policy
    fix: str  # regex: the remedy (a policy to pass, a form to write, ...)


# A generic remedy for cases whose fix has no single natural wording.
ANY_REMEDY = r"\b(give|add|pass|check|write|use|remove|keep|choose|include)\b"

CASES = [
    # -- duplicates ----------------------------------------------------------
    Bad("duplicate doc in a ranking",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": ["A", "B", "A"]}), "ndcg@10"),
        DuplicateError, "twice", ("query q1", "doc A"), r"duplicates=first"),
    Bad("duplicate doc in a TREC run file",
        lambda tmp: evaluate(judged(), Run.read_trec(write(
            tmp, "system.run", "q1 Q0 A 1 2.0 t\nq1 Q0 B 2 1.0 t\nq1 Q0 A 3 0.5 t\n")), "ndcg@10"),
        DuplicateError, "twice", ("system.run", "line 3", "query q1", "doc A"), r"duplicates=first"),
    Bad("qrels judge a doc twice with different grades",
        lambda tmp: Qrels.from_pandas(pd.DataFrame(
            {"query": ["q1", "q1"], "doc": ["A", "A"], "grade": [1, 2]})),
        DuplicateError, "different grades 1 and 2", ("query q1", "doc A"), r"keep one judgment"),
    Bad("qrels judge a doc twice with the same grade",
        lambda tmp: Qrels.from_pandas(pd.DataFrame(
            {"query": ["q1", "q1"], "doc": ["A", "A"], "grade": [1, 1]})),
        DuplicateError, "judged twice", ("query q1", "doc A"), r"remove the repeated judgment"),
    Bad("TREC qrels file judges a doc twice",
        lambda tmp: Qrels.read_trec(write(tmp, "judgments.qrels", "q1 0 A 1\nq1 0 B 0\nq1 0 A 1\n")),
        DuplicateError, "judged twice", ("judgments.qrels", "line 3", "lines 1 and 3", "query q1", "doc A"),
        r"remove"),
    # -- grades --------------------------------------------------------------
    Bad("fractional grade from a dict",
        lambda tmp: Qrels.from_dict({"q1": {"A": 1, "B": 1.5}}),
        ParseError, "grade 1.5", ("query q1", "doc B"), r"integer"),
    Bad("text grade from a dict",
        lambda tmp: Qrels.from_dict({"q1": {"A": "high"}}),
        ParseError, "'high'", ("query q1", "doc A"), r"integer"),
    Bad("fractional grade from a DataFrame",
        lambda tmp: Qrels.from_pandas(pd.DataFrame(
            {"query": ["q1", "q1"], "doc": ["A", "B"], "grade": [1, 1.5]})),
        ParseError, "grade 1.5", ("row 1", "query q1", "doc B"), r"integer"),
    Bad("fractional grade in a TREC qrels file",
        lambda tmp: Qrels.read_trec(write(tmp, "graded.qrels", "q1 0 A 1\nq1 0 B 1.5\n")),
        ParseError, "1.5", ("graded.qrels", "line 2", "query q1", "doc B"), r"integer"),
    Bad("negative grade under negative_grades='error'",
        lambda tmp: evaluate(Qrels.from_dict({"q1": {"A": 1, "B": -1}}),
                             Run.from_dict({"q1": ["A", "B"]}), "ndcg@10"),
        InputError, "negative grade -1", ("query q1", "doc B"), r"negative_grades=(zero|unjudged)"),
    # -- scores --------------------------------------------------------------
    Bad("NaN score from a dict",
        lambda tmp: Run.from_dict({"q1": {"A": 1.0, "B": float("nan")}}),
        ParseError, "nan", ("query q1", "doc B"), r"finite score"),
    Bad("infinite score from a dict",
        lambda tmp: Run.from_dict({"q1": {"A": float("inf")}}),
        ParseError, "inf", ("query q1", "doc A"), r"finite score"),
    Bad("NaN score from a DataFrame",
        lambda tmp: Run.from_pandas(pd.DataFrame(
            {"query": ["q1", "q1"], "doc": ["A", "B"], "score": [1.0, float("nan")]})),
        ParseError, "nan", ("row 1", "query q1", "doc B"), r"finite score"),
    Bad("NaN score in a TREC run file",
        lambda tmp: Run.read_trec(write(tmp, "nan.run", "q1 Q0 A 1 2.0 t\nq1 Q0 B 2 nan t\n")),
        ParseError, "nan", ("nan.run", "line 2", "query q1", "doc B"), r"finite score"),
    # -- empty inputs --------------------------------------------------------
    Bad("empty qrels",
        lambda tmp: Qrels.from_dict({}),
        InputError, "no judgments", ("qrels",), ANY_REMEDY),
    Bad("empty run",
        lambda tmp: evaluate(judged(), Run.from_dict({}), "ndcg@10"),
        InputError, "no documents", ("run",), ANY_REMEDY),
    Bad("run whose only query has an empty ranking",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": []}), "ndcg@10"),
        InputError, "no documents", ("run",), ANY_REMEDY),
    # -- queries on one side only --------------------------------------------
    Bad("run ranks a query the qrels lack, under extra_query='error'",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": ["A"], "q9": ["A"]}), "ndcg@10",
                             Protocol(extra_query="error")),
        MissingQueryError, "do not judge", ("q9",), r"extra_query=ignore"),
    Bad("qrels judge a query the run lacks, under missing_query='error'",
        lambda tmp: evaluate(Qrels.from_dict({"q1": {"A": 1}, "q2": {"B": 1}}),
                             Run.from_dict({"q1": ["A"]}), "ndcg@10", Protocol(missing_query="error")),
        MissingQueryError, "no ranking", ("q2",), r"missing_query=(zero|exclude)"),
    # -- policies that make a case an error -----------------------------------
    Bad("unjudged doc under unjudged='error'",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": ["A", "Z"]}), "ndcg@10",
                             Protocol(unjudged="error")),
        UnjudgedError, "no judgment", ("query q1", "doc Z"), r"unjudged=(zero|condense)"),
    Bad("tied scores under ties='error'",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": {"A": 1.0, "B": 1.0}}), "ndcg@10",
                             Protocol(ties="error")),
        TieError, "tie", ("query q1", "A", "B"), r"ties=(expected|docid)"),
    Bad("query with nothing relevant under zero_ideal='error'",
        lambda tmp: evaluate(Qrels.from_dict({"q1": {"A": 1}, "q0": {"B": 0}}),
                             Run.from_dict({"q1": ["A"], "q0": ["B"]}), "ndcg@10",
                             Protocol(zero_ideal="error")),
        ZeroIdealError, "nothing relevant", ("query q0", "ndcg@10"), r"zero_ideal=(zero|exclude|one)"),
    Bad("weighted aggregation without a weight for a query",
        lambda tmp: evaluate(Qrels.from_dict({"q1": {"A": 1}, "q2": {"B": 1}}),
                             Run.from_dict({"q1": ["A"], "q2": ["B"]}), "ndcg@10",
                             Protocol(aggregation="weighted"), weights={"q1": 1.0}),
        InputError, "no weight", ("q2",), ANY_REMEDY),
    # -- measures ------------------------------------------------------------
    Bad("cutoff 0 in text",
        lambda tmp: parse_measure("ndcg@0"),
        MeasureError, ">= 1", ("ndcg", "0"), r"ndcg@10"),
    Bad("fractional cutoff in text",
        lambda tmp: parse_measure("ndcg@2.5"),
        MeasureError, "integer", ("ndcg", "2.5"), r"ndcg@10"),
    Bad("negative cutoff in Python",
        lambda tmp: Measure("p", -3),
        MeasureError, ">= 1", ("p", "-3"), r"p@10"),
    Bad("cutoff 0 passed to evaluate",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": ["A"]}), "ndcg@0"),
        MeasureError, ">= 1", ("ndcg",), r"ndcg@10"),
    Bad("unknown measure name",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": ["A"]}), ["ndgc@10"]),
        MeasureError, "unknown measure", ("'ndgc'",), r"did you mean ndcg"),
    # -- protocol ------------------------------------------------------------
    Bad("unknown policy key in text",
        lambda tmp: Protocol.from_text("tie=docid"),
        ProtocolError, "unknown policy", ("'tie'",), r"did you mean ties"),
    Bad("unknown policy key in replace",
        lambda tmp: Protocol().replace(aggregate="micro"),
        ProtocolError, "unknown policy", ("'aggregate'",), r"did you mean aggregation"),
    Bad("unknown policy value",
        lambda tmp: Protocol(ties="random"),
        ProtocolError, "does not accept", ("ties", "'random'"), r"choose one of expected, docid, input, error"),
    Bad("unknown policy value passed as protocol text to evaluate",
        lambda tmp: evaluate(judged(), Run.from_dict({"q1": ["A"]}), "ndcg@10", "unjudged=skip"),
        ProtocolError, "does not accept", ("unjudged", "'skip'"), r"choose one of zero, error, condense"),
    # -- TREC files with the wrong shape -------------------------------------
    Bad("TREC qrels line with too few columns",
        lambda tmp: Qrels.read_trec(write(tmp, "short.qrels", "q1 0 A 1\nq1 0 B\n")),
        ParseError, "expected 4 columns", ("short.qrels", "line 2"), r"write one judgment per line"),
    Bad("TREC run line with too few columns",
        lambda tmp: Run.read_trec(write(tmp, "short.run", "q1 Q0 A 1 2.0 t\nq1 Q0 B 2 1.0 t\nq1 Q0 C 3 t\n")),
        ParseError, "expected 6 columns", ("short.run", "line 3"), r"write one ranked document per line"),
]


def raised(case: Bad, tmp_path: Path) -> Exception:
    with pytest.raises(case.error) as caught:
        case.call(tmp_path)
    return caught.value


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_bad_input_raises_its_error_class(case, tmp_path):
    error = raised(case, tmp_path)
    assert isinstance(error, RankproofError)
    assert isinstance(error, ValueError)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_message_says_what_where_and_how_to_fix(case, tmp_path):
    message = str(raised(case, tmp_path))
    assert case.what in message, f"the problem ({case.what!r}) is not named: {message}"
    for place in case.where:
        assert place in message, f"the location ({place!r}) is not named: {message}"
    assert re.search(case.fix, message, flags=re.IGNORECASE), f"no remedy ({case.fix!r}): {message}"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_message_is_a_single_line(case, tmp_path):
    assert "\n" not in str(raised(case, tmp_path))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_message_shows_values_as_written_not_numpy_reprs(case, tmp_path):
    # "score np.float64(nan)" is numpy's repr leaking into a message for people.
    message = str(raised(case, tmp_path))
    assert not re.search(r"\bnp\.\w+\(", message), message


# -- python -O must not change behaviour ------------------------------------------
OPTIMISED_SCRIPT = """
import sys
from rankproof import Measure, Protocol, Qrels, Run, evaluate
from rankproof.errors import RankproofError

print("optimize", sys.flags.optimize)
qrels = Qrels.from_dict({"q1": {"A": 1, "B": 0}})
checks = {
    "duplicate doc": lambda: evaluate(qrels, Run.from_dict({"q1": ["A", "B", "A"]}), "ndcg@10"),
    "cutoff 0": lambda: Measure("ndcg", 0),
    "unknown policy value": lambda: Protocol(ties="random"),
}
for name, call in checks.items():
    try:
        call()
    except RankproofError as error:
        print(name, "->", type(error).__name__)
    else:
        print(name, "-> no error")
"""


def test_errors_are_raised_under_python_dash_O():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    completed = subprocess.run([sys.executable, "-O", "-c", OPTIMISED_SCRIPT],
                               capture_output=True, text=True, env=env, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "optimize 1",
        "duplicate doc -> DuplicateError",
        "cutoff 0 -> MeasureError",
        "unknown policy value -> ProtocolError",
    ]
