"""The switch that makes a missing oracle fail: RANKPROOF_REQUIRE_ORACLES (set by .ci/run).

A tiny test file, run by pytest in a subprocess, needs three oracles that are
not there (a folder of ../shared, a trec_eval with neither binary nor source,
java): without the switch its tests skip, with it they fail, each with one
line naming what is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from oracles import SWITCH
from paths import ROOT

# Each test runs pytest in subprocesses (a second or two each).
pytestmark = pytest.mark.slow

TINY = '''
from pathlib import Path

from oracles import missing, shared
from trec_oracle import build_trec_eval


def test_needs_shared():
    shared("no-such-folder")


def test_needs_a_trec_eval(tmp_path):
    build_trec_eval(tmp_path / "no-source", tmp_path / "no-build")


def test_needs_java():
    missing("no java on PATH")
'''


def run_tiny(tmp_path, switch: str | None) -> subprocess.CompletedProcess:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_tiny.py").write_text(TINY)
    env = {key: value for key, value in os.environ.items() if key != SWITCH}
    if switch is not None:
        env[SWITCH] = switch
    env["PYTHONPATH"] = str(ROOT / "tests" / "support")
    env["COLUMNS"] = "400"  # summary lines in full
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsf", "test_tiny.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def summary(done: subprocess.CompletedProcess, word: str) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith(word)]


def test_without_the_switch_a_missing_oracle_skips(tmp_path):
    for switch in (None, "0"):
        done = run_tiny(tmp_path, switch)
        assert done.returncode == 0, done.stdout
        skipped = summary(done, "SKIPPED")
        assert len(skipped) == 3 and all("missing oracle: " in line for line in skipped), done.stdout
        assert any("no-such-folder" in line for line in skipped)


def test_with_the_switch_a_missing_oracle_fails_naming_it(tmp_path):
    done = run_tiny(tmp_path, "1")
    assert done.returncode == 1, done.stdout
    failed = summary(done, "FAILED")
    assert len(failed) == 3, done.stdout
    named = {"test_needs_shared": "no-such-folder", "test_needs_a_trec_eval": "no-build: not built",
             "test_needs_java": "no java on PATH"}
    for line in failed:
        test = line.split("::")[1].split(" ")[0]
        assert "missing oracle: " in line and named[test] in line and f"({SWITCH} is set)" in line, line
    # one line each, no traceback
    assert "Traceback" not in done.stdout and "def test_" not in done.stdout
