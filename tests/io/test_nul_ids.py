"""Ids holding a NUL character (issue 28, hostile round item 5).

numpy's str arrays, which hold the vocabularies, drop trailing NULs: a Parquet
id ``d1\\0`` was silently counted as ``d1`` (p@1 1.0 for a doc never judged).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankproof import Qrels, Run
from rankproof.errors import ParseError


def test_a_parquet_run_id_with_a_trailing_nul_is_refused(tmp_path):
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"query": ["1", "1"], "doc": ["d2", "d1\x00"], "score": [2.0, 1.0]}), path)
    with pytest.raises(ParseError) as caught:
        Run.read(path)
    assert "r.parquet row 2" in str(caught.value) and "NUL" in str(caught.value)


def test_qrels_and_tables_too(tmp_path):
    path = tmp_path / "q.parquet"
    pq.write_table(pa.table({"query": ["1\x00", "1"], "doc": ["d1", "d1"], "grade": [1, 0]}), path)
    with pytest.raises(ParseError, match="row 1.*NUL"):
        Qrels.read(path)
    with pytest.raises(ParseError, match="NUL"):
        Run.from_table(pa.table({"query": ["1"], "doc": ["a\x00b"], "score": [1.0]}))


def test_ids_without_nul_are_unchanged(tmp_path):
    run = Run.from_table(pa.table({"query": ["1", "1"], "doc": ["d1", "d1 "], "score": [2.0, 1.0]}))
    assert sorted(run.to_dict()["1"]) == ["d1", "d1 "]
