"""Integer ids in a narrow range (a log's users and items) are interned by a table over the range,
not a hash table: the codes and vocabulary must be those of any other reading, checked here against
plain Python (the ids as decimal text, sorted by code point, each row's code its id's place)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from rankproof.io import arrow
from rankproof.io.tables import qrels_columns_from_table, run_columns_from_table


def _expected(values: list[int]) -> tuple[list[int], list[str]]:
    vocabulary = sorted({str(v) for v in values})  # Python's str order is code-point order
    where = {text: code for code, text in enumerate(vocabulary)}
    return [where[str(v)] for v in values], vocabulary


RNG = np.random.default_rng(35)
COLUMNS = {
    "from-zero": pa.chunked_array([RNG.integers(0, 300, 2000)]),
    "negative-and-positive": pa.chunked_array([RNG.integers(-120, 120, 1500)]),
    "int32-in-three-chunks": pa.chunked_array([RNG.integers(-5, 40, 100).astype(np.int32) for _ in range(3)]),
    "one-value": pa.chunked_array([np.array([7], dtype=np.int64)]),
    "far-from-zero": pa.chunked_array([RNG.integers(2**62, 2**62 + 50, 400)]),
    "both-ends-of-int64": pa.chunked_array([np.array([-2**63, 2**63 - 1, 0], dtype=np.int64)]),
}


@pytest.mark.parametrize("name", COLUMNS)
def test_integer_ids_intern_to_the_decimal_text_sorted(name: str) -> None:
    column = COLUMNS[name]
    values = column.to_pylist()
    codes, vocabulary = arrow._intern_column(column)
    want_codes, want_vocabulary = _expected(values)
    assert vocabulary.tolist() == want_vocabulary
    assert codes.tolist() == want_codes


def test_the_range_table_is_used_only_for_a_narrow_range() -> None:
    assert arrow._dense_range(COLUMNS["from-zero"]) is not None
    assert arrow._dense_range(COLUMNS["int32-in-three-chunks"]) == (-5, 45)
    # 3 rows over the whole int64 range: a hash table (a table over the range would not fit)
    assert arrow._dense_range(COLUMNS["both-ends-of-int64"]) is None
    assert arrow._dense_range(pa.chunked_array([pa.array([1, None, 3])])) is None  # nulls: never read their slot
    assert arrow._dense_range(pa.chunked_array([pa.array(["1", "2"])])) is None


def test_a_log_reads_the_same_whether_ids_are_integers_or_text() -> None:
    users, items = RNG.integers(0, 50, 600), RNG.integers(0, 90, 600)
    scores = RNG.random(600)
    as_int = run_columns_from_table(pa.table({"query": users, "doc": items, "score": scores}))
    as_text = run_columns_from_table(pa.table({"query": users.astype(str), "doc": items.astype(str),
                                               "score": scores}))
    for field in ("query_codes", "query_vocab", "doc_codes", "doc_vocab"):
        assert getattr(as_int, field).tolist() == getattr(as_text, field).tolist()
    truth = qrels_columns_from_table(pa.table({"query": users[:40], "doc": items[:40], "grade": np.ones(40, int)}))
    assert truth.query_vocab[truth.query_codes].tolist() == [str(u) for u in users[:40]]
