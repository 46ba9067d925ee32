"""Every statistic and report path on 50,000 users, each in a subprocess under a 4 GiB address-space
cap (the developers' rule: a test that could run away runs under a cap). Each must give its answer, or
one clear line with exit 2: never a MemoryError traceback, never a kill.

Before the bounded jackknife (stats/resampling.py), ``Results.by(..., bootstrap_method="BCa")`` on a
42k-user segment allocated a 42k x 42k matrix: a MemoryError under the cap, a kernel kill without it.
Resamples are kept low (the memory of a resample chunk does not depend on their number) so that the
whole file takes tens of seconds."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paths import SRC

pytestmark = pytest.mark.slow

CAP = 4 * 1024**3
USERS = 50_000

# Synthetic per-user scores: 5 candidates each, grades 0-2, a random score matrix per run.
SETUP = f"""
import numpy as np
from rankproof import evaluate_scores, compare
rng = np.random.default_rng(0)
truth = rng.integers(0, 3, ({USERS}, 5))
users = [f"u{{i}}" for i in range({USERS})]
def run(seed):
    return evaluate_scores(truth, np.random.default_rng(seed).random(({USERS}, 5)), ["ndcg@5", "rr"],
                           queries=users)
"""


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    environment.pop("RANKPROOF_DEBUG", None)
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=600, preexec_fn=_cap)


def _answered(done: subprocess.CompletedProcess) -> None:
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
    if done.returncode == 2:   # a refusal: one clear line
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    else:
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return _run(["-c", SETUP + textwrap.dedent(code)], tmp_path)


def test_segment_intervals_of_a_42k_user_segment(tmp_path):
    done = _python("""
        results = run(1)
        segment = {u: ("new" if i % 6 == 0 else "returning") for i, u in enumerate(users)}
        for method in ("BCa", "percentile", "basic"):
            table = results.by(segment, bootstrap_method=method, n_resamples=200, measures="rr")
            row = table.get("returning", "rr")
            assert row.count > 41_000 and row.low <= row.mean <= row.high, row
        print("ok")
    """, tmp_path)
    _answered(done)
    assert done.stdout.strip() == "ok"


def test_compare_every_test_and_interval(tmp_path):
    done = _python("""
        runs = {"a": run(1), "b": run(2), "c": run(3)}
        for test, method in (("t", "BCa"), ("wilcoxon", "basic"), ("randomization", "percentile")):
            table = compare(None, runs, test=test, bootstrap_method=method, n_resamples=200, allow_mismatch=True)
            assert len(table.rows) == 6 and all(r.ci_low <= r.difference <= r.ci_high for r in table.rows)
        print("ok")
    """, tmp_path)
    _answered(done)
    assert done.stdout.strip() == "ok"


def test_compare_many_runs(tmp_path):
    done = _python("""
        runs = {f"r{i}": run(i) for i in range(6)}
        table = compare(None, runs, "rr", test="t", n_resamples=100, allow_mismatch=True)
        assert len(table.rows) == 15
        print("ok")
    """, tmp_path)
    _answered(done)
    assert done.stdout.strip() == "ok"


def _trec_files(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    (folder / "qrels").write_text("".join(f"u{i} 0 d{i % 5} 1\n" for i in range(USERS)))
    for r in range(2):
        orders = np.argsort(rng.random((USERS, 5)), axis=1)[:, :3]
        (folder / f"run{r}").write_text("".join(
            f"u{i} Q0 d{d} {k + 1} {3 - k} r{r}\n" for i in range(USERS) for k, d in enumerate(orders[i])))
    (folder / "segments").write_text("".join(f"u{i} {'new' if i % 6 == 0 else 'returning'}\n"
                                             for i in range(USERS)))


def test_report_and_its_per_query_tables(tmp_path):
    _trec_files(tmp_path)
    done = _run(["-m", "rankproof.cli", "report", "qrels", "run0", "run1", "-m", "rr", "-m", "ndcg@10",
                 "--segments", "segments", "--resamples", "200", "-o", "report.html"], tmp_path)
    _answered(done)
    assert (tmp_path / "report.html").stat().st_size > 0


def test_compare_command_and_explain(tmp_path):
    _trec_files(tmp_path)
    done = _run(["-m", "rankproof.cli", "compare", "qrels", "run0", "run1", "-m", "rr", "--resamples", "200"],
                tmp_path)
    _answered(done)
    assert "rr" in done.stdout
    done = _run(["-m", "rankproof.cli", "explain", "qrels", "run0", "-q", "u7"], tmp_path)
    _answered(done)
