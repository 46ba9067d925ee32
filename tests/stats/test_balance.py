"""A/B balance checks (rankproof.stats.balance, rankproof balance), against scipy.stats as the oracle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankproof.cli import main
from rankproof.errors import InputError
from rankproof.stats.balance import balance


@pytest.fixture
def users() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({"user": np.arange(n), "bucket": rng.choice(["A", "B"], n),
                          "age": rng.normal(40, 10, n).round(), "visits": rng.poisson(3, n),
                          "country": rng.choice(["fr", "de", "us"], n), "platform": rng.choice(["ios", "web"], n)})
    frame.loc[frame.bucket == "B", "age"] += 4          # an imbalance a check must find
    frame.loc[3, "age"] = np.nan                         # a missing value: left out of that test only
    return frame


def expected_rows(frame: pd.DataFrame) -> dict[str, tuple[float, float]]:
    a, b = frame[frame.bucket == "A"], frame[frame.bucket == "B"]
    found = {}
    for name in ("age", "visits"):
        result = stats.ks_2samp(a[name].dropna(), b[name].dropna())
        found[name] = (result.statistic, result.pvalue)
    for name in ("country", "platform"):
        result = stats.chi2_contingency(pd.crosstab(frame.bucket, frame[name]).to_numpy())
        found[name] = (result.statistic, result.pvalue)
    return found


def holm_by_hand(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, p[i] * (len(p) - step)))
        adjusted[i] = running
    return adjusted


def test_tests_equal_scipy_and_holm_corrects_the_family(users):
    result = balance(users)
    expected = expected_rows(users)
    assert [row.attribute for row in result.rows] == ["age", "visits", "country", "platform"]
    assert [row.kind for row in result.rows] == ["numeric", "numeric", "categorical", "categorical"]
    for row in result.rows:
        statistic, p = expected[row.attribute]
        assert row.statistic == pytest.approx(statistic, rel=1e-12)
        assert row.p == pytest.approx(p, rel=1e-12)
    assert [row.corrected_p for row in result.rows] == pytest.approx(holm_by_hand([row.p for row in result.rows]))
    assert result.imbalanced == ["age"]
    assert result.rows[0].users == len(users) - 1 and result.sizes == tuple((users.bucket == b).sum() for b in "AB")


def test_a_file_reads_as_the_table_and_categorical_forces_a_column(users, tmp_path):
    path = tmp_path / "users.csv"
    users.to_csv(path, index=False)
    from_file = balance(path, categorical=["visits"], correction="bonferroni")
    visits = next(row for row in from_file.rows if row.attribute == "visits")
    crosstab = pd.crosstab(users.bucket, users.visits).to_numpy()
    assert visits.test == "chi-square" and visits.p == pytest.approx(stats.chi2_contingency(crosstab).pvalue)
    age = from_file.rows[0]
    assert age.p == pytest.approx(expected_rows(users)["age"][1], rel=1e-12)
    assert age.corrected_p == pytest.approx(min(1.0, age.p * 4))


def test_command_prints_one_table_and_exits_0_even_when_imbalanced(users, tmp_path, capsys):
    path = tmp_path / "users.parquet"
    users.to_parquet(path)
    assert main(["balance", str(path), "--buckets", "A,B", "--correction", "bh"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A/B balance of 'bucket': A (") and "bh correction over 4 tests" in out[0]
    assert out[2].split()[:3] == ["age", "numeric", "KS"] and out[2].endswith("NO")
    assert out[-1] == "imbalanced: age"


@pytest.mark.parametrize("argv, words", [
    (["--bucket-col", "arm"], "no column 'arm' (--bucket-col)"),
    (["--attributes", "age,height"], "no column 'height' (--attributes)"),
    (["--bucket-col", "country"], "holds 3 buckets (de, fr, us), not two"),
    (["--buckets", "A,C"], "give two different buckets"),
])
def test_command_errors_are_one_line_exit_2(users, tmp_path, capsys, argv, words):
    path = tmp_path / "users.csv"
    users.to_csv(path, index=False)
    assert main(["balance", str(path), *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_no_attribute_and_bad_alpha_are_refused(users):
    with pytest.raises(InputError, match="no attribute"):
        balance(users[["bucket"]])
    with pytest.raises(InputError, match="alpha"):
        balance(users, alpha=1.5)


@pytest.mark.parametrize("suffix", ["csv", "tsv", "jsonl", "parquet", "csv.gz"])
def test_every_table_format_gives_the_same_tests(users, tmp_path, suffix):
    path = tmp_path / f"users.{suffix}"
    if suffix == "parquet":
        users.to_parquet(path)
    elif suffix == "jsonl":
        users.to_json(path, orient="records", lines=True)
    else:
        users.to_csv(path, sep="\t" if suffix == "tsv" else ",", index=False)
    from_file, in_memory = balance(path), balance(users)
    assert [(r.attribute, r.kind, r.users) for r in from_file.rows] == [(r.attribute, r.kind, r.users)
                                                                        for r in in_memory.rows]
    assert [r.p for r in from_file.rows] == pytest.approx([r.p for r in in_memory.rows], rel=1e-12)
