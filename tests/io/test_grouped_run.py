"""A run read from a table is grouped by query as it is read (io/grouping.py): its rows
must be each query's rows in table order, queries sorted as text, checked here against
plain Python over the table's rows; errors must still name the table's row."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from rankproof.data.run import Run
from rankproof.errors import ParseError
from rankproof.io.grouping import Placement, grouped_placement, query_blocks


def _expected(queries: list, docs: list, scores: list | None) -> dict[str, list]:
    """{query as text: [(doc as text, score), ...] in table order}; no scores: -position."""
    rows: dict[str, list] = {}
    for i, (query, doc) in enumerate(zip(queries, docs)):
        mine = rows.setdefault(str(query), [])
        mine.append((str(doc), float(scores[i]) if scores is not None else -float(len(mine))))
    return rows


def _held(run: Run) -> dict[str, list]:
    held = {}
    for i, query in enumerate(run.queries.tolist()):
        lo, hi = run.offsets[i], run.offsets[i + 1]
        held[query] = list(zip(run.docs[run.doc_codes[lo:hi]].tolist(), run.scores[lo:hi].tolist()))
    return held


RNG = np.random.default_rng(35)


def _log(users: list, per_user: int, text: bool) -> dict[str, list]:
    queries = [user for user in users for _ in range(per_user)]
    docs = RNG.integers(0, 40, len(queries)).tolist()
    docs = [f"d{d}" for d in docs] if text else docs
    queries = [f"u{q}" for q in queries] if text else queries
    return {"query": queries, "doc": docs, "score": RNG.random(len(queries)).round(3).tolist()}


CASES = {
    # users numbered 0..29: blocks in numeric order, codes in text order ("10" before "9")
    "integer-blocks": _log(list(range(30)), 4, text=False),
    "text-blocks": _log(list(range(30)), 3, text=True),
    # one user in three blocks, others between: table order within the user is kept
    "user-in-several-blocks": _log([5, 12, 5, 3, 5, 12], 2, text=False),
    "already-in-code-order": _log([1, 10, 2, 3], 3, text=False),
    "one-row-per-block": _log(list(RNG.permutation(50)), 1, text=True),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("scored", [True, False])
def test_each_query_keeps_its_rows_in_table_order(name: str, scored: bool) -> None:
    data = CASES[name]
    table = pa.table(data if scored else {"query": data["query"], "doc": data["doc"]})
    run = Run.from_table(table, score="score" if scored else None)
    expected = _expected(data["query"], data["doc"], data["score"] if scored else None)
    assert run.queries.tolist() == sorted(expected)
    assert _held(run) == expected
    assert run.has_scores is scored


def test_chunks_are_placed_across_their_boundaries() -> None:
    data = CASES["user-in-several-blocks"]
    # Chunk boundaries inside blocks and between them: the blocks are found across them.
    parts = [(0, 3), (3, 4), (4, 9), (9, 12)]
    table = pa.Table.from_batches([pa.record_batch({k: v[lo:hi] for k, v in data.items()}) for lo, hi in parts])
    assert table.column("query").num_chunks == 4
    assert _held(Run.from_table(table)) == _expected(data["query"], data["doc"], data["score"])


def test_blocks_and_places_by_hand() -> None:
    column = pa.chunked_array([[7, 7, 10], [10, 9, 7]])
    starts, ids = query_blocks(column)
    assert starts.tolist() == [0, 2, 4, 5]
    assert ids.to_pylist() == [7, 10, 9, 7]
    # codes in text order: "10" 0, "7" 1, "9" 2
    offsets, placement = grouped_placement(np.array([1, 0, 2, 1]), starts, 6, 3)
    assert offsets.tolist() == [0, 2, 5, 6]
    placed = placement.place([np.arange(6)], np.int64)
    assert placed.tolist() == [2, 3, 0, 1, 5, 4]
    assert placement.table_rows(np.arange(6)).tolist() == placed.tolist()
    assert Placement(np.array([0, 2]), np.array([0, 2]), 4).index(1, 3) == slice(1, 3)


def test_a_bad_score_names_its_table_row() -> None:
    data = CASES["integer-blocks"]
    scores = list(data["score"])
    scores[45] = float("nan")   # user 11's second row, placed elsewhere once grouped
    scores[90] = float("inf")
    with pytest.raises(ParseError, match=r"row 46\b.*not finite|row 46\b"):
        Run.from_table(pa.table({**data, "score": scores}))


def test_a_nul_in_a_doc_names_its_table_row() -> None:
    data = CASES["text-blocks"]
    docs = list(data["doc"])
    docs[40] = "d\0x"
    with pytest.raises(ParseError, match=r"row 41\b"):
        Run.from_table(pa.table({**data, "doc": docs}))


def test_a_parquet_run_read_column_by_column_is_the_table_read_whole(tmp_path) -> None:
    import pyarrow.parquet as pq

    data = CASES["user-in-several-blocks"]
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table(data), path, row_group_size=5)
    run = Run.read(path)
    assert _held(run) == _expected(data["query"], data["doc"], data["score"])
    assert run.name == "run.parquet" and run.source == str(path)


# Users 5, 12, 5, 3, 5, 12 in blocks of 2 rows: row 8 (index 7) is user 3's, row 4 user 12's.
@pytest.mark.parametrize("column, row, value, message", [
    ("score", 7, float("nan"), r"run.parquet row 8: query 3, doc {doc}: NaN score"),
    ("doc", 3, None, r"run.parquet row 4: query 12: no doc id"),
    ("query", 9, None, r"run.parquet row 10: doc {doc}: no query id"),
])
def test_a_bad_parquet_value_is_named_as_the_whole_table_names_it(tmp_path, column, row, value,
                                                                   message) -> None:
    import pyarrow.parquet as pq

    data = {key: list(values) for key, values in CASES["user-in-several-blocks"].items()}
    data[column][row] = value
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table(data), path, row_group_size=5)
    with pytest.raises(ParseError, match=message.format(doc=data["doc"][row])):
        Run.read(path)
