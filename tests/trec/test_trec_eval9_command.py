"""``rankproof trec-eval --v9`` against the trec_eval 9.0.8 binary, byte for byte.

trec_eval 9 (the version inside pytrec_eval, and behind most published
tables) differs from 10 in ways found by running both: scores are held as
float32 and its interpolated precision cuts at (long)(x R + 0.9) (the
trec_eval9 preset), rbp, rbp_resid and unj do not exist (nor are in all_trec),
a judged query the run does not rank is left out without -c (10 stops) and,
with -c, adds 0 to every mean without a per-query block (10 evaluates a
stand-in ranking and prints it). NIST's test files and random cases from
test_trec_parity's generator are compared whole.
"""

from __future__ import annotations

import os
import random

import pytest

from paths import SHARED

from test_trec_parity import assert_same, write_parity_case

CASES = max(60, int(os.environ.get("RANKPROOF_TREC_CASES", "300")) // 2)
NIST = SHARED / "data" / "trec_eval_test"
ONLY_IN_10 = ("dcg", "ideal_dcg", "rbp", "rbp_resid", "unj")

# NIST's option sets (their README), run here against trec_eval 9 instead of 10's expected files.
NIST_CASES = [
    ([], "qrels.test", "results.test"),
    ([], "qrels.test.with-comments", "results.test"),
    ([], "qrels.comment.test", "results.comment.test"),
    (["-m", "all_trec"], "qrels.test", "results.test"),
    (["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    (["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    (["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    (["-m", "all_trec", "-q"], "qrels.test", "results.trunc"),
    (["-m", "all_trec", "-q", "-c", "-J"], "qrels.test", "results.trunc"),
    (["-m", "all_trec", "-m", "relstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
    (["-q", "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
      "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
      "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4", "-m", "success.2,5,20"], "qrels.test", "results.test"),
]


@pytest.mark.parametrize("options, qrels, run", NIST_CASES)
def test_nist_files_match_trec_eval9(trec_eval9_binary, trec_eval_tests, capsys, options, qrels, run):
    assert_same(trec_eval9_binary, capsys, options, NIST / qrels, NIST / run, "nist", ours=("--v9",))


def _v9_options(options: list[str]) -> list[str]:
    """A trec_eval 10 command line without the measures trec_eval 9 lacks."""
    out: list[str] = []
    skip = False
    for i, option in enumerate(options):
        if skip:
            skip = False
            continue
        if option == "-m" and options[i + 1].split(".")[0] in ONLY_IN_10:
            skip = True
            continue
        out.append(option)
    return out


@pytest.mark.parametrize("seed", range(CASES))
def test_random_cases_match_trec_eval9(trec_eval9_binary, tmp_path, capsys, seed):
    rng = random.Random(9000 + seed)
    qrels, run, options = write_parity_case(rng, tmp_path)
    assert_same(trec_eval9_binary, capsys, _v9_options(options), qrels, run, f"seed {seed}", ours=("--v9",))


def test_v9_refuses_measures_trec_eval9_lacks(capsys):
    from rankproof.cli.app import main

    assert main(["trec-eval", "--v9", "-m", "rbp", str(NIST / "qrels.test"), str(NIST / "results.test")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rbp" in err and "trec_eval 9" in err
