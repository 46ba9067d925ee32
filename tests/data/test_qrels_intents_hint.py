"""NIST diversity qrels read without --intents (issue 28: the error pointed the wrong way).

``1 1 d1 1`` and ``1 2 d1 0`` are one doc judged for two intents; read as plain
qrels they were "judged twice ... keep one judgment per (query, doc)", which
sends the user to delete valid judgments.
"""

from __future__ import annotations

import pytest

from rankproof import Qrels
from rankproof.cli.app import main
from rankproof.errors import DuplicateError


@pytest.fixture
def diversity(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text("1 1 d1 1\n1 2 d1 0\n1 2 d2 1\n2 1 d3 1\n2 3 d3 1\n")
    return path


@pytest.mark.parametrize("read", [Qrels.read_trec, Qrels.read])
def test_intents_are_named_as_the_fix(diversity, read):
    with pytest.raises(DuplicateError) as caught:
        read(diversity)
    message = str(caught.value)
    assert "line 2" in message and "--intents" in message and "(1 and 2)" in message
    assert "keep one judgment" not in message


def test_a_real_repeat_keeps_its_message(tmp_path):
    path = tmp_path / "dup.qrels"
    path.write_text("1 0 d1 1\n1 0 d1 0\n")
    with pytest.raises(DuplicateError) as caught:
        Qrels.read(path)
    assert "keep one judgment per (query, doc)" in str(caught.value) and "--intents" not in str(caught.value)


def test_the_command_line_says_it_in_one_line(diversity, tmp_path, capsys):
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 2.0 r\n2 Q0 d3 1 1.0 r\n")
    assert main(["evaluate", str(diversity), str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "read them with --intents" in err
    assert main(["evaluate", str(diversity), str(run), "--intents", "-m", "alpha_ndcg@10"]) == 0
