"""Command-line options are refused in their own names (issue 28, item 6: `--resamples 0` said
"n_resamples must be a positive integer", the Python parameter)."""

from __future__ import annotations

import pytest

from rankproof.cli.app import main

from paths import CRANFIELD

RUNS = [str(CRANFIELD / name) for name in ("qrels.txt", "bm25.run", "tfidf.run", "lmdirichlet.run")]


@pytest.mark.parametrize("command, option, value", [
    ("compare", "--resamples", "0"), ("compare", "--resamples", "-5"), ("compare", "--alpha", "0"),
    ("compare", "--confidence", "2"), ("compare", "--power", "1.5"), ("systems", "--resamples", "0"),
    ("systems", "--alpha", "1"), ("report", "--resamples", "0"), ("fuse", "--folds", "1"),
])
def test_bad_values_name_the_option(command, option, value, capsys, tmp_path):
    argv = [command, *RUNS, option, value] + (["-o", str(tmp_path / "out")] if command in ("report", "fuse") else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"argument {option}:" in err, err
    assert "n_resamples" not in err and "Traceback" not in err
