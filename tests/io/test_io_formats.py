"""Tests of the table and multi-format readers (rankproof.io.tables, rankproof.io.formats).

Every format must give the columns the TREC reader gives for the same data,
and every bad input must raise a ParseError naming the file and the line (or
the row, where there are no lines).
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankproof import Qrels, Run
from rankproof.errors import InputError, ParseError
from rankproof.io.formats import format_of, read_qrels_columns, read_run_columns
from rankproof.io.tables import qrels_columns_from_table, run_columns_from_table
from rankproof.io.trec import read_trec_qrels_columns, read_trec_run_columns

from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"
BM25 = CRANFIELD / "bm25.run"
TEXT_FORMATS = ("csv", "tsv", "jsonl")
FORMATS = (*TEXT_FORMATS, "parquet")
# Text formats plain and gzipped; Parquet compresses itself, so only plain.
FILE_KINDS = [(fmt, False) for fmt in FORMATS] + [(fmt, True) for fmt in TEXT_FORMATS]


# -- helpers ------------------------------------------------------------------


def trec_qrels_frame() -> pd.DataFrame:
    """The packaged Cranfield qrels as a DataFrame of string ids, via the TREC reader."""
    columns = read_trec_qrels_columns(QRELS)
    return pd.DataFrame({
        "query": columns.query_vocab[columns.query_codes],
        "doc": columns.doc_vocab[columns.doc_codes],
        "grade": columns.grade,
    })


def trec_run_frame() -> pd.DataFrame:
    columns = read_trec_run_columns(BM25)
    return pd.DataFrame({
        "query": columns.query_vocab[columns.query_codes],
        "doc": columns.doc_vocab[columns.doc_codes],
        "score": columns.score,
    })


def write_frame(frame: pd.DataFrame, path: Path, fmt: str) -> Path:
    """Write `frame` to `path` in `fmt`; a path ending in .gz is compressed."""
    if fmt == "parquet":
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
        return path
    if fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True)
    else:
        # repr-exact floats, so scores round-trip bit for bit.
        text = frame.to_csv(index=False, sep="," if fmt == "csv" else "\t", float_format="%.17g")
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Write content byte for byte (no newline translation); .gz names are compressed."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def rows(columns) -> list[tuple]:
    """The decoded rows of qrels or run columns, in order."""
    values = columns.grade if hasattr(columns, "grade") else columns.score
    return list(zip(
        columns.query_vocab[columns.query_codes].tolist(),
        columns.doc_vocab[columns.doc_codes].tolist(),
        values.tolist(),
        strict=True,
    ))


def assert_same_columns(got, expected) -> None:
    """Same vocabularies, codes and values as the TREC reader (lines aside)."""
    assert got.query_vocab.tolist() == expected.query_vocab.tolist()
    assert got.doc_vocab.tolist() == expected.doc_vocab.tolist()
    np.testing.assert_array_equal(got.query_codes, expected.query_codes)
    np.testing.assert_array_equal(got.doc_codes, expected.doc_codes)
    assert got.query_codes.dtype == np.int64 and got.doc_codes.dtype == np.int64
    if hasattr(expected, "grade"):
        assert got.grade.dtype == np.int64
        np.testing.assert_array_equal(got.grade, expected.grade)
    else:
        assert got.score.dtype == np.float64
        np.testing.assert_array_equal(got.score, expected.score)


def expected_lines(fmt: str, size: int) -> list[int]:
    """The file line of each row when the writer adds no blank lines."""
    first = {"csv": 2, "tsv": 2, "jsonl": 1}.get(fmt)
    return [-1] * size if first is None else list(range(first, first + size))


def message_of(excinfo) -> str:
    return str(excinfo.value)


# -- format choice ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("qrels.txt", "trec"), ("x.qrels", "trec"), ("bm25.run", "trec"), ("a.trec", "trec"),
        ("noext", "trec"), ("odd.xyz", "trec"), ("run.txt.gz", "trec"),
        ("a.csv", "csv"), ("A.CSV.GZ", "csv"), ("a.tsv", "tsv"), ("a.tsv.gz", "tsv"),
        ("a.jsonl", "jsonl"), ("a.ndjson.gz", "jsonl"), ("a.parquet", "parquet"),
    ],
)
def test_format_is_chosen_by_extension(name, fmt):
    assert format_of(name) == fmt


def test_format_argument_overrides_the_extension():
    assert format_of("judgments.txt", "csv") == "csv"
    assert format_of("run.csv", "TREC") == "trec"


def test_unknown_format_is_refused_with_the_choices():
    with pytest.raises(InputError, match=r"'xlsx'.*'trec', 'csv', 'tsv', 'jsonl', 'parquet'"):
        read_qrels_columns("x.xlsx", "xlsx")


# -- round trips of the packaged Cranfield data --------------------------------


@pytest.mark.parametrize(("fmt", "gz"), FILE_KINDS)
def test_cranfield_qrels_round_trip(tmp_path, fmt, gz):
    path = write_frame(trec_qrels_frame(), tmp_path / f"qrels.{fmt}{'.gz' if gz else ''}", fmt)
    expected = read_trec_qrels_columns(QRELS)
    got = read_qrels_columns(path)
    assert_same_columns(got, expected)
    assert got.line.tolist() == expected_lines(fmt, expected.grade.size)
    assert got.source == str(path)


@pytest.mark.parametrize(("fmt", "gz"), FILE_KINDS)
def test_cranfield_run_round_trip(tmp_path, fmt, gz):
    path = write_frame(trec_run_frame(), tmp_path / f"bm25.{fmt}{'.gz' if gz else ''}", fmt)
    expected = read_trec_run_columns(BM25)
    got = read_run_columns(path)
    assert_same_columns(got, expected)
    assert got.has_scores and got.tag is None
    assert got.line.tolist() == expected_lines(fmt, expected.score.size)


@pytest.mark.parametrize("fmt", FORMATS)
def test_integer_ids_are_the_same_ids_as_their_text(tmp_path, fmt):
    frame = trec_qrels_frame()
    frame["query"] = frame["query"].astype(np.int64)
    frame["doc"] = frame["doc"].astype(np.int64)
    path = write_frame(frame, tmp_path / f"qrels.{fmt}", fmt)
    assert_same_columns(read_qrels_columns(path), read_trec_qrels_columns(QRELS))


@pytest.mark.parametrize("fmt", FORMATS)
def test_qrels_and_run_objects_match_the_trec_ones(tmp_path, fmt):
    qrels_path = write_frame(trec_qrels_frame(), tmp_path / f"qrels.{fmt}", fmt)
    run_path = write_frame(trec_run_frame(), tmp_path / f"bm25.{fmt}", fmt)
    qrels, run = Qrels.read(qrels_path), Run.read(run_path)
    assert qrels.to_dict() == Qrels.read_trec(QRELS).to_dict()
    assert run.to_dict() == Run.read_trec(BM25).to_dict()
    assert run.name == f"bm25.{fmt}"
    assert Run.read(run_path, name="bm25").name == "bm25"


def test_read_with_format_trec_is_the_trec_reader():
    assert Qrels.read(QRELS).to_dict() == Qrels.read_trec(QRELS).to_dict()
    run = Run.read(BM25, "trec")
    assert run.to_dict() == Run.read_trec(BM25).to_dict()
    assert run.name == "bm25.run"
    assert read_run_columns(BM25).tag == "STANDARD"


def test_format_argument_reads_a_file_whatever_its_extension(tmp_path):
    path = write(tmp_path, "judgments.txt", "query,doc,grade\nq1,d1,1\n")
    assert rows(read_qrels_columns(path, "csv")) == [("q1", "d1", 1)]


# -- ids, names, scores --------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_leading_zeros_are_kept(tmp_path, fmt):
    frame = pd.DataFrame({"query": ["01", "1"], "doc": ["007", "7"], "grade": [1, 2]})
    path = write_frame(frame, tmp_path / f"zeros.{fmt}", fmt)
    assert rows(read_qrels_columns(path)) == [("01", "007", 1), ("1", "7", 2)]


def test_leading_zeros_are_kept_in_hand_written_csv(tmp_path):
    path = write(tmp_path, "zeros.csv", "query,doc,grade\n007,0042,1\n")
    assert rows(read_qrels_columns(path)) == [("007", "0042", 1)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_custom_column_names(tmp_path, fmt):
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["b", "a"], "rel": [2, 0],
                          "sim": [0.5, 0.25], "other": ["x", "y"]})
    path = write_frame(frame, tmp_path / f"custom.{fmt}", fmt)
    qrels = read_qrels_columns(path, query="qid", doc="docno", grade="rel")
    assert rows(qrels) == [("q1", "b", 2), ("q1", "a", 0)]
    run = read_run_columns(path, query="qid", doc="docno", score="sim")
    assert rows(run) == [("q1", "b", 0.5), ("q1", "a", 0.25)]


def test_vocabularies_are_sorted_by_code_point(tmp_path):
    path = write(tmp_path, "ids.csv", "query,doc,grade\nq10,é,1\nq2,Z,0\nq10,a,1\n")
    columns = read_qrels_columns(path)
    assert columns.query_vocab.tolist() == ["q10", "q2"]
    assert columns.doc_vocab.tolist() == ["Z", "a", "é"]
    assert rows(columns) == [("q10", "é", 1), ("q2", "Z", 0), ("q10", "a", 1)]


def test_integral_float_grades_are_accepted(tmp_path):
    path = write(tmp_path, "floats.csv", "query,doc,grade\nq1,a,2.0\nq1,b,+1\nq1,c, 0 \n")
    assert read_qrels_columns(path).grade.tolist() == [2, 1, 0]


def test_run_without_scores_keeps_the_row_order_per_query(tmp_path):
    path = write(tmp_path, "ranked.csv", "query,doc\nq1,b\nq2,x\nq1,a\nq2,y\nq1,c\n")
    columns = read_run_columns(path, score=None)
    assert not columns.has_scores
    assert columns.score.tolist() == [0.0, 0.0, -1.0, -1.0, -2.0]
    run = Run.read(path, score=None)
    assert not run.has_scores
    assert [list(ranking) for ranking in run.to_dict().values()] == [["b", "a", "c"], ["x", "y"]]


def test_blank_lines_and_crlf_keep_line_numbers(tmp_path):
    path = write(tmp_path, "gaps.csv", "\r\nquery,doc,grade\r\nq1,a,1\r\n\r\nq1,b,0\r\n")
    assert read_qrels_columns(path).line.tolist() == [3, 5]
    path = write(tmp_path, "gaps.jsonl",
                 '{"query": "q1", "doc": "a", "grade": 1}\n\n   \n{"query": "q1", "doc": "b", "grade": 0}\n')
    assert read_qrels_columns(path).line.tolist() == [1, 4]


def test_utf8_bom_is_not_part_of_the_first_column_name(tmp_path):
    path = write(tmp_path, "bom.csv", b"\xef\xbb\xbfquery,doc,grade\nq1,a,1\n")
    assert rows(read_qrels_columns(path)) == [("q1", "a", 1)]


def test_jsonl_ids_that_change_json_type_are_one_id(tmp_path):
    path = write(tmp_path, "mixed.jsonl",
                 '{"query": 7, "doc": "a", "grade": 1}\n{"query": "7", "doc": 8, "grade": "2"}\n')
    columns = read_qrels_columns(path)
    assert rows(columns) == [("7", "a", 1), ("7", "8", 2)]
    assert columns.query_vocab.tolist() == ["7"]
    assert columns.line.tolist() == [1, 2]


def test_duplicate_judgment_in_csv_names_both_lines(tmp_path):
    from rankproof.errors import DuplicateError

    path = write(tmp_path, "dupes.csv", "query,doc,grade\nq1,a,1\nq1,b,0\nq1,a,2\n")
    with pytest.raises(DuplicateError, match=r"dupes\.csv line 4.*lines 2 and 4"):
        Qrels.read(path)


# -- tables in memory ----------------------------------------------------------


def cranfield_tables():
    """The Cranfield qrels and run as pyarrow, pandas and polars tables."""
    qrels, run = trec_qrels_frame(), trec_run_frame()
    return {
        "pyarrow": (pa.Table.from_pandas(qrels, preserve_index=False),
                    pa.Table.from_pandas(run, preserve_index=False)),
        "pandas": (qrels, run),
        "polars": (pl.from_pandas(qrels), pl.from_pandas(run)),
    }


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "polars"])
def test_tables_give_the_trec_columns(kind):
    qrels, run = cranfield_tables()[kind]
    assert_same_columns(qrels_columns_from_table(qrels), read_trec_qrels_columns(QRELS))
    assert_same_columns(run_columns_from_table(run), read_trec_run_columns(BM25))
    assert Qrels.from_table(qrels).to_dict() == Qrels.read_trec(QRELS).to_dict()
    assert Run.from_table(run).to_dict() == Run.read_trec(BM25).to_dict()


def test_record_batches_are_tables_too():
    batch = pa.record_batch({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2, 1]})
    assert Run.from_table(batch).to_dict() == {"q1": {"a": 2.0, "b": 1.0}}


def test_table_columns_have_no_lines():
    columns = qrels_columns_from_table(pa.table({"query": ["q1"], "doc": ["a"], "grade": [1]}))
    assert columns.line.tolist() == [-1]
    assert columns.source == "table"


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "polars"])
def test_tables_with_integer_ids_custom_names_and_categoricals(kind):
    data = {"qid": [7, 7, 10], "docno": [1, 2, 1], "rel": [1.0, 0.0, 2.0], "sim": [3, 2, 1]}
    table = {"pyarrow": pa.table, "pandas": pd.DataFrame, "polars": pl.DataFrame}[kind](data)
    qrels = Qrels.from_table(table, query="qid", doc="docno", grade="rel")
    assert qrels.to_dict() == {"10": {"1": 2}, "7": {"1": 1, "2": 0}}
    run = Run.from_table(table, query="qid", doc="docno", score="sim", name="sys")
    assert run.name == "sys" and run.to_dict() == {"10": {"1": 1.0}, "7": {"1": 3.0, "2": 2.0}}
    mixed = Qrels.from_dict({"7": {"1": 1, "2": 0}, "10": {"1": 2}})
    assert qrels.to_dict() == mixed.to_dict()


def test_categorical_ids_from_pandas_and_polars():
    frame = pd.DataFrame({"query": pd.Categorical(["q2", "q1"]), "doc": ["a", "b"], "grade": [1, 0]})
    assert Qrels.from_table(frame).to_dict() == {"q1": {"b": 0}, "q2": {"a": 1}}
    polars = pl.DataFrame({"query": ["q2", "q1"], "doc": ["a", "b"], "grade": [1, 0]},
                          schema_overrides={"query": pl.Categorical})
    assert Qrels.from_table(polars).to_dict() == {"q1": {"b": 0}, "q2": {"a": 1}}


def test_run_from_table_without_scores():
    run = Run.from_table(pl.DataFrame({"query": ["q1", "q1"], "doc": ["b", "a"]}), score=None)
    assert not run.has_scores
    assert list(run.to_dict()["q1"]) == ["b", "a"]


def test_other_columns_of_a_table_are_not_converted():
    # An object column pyarrow cannot convert must not matter when unnamed.
    frame = pd.DataFrame({"query": ["q1"], "doc": ["a"], "grade": [1], "junk": [object()]})
    assert Qrels.from_table(frame).to_dict() == {"q1": {"a": 1}}


def test_from_pandas_still_names_the_row():
    frame = pd.DataFrame({"query": ["q1", "q1"], "doc": ["A", "B"], "grade": [1, 1.5]})
    with pytest.raises(ParseError, match=r"row 1.*query q1, doc B.*grade 1\.5"):
        Qrels.from_pandas(frame)


def test_something_that_is_not_a_table_is_refused():
    with pytest.raises(InputError, match=r"builtins\.list.*pyarrow Table"):
        Qrels.from_table([("q1", "a", 1)])
    with pytest.raises(InputError, match=r"pandas Series.*DataFrame"):
        Qrels.from_table(pd.Series([1, 2]))
    with pytest.raises(InputError, match=r"polars LazyFrame.*collect\(\)"):
        Qrels.from_table(pl.LazyFrame({"query": ["q1"], "doc": ["a"], "grade": [1]}))


# -- bad tables ----------------------------------------------------------------


BAD_TABLES = [
    ("missing column", {"query": ["q1"], "doc": ["a"], "rel": [1]}, "qrels",
     r"table: no column 'grade' \(named by grade=\); the columns are 'query', 'doc', 'rel'"),
    ("fractional grade", {"query": ["q1", "q1"], "doc": ["a", "b"], "grade": [1.0, 1.5]}, "qrels",
     r"table row 2: query q1, doc b: grade 1\.5 is not an integer"),
    ("null grade", {"query": ["q1", "q1"], "doc": ["a", "b"], "grade": [1, None]}, "qrels",
     r"table row 2: query q1, doc b: no grade"),
    ("text grade", {"query": ["q1", "q1"], "doc": ["a", "b"], "grade": ["1", "high"]}, "qrels",
     r"table row 2: query q1, doc b: grade 'high' is not an integer"),
    ("boolean grade", {"query": ["q1"], "doc": ["a"], "grade": [True]}, "qrels",
     r"table: column 'grade' \(named by grade=\) holds booleans"),
    ("null doc id", {"query": ["q1", "q1"], "doc": ["a", None], "grade": [1, 0]}, "qrels",
     r"table row 2: .*no doc id"),
    ("empty query id", {"query": ["q1", ""], "doc": ["a", "b"], "grade": [1, 0]}, "qrels",
     r"table row 2: .*the query id is empty"),
    ("float ids", {"query": ["q1"], "doc": [1.5], "grade": [1]}, "qrels",
     r"table: column 'doc' \(named by doc=\) holds double values; ids must be strings or integers"),
    ("NaN score", {"query": ["q1", "q1"], "doc": ["a", "b"], "score": [1.0, float("nan")]}, "run",
     r"table row 2: query q1, doc b: NaN score"),
    ("infinite score", {"query": ["q1"], "doc": ["a"], "score": [float("-inf")]}, "run",
     r"table row 1: query q1, doc a: infinite score"),
    ("text score", {"query": ["q1", "q1"], "doc": ["a", "b"], "score": ["1.5", "high"]}, "run",
     r"table row 2: query q1, doc b: score 'high' is not a number"),
    ("null score", {"query": ["q1", "q1"], "doc": ["a", "b"], "score": [1.0, None]}, "run",
     r"table row 2: query q1, doc b: no score .*score=None"),
]


@pytest.mark.parametrize("case", BAD_TABLES, ids=[case[0] for case in BAD_TABLES])
def test_bad_arrow_tables_name_the_row(case):
    _, data, what, pattern = case
    reader = Qrels.from_table if what == "qrels" else Run.from_table
    with pytest.raises(ParseError, match=pattern):
        reader(pa.table(data))


def test_pandas_nan_grade_is_reported_as_missing():
    frame = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "grade": [1, np.nan]})
    expected = r"table row 2: query q1, doc b: no grade \(the value is null or NaN\)"
    with pytest.raises(ParseError, match=expected):
        Qrels.from_table(frame)


def test_pandas_column_of_mixed_types_is_named():
    frame = pd.DataFrame({"query": ["q1", 7], "doc": ["a", "b"], "grade": [1, 0]})
    with pytest.raises(ParseError, match=r"frame: column 'query' cannot be converted.*astype\(str\)"):
        Qrels.from_table(frame, source="frame")


def test_polars_bad_grade_names_source_and_row():
    frame = pl.DataFrame({"q": ["q1", "q2"], "d": ["a", "b"], "g": [0.0, 2.5]})
    with pytest.raises(ParseError, match=r"mine row 2: query q2, doc b: grade 2\.5"):
        Qrels.from_table(frame, query="q", doc="d", grade="g", source="mine")


# -- bad files -----------------------------------------------------------------


QRELS_HEADER = {"csv": "query,doc,grade\n", "tsv": "query\tdoc\tgrade\n"}
RUN_HEADER = {"csv": "query,doc,score\n", "tsv": "query\tdoc\tscore\n"}


def delimited(fmt: str, header: str, *records: tuple) -> str:
    sep = "," if fmt == "csv" else "\t"
    return header + "".join(sep.join(map(str, record)) + "\n" for record in records)


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def bad_qrels_file(tmp_path: Path, fmt: str, case: str) -> tuple[Path, str]:
    """Write a qrels file with one problem; return it and where the error must point."""
    good = ("q1", "a", 1)
    bad_value = {"non-integer grade": "1.5", "null grade": "", "text grade": "high"}[case]
    if fmt in ("csv", "tsv"):
        text = delimited(fmt, QRELS_HEADER[fmt], good, ("q1", "b", bad_value))
        return write(tmp_path, f"bad.{fmt}", text), "line 3"
    if fmt == "jsonl":
        value = {"non-integer grade": 1.5, "null grade": None, "text grade": "high"}[case]
        text = jsonl(dict(zip(("query", "doc", "grade"), good)), {"query": "q1", "doc": "b", "grade": value})
        return write(tmp_path, "bad.jsonl", text), "line 2"
    value = {"non-integer grade": 1.5, "null grade": None, "text grade": "high"}[case]
    grades = pa.array([1, value]) if case != "text grade" else pa.array(["1", value])
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"query": ["q1", "q1"], "doc": ["a", "b"], "grade": grades}), path)
    return path, "row 2"


@pytest.mark.parametrize("case", ["non-integer grade", "null grade", "text grade"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_grade_names_file_line_query_and_doc(tmp_path, fmt, case):
    path, at = bad_qrels_file(tmp_path, fmt, case)
    with pytest.raises(ParseError) as excinfo:
        Qrels.read(path)
    message = message_of(excinfo)
    assert message.startswith(f"{path} {at}: query q1, doc b: "), message
    assert re.search(r"grade|integer", message)
    assert re.search(r"\b(give|map|use)\b", message), message


def bad_run_file(tmp_path: Path, fmt: str, case: str) -> tuple[Path, str]:
    good = ("q1", "a", 2.5)
    text_value = {"NaN score": "NaN", "non-numeric score": "high", "infinite score": "inf"}[case]
    if fmt in ("csv", "tsv"):
        text = delimited(fmt, RUN_HEADER[fmt], good, ("q1", "b", text_value))
        return write(tmp_path, f"bad.{fmt}", text), "line 3"
    value = {"NaN score": float("nan"), "non-numeric score": "high", "infinite score": float("inf")}[case]
    if fmt == "jsonl":
        # json.dumps writes NaN and Infinity, which pyarrow and Python both read.
        text = jsonl(dict(zip(("query", "doc", "score"), good)), {"query": "q1", "doc": "b", "score": value})
        return write(tmp_path, "bad.jsonl", text), "line 2"
    scores = pa.array([2.5, value]) if case != "non-numeric score" else pa.array(["2.5", value])
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"query": ["q1", "q1"], "doc": ["a", "b"], "score": scores}), path)
    return path, "row 2"


@pytest.mark.parametrize("case", ["NaN score", "non-numeric score", "infinite score"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_score_names_file_line_query_and_doc(tmp_path, fmt, case):
    path, at = bad_run_file(tmp_path, fmt, case)
    with pytest.raises(ParseError) as excinfo:
        Run.read(path)
    message = message_of(excinfo)
    assert message.startswith(f"{path} {at}: query q1, doc b: "), message
    expected = {"NaN score": r"NaN score", "non-numeric score": r"'high' is not a number",
                "infinite score": r"infinite score"}[case]
    assert re.search(expected, message), message
    assert re.search(r"give every document a (finite|numeric) score", message), message


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_column_lists_the_columns_and_the_argument(tmp_path, fmt):
    frame = pd.DataFrame({"qid": ["q1"], "doc": ["a"], "rel": [1]})
    path = write_frame(frame, tmp_path / f"renamed.{fmt}", fmt)
    with pytest.raises(ParseError) as excinfo:
        Qrels.read(path)
    message = message_of(excinfo)
    noun = "field" if fmt == "jsonl" else "column"
    at = f"{path} line 1" if fmt in ("csv", "tsv") else str(path)
    assert message.startswith(f"{at}: "), message
    assert f"no {noun} 'query' (named by query=)" in message
    assert f"no {noun} 'grade' (named by grade=)" in message
    assert "'qid', 'doc', 'rel'" in message
    assert "query=, grade=" in message


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_file_is_refused(tmp_path, fmt):
    path = write(tmp_path, f"empty.{fmt}", "")
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}: is empty; give"):
        Qrels.read(path)
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}: is empty; give"):
        Run.read(path)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_blank_gz_file_is_refused(tmp_path, fmt):
    path = write(tmp_path, f"blank.{fmt}.gz", "\n  \n")
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}: is empty"):
        Qrels.read(path)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_header_without_rows_is_refused(tmp_path, fmt):
    frame = pd.DataFrame({"query": pd.Series([], dtype=str), "doc": pd.Series([], dtype=str),
                          "grade": pd.Series([], dtype=np.int64)})
    path = write_frame(frame, tmp_path / f"header.{fmt}", fmt)
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}: holds no judgments"):
        Qrels.read(path)


def test_malformed_json_line_is_named(tmp_path):
    text = '{"query": "q1", "doc": "a", "grade": 1}\n{"query": "q1", "doc": "b", grade: 0}\n'
    path = write(tmp_path, "broken.jsonl", text)
    with pytest.raises(ParseError) as excinfo:
        Qrels.read(path)
    message = message_of(excinfo)
    assert message.startswith(f"{path} line 2: is not valid JSON"), message
    assert "one JSON object per line" in message


def test_json_line_that_is_not_an_object_is_named(tmp_path):
    path = write(tmp_path, "array.jsonl", '{"query": "q1", "doc": "a", "score": 1}\n\n["q1", "b", 2]\n')
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))} line 3: holds a JSON array"):
        Run.read(path)


def test_gzipped_malformed_json_line_is_named(tmp_path):
    path = write(tmp_path, "broken.jsonl.gz", '{"query": "q1", "doc": "a", "grade": 1}\n{oops\n')
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))} line 2: is not valid JSON"):
        Qrels.read(path)


def test_json_float_id_is_refused_with_its_line(tmp_path):
    path = write(tmp_path, "float.jsonl",
                 '{"query": "q1", "doc": "a", "grade": 1}\n{"query": "q1", "doc": 2.5, "grade": 0}\n')
    expected = r"float\.jsonl line 2: doc 2\.5 is a JSON number; ids must be strings or integers"
    with pytest.raises(ParseError, match=expected):
        Qrels.read(path)


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_ragged_row_is_named(tmp_path, fmt):
    text = delimited(fmt, QRELS_HEADER[fmt], ("q1", "a", 1), ("q1", "b"))
    path = write(tmp_path, f"ragged.{fmt}", "\n" + text)
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))} line 4: expected 3 columns.*found 2"):
        Qrels.read(path)


def test_empty_id_in_csv_is_named(tmp_path):
    path = write(tmp_path, "gap.csv", "query,doc,grade\nq1,a,1\nq1,,0\n")
    with pytest.raises(ParseError, match=r"gap\.csv line 3: query q1.*doc id is empty"):
        Qrels.read(path)


def test_huge_grade_is_refused(tmp_path):
    path = write(tmp_path, "huge.csv", "query,doc,grade\nq1,a,99999999999999999999\n")
    with pytest.raises(ParseError, match=r"huge\.csv line 2: query q1, doc a: .*64-bit"):
        Qrels.read(path)


def test_hexadecimal_grade_is_refused_as_in_trec_files(tmp_path):
    path = write(tmp_path, "hex.csv", "query,doc,grade\nq1,a,0x10\n")
    with pytest.raises(ParseError, match=r"hex\.csv line 2: .*grade '0x10' is not an integer"):
        Qrels.read(path)


def test_quoted_newline_falls_back_to_row_numbers(tmp_path):
    path = write(tmp_path, "quoted.csv", 'query,doc,grade\nq1,"a\nb",1\nq1,c,x\n')
    with pytest.raises(ParseError, match=r"quoted\.csv row 2: query q1, doc c: grade 'x'"):
        Qrels.read(path)


def test_missing_file(tmp_path):
    path = tmp_path / "absent.csv"
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}: does not exist"):
        Qrels.read(path)
    with pytest.raises(ParseError, match=r"does not exist"):
        Run.read(tmp_path / "absent.parquet")


def test_directory_is_refused(tmp_path):
    with pytest.raises(ParseError, match=r"is a directory"):
        Qrels.read(tmp_path, "csv")


def test_not_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "latin1.csv", "query,doc,grade\nq1,a,1\n".encode() + "q1,é,0\n".encode("latin-1"))
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))} line 3: byte 0xe9 .*not valid UTF-8"):
        Qrels.read(path)


def test_gzip_data_without_gz_extension_is_read_by_its_magic_bytes(tmp_path):
    # Issue 14: gzip is detected by its magic bytes (stdin has no extension).
    path = write(tmp_path, "packed.csv", gzip.compress(b"query,doc,grade\nq1,a,1\n"))
    qrels = Qrels.read(path)
    assert qrels.to_dict() == {"q1": {"a": 1}}
    trec = write(tmp_path, "packed.txt", gzip.compress(b"q1 0 a 1\nq1 0 b 0\n"))
    assert Qrels.read(trec).to_dict() == {"q1": {"a": 1, "b": 0}}


def test_parquet_named_csv_gets_a_hint(tmp_path):
    path = tmp_path / "table.csv"
    pq.write_table(pa.table({"query": ["q1"], "doc": ["a"], "grade": [1]}), path)
    with pytest.raises(ParseError, match=r"looks like a Parquet file"):
        Qrels.read(path)


def test_text_named_parquet_is_refused(tmp_path):
    path = write(tmp_path, "text.parquet", "query,doc,grade\nq1,a,1\n")
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}: is not a Parquet file"):
        Qrels.read(path)


def test_gzipped_parquet_is_refused(tmp_path):
    with pytest.raises(ParseError, match=r"gzip-compressed Parquet file"):
        Qrels.read(write(tmp_path, "t.parquet.gz", b"PAR1"))


# -- import cost ----------------------------------------------------------------


def test_import_rankproof_does_not_import_pyarrow():
    out = subprocess.run(
        [sys.executable, "-c", "import rankproof, sys; print('pyarrow' in sys.modules)"],
        capture_output=True, text=True, check=True,
    )
    assert out.stdout.strip() == "False"


def test_importing_the_readers_does_not_import_pyarrow():
    code = ("import rankproof.io.formats, rankproof.io.tables, sys; "
            "print('pyarrow' in sys.modules, 'pandas' in sys.modules, 'polars' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False False"
