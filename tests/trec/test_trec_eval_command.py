"""``rankproof trec-eval``: NIST's expected outputs byte for byte, trec_eval's
option syntax, its special rules (hand-computed), and one-line errors.

The expected outputs are the test files of trec_eval 10 itself
(../shared/data/trec_eval_test, see its README for the options of each).
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from rankproof.cli.app import main
from rankproof.trec import evaluate

from paths import SHARED

DATA = SHARED / "data" / "trec_eval_test"
needs_data = pytest.mark.usefixtures("trec_eval_tests")  # skips, or fails in CI, without them

# (expected output, options, qrels, run), as in the folder's README.
MEAS_PARAMS = ["-q", "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
               "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
               "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4", "-m", "success.2,5,20"]
EXPECTED = [
    ("out.test", [], "qrels.test", "results.test"),
    ("out.test", [], "qrels.test.with-comments", "results.test"),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test"),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-m", "relstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
    ("out.test.meas_params", MEAS_PARAMS, "qrels.test", "results.test"),
]


def run_command(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["trec-eval", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


# -- NIST's expected outputs -------------------------------------------------------
@needs_data
@pytest.mark.parametrize("expected, options, qrels, run", EXPECTED, ids=[f"{e[0]}:{e[2]}" for e in EXPECTED])
def test_expected_output_is_byte_identical(capsys, expected, options, qrels, run):
    code, out, err = run_command(capsys, *options, DATA / qrels, DATA / run)
    assert (code, err) == (0, "")
    assert out.encode("utf-8") == (DATA / expected).read_bytes()


@needs_data
@pytest.mark.parametrize("options", [
    ["-qc", "-M100", "-m", "all_trec"],                                           # grouped letters
    ["-q", "-c", "-M", "100", "-m", "all_trec"],                                  # separate value
    ["--query_eval_wanted", "--complete_rel_info_wanted", "--Max_retrieved_per_topic=100", "--measure=all_trec"],
    ["--query_eval", "--complete", "--Max_retrieved", "100", "--measure", "all_trec"],  # GNU abbreviations
    ["-m", "all_trec", "-m", "all_trec", "-qc", "-M100", "-R", "qrels", "-T", "trec_results", "-o"],
])
def test_trec_eval_option_syntax(capsys, options):
    # Options may also follow the files, as GNU getopt allows.
    code, out, err = run_command(capsys, DATA / "qrels.test", DATA / "results.trunc", *options)
    assert (code, err) == (0, "")
    assert out.encode() == (DATA / "out.test.aqcM").read_bytes()


@needs_data
def test_real_subprocess_and_stdin():
    expected = (DATA / "out.test.aqcM").read_bytes()
    command = [sys.executable, "-m", "rankproof.cli", "trec-eval", "-m", "all_trec", "-q", "-c", "-M100",
               str(DATA / "qrels.test")]
    by_file = subprocess.run(command + [str(DATA / "results.trunc")], capture_output=True)
    assert (by_file.returncode, by_file.stderr, by_file.stdout) == (0, b"", expected)
    by_stdin = subprocess.run(command + ["-"], input=(DATA / "results.trunc").read_bytes(), capture_output=True)
    assert (by_stdin.returncode, by_stdin.stderr, by_stdin.stdout) == (0, b"", expected)
    refused = subprocess.run(command + ["-"], input=b"301 Q0 d1 1\n", capture_output=True)
    assert refused.returncode == 2 and refused.stdout == b""
    assert refused.stderr.count(b"\n") == 1 and b"stdin line 1" in refused.stderr and b"Traceback" not in refused.stderr


# -- trec_eval's rules, on a case small enough to compute by hand ----------------------
# q1: a (2), x (never judged), then b (0) and d (-1: pooled, unjudged) tie at 1.0, so doc id
# descending puts d before b. q2: f, never judged; e, its one relevant doc, is not retrieved.
QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 d -1\nq2 0 e 1\n"
RUN = "q1 Q0 a 1 3.0 first\nq1 Q0 x 2 2.0 first\nq1 Q0 b 3 1.0 first\nq1 Q0 d 4 1.0 first\nq2 Q0 f 1 1.0 last\n"
SIMPLE = ["-q", "-m", "num_ret", "-m", "num_rel", "-m", "map", "-m", "gm_map", "-m", "relstring", "-m", "runid",
          "-m", "num_q"]


def lines(*rows: tuple[str, str, str]) -> str:
    return "".join("%-22s\t%s\t%s\n" % row for row in rows)


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def test_hand_computed_rules(capsys, small):
    code, out, err = run_command(capsys, *SIMPLE, small / "qrels", small / "run")
    assert (code, err) == (0, "")
    # q1: R = 2 (a, c); a at rank 1: AP = (1/1) / 2. q2: AP 0. gm_map = exp((log .5 + log 1e-5) / 2)
    # = sqrt(5e-6) = 0.0022 (0 floored at 1e-5). relstring: grade, '-' never judged, '.' pooled
    # but unjudged. runid: the tag of the run file's LAST line. gm_map has no per-query line.
    assert out == lines(
        ("num_ret", "q1", "4"), ("num_rel", "q1", "2"), ("map", "q1", "0.5000"), ("relstring", "q1", "'2-.0'"),
        ("num_ret", "q2", "1"), ("num_rel", "q2", "1"), ("map", "q2", "0.0000"), ("relstring", "q2", "'-'"),
        ("runid", "all", "last"), ("num_q", "all", "2"), ("num_ret", "all", "5"), ("num_rel", "all", "3"),
        ("map", "all", "0.2500"), ("gm_map", "all", "0.0022"))


def test_complete_uses_trec_evals_stand_in_ranking(capsys, small):
    (small / "qrels").write_text(QRELS + "q3 0 g 1\n")
    args = [a if a != "relstring" else "relstring.3" for a in SIMPLE]
    code, out, err = run_command(capsys, *args, "-c", "-l2", small / "qrels", small / "run")
    assert (code, err) == (0, "")
    # -l2: q1's R is 1 (a) and AP 1; q2 and q3 have R = 0. q3 is not ranked: trec_eval ranks one
    # never-judged doc for it, then resets num_ret (and a bare relstring, not relstring_3).
    # The summary num_rel under -c counts every grade > 0 in the qrels (a, c, e, g), whatever -l.
    # map = (1 + 0 + 0) / 3; gm_map = exp((0 + 2 log 1e-5) / 3) = 1e-5 ** (2/3) = 0.00046.
    assert out == lines(
        ("num_ret", "q1", "4"), ("num_rel", "q1", "1"), ("map", "q1", "1.0000"), ("relstring_3", "q1", "'2-.'"),
        ("num_ret", "q2", "1"), ("num_rel", "q2", "0"), ("map", "q2", "0.0000"), ("relstring_3", "q2", "'-'"),
        ("num_ret", "q3", "0"), ("num_rel", "q3", "0"), ("map", "q3", "0.0000"), ("relstring_3", "q3", "'-'"),
        ("runid", "all", "last"), ("num_q", "all", "3"), ("num_ret", "all", "5"), ("num_rel", "all", "4"),
        ("map", "all", "0.3333"), ("gm_map", "all", "0.0005"))


def test_judged_only_empty_ranking_prints_trec_evals_nan(capsys, small):
    code, out, err = run_command(capsys, "-q", "-J", "-m", "iprec_at_recall.0", "-m", "11pt_avg",
                                 small / "qrels", small / "run")
    assert (code, err) == (0, "")
    # -J leaves q1 with a (2), b (0); R = 2: the levels 0-0.2 cut at 0 relevant docs, 0.3-0.7 at 1
    # (precision 1), 0.8-1 at 2 (not reached): 11pt_avg = 8/11. q2 keeps nothing: trec_eval
    # divides 0 by 0 and prints -nan, also in the mean.
    assert out == lines(
        ("iprec_at_recall_0.00", "q1", "1.0000"), ("11pt_avg", "q1", "0.7273"),
        ("iprec_at_recall_0.00", "q2", "  -nan"), ("11pt_avg", "q2", "  -nan"),
        ("iprec_at_recall_0.00", "all", "  -nan"), ("11pt_avg", "all", "  -nan"))


def test_dcg_ideal_dcg_and_ndcg_share_their_gains(capsys, small):
    # trec_eval keeps one gain table for the three: ndcg.1=3 also sets dcg's gains, while dcg
    # (initialised first) keeps its bare name. q1: dcg = 2 / log2(2) = 2; ideal c (3), a (2):
    # 3 + 2 / log2(3) = 4.2619; ndcg = 0.4693. q2: 0.
    code, out, err = run_command(capsys, "-q", "-m", "dcg", "-m", "ndcg.1=3", small / "qrels", small / "run")
    assert (code, err) == (0, "")
    assert out == lines(
        ("dcg", "q1", "2.0000"), ("ndcg_1=3", "q1", "0.4693"), ("dcg", "q2", "0.0000"), ("ndcg_1=3", "q2", "0.0000"),
        ("dcg", "all", "1.0000"), ("ndcg_1=3", "all", "0.2346"))
    code, out, err = run_command(capsys, "-n", "-q", "-m", "ideal_dcg.1=3", "-m", "ndcg", small / "qrels",
                                 small / "run")
    assert out.splitlines()[:2] == ["ideal_dcg_1=3         \tq1\t4.2619", "ndcg_1=3              \tq1\t0.4693"]


def test_gains_less_than_1_apart_warn(capsys, tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 3 t\nq1 Q0 a 2 2 t\n")
    code, out, err = run_command(capsys, "-m", "ndcg.1=0.5", tmp_path / "qrels", tmp_path / "run")
    # The true NDCG: DCG = 0.5 + 2 / log2(3) = 1.7619, ideal a, b: 2 + 0.5 / log2(3) = 2.3155.
    # trec_eval 10 prints 0.8809: its gain sort sees 0 and 0.5 as equal and leaves b out of
    # the ideal ranking. rankproof keeps the true value and says so on stderr.
    assert code == 0 and out == lines(("ndcg_1=0.5", "all", "0.7609"))
    assert err.count("\n") == 1 and err.startswith("rankproof: warning:") and "less than 1 apart" in err


def test_first_parameters_given_win_and_measures_print_in_trec_order(capsys, small):
    code, out, err = run_command(capsys, "-m", "P.2", "-m", "map", "-m", "P.1,3", "-m", "P", small / "qrels",
                                 small / "run")
    assert (code, err) == (0, "")
    # P@2: q1 1/2, q2 0 -> 0.25. map comes before P whatever the order of -m.
    assert out == lines(("map", "all", "0.2500"), ("P_2", "all", "0.2500"))


def test_zscores(capsys, small, tmp_path):
    zfile = tmp_path / "z"
    zfile.write_text("q1 map 0.25 0.5\nq2 num_ret 0 2\nq1 num_ret 4 0\n")
    code, out, err = run_command(capsys, "-q", "-Z", zfile, "-m", "map", "-m", "num_ret", "-m", "runid",
                                 small / "qrels", small / "run")
    assert (code, err) == (0, "")
    # q1: map (0.5 - 0.25) / 0.5 = 0.5; num_ret 4 equals its 0-stddev mean: 0. q2: num_ret
    # (1 - 0) / 2 = 0.5; map has no mean: -1000000. The summary sums or averages the z-scores:
    # map (0.5 - 1000000) / 2. (trec_eval's lookup reads past its table for a missing name
    # above every listed one, so this file only leaves out names below them.)
    z = "Z%-22s\t%s\t%s\n"
    assert out == (z % ("num_ret", "q1", "0.0000") + z % ("map", "q1", "0.5000")
                   + z % ("num_ret", "q2", "0.5000") + z % ("map", "q2", "-1000000.0000")
                   + "%-22s\t%s\t%s\n" % ("runid", "all", "last")
                   + z % ("num_ret", "all", "0.5000") + z % ("map", "all", "-499999.7500"))


def test_help_and_version(capsys):
    code, out, err = run_command(capsys, "--help")
    assert code == 0 and out.startswith("usage: rankproof trec-eval") and "all_trec" in out
    code, out, err = run_command(capsys, "-v")
    assert code == 0 and "10.0" in out
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "trec-eval" in capsys.readouterr().out


# -- the pytrec_eval-style API -----------------------------------------------------------
def test_evaluate_api_names_and_values():
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": -1}, "q2": {"e": 1}, "q3": {"g": 1}}
    run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0, "d": 1.0}, "q2": {"f": 1.0}, "q9": {"a": 1.0}}
    values = evaluate(qrels, run, {"map", "P.2", "gm_map", "num_q", "relstring", "runid", "ndcg_cut.2"})
    assert set(values) == {"q1", "q2"}   # like pytrec_eval: queries both judged and ranked
    assert values["q1"]["map"] == 0.5 and values["q1"]["P_2"] == 0.5 and values["q1"]["num_q"] == 1.0
    assert values["q2"]["gm_map"] == pytest.approx(math.log(1e-5))   # the per-query log, as pytrec_eval
    assert "relstring" not in values["q1"] and "runid" not in values["q1"]
    # ndcg@2 of q1: a (2) then x: 2 / (2 + 1 / log2(3)) = 0.7602
    assert values["q1"]["ndcg_cut_2"] == pytest.approx(2 / (2 + 1 / math.log2(3)))
    complete = evaluate(qrels, run, "map", complete=True, relevance_level=2)
    assert complete == {"q1": {"map": 1.0}, "q2": {"map": 0.0}, "q3": {"map": 0.0}}


# -- input trec_eval refuses, and options rankproof does not support ---------------------
BAD = [
    ("run lists a doc twice", [], QRELS, RUN + "q1 Q0 a 9 0.5 first\n", "listed twice"),
    ("qrels judge a doc twice", [], QRELS + "q1 0 a 1\n", RUN, "judged twice"),
    ("run line with 5 columns", [], QRELS, RUN + "q2 Q0 g 2 0.5\n", "expected 6 columns"),
    ("qrels line with 3 columns", [], QRELS + "q2 0 g\n", RUN, "expected 4 columns"),
    ("score is not a number", [], QRELS, RUN + "q2 Q0 g 2 high last\n", "not a number"),
    # trec_eval reads 1.5 as 1 (atol), and so does the drop-in (tests/data/test_real_grades.py);
    # a grade that is no number at all is refused.
    ("grade is not an integer", [], QRELS + "q2 0 g high\n", RUN, "not an integer"),
    ("judged query missing from the run", [], QRELS + "q3 0 g 1\n", RUN, "-c"),
    ("unknown measure", ["-m", "mapp"], QRELS, RUN, "did you mean map"),
    ("preference measure", ["-m", "prefs_simp"], QRELS, RUN, "not supported"),
    ("preference nickname", ["-m", "all_prefs"], QRELS, RUN, "not supported"),
    ("cutoff 0", ["-m", "P.0"], QRELS, RUN, ">= 1"),
    ("cutoff twice", ["-m", "P.5,5"], QRELS, RUN, "twice"),
    ("nothing after the dot", ["-m", "P."], QRELS, RUN, "nothing after"),
    ("pairs without '='", ["-m", "ndcg.1"], QRELS, RUN, "level=gain"),
    ("utility with 2 coefficients", ["-m", "utility.1,2"], QRELS, RUN, "exactly 4"),
    ("gain for a negative level", ["-m", "ndcg.-1=2"], QRELS, RUN, "negative levels"),
    ("debug output", ["-D", "1"], QRELS, RUN, "-D"),
    ("prefs format", ["-R", "prefs"], QRELS, RUN, "-R prefs"),
    ("other results format", ["-T", "other"], QRELS, RUN, "-T other"),
    ("unknown option", ["-x"], QRELS, RUN, "-x"),
    ("-M 0", ["-M0"], QRELS, RUN, ">= 1"),
    ("negative -l", ["-l", "-1"], QRELS, RUN, ">= 0"),
    ("-l not a number", ["-l", "two"], QRELS, RUN, "integer"),
]


@pytest.mark.parametrize("what, options, qrels, run, hint", BAD, ids=[b[0] for b in BAD])
def test_refused_in_one_line(capsys, tmp_path, what, options, qrels, run, hint):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    code, out, err = run_command(capsys, *options, tmp_path / "qrels", tmp_path / "run")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankproof: ") and hint in err, err


@pytest.mark.parametrize("args", [[], ["only_one_file"], ["a", "b", "c"]])
def test_needs_exactly_two_files(capsys, args):
    code, out, err = run_command(capsys, *args)
    assert code == 2 and err.count("\n") == 1 and "QRELS and RUN" in err


def test_missing_file(capsys, small):
    code, out, err = run_command(capsys, small / "nope", small / "run")
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def test_extra_columns_after_the_tag_are_ignored(capsys, small):
    (small / "run2").write_text("".join(line + " more junk\n" for line in RUN.splitlines()))
    first = run_command(capsys, *SIMPLE, small / "qrels", small / "run")
    second = run_command(capsys, *SIMPLE, small / "qrels", small / "run2")
    assert first == second and first[0] == 0


def test_errors_name_the_given_run_even_when_extra_columns_were_cut(capsys, small):
    run = "".join(line + " junk\n" for line in (RUN + "q1 Q0 a 9 0.5 first").splitlines())
    (small / "run2").write_text(run)
    code, out, err = run_command(capsys, small / "qrels", small / "run2")
    assert code == 2 and err.count("\n") == 1
    assert f"{small / 'run2'} line 6" in err and "listed twice" in err
