"""A refusal that suggests a flag suggests one the command takes (issue 36 #13, #14).

Each case makes a command refuse (a run ranking 1 of 4 judged queries, a
duplicate, an unknown measure, ...); every ``--flag`` its one line names is
looked up in that command's own parser. Before, compare, systems, report,
ppi, judge-bias, agree, why and leaderboard refused a low-coverage run with
"pass --allow-partial ... (or lower --min-coverage)", flags they did not take.
"""

from __future__ import annotations

import argparse
import re

import pytest

from rankproof.cli.app import main
from rankproof.cli.parser import build_parser

FILES = {
    "q": "q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\nq4 0 d1 1\n",
    "q2": "q1 0 d1 0\nq2 0 d1 1\nq3 0 d1 1\nq4 0 d1 0\n",
    "low": "q1 Q0 d1 1 1 low\n",
    "dup": "q1 Q0 d1 1 2 dup\nq1 Q0 d1 2 1 dup\nq2 Q0 d1 1 1 dup\nq3 Q0 d1 1 1 dup\nq4 Q0 d1 1 1 dup\n",
    **{name: "".join(f"q{i} Q0 d{1 + (i + j) % 2} 1 1 {name}\n" for i in range(1, 5)) for j, name in
       enumerate(("a", "b"))},
    "rag.jsonl": '{"query": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n'
                 '{"query": "q2", "retrieved": [], "relevant": ["d2"]}\n',
}
LOW = {
    "evaluate": ["q", "low"], "compare": ["q", "low", "a"], "systems": ["q", "low", "a", "b"],
    "report": ["q", "low", "a", "-o", "page.html"], "fuse": ["low", "a", "--qrels", "q", "--folds", "2", "-o", "f.run"],
    "ppi": ["q", "q2", "low"], "judge-bias": ["q", "q2", "low", "a"], "agree": ["q", "q2", "low", "a"],
    "why": ["q", "low", "--peer", "trec_eval"], "leaderboard": ["--collection", "q", "low", "a"],
}
OTHER = [
    ("evaluate", ["q", "dup"]), ("compare", ["q", "dup", "a"]), ("why", ["q", "dup", "--peer", "ranx"]),
    ("evaluate", ["q", "a", "-m", "ndgc@10"]), ("evaluate", ["q", "a", "--format", "parquet"]),
    ("rag", ["rag.jsonl", "--preset", "llamaindex"]), ("evaluate", ["q", "a", "--preset", "trec_eval",
                                                                     "-m", "ndcg@10", "--policy", "ties=maybe"]),
    ("trec-eval", ["q", "dup"]), ("explain", ["q", "dup", "-q", "q1"]), ("similarity", ["dup", "a"]),
]
CASES = [(command, [command, *argv], True) for command, argv in LOW.items()] + [(c, [c, *a], False) for c, a in OTHER]


def _accepted(command: str) -> set[str]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {option for action in sub._actions for option in action.option_strings}


@pytest.mark.parametrize("command, argv, low", CASES, ids=[" ".join(argv[:3]) for _, argv, _ in CASES])
def test_every_flag_a_refusal_suggests_is_one_the_command_takes(command, argv, low, tmp_path, monkeypatch, capsys):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", err))
    if command != "trec-eval":   # trec_eval's own syntax: its hints name rankproof evaluate's flags
        assert named <= _accepted(command), (named - _accepted(command), err)
    else:
        assert named <= _accepted("evaluate"), err
    if low:
        assert {"--allow-partial", "--min-coverage"} <= named, err


@pytest.mark.parametrize("command", sorted(LOW))
def test_the_flags_a_coverage_refusal_names_work(command, tmp_path, monkeypatch, capsys):
    """--allow-partial and --min-coverage 0.25 each let the run of 1 of 4 judged queries through."""
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    argv = [command, *LOW[command]]
    if command == "ppi":   # PPI needs judge-only topics: the humans judge three of the four
        (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    for extra in (["--allow-partial"], ["--min-coverage", "0.25"]):
        assert main(argv + extra) == 0, (extra, capsys.readouterr().err)
        capsys.readouterr()
