"""``rankproof similarity``: RBO with ties, overlap@k and Jaccard@k of two runs, checked by hand."""

from __future__ import annotations

import math

from rankproof.cli.app import main


def _runs(tmp_path):
    a = tmp_path / "a.run"
    b = tmp_path / "b.run"
    a.write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 2.0 a\nq2 Q0 d9 1 1.0 a\n")
    b.write_text("q1 Q0 d1 1 3.0 b\nq1 Q0 d3 2 2.0 b\nq1 Q0 d2 3 1.0 b\n")
    return a, b


def test_similarity_ties_by_hand(tmp_path, capsys):
    # q1: A = (d1 {d2 d3}), B = (d1 d3 d2), p = 1/2. a: depth 2 overlaps d1 and d3 half the time,
    # A_2 = 1.5/2; ext = 1/2 + 3/4 * 1/4 + 1/8 + (3/3) * 1/8; min: 3 * (ln 2 - 1/2 - 1/8 - 1/24) past depth 3.
    # w: the tie is seen whole at depth 2: A_2 = 2 * 2 / (3 + 2).
    a, b = _runs(tmp_path)
    assert main(["similarity", str(a), str(b), "--p", "0.5", "-k", "2", "--precision", "4"]) == 0
    out = capsys.readouterr().out
    low = 1 / 2 + 3 / 16 + 1 / 8 + 3 * (math.log(2) - 1 / 2 - 1 / 8 - 1 / 24)
    assert "1 queries ranked by both (1 only by the first, 0 only by the second)" in out
    assert f"mean RBO (p=0.5, ties a) ext {0.9375:.4f}  min {low:.4f}" in out
    # top 2 in trec_eval's order: d1, then d3 before d2 (doc id descending) in A
    assert "mean overlap@2 1.0000  Jaccard@2 1.0000" in out
    assert main(["similarity", str(a), str(b), "--p", "0.5", "--ties", "w"]) == 0
    assert f"ext {1 / 2 + 4 / 5 / 4 + 1 / 8 + 1 / 8:.4f}" in capsys.readouterr().out


def test_similarity_needs_two_runs(tmp_path, capsys):
    a, _ = _runs(tmp_path)
    assert main(["similarity", str(a)]) == 2
    err = capsys.readouterr().err
    assert "give two runs" in err and err.count("\n") == 1
