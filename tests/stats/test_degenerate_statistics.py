"""The statistics' commands on degenerate input: each case failed on 76aa19f (issue 36).

#7 systems --design on identical runs; #9 --seed -1 in systems, monitor and fuse; #12 balance's user in
both buckets, rows without a bucket and a column of ids; #14 monitor's "+nan%" and "0.0e+00".
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from rankproof import evaluate_scores
from rankproof.cli.app import main
from rankproof.errors import InputError
from rankproof.recsys.monitor import monitor
from rankproof.stats.balance import balance
from rankproof.stats.design import topics_for_anova
from rankproof.stats.systems import analyse_matrices

from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"


def cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- #7 ----------------------------------------------------------------------------------------------
def test_design_on_identical_runs_says_there_is_no_variance():
    column = np.random.default_rng(0).random((14, 1))   # residual variance 2.7e-32: rounding, not variance
    with pytest.raises(InputError, match="no variance"):
        analyse_matrices({"ap": np.repeat(column, 3, axis=1)}, design=True)


def test_cli_design_on_identical_runs_is_one_line_and_exit_2(capsys, tmp_path):
    runs = []
    for name in ("a", "b", "c"):
        runs.append(tmp_path / f"{name}.run")
        shutil.copy(CRANFIELD / "bm25.run", runs[-1])
    code, out, err = cli(capsys, "systems", QRELS, *runs, "-m", "ap", "--design", "--resamples", "50")
    assert code == 2 and out == "" and err.count("\n") == 1 and "no variance" in err
    assert "10000000" not in err and "10,000,000" not in err


def test_the_search_cap_is_not_printed_as_an_answer():
    with pytest.raises(InputError, match="more than 10,000,000 topics"):
        topics_for_anova(1e-6, 10.0, 5)


# -- #9 ----------------------------------------------------------------------------------------------
def test_negative_seed_is_refused_at_parse_time_in_systems_monitor_and_fuse(capsys, tmp_path):
    runs = [CRANFIELD / f"{name}.run" for name in ("bm25", "tfidf", "lmdirichlet")]
    for args in (["systems", QRELS, *runs, "--seed", "-1"],
                 ["monitor", "current.json", "reference.json", "--seed", "-1"],
                 ["fuse", *runs[:2], "--qrels", QRELS, "-o", tmp_path / "fused.run", "--seed", "-1"]):
        code, out, err = cli(capsys, *args)
        assert code == 2 and out == "" and err.count("\n") == 1 and "--seed" in err, (args, err)
        assert "internal error" not in err


def test_monitor_refuses_a_negative_seed_in_python():
    window = evaluate_scores(np.array([[1, 0], [0, 1]] * 5), np.random.default_rng(1).random((10, 2)), "rr")
    with pytest.raises(InputError, match="seed"):
        monitor(window, window, seed=-1)


# -- #12 ---------------------------------------------------------------------------------------------
def _users(count: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"user": [f"u{i}" for i in range(count)], "bucket": ["A", "B"] * (count // 2),
                         "age": rng.integers(18, 70, count), "country": rng.choice(["fr", "de"], count)})


def test_a_user_in_both_buckets_is_refused_by_name():
    users = _users()
    users.loc[1, "user"] = "u0"          # u0 in A (row 0) and in B (row 1)
    with pytest.raises(InputError, match="user u0 is in both buckets A and B"):
        balance(users)


def test_rows_without_a_bucket_are_counted():
    users = _users()
    users.loc[[3, 5], "bucket"] = None
    result = balance(users)
    assert result.unbucketed == 2 and sum(result.sizes) == 38
    assert "2 rows with no bucket left out" in str(result)


def test_a_column_of_ids_is_not_tested_as_an_attribute(capsys, tmp_path):
    count = 4000
    users = _users(count)
    users["account"] = np.random.default_rng(0).permutation(10**6)[:count]   # distinct integers: ids
    result = balance(users)
    assert "account" not in {row.attribute for row in result.rows}
    assert any("'account' not tested" in note for note in result.notes)
    assert "account" in {row.attribute for row in balance(users, attributes=["age", "account"]).rows}
    path = tmp_path / "users.csv"
    users.to_csv(path, index=False)
    code, out, _ = cli(capsys, "balance", path)
    assert code == 0 and "note: 'account' not tested" in out


# -- #14 ---------------------------------------------------------------------------------------------
def test_monitor_prints_no_nan_percent_and_the_shared_p_format():
    truth = np.zeros((400, 4), dtype=int)
    truth[:, 0] = 1
    good = evaluate_scores(truth, np.tile([1.0, 0.5, 0.2, 0.1], (400, 1)), "rr")       # rr = 1 everywhere
    worse = evaluate_scores(truth, np.tile([0.1, 0.5, 0.2, 0.3], (400, 1)), "rr")     # rr = 1/4 everywhere
    text = str(monitor(worse, good, resamples=200))
    assert "e+00" not in text and "e-" not in text and "< 0.0001" in text
    nothing = evaluate_scores(truth, np.tile([0.1, 0.5, 0.2, 0.3], (400, 1)), "p@1")    # mean 0
    text = str(monitor(nothing, nothing, resamples=200))
    assert "nan%" not in text and "n/a" in text


# -- systems --results ---------------------------------------------------------------------------------
def test_systems_saved_results_under_different_protocols_are_refused(capsys, tmp_path):
    saved = []
    for name, policy in (("bm25", "ties=expected"), ("tfidf", "ties=expected"), ("lmdirichlet", "ties=docid")):
        saved.append(tmp_path / f"{name}.json")
        assert main(["evaluate", str(QRELS), str(CRANFIELD / f"{name}.run"), "-m", "ap", "--format", "json",
                     "--policy", policy, "-o", str(saved[-1])]) == 0
    capsys.readouterr()
    code, out, err = cli(capsys, "systems", "--results", *saved, "--resamples", "50")
    assert code == 2 and out == "" and err.count("\n") == 1 and "one protocol" in err
    shutil.copy(saved[1], tmp_path / "copy.json")            # the same protocol and qrels: accepted
    code, out, _ = cli(capsys, "systems", "--results", *saved[:2], tmp_path / "copy.json", "--resamples", "50")
    assert code == 0 and "3 systems" in out and "copy.json:tfidf" in out
