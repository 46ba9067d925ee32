"""Near-line monitoring (rankproof.recsys.monitor, rankproof monitor): alert exit code on a real drop only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankproof import Protocol, evaluate_frame
from rankproof.cli import main
from rankproof.errors import ComparabilityError, InputError
from rankproof.recsys.monitor import ALERT_EXIT, Threshold, mean_resamples, monitor
from rankproof.report.data import to_json


def window(users: int, seed: int, lost: float = 0.0, k: int = 10, protocol=None):
    """A window of traffic: each user likes item 0, ranked at a geometric position among 10 predictions;
    for a share `lost` of users it fell out of the list (ndcg@10 0): an injected drop of that share."""
    rng = np.random.default_rng(seed)
    rank = np.where(rng.random(users) < lost, k + 1, rng.geometric(0.25, size=users))
    position = np.tile(np.arange(1, k + 1), users)
    predictions = pd.DataFrame({"user": np.repeat(np.arange(users), k),
                                "item": np.where(position == np.repeat(rank, k), 0, position),
                                "score": (k - position).astype(float)})
    truth = pd.DataFrame({"user": np.arange(users), "item": np.zeros(users, dtype=np.int64)})
    return evaluate_frame(truth, predictions, ["ndcg@10", "r@10"], protocol, rating=None)


@pytest.fixture(scope="module")
def windows():
    return {"reference": window(20_000, 1), "same": window(20_000, 2), "dropped": window(20_000, 3, lost=0.05)}


def saved(tmp_path, name: str, results) -> str:
    path = tmp_path / name
    path.write_text(to_json([results]), encoding="utf-8")   # what rankproof evaluate --format json -o writes
    return str(path)


def test_an_injected_5_percent_ndcg_drop_exits_with_the_alert_code(windows, tmp_path, capsys):
    current, reference = saved(tmp_path, "current.json", windows["dropped"]), saved(tmp_path, "ref.json",
                                                                                      windows["reference"])
    assert main(["monitor", current, reference, "-m", "ndcg@10", "--max-drop", "2%"]) == ALERT_EXIT == 3
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("rankproof monitor: ALERT: ndcg@10 dropped")
    row = captured.out.splitlines()[3].split()
    assert row[0] == "ndcg@10" and row[-1] == "ALERT"
    drop = 1 - windows["dropped"].mean("ndcg@10") / windows["reference"].mean("ndcg@10")
    assert 0.03 < drop < 0.07, drop          # the injection is ~5% (5% of users lose their hit)


def test_a_window_from_the_same_distribution_exits_0(windows, tmp_path, capsys):
    current, reference = saved(tmp_path, "current.json", windows["same"]), saved(tmp_path, "ref.json",
                                                                                   windows["reference"])
    assert main(["monitor", current, reference, "--max-drop", "2%"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and [line.split()[-1] for line in captured.out.splitlines()[3:5]] == ["ok", "ok"]


def test_windows_under_different_protocols_are_refused_in_one_line(windows, tmp_path, capsys):
    other = window(2_000, 4, protocol=Protocol(gain="exp2"))
    current, reference = saved(tmp_path, "current.json", other), saved(tmp_path, "ref.json", windows["reference"])
    assert main(["monitor", current, reference]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gain=exp2" in err and "same --preset and --policy" in err
    with pytest.raises(ComparabilityError):
        monitor(other, windows["reference"])


def test_the_test_is_welchs_and_the_interval_holds_the_change(windows):
    result = monitor(windows["dropped"], windows["reference"], max_drop=0.01, resamples=500, seed=3)
    now, before = windows["dropped"].values("ndcg@10"), windows["reference"].values("ndcg@10")
    row = result.rows[0]
    assert row.p == pytest.approx(stats.ttest_ind(now, before, equal_var=False).pvalue, rel=1e-9)
    assert row.change == pytest.approx(now.mean() - before.mean())
    assert row.low < row.change < row.high and row.alert and result.alert
    standard_error = np.sqrt(now.var(ddof=1) / len(now) + before.var(ddof=1) / len(before))
    assert row.high - row.low == pytest.approx(2 * 1.96 * standard_error, rel=0.15)   # the normal interval's width
    again = monitor(windows["dropped"], windows["reference"], max_drop=0.01, resamples=500, seed=3)
    assert again.rows == result.rows


def test_grouped_bootstrap_has_the_bootstrap_spread():
    # The multinomial over distinct values (large windows) and user-by-user draws (small ones) are one law:
    # the resampled means spread as sd / sqrt(n).
    rng = np.random.default_rng(0)
    values = rng.choice([0.0, 0.3, 0.5, 1.0], size=200_000, p=[0.4, 0.2, 0.2, 0.2])
    grouped = mean_resamples(values, 2000, np.random.default_rng(1))          # 4e8 draws: grouped
    assert grouped.std() == pytest.approx(values.std() / np.sqrt(len(values)), rel=0.08)
    assert grouped.mean() == pytest.approx(values.mean(), abs=3 * values.std() / np.sqrt(len(values)) / 40)
    continuous = rng.random(300_000)                                           # more distinct values than bins
    binned = mean_resamples(continuous, 200, np.random.default_rng(2))
    assert binned.std() == pytest.approx(continuous.std() / np.sqrt(len(continuous)), rel=0.2)


def test_a_drop_that_is_not_significant_does_not_alert(windows):
    small = monitor(window(60, 5, lost=0.3), window(60, 6), "ndcg@10", max_drop="2%")
    row = small.rows[0]
    if row.dropped and not row.significant:
        assert not small.alert and "drop, not significant" in str(small)
    assert small.alert == (row.dropped and row.p < 0.05)


@pytest.mark.parametrize("text, value, relative", [("5%", 0.05, True), ("0.01", 0.01, False), (0.02, 0.02, False)])
def test_thresholds_read_relative_or_absolute(text, value, relative):
    threshold = Threshold.parse(text)
    assert (threshold.value, threshold.relative) == (pytest.approx(value), relative)
    assert Threshold.parse("5%").passed(0.5, -0.03) and not Threshold.parse("5%").passed(0.5, -0.02)


@pytest.mark.parametrize("argv, words", [
    (["--max-drop", "five"], "--max-drop: a drop >= 0 such as 5% or 0.01 is needed (got 'five')"),
    (["--alpha", "2"], "--alpha: a number between 0 and 1 (both excluded) is needed"),
    (["-m", "ap"], "ap was not saved"),
])
def test_bad_options_are_one_line_exit_2(windows, tmp_path, capsys, argv, words):
    current, reference = saved(tmp_path, "c.json", windows["same"]), saved(tmp_path, "r.json", windows["reference"])
    assert main(["monitor", current, reference, *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_window_must_be_an_evaluation():
    with pytest.raises(InputError, match="not an evaluation"):
        monitor({"ndcg@10": [0.5]}, {"ndcg@10": [0.4]})


def test_welch_p_is_scipys_ttest_ind_bit_for_bit():
    # scipy.stats is the peer: the monitor computes the same p-value without importing it
    import warnings

    from scipy import stats

    from rankproof.recsys.monitor import welch_p

    rng = np.random.default_rng(5)
    cases = [(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 6.0, 8.0, 10.0])),
             (np.ones(5), np.ones(7)), (np.ones(5), np.array([1.0, 2.0])), (np.full(2, 0.5), np.full(2, 0.5))]
    for index in range(120):
        a = rng.random(int(rng.integers(2, 3000))) * rng.choice([1.0, 1e-8, 1e8])
        b = rng.random(int(rng.integers(2, 3000))) + rng.choice([0.0, 0.01, 1.0])
        cases.append((np.round(a, 1), np.round(b, 1)) if index % 3 == 0 else (a, b))
    cases.append((rng.random(200_000), rng.random(150_000) + 0.001))
    for a, b in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # scipy's precision-loss warning on constant samples
            expected = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
        got = welch_p(a, b)
        assert got == expected or (np.isnan(got) and np.isnan(expected)), (len(a), len(b), got, expected)


def test_parquet_windows_give_the_json_windows_table_and_exit_codes(windows, tmp_path, capsys):
    # The same evaluations saved in both layouts: the same table (after the two file names of its first
    # line), the same alert line and exit code: 3 on the injected drop, 0 on the same distribution.
    from rankproof.report.columnar import to_parquet

    def parquet(folder, name: str, results) -> str:
        path = folder / name
        path.write_bytes(to_parquet([results]))   # what rankproof evaluate --format parquet -o writes
        return str(path)

    for current, code in (("dropped", ALERT_EXIT), ("same", 0)):
        outputs = []
        for save, suffix in ((saved, "json"), (parquet, "parquet")):
            paths = [save(tmp_path, f"current.{suffix}", windows[current]),
                     save(tmp_path, f"ref.{suffix}", windows["reference"])]
            assert main(["monitor", *paths, "--max-drop", "2%"]) == code
            captured = capsys.readouterr()
            outputs.append((captured.out.split("\n", 1)[1], captured.err))
        assert outputs[0] == outputs[1] and ("ALERT" in outputs[0][1]) == (code == ALERT_EXIT)
