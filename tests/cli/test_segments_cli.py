"""``rankproof segments``: each run's means per user group, worked by hand, and its refusals."""

from __future__ import annotations

import json

import pytest

from rankproof.cli import main


@pytest.fixture
def files(tmp_path):
    # rr@3 per user: u1 1 (a first), u2 1/2, u3 1/3, u4 0 (its item is not ranked).
    (tmp_path / "qrels.txt").write_text("u1 0 a 1\nu2 0 b 1\nu3 0 c 1\nu4 0 d 1\n")
    (tmp_path / "a.run").write_text("u1 Q0 a 1 3 t\nu1 Q0 x 2 2 t\nu2 Q0 x 1 3 t\nu2 Q0 b 2 2 t\n"
                                    "u3 Q0 x 1 3 t\nu3 Q0 y 2 2 t\nu3 Q0 c 3 1 t\nu4 Q0 x 1 3 t\n")
    # run b: every user's item first (rr 1 each)
    (tmp_path / "b.run").write_text("u1 Q0 a 1 3 t\nu2 Q0 b 1 3 t\nu3 Q0 c 1 3 t\nu4 Q0 d 1 3 t\n")
    (tmp_path / "groups.csv").write_text("user,group\nu1,new\nu2,new\nu3,old\nu4,old\n")
    return tmp_path


def _json(capsys, *args):
    assert main([str(a) for a in args]) == 0
    return json.loads(capsys.readouterr().out)["runs"]


def test_each_runs_means_per_group_worked_by_hand(files, capsys):
    got = _json(capsys, "segments", files / "qrels.txt", files / "a.run", files / "b.run", "-m", "rr@3",
                "--groups", files / "groups.csv", "--format", "json", "--resamples", "200")
    assert list(got) == ["a", "b"]
    rows = {row["segment"]: row for row in got["a"]["rows"]}
    assert rows["new"]["mean"] == pytest.approx((1 + 1 / 2) / 2) and rows["new"]["count"] == 2
    assert rows["old"]["mean"] == pytest.approx((1 / 3 + 0) / 2) and rows["old"]["count"] == 2
    # a percentile bootstrap of two values stays between them
    assert 1 / 2 <= rows["new"]["low"] <= rows["new"]["high"] <= 1
    assert 0 <= rows["old"]["low"] <= rows["old"]["high"] <= 1 / 3
    assert [row["mean"] for row in got["b"]["rows"]] == [1.0, 1.0]
    assert "bootstrap (200 resamples, seed 0)" in got["a"]["method_check"]


def test_the_normal_interval_when_asked(files, capsys):
    got = _json(capsys, "segments", files / "qrels.txt", files / "a.run", "-m", "rr@3", "--groups",
                files / "groups.csv", "--format", "json", "--interval", "normal")
    new = next(row for row in got["a"]["rows"] if row["segment"] == "new")
    # symmetric about the mean, as a normal interval is (a bootstrap's need not be)
    assert new["high"] - new["mean"] == pytest.approx(new["mean"] - new["low"]) and new["low"] < new["mean"]
    assert got["a"]["interval"] == "normal"


def test_the_table_names_each_run_and_its_groups(files, capsys):
    assert main(["segments", str(files / "qrels.txt"), str(files / "a.run"), "-m", "rr@3", "--groups",
                 str(files / "groups.csv"), "--resamples", "100", "-o", str(files / "out.txt")]) == 0
    text = (files / "out.txt").read_text()
    assert text.splitlines()[0] == "a" and "new" in text and "0.7500" in text and "0.1667" in text


def test_a_user_without_a_group_is_refused_in_one_line_or_grouped_apart(files, capsys):
    (files / "groups.csv").write_text("user,group\nu1,new\nu2,new\nu3,old\n")
    args = ["segments", str(files / "qrels.txt"), str(files / "a.run"), "-m", "rr@3", "--groups",
            str(files / "groups.csv"), "--format", "json", "--resamples", "100"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "u4" in err and "Traceback" not in err
    assert main(args + ["--unlabelled", "drop"]) == 0
    rows = json.loads(capsys.readouterr().out)["runs"]["a"]["rows"]
    assert {row["segment"]: row["count"] for row in rows} == {"new": 2, "old": 1}


def test_a_missing_groups_file_or_run_is_refused(files, capsys):
    assert main(["segments", str(files / "qrels.txt"), str(files / "a.run"), "-m", "rr@3"]) == 2
    assert main(["segments", str(files / "qrels.txt"), "--groups", str(files / "groups.csv")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--groups" in err


def test_the_groups_columns_are_renamed_with_side_columns_or_named_in_the_refusal(files, capsys):
    (files / "groups.csv").write_text("uid,segment\nu1,new\nu2,new\nu3,old\nu4,old\n")
    args = ["segments", str(files / "qrels.txt"), str(files / "a.run"), "-m", "rr@3", "--groups",
            str(files / "groups.csv"), "--format", "json", "--resamples", "100"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--side-columns user=NAME,group=NAME" in err and len(err.strip().splitlines()) == 1
    assert main(args + ["--side-columns", "user=uid,group=segment"]) == 0
    rows = json.loads(capsys.readouterr().out)["runs"]["a"]["rows"]
    assert [(row["segment"], row["count"]) for row in rows] == [("new", 2), ("old", 2)]
