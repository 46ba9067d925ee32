"""Side-data (beyond-accuracy) measures evaluated alone, without an accuracy measure beside them
(issue 40: ``-m novelty@10`` alone used to be refused).

The two-user log of test_side_data (``SMALL``): u gets a, b, c and v gets a, d, z; the training
history gives a 2 interactions, b, c and d 1 each, N = 5 interactions. Novelty@2 of a list is the
mean of -log2(popularity) of its first two items, popularity = count / N:
u (a, b): (log2(5/2) + log2(5)) / 2 = 1.8219; v (a, d): the same. Coverage@2 over the catalogue
a..f: the tops hold a, b, d, 3 of 6 items = 0.5.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.errors import MeasureError
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import evaluate_with_side

from test_side_data import COLUMNS, SMALL

NOVELTY = (math.log2(5 / 2) + math.log2(5)) / 2


@pytest.fixture
def small(tmp_path):
    for name, text in SMALL.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _evaluate(capsys, small, *extra) -> tuple[int, str, str]:
    args = ["evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "novelty@2", "-m", "coverage@2",
            "--train", small / "train.csv", "--items", small / "items.csv", "--quiet", *extra]
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_table_of_side_measures_alone(capsys, small):
    code, out, err = _evaluate(capsys, small)
    assert code == 0 and err == ""
    rows = [line.split() for line in out.split("\n\n", 1)[0].splitlines()]
    assert rows == [["run", "novelty@2", "coverage@2", "queries"], ["recs.csv", f"{NOVELTY:.4f}", "0.5000", "2"]]


def test_cli_per_query_shows_the_users_side_values_and_no_empty_table(capsys, small):
    code, out, _ = _evaluate(capsys, small, "--per-query")
    assert code == 0
    assert "per query: recs.csv" not in out   # no table of query ids without values
    block = out.split("per user, side data: recs.csv\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split() for line in block] == [["user", "novelty@2"], ["u", f"{NOVELTY:.4f}"],
                                                ["v", f"{NOVELTY:.4f}"]]
    code, out, _ = _evaluate(capsys, small, "--per-query", "--format", "markdown")
    assert code == 0 and "Per query" not in out
    assert f"| recs.csv | {NOVELTY:.4f} | 0.5000 |" in out


def test_cli_json_and_csv_of_side_measures_alone(capsys, small):
    code, out, _ = _evaluate(capsys, small, "--format", "json")
    run = json.loads(out)["runs"]["recs.csv"]
    assert code == 0 and run["mean"] == {}
    assert run["side"]["novelty@2"]["value"] == pytest.approx(NOVELTY)
    assert run["side"]["coverage@2"]["value"] == 0.5
    code, out, _ = _evaluate(capsys, small, "--format", "csv", "--per-query")
    rows = {(r["query"], r["measure"]): float(r["value"]) for r in csv.DictReader(io.StringIO(out))}
    assert code == 0 and rows == pytest.approx({("u", "novelty@2"): NOVELTY, ("v", "novelty@2"): NOVELTY,
                                                ("all", "novelty@2"): NOVELTY, ("all", "coverage@2"): 0.5})


def test_python_side_measures_alone_summary_and_repr():
    qrels = Qrels.from_dict({"u": {"a": 1}, "v": {"d": 1}})
    run = Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "d", "z"]})
    side = SideData(items=np.array(list("abcdef")))
    results = evaluate_with_side(qrels, run, ["coverage@2"], side)
    assert results.measures == [] and results.means() == {}
    assert results.counts["queries_evaluated"] == 2
    summary = results.summary().splitlines()
    assert summary[:2] == ["run run: 2 queries evaluated", "  coverage@2  0.5000"]
    assert "coverage@2=0.5000" in repr(results)
    # Beside an accuracy measure the summary lists both (P@2: u 1/2, v 1/2).
    assert "  p@2         0.5000" in evaluate_with_side(qrels, run, ["p@2", "coverage@2"], side).summary()
    with pytest.raises(MeasureError, match="no measure given"):
        evaluate_with_side(qrels, run, [], side)
