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
