"""The options several commands share mean the same in each (cli/flags.py, cli/two_qrels.py).

A level (--alpha, --confidence, --power) has one default wherever it is taken
and says it in its help; --seed is the seed of a repeatable draw, 0 by
default. The commands that read two sets of judgments then runs (agree,
judge-bias, ppi) refuse the same things in one line: a second input from
stdin, --layer, too few runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import rankproof
from rankproof.cli.app import main
from rankproof.cli.parser import build_parser

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"
# The defaults the statistics guide states (hand-written here, not read from the code).
LEVELS = {"--alpha": 0.05, "--confidence": 0.95, "--power": 0.8}


def _shared():
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.option_strings and action.option_strings[-1] in {*LEVELS, "--seed"}:
                yield name, action


SHARED = list(_shared())


def test_the_enumeration_sees_the_commands_that_test_and_resample():
    seen = {(name, action.option_strings[-1]) for name, action in SHARED}
    assert {("compare", "--alpha"), ("balance", "--alpha"), ("monitor", "--confidence"),
            ("systems", "--power"), ("judge-bias", "--seed"), ("fuse", "--seed")} <= seen


@pytest.mark.parametrize("name, action", SHARED,
                         ids=[f"{n} {a.option_strings[-1]}" for n, a in SHARED])
def test_a_shared_option_has_one_default_and_says_it(name, action):
    flag = action.option_strings[-1]
    default = LEVELS.get(flag, 0)
    assert action.default == default, f"rankproof {name} {flag}"
    assert action.help.endswith(f"(default {default:g})"), f"rankproof {name} {flag}: {action.help}"


def _two_qrels_cases():
    qrels, judge = str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "llm_judge.qrels")
    bm25, tfidf = str(CRANFIELD / "bm25.run"), str(CRANFIELD / "tfidf.run")
    return [
        (["judge-bias", "-", "-", bm25, tfidf], "stdin ('-') is given for two inputs"),
        (["agree", qrels, "-", "--qrels", "-"], "stdin ('-') is given for two inputs"),
        (["ppi", "-", judge, "-"], "stdin ('-') is given for two inputs"),
        (["judge-bias", qrels, judge, bm25], "give the humans' qrels, the judge's qrels and two"),
        (["ppi", qrels, judge, bm25, tfidf, bm25], "give the humans' qrels, the judge's qrels"),
        (["agree", qrels], "give two qrels"),
        (["judge-bias", qrels, judge, bm25, tfidf, "--layer", judge], "--layer: compare the sources"),
        (["ppi", qrels, judge, bm25, "--layer", judge], "--layer: give the layered qrels"),
    ]


@pytest.mark.parametrize("argv, said", _two_qrels_cases(), ids=lambda v: " ".join(v)[:40]
                         if isinstance(v, list) else "")
def test_two_qrels_commands_refuse_in_one_line(argv, said, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"rankproof {argv[0]}: {said}" in err, err
