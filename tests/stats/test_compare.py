"""rankproof.compare: paired tests, corrections, intervals, power, comparability, saved results, CLI.

Expected values come from scipy (the tests), statsmodels (corrections and
power; test-only), hand calculation and properties (interval coverage on
simulated data), never from the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from rankproof import Protocol, Qrels, Run, compare, evaluate, load_results
from rankproof.cli.app import main
from rankproof.errors import ComparabilityError, InputError, MeasureError
from rankproof.report.data import to_json as results_to_json
from rankproof.stats.comparison import _bootstrap
from rankproof.stats.corrections import correct
from rankproof.stats.power import queries_needed, t_test_power
from rankproof.stats.significance import paired_t, randomization, wilcoxon

from paths import CRANFIELD

QRELS_PATH = CRANFIELD / "qrels.txt"
NAMES = ("bm25", "tfidf", "lmdirichlet")
MEASURES = ["ndcg@10", "ap"]


@pytest.fixture(scope="module")
def cranfield():
    qrels = Qrels.read_trec(QRELS_PATH)
    runs = {name: Run.read_trec(CRANFIELD / f"{name}.run", name=name) for name in NAMES}
    results = {name: evaluate(qrels, run, MEASURES) for name, run in runs.items()}
    return qrels, runs, results


def differences(rng, rows=5, n=40, zeros=0.2):
    """Per-query differences like IR measures give: bounded, with ties (exact zeros) and repeats."""
    d = np.round(rng.normal(0.02, 0.15, size=(rows, n)), 2)
    d[rng.random((rows, n)) < zeros] = 0.0
    return d


# -- the tests against scipy --------------------------------------------------------------
def test_t_and_wilcoxon_equal_scipy_on_the_same_vectors():
    rng = np.random.default_rng(7)
    for n in (5, 60, 225):   # (scipy takes ~0.3 s per row for 6 < n <= 50 with ties: left out)
        d = differences(rng, n=n)
        a = rng.random((len(d), n))
        b = a + d
        expected_t = [stats.ttest_rel(b[r], a[r]).pvalue for r in range(len(d))]
        expected_w = [stats.wilcoxon(b[r], a[r]).pvalue for r in range(len(d))]
        assert np.allclose(paired_t(b - a), expected_t, rtol=1e-12, atol=0)
        assert np.allclose(wilcoxon(b - a), expected_w, rtol=1e-12, atol=0)


def test_nan_queries_leave_only_their_row():
    rng = np.random.default_rng(3)
    d = differences(rng, rows=3, n=30)
    d[1, :7] = np.nan
    assert paired_t(d)[1] == pytest.approx(stats.ttest_1samp(d[1, 7:], 0).pvalue, rel=1e-12)
    assert wilcoxon(d)[1] == pytest.approx(stats.wilcoxon(d[1, 7:]).pvalue, rel=1e-12)
    assert paired_t(d)[0] == pytest.approx(stats.ttest_1samp(d[0], 0).pvalue, rel=1e-12)


def _scipy_permutation(row, n_resamples=10_000, seed=0):
    def mean_difference(x, y, axis):
        return np.mean(x - y, axis=axis)

    return stats.permutation_test((row, np.zeros_like(row)), mean_difference, permutation_type="samples",
                                  vectorized=True, n_resamples=n_resamples, rng=seed).pvalue


def test_randomization_equals_scipy_exactly_when_every_sign_assignment_is_enumerated():
    # 2**n <= n_resamples: both enumerate all 2**n assignments; no Monte Carlo error.
    rng = np.random.default_rng(11)
    for n in (4, 8, 13):
        d = differences(rng, rows=4, n=n, zeros=0.1)
        expected = [_scipy_permutation(row) for row in d]
        assert np.allclose(randomization(d), expected, rtol=1e-12, atol=0), n


def test_randomization_agrees_with_scipy_within_monte_carlo_error():
    # 225 queries, 10,000 random sign vectors each side: independent draws, so
    # the two estimates differ by sampling error only (sd of each <= 0.005).
    rng = np.random.default_rng(5)
    d = rng.normal(0.0, 0.2, size=(6, 225)) + np.array([0.0, 0.01, 0.02, 0.025, 0.03, 0.05])[:, None]
    ours = randomization(d)
    theirs = np.array([_scipy_permutation(row, seed=1) for row in d])
    sd = np.sqrt(np.maximum(theirs * (1 - theirs), 1e-4) / 10_000)
    assert np.all(np.abs(ours - theirs) <= 5 * np.sqrt(2) * sd + 1e-4), (ours, theirs)
    # ...and both are close to the t-test's on this nearly normal data.
    assert np.allclose(ours, paired_t(d), atol=0.02)


def test_randomization_is_reproducible_and_seeded():
    d = differences(np.random.default_rng(2), n=100)
    assert np.array_equal(randomization(d), randomization(d))
    assert not np.array_equal(randomization(d, seed=1), randomization(d, seed=2))


def test_degenerate_rows():
    d = np.array([[0.0] * 10, [0.1] * 10, [np.nan] * 5 + [0.0] * 5])
    assert paired_t(d).tolist() == [1.0, 0.0, 1.0]
    assert wilcoxon(d)[[0, 2]].tolist() == [1.0, 1.0]
    assert randomization(d)[[0, 2]].tolist() == [1.0, 1.0]
    # Ten equal positive differences: only the all-positive assignment is as large: p = 2 / 2**10.
    assert randomization(d)[1] == pytest.approx(2 / 1024)


# -- corrections against statsmodels ---------------------------------------------------------
@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_corrections_equal_statsmodels(ours, theirs):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for size in (1, 2, 6, 30, 200):
        p = rng.random(size) ** 3
        p[rng.random(size) < 0.2] = p[0]             # ties
        p[rng.random(size) < 0.1] = 1.0
        expected = multipletests(p, method=theirs)[1]
        assert np.allclose(correct(p, ours), expected, rtol=1e-12, atol=1e-15), (ours, size)


def test_unknown_correction_is_refused_with_the_choices():
    with pytest.raises(InputError, match="did you mean holm"):
        correct([0.1], "hlm")


# -- intervals, effect size, power -------------------------------------------------------------
def test_bootstrap_interval_covers_the_true_difference_at_about_the_nominal_rate():
    # 400 simulated comparisons of 60 queries each, skewed per-query differences
    # with known mean 0.03: a 95% interval should contain 0.03 about 95% of the
    # time (binomial sd 1.1%; percentile intervals run a little narrow at n = 60).
    rng = np.random.default_rng(2024)
    true_mean = 0.03
    d = rng.exponential(0.1, size=(400, 60)) - 0.1 + true_mean
    intervals = _bootstrap(d, 0.95, 2_000, 0, "percentile")
    coverage = np.mean((intervals[:, 0] <= true_mean) & (true_mean <= intervals[:, 1]))
    assert 0.91 <= coverage <= 0.98, coverage
    narrow = _bootstrap(d, 0.5, 2_000, 0, "percentile")
    coverage50 = np.mean((narrow[:, 0] <= true_mean) & (true_mean <= narrow[:, 1]))
    assert 0.42 <= coverage50 <= 0.58, coverage50


@pytest.mark.parametrize("effect", [0.05, 0.2, 0.5, 1.3, 3.0, -0.4])
def test_queries_needed_is_the_smallest_n_with_enough_power_by_statsmodels(effect):
    from statsmodels.stats.power import TTestPower

    n = queries_needed(effect, alpha=0.05, power=0.8)
    power = TTestPower().power(abs(effect), n, 0.05)
    assert power >= 0.8
    if n > 2:
        assert TTestPower().power(abs(effect), n - 1, 0.05) < 0.8
    assert float(t_test_power(effect, n)) == pytest.approx(power, rel=1e-6)


def test_zero_or_undefined_effect_is_not_detectable():
    assert queries_needed(0.0) is None
    assert queries_needed(math.nan) is None
    assert queries_needed(1e-9) is None            # more than a billion queries
    assert queries_needed(math.inf) == 2


def test_hand_computed_row():
    # Four queries; RR of A = 1/2, 1, 1, 1/2 and of B = 1, 1, 1/4, 1:
    # B - A = 0.5, 0, -0.75, 0.5 -> mean 0.0625, 2 wins, 1 tie, 1 loss.
    qrels = Qrels.from_dict({f"q{i}": {"r": 1} for i in range(4)})
    a = Run.from_dict({"q0": ["x", "r"], "q1": ["r"], "q2": ["r"], "q3": ["x", "r"]}, name="A")
    b = Run.from_dict({"q0": ["r"], "q1": ["r"], "q2": ["x", "y", "z", "r"], "q3": ["r"]}, name="B")
    row = compare(qrels, [a, b], ["rr"], test="t").rows[0]
    d = np.array([0.5, 0.0, -0.75, 0.5])
    assert (row.run_a, row.run_b) == ("A", "B")
    assert (row.mean_a, row.mean_b) == (0.75, 0.8125)
    assert row.difference == pytest.approx(0.0625)
    assert (row.wins, row.ties, row.losses, row.queries) == (2, 1, 1, 4)
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    assert row.p_value == pytest.approx(stats.ttest_rel([1, 1, 0.25, 1], [0.5, 1, 1, 0.5]).pvalue)
    assert row.p_corrected == row.p_value                     # one comparison
    assert row.ci_low <= row.difference <= row.ci_high
    # Exact randomization test: the 16 sign assignments enumerated here.
    signs = np.array([[1 - 2 * ((k >> i) & 1) for i in range(4)] for k in range(16)])
    sums = signs @ d
    expected = min(1.0, 2 * min((sums >= d.sum() - 1e-12).mean(), (sums <= d.sum() + 1e-12).mean()))
    assert compare(qrels, [a, b], ["rr"]).rows[0].p_value == pytest.approx(expected)


def test_equal_differences_with_rounding_noise_have_no_effect_size(capsys):
    # issue 28: seven differences of exactly 1 - 1/3 leave a standard deviation of ~1e-16
    # after the mean's rounding; d came out as 5.6e15 and "queries needed" as 14.
    qrels = Qrels.from_dict({f"q{i}": {"a": 1} for i in range(7)})
    a = Run.from_dict({f"q{i}": ["x", "y", "a"] for i in range(7)}, name="A")
    b = Run.from_dict({f"q{i}": ["a"] for i in range(7)}, name="B")
    row = compare(qrels, [a, b], ["rr"], test="t").rows[0]
    assert row.difference == pytest.approx(2 / 3)
    assert math.isnan(row.effect_size) and row.queries_needed is None and math.isnan(row.p_value)
    assert "n/a" in str(compare(qrels, [a, b], ["rr"], test="t").summary())


# -- Cranfield, end to end ------------------------------------------------------------------------
@pytest.mark.parametrize("test, scipy_test", [("t", stats.ttest_rel), ("wilcoxon", stats.wilcoxon)])
def test_cranfield_p_values_equal_scipy_on_the_per_query_values(cranfield, test, scipy_test):
    qrels, runs, results = cranfield
    comparison = compare(qrels, runs, MEASURES, test=test)
    assert len(comparison.rows) == 6
    from statsmodels.stats.multitest import multipletests

    for row in comparison.rows:
        a, b = results[row.run_a], results[row.run_b]
        assert a.queries == b.queries
        assert row.mean_a == pytest.approx(a.mean(row.measure), rel=1e-12)
        assert row.mean_b == pytest.approx(b.mean(row.measure), rel=1e-12)
        assert row.p_value == pytest.approx(scipy_test(b.values(row.measure), a.values(row.measure)).pvalue,
                                            rel=1e-10)
        d = b.values(row.measure) - a.values(row.measure)
        assert (row.wins, row.losses) == (int((d > 1e-12).sum()), int((d < -1e-12).sum()))
    p = [row.p_value for row in comparison.rows]
    assert [row.p_corrected for row in comparison.rows] == pytest.approx(multipletests(p, method="holm")[1])


def test_cranfield_lmdirichlet_is_significantly_worse_and_bm25_tfidf_are_not_distinguishable(cranfield):
    qrels, runs, _ = cranfield
    comparison = compare(qrels, runs, MEASURES)
    for measure in MEASURES:
        assert not comparison.row("bm25", "tfidf", measure).significant
        assert comparison.row("bm25", "tfidf", measure).queries_needed > 1000
        for strong in ("bm25", "tfidf"):
            row = comparison.row(strong, "lmdirichlet", measure)
            assert row.significant and row.difference < 0 and row.ci_high < 0


def test_baseline_pairs_and_unknown_baseline(cranfield):
    qrels, runs, results = cranfield
    comparison = compare(None, results, MEASURES, baseline="tfidf")
    assert {(r.run_a, r.run_b) for r in comparison.rows} == {("tfidf", "bm25"), ("tfidf", "lmdirichlet")}
    with pytest.raises(InputError, match="did you mean bm25"):
        compare(None, results, MEASURES, baseline="bm52")


def test_results_and_runs_give_the_same_rows(cranfield):
    qrels, runs, results = cranfield
    assert compare(qrels, runs, MEASURES).rows == compare(None, list(results.values()), MEASURES).rows


def test_input_errors(cranfield):
    qrels, runs, results = cranfield
    with pytest.raises(InputError, match="at least two runs"):
        compare(qrels, [runs["bm25"]], MEASURES)
    with pytest.raises(InputError, match="unknown test 'ttest'"):
        compare(qrels, runs, MEASURES, test="ttest")
    with pytest.raises(MeasureError):
        compare(None, results, ["p@5"])
    with pytest.raises(InputError, match="give the qrels"):
        compare(None, runs, MEASURES)
    with pytest.raises(InputError, match="aggregation=macro"):
        compare(qrels, runs, ["ndcg@10"], Protocol(aggregation="micro"))


# -- comparable or not ------------------------------------------------------------------------------
def test_different_protocols_are_refused_and_named(cranfield):
    qrels, runs, results = cranfield
    other = evaluate(qrels, runs["tfidf"], MEASURES, Protocol(ties="docid"))
    with pytest.raises(ComparabilityError, match=r"protocols differ.*ties expected vs docid.*allow_mismatch"):
        compare(None, [results["bm25"], other], MEASURES)
    comparison = compare(None, [results["bm25"], other], MEASURES, allow_mismatch=True)
    assert len(comparison.mismatches) == 1 and "ties expected vs docid" in comparison.mismatches[0]
    assert "ties expected vs docid" in comparison.summary()


def test_different_query_sets_are_refused_with_counts_and_names(cranfield):
    qrels, runs, results = cranfield
    rankings = runs["tfidf"].to_dict()
    dropped = sorted(rankings)[:5]
    partial = Run.from_dict({q: r for q, r in rankings.items() if q not in dropped}, name="partial")
    # missing_query=zero: the skipped queries score 0 and the sets stay equal.
    assert compare(qrels, {"bm25": runs["bm25"], "partial": partial}, MEASURES).rows[0].queries == 225
    exclude = Protocol(missing_query="exclude")
    a = evaluate(qrels, runs["bm25"], MEASURES, exclude)
    b = evaluate(qrels, partial, MEASURES, exclude)
    with pytest.raises(ComparabilityError, match=r"query sets differ: 5 queries only in bm25 \("):
        compare(None, [a, b], MEASURES)
    comparison = compare(None, [a, b], MEASURES, allow_mismatch=True)
    assert all(row.queries == 220 for row in comparison.rows)


def test_different_qrels_are_refused(cranfield):
    qrels, runs, results = cranfield
    judgments = qrels.to_dict() if hasattr(qrels, "to_dict") else None
    if judgments is None:
        pytest.skip("Qrels.to_dict is not available")
    first = sorted(judgments)[0]
    doc = sorted(judgments[first])[0]
    judgments[first][doc] = judgments[first][doc] + 1
    changed = evaluate(Qrels.from_dict(judgments), runs["tfidf"], MEASURES)
    with pytest.raises(ComparabilityError, match="qrels differ"):
        compare(None, [results["bm25"], changed], MEASURES)


# -- saved results -----------------------------------------------------------------------------------
def test_saved_results_round_trip(cranfield, tmp_path):
    qrels, runs, results = cranfield
    path = tmp_path / "results.json"
    path.write_text(results_to_json(list(results.values())), encoding="utf-8")
    saved = load_results(path)
    assert [s.run_name for s in saved] == list(NAMES)
    for s in saved:
        original = results[s.run_name]
        assert s.protocol == original.protocol and s.qrels_digest == original.qrels_digest
        assert s.queries == original.queries
        for m in MEASURES:
            assert np.array_equal(s.values(m), original.values(m))
            assert s.mean(m) == original.mean(m)
    assert compare(None, saved, MEASURES).rows == compare(None, list(results.values()), MEASURES).rows
    assert compare(None, saved).measures == tuple(MEASURES)          # every saved measure by default


@pytest.mark.parametrize("text, needle", [
    ("{not json", "not valid JSON"),
    ('{"a": 1}', "not a rankproof results document"),
    ('{"protocol_text": "ties=docid", "fingerprint": "000000000000", "runs": {}}', "the file was edited"),
    ('{"protocol_text": "", "runs": {"r": {"mean": {"ap": 0.5}}}}', "without per-query values"),
    ('{"protocol_text": "", "runs": {"r": {"mean": {"ap": 0.5}, "per_query": {"q": {"ap": "x"}}}}}',
     "query q, ap: expected a number"),
])
def test_bad_saved_results(tmp_path, text, needle):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=needle):
        load_results(path)


# -- renderers ---------------------------------------------------------------------------------------
def test_renderers_carry_every_row_at_full_precision(cranfield):
    from rankproof.report import compare as render

    qrels, runs, _ = cranfield
    comparison = compare(qrels, runs, MEASURES)
    document = json.loads(render.to_json(comparison))
    assert document["fingerprint"] == comparison.protocol.fingerprint
    assert [r["p_value"] for r in document["rows"]] == [r.p_value for r in comparison.rows]
    rows = list(csv.DictReader(io.StringIO(render.to_csv(comparison))))
    assert [float(r["difference"]) for r in rows] == [r.difference for r in comparison.rows]
    latex = render.to_latex(comparison)
    assert r"\begin{tabular}{llrr}" in latex and "lmdirichlet" in latex
    # bm25 (a) and tfidf (b) are both significantly better than lmdirichlet (c).
    assert latex.count("$^{c}$") == 4
    markdown = render.to_markdown(comparison)
    assert sum(line.startswith("| ") for line in markdown.splitlines()) == 1 + 6 and "\\*" in markdown
    table = comparison.summary()
    assert "Holm" in table and comparison.protocol.fingerprint in table
    assert comparison.to_pandas().shape == (6, 17)


# -- command line ------------------------------------------------------------------------------------
def cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_compare_runs_and_saved_results(capsys, tmp_path, cranfield):
    runs = [CRANFIELD / f"{n}.run" for n in NAMES]
    code, out, err = cli(capsys, "compare", QRELS_PATH, *runs, "-m", "ndcg@10", "-m", "ap", "--format", "json")
    assert code == 0 and err == ""
    document = json.loads(out)
    assert len(document["rows"]) == 6 and document["settings"]["test"] == "randomization"
    saved = tmp_path / "saved.json"
    assert cli(capsys, "evaluate", QRELS_PATH, *runs, "-m", "ndcg@10", "-m", "ap", "--format", "json",
               "-o", saved)[0] == 0
    code, out, _ = cli(capsys, "compare", "--results", saved, "--format", "json")
    assert code == 0
    from_saved = json.loads(out)
    assert from_saved["rows"] == document["rows"]
    latex = tmp_path / "table.tex"
    code, out, _ = cli(capsys, "compare", QRELS_PATH, *runs, "--baseline", runs[0], "--format", "latex",
                       "-o", latex, "-m", "ap", "--test", "wilcoxon", "--correction", "bh")
    assert code == 0 and out == "" and r"\toprule" in latex.read_text()


def test_cli_refuses_mismatch_in_one_line_with_exit_2(tmp_path):
    runs = [CRANFIELD / f"{n}.run" for n in NAMES[:2]]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, run, policy in ((a, runs[0], "ties=expected"), (b, runs[1], "ties=docid")):
        assert main(["evaluate", str(QRELS_PATH), str(run), "-m", "ap", "--format", "json", "--policy", policy,
                     "-o", str(path)]) == 0
    command = [sys.executable, "-m", "rankproof.cli", "compare", "--results", str(a), str(b)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "protocols differ" in done.stderr and "--allow-mismatch" in done.stderr
    done = subprocess.run(command + ["--allow-mismatch"], capture_output=True, text=True)
    assert done.returncode == 0 and "ties expected vs docid" in done.stdout


@pytest.mark.parametrize("args, needle", [
    (["compare", str(QRELS_PATH), str(CRANFIELD / "bm25.run")], "at least two runs"),
    (["compare", "--results", "missing.json"], "does not exist"),
    (["compare", str(QRELS_PATH), str(CRANFIELD / "bm25.run"), str(CRANFIELD / "tfidf.run"), "--baseline", "x"],
     "baseline 'x' is not one of the runs"),
    (["compare", str(QRELS_PATH), str(CRANFIELD / "bm25.run"), str(CRANFIELD / "tfidf.run"), "--alpha", "2"],
     "argument --alpha: a number between 0 and 1"),
])
def test_cli_bad_usage_exits_2(capsys, args, needle):
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == "" and needle in err and err.count("\n") == 1


def test_importing_rankproof_does_not_import_scipy():
    code = "import sys, rankproof; rankproof.compare; print('scipy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_cli_same_run_name_in_two_saved_files_is_told_apart_by_file(capsys, tmp_path):
    run = CRANFIELD / "bm25.run"
    for name in ("first.json", "second.json"):
        assert main(["evaluate", str(QRELS_PATH), str(run), "-m", "ap", "--format", "json",
                     "-o", str(tmp_path / name)]) == 0
    code, out, err = cli(capsys, "compare", "--results", tmp_path / "first.json", tmp_path / "second.json",
                         "--format", "csv", "--test", "t")
    assert code == 0, err
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert (row["run_a"], row["run_b"]) == ("first.json:bm25.run", "second.json:bm25.run")
    # The same run twice: every difference is 0, p = 1, nothing to detect.
    assert (float(row["difference"]), float(row["p_value"]), row["queries_needed"]) == (0.0, 1.0, "")
    assert row["ties"] == "225"


# -- Comparison renders itself; labels; math-mode captions (issue 14, point 13) ------------
def _small_comparison(**options):
    qrels = Qrels.from_dict({f"q{i}": {"a": 1, "b": 1} for i in range(6)})
    good = Run.from_dict({f"q{i}": ["a", "b"] for i in range(6)}, name="good_run.run")
    bad = Run.from_dict({f"q{i}": ["x", "a"] for i in range(6)}, name="bad<1>.run")
    return compare(qrels, [bad, good], ["p@1"], **options)


def test_comparison_renders_latex_and_markdown_in_python_with_a_math_mode_caption():
    comparison = _small_comparison()
    latex = comparison.to_latex()
    # Six wins of six: exact randomization p = 2/64 < 0.05, so "good" beats "bad" (label a).
    assert r"$p < 0.05$" in latex
    assert r"\textbf{1.0000}$^{a}$" in latex
    # Outside math mode no bare < or > is left (OT1 prints them as inverted ! and ?).
    text_mode = re.sub(r"\$[^$]*\$", "", latex)
    assert "<" not in text_mode and ">" not in text_mode
    assert r"bad\textless{}1\textgreater{}.run" in latex and r"good\_run.run" in latex
    markdown = comparison.to_markdown()
    assert markdown.startswith("| measure | A | B |") and r"+1.0000\*" in markdown
    assert comparison.to_csv().splitlines()[0].startswith("measure,run_a,run_b")
    assert json.loads(comparison.to_json())["rows"][0]["run_b"] == "good_run.run"


def test_runs_can_be_renamed_by_a_list_or_a_mapping():
    listed = _small_comparison(labels=["BM25", "Ours"])
    assert listed.runs == ("BM25", "Ours") and (listed.rows[0].run_a, listed.rows[0].run_b) == ("BM25", "Ours")
    assert "Ours" in listed.to_latex() and "good_run" not in listed.to_latex()
    mapped = _small_comparison(labels={"good_run.run": "Ours"}, baseline="Ours")
    assert mapped.runs == ("bad<1>.run", "Ours") and mapped.rows[0].run_a == "Ours"
    with pytest.raises(InputError, match="labels has 1 names for 2 runs"):
        _small_comparison(labels=["one"])
    with pytest.raises(InputError, match="labels names run 'nope'"):
        _small_comparison(labels={"nope": "x"})


def test_cli_labels_drop_the_file_extension(capsys, tmp_path, cranfield):
    runs = [CRANFIELD / f"{n}.run" for n in NAMES[:2]]
    code, out, err = cli(capsys, "compare", QRELS_PATH, *runs, "-m", "ap", "--format", "csv", "--test", "t",
                         "--baseline", "bm25.run")
    assert code == 0, err
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert (row["run_a"], row["run_b"]) == ("bm25", "tfidf")
    code, out, err = cli(capsys, "compare", QRELS_PATH, *runs, "-m", "ap", "--format", "latex", "--test", "t")
    assert code == 0 and "bm25 &" in out and "bm25.run" not in out and "$p < 0.05$" in out


def test_integer_user_ids_compare_with_their_saved_text_form(tmp_path):
    import pandas as pd

    from rankproof import evaluate_frame

    truth = pd.DataFrame({"user": np.arange(8), "item": np.zeros(8, dtype=int)})
    a = evaluate_frame(truth, pd.DataFrame({"user": np.arange(8), "item": np.zeros(8, dtype=int),
                                            "score": np.ones(8)}), "hit@1", rating=None, name="a")
    path = tmp_path / "a.json"
    path.write_text(results_to_json([a]))
    b = evaluate_frame(truth, pd.DataFrame({"user": np.arange(8), "item": np.arange(8) % 2,
                                            "score": np.ones(8)}), "hit@1", rating=None, name="b")
    comparison = compare(None, {"saved": load_results(path)[0], "b": b}, ["hit@1"])
    assert comparison.rows[0].queries == 8 and comparison.mismatches == ()


def test_results_shown_in_numeric_user_order_compare_as_their_runs_do():
    """evaluate_frame shows integer users in numeric order (2 before 10), its per-query table holds
    them in text order: compare and score_matrix read ids and values from the same table."""
    import pandas as pd

    from rankproof import evaluate_frame
    from rankproof.stats.matrix import score_matrix

    users = list(range(1, 13))
    truth = pd.DataFrame({"user": users, "item": [u % 5 for u in users], "rating": 1})
    first = pd.DataFrame({"user": users * 2, "item": [u % 5 for u in users] + [9] * 12,
                          "score": [float(u % 3) for u in users] + [1.5] * 12})
    second = pd.DataFrame({"user": users * 2, "item": [u % 5 for u in users] + [9] * 12,
                           "score": [1.0] * 12 + [float(u % 2) * 2 for u in users]})
    framed = {name: evaluate_frame(truth, frame, ["rr"], name=name) for name, frame in
              (("first", first), ("second", second))}
    assert framed["first"].queries[:3] == [1, 2, 3]   # shown in numeric order
    qrels = Qrels.from_dict({str(u): {str(u % 5): 1} for u in users})
    runs = {name: Run.from_dict({str(u): dict(zip(map(str, frame.item[frame.user == u]),
                                                  frame.score[frame.user == u])) for u in users}, name=name)
            for name, frame in (("first", first), ("second", second))}
    got, want = compare(None, framed, ["rr"], n_resamples=500), compare(qrels, runs, ["rr"], n_resamples=500)
    assert got.rows == want.rows
    topics, matrix = score_matrix(list(framed.values()), "rr")
    assert topics.tolist() == sorted(map(str, users))
    assert matrix[:, 0].tolist() == [framed["first"].per_query("rr")[int(t)] for t in topics]
