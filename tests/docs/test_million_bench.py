"""benchmarks/million.py run tiny (issue 35): every command it times runs, its table is printed, and its
JSON is one the docs' benchmark page reads (scripts/docs/bench_page.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from paths import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "docs"))

import bench_page  # noqa: E402


@pytest.mark.slow
def test_the_million_user_benchmark_runs_small_and_its_rows_reach_the_page(tmp_path):
    out = tmp_path / "results" / "million.json"
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "million.py"), "--users", "300", "--repeat", "1",
                           "--only", "evaluate,evaluate+side,long log,balance", "--data", str(tmp_path / "data"),
                           "--json", str(out)], capture_output=True, text=True, env=environment, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    # The table: each command with its target and a verdict against it.
    assert "evaluate+side" in done.stdout and "<= 1.5 x evaluate" in done.stdout and "< 5 s" in done.stdout
    document = json.loads(out.read_text())
    rows = {r["workload"]: r for r in document["rows"]}
    assert set(rows) == {"evaluate", "evaluate+side", "long log", "balance"}
    for r in rows.values():
        assert r["seconds"] > 0 and r["peak_mb"] > 0 and r["note"].startswith("cpu ")
    assert rows["long log"]["input_mb"] > 0
    # The data is written once, beside the results (git-ignored under benchmarks/data in the repository).
    assert sorted(p.name for p in (tmp_path / "data" / "million_300").glob("*.parquet")) == sorted(
        f"{name}.parquet" for name in ("truth", "a", "b", "c", "train", "items", "features", "groups", "users",
                                       *"defghij"))   # d..j: the systems row's ten runs
    page = bench_page.render(bench_page.load(out.parent))
    assert "A million users, end to end" in page and "evaluate+side" in page
