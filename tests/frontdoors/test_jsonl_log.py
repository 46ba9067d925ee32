"""JSON Lines logs under a memory budget (rankproof.frontdoors.jsonl_log): read in blocks of bounded size.

The answers are those of the in-memory evaluation of the same files, bit for
bit, however small the blocks (lines cut at every place, ids written as
numbers on some lines and as strings on others); a malformed line is named
by its line in the file, not in its block.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("pyarrow")

from rankproof.cli.app import main  # noqa: E402
from rankproof.errors import ParseError  # noqa: E402
from rankproof.frontdoors.jsonl_log import jsonl_batches  # noqa: E402
from rankproof.frontdoors.outofcore import Log, evaluate_log  # noqa: E402
from rankproof import Qrels, Run, evaluate  # noqa: E402


@pytest.fixture(autouse=True)
def _tiny_parts(monkeypatch):
    monkeypatch.setenv("RANKPROOF_MIN_PART_ROWS", "1")


def _write(tmp_path, users: int = 40):
    """qrels and a run as JSON Lines, sorted by query; even queries' ids written as numbers."""
    rng = np.random.default_rng(2)
    qrels, run = [], []
    for q in range(users):
        query = q if q % 2 == 0 else str(q)
        for d in rng.choice(30, size=int(rng.integers(1, 4)), replace=False).tolist():
            qrels.append({"query": query, "doc": f"d{d}", "grade": int(rng.integers(0, 3))})
        for rank, d in enumerate(rng.choice(30, size=int(rng.integers(1, 8)), replace=False).tolist()):
            run.append({"query": query, "doc": d if rank % 3 == 0 else f"d{d}", "score": 10.5 - rank})
    paths = [tmp_path / "qrels.jsonl", tmp_path / "run.jsonl"]
    for rows, path in zip((qrels, run), paths):
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return [str(p) for p in paths]


def test_blocks_of_any_size_give_every_row_as_text(tmp_path):
    paths = _write(tmp_path)
    whole = [json.loads(line) for line in open(paths[1])]
    for block in (300, 1 << 16):
        tables = list(jsonl_batches(paths[1], ("query", "doc", "score"), block))
        rows = [row for t in tables for row in t.to_pylist()]
        assert rows == [{k: str(v) if not isinstance(v, float) else repr(v) for k, v in row.items()} for row in whole]
    # Blocks shorter than a line: each line read whole, none lost (the last one without its newline).
    short = tmp_path / "short.jsonl"
    short.write_text('{"query": 1, "doc": "a", "score": 2}\n\n{"query": "x", "doc": 3, "score": 0.25}')
    tables = list(jsonl_batches(str(short), ("query", "doc", "score"), 10))
    assert [row for t in tables for row in t.to_pylist()] == [{"query": "1", "doc": "a", "score": "2"},
                                                             {"query": "x", "doc": "3", "score": "0.25"}]


def test_a_malformed_line_is_named_by_its_line_in_the_file(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps({"query": "q", "doc": f"d{i}", "score": 1.0}) + "\n" for i in range(50))
                    + '{"query": "q", "doc": \n')
    with pytest.raises(ParseError, match="line 51"):
        list(jsonl_batches(str(path), ("query", "doc", "score"), 200))


def test_a_jsonl_log_out_of_core_gives_the_in_memory_answers(tmp_path, capsys):
    paths = _write(tmp_path)
    measures = ["ndcg@5", "ap", "rr"]
    reference = evaluate(Qrels.read(paths[0]), Run.read(paths[1]), measures, allow_partial=True)

    def part(truth, predictions):
        return evaluate(Qrels.from_table(truth, query="query", doc="doc", grade="grade", source=paths[0]),
                        Run.from_table(predictions, query="query", doc="doc", score="score", source=paths[1]),
                        measures, allow_partial=True)

    found = evaluate_log(Log.of(paths[0], ("query", "doc", "grade"), "query"),
                         Log.of(paths[1], ("query", "doc", "score"), "query"), part, sorted=False, part_rows=20)
    assert found.means() == reference.means() and found.queries == reference.queries
    code = main(["evaluate", *paths, "-m", "ndcg@5", "--format", "json", "--quiet", "--memory-budget", "64MB"])
    out = capsys.readouterr().out
    assert code == 0
    assert next(iter(json.loads(out)["runs"].values()))["mean"]["ndcg@5"] == reference.mean("ndcg@5")
