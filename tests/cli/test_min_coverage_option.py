"""evaluate's --min-coverage is a share in [0, 1], refused when parsed (issue 36 #14)."""

from __future__ import annotations

import pytest

from rankproof.cli.app import main


@pytest.mark.parametrize("value", ["5", "-1", "nan", "1.5", "ten"])
def test_min_coverage_outside_zero_one_is_refused_when_parsed(tmp_path, capsys, value):
    # The files do not exist: a refusal at parse time comes before any file is opened.
    code = main(["evaluate", str(tmp_path / "missing.qrels"), str(tmp_path / "missing.run"),
                 "--min-coverage", value])
    err = capsys.readouterr().err
    assert code == 2 and "--min-coverage" in err and "between 0 and 1" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("value", ["0", "1", "0.25"])
def test_min_coverage_in_zero_one_is_taken(tmp_path, capsys, value):
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 1.0 x\n")
    code = main(["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "rr",
                 "--min-coverage", value])
    err = capsys.readouterr().err
    # One of the two judged queries ranked: kept at 0 and 0.25, refused at 1 (coverage 0.5 < 1).
    assert code == (2 if value == "1" else 0), err


@pytest.mark.parametrize("share, said", [("0.75", True), ("0.6", False), ("0.5", False)])
def test_allow_partial_warns_below_the_share_given(tmp_path, capsys, share, said):
    # Five judged queries, the run ranks three (60%): below 75% the one warning names 75%;
    # at 60% or 50% the run has what was asked for and nothing is said about coverage.
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(1, 6)))
    (tmp_path / "r.txt").write_text("".join(f"q{i} Q0 d{i} 1 1.0 x\n" for i in range(1, 4)))
    code = main(["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "rr",
                 "--min-coverage", share, "--allow-partial"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "the run ranks" in line]
    assert code == 0, err
    expected = ("warning: the run ranks 3 of the 5 judged queries (60.0%), below the 75% asked "
                "for; the other 2 are scored 0 (missing_query=zero)")
    assert lines == ([f"rankproof: r.txt: {expected}"] if said else []), err


def test_fuse_allow_partial_warns_below_the_share_given(tmp_path, capsys):
    # fuse checks each component itself: with --allow-partial a component below the share is said
    # (it was silent before), without it refused; at or above the share nothing is said.
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(1, 6)))
    for name in ("a.run", "b.run"):
        (tmp_path / name).write_text("".join(f"q{i} Q0 d{i} 1 1.0 x\n" for i in range(1, 4)))
    command = ["fuse", str(tmp_path / "a.run"), str(tmp_path / "b.run"), "--qrels",
               str(tmp_path / "q.txt"), "-m", "rr", "--method", "rrf", "--param", "k=60",
               "--resamples", "50", "-o"]
    said = ("warning: ranks 3 of the 5 judged queries (60.0%), below the 75% asked for "
            "(--min-coverage)")
    code = main([*command, str(tmp_path / "f1.run"), "--min-coverage", "0.75", "--allow-partial"])
    err = capsys.readouterr().err
    assert code == 0 and [line for line in err.splitlines() if "judged queries" in line] == [
        f"rankproof: run a: {said}", f"rankproof: run b: {said}"], err
    assert main([*command, str(tmp_path / "f2.run"), "--min-coverage", "0.75"]) == 2
    assert "below the 75% asked for" in capsys.readouterr().err
    code = main([*command, str(tmp_path / "f3.run"), "--min-coverage", "0.6", "--allow-partial"])
    assert code == 0
    assert "judged queries" not in capsys.readouterr().err
