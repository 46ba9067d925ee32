"""Input formats as one table (issue 37, item 9): every reader and front door that chooses a
format by a file's name asks rankproof.io.formats, and nothing else tests suffixes."""

from __future__ import annotations

import ast
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankproof
from rankproof.errors import InputError
from rankproof.io.formats import INPUT_FORMATS, ROUTES, format_of, formats_for, named_format

PACKAGE = Path(rankproof.__file__).parent
# ".json" also names the JSON objects of side files (a grade map, segments), which are not
# tables of rows: those readers may test it.
SUFFIXES = {suffix for entry in INPUT_FORMATS.values() for suffix in entry.suffixes} - {".json"}
# Modules that test a suffix for something other than an input's format.
EXEMPT = {"cli/commands/pool.py": "the format of the pool it writes (-o), an output"}


def _suffix_tests(source: str) -> list[int]:
    """Lines where a format suffix (".parquet", ".csv", ...) is compared with a file name: an
    ``endswith``/``suffix`` test that belongs in the format table."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "endswith":
            literals = [value for arg in node.args for value in ast.walk(arg) if isinstance(value, ast.Constant)]
        elif isinstance(node, ast.Compare) and "suffix" in ast.unparse(node.left):
            literals = [value for part in node.comparators for value in ast.walk(part) if isinstance(value, ast.Constant)]
        else:
            continue
        if any(value.value in SUFFIXES for value in literals):
            lines.append(node.lineno)
    return lines


def test_no_module_but_the_table_tests_a_format_suffix():
    found = {path.relative_to(PACKAGE).as_posix(): _suffix_tests(path.read_text(encoding="utf-8"))
             for path in PACKAGE.rglob("*.py")
             if path.relative_to(PACKAGE).as_posix() not in ("io/formats.py", *EXEMPT)}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_suffix_check_finds_an_if_chain():
    # The check above must be able to fail: the if-chains it replaced.
    assert _suffix_tests('x = "parquet" if name.lower().endswith((".parquet", ".pq")) else "csv"\n') == [1]
    assert _suffix_tests('if path.suffix == ".csv":\n    pass\n') == [1]
    assert _suffix_tests('if name.endswith(".gz"):\n    pass\n') == []


@pytest.mark.parametrize(("route", "expected"), [
    ("memory", ("trec", "csv", "tsv", "jsonl", "parquet", "run3")),
    ("out_of_core", ("csv", "tsv", "jsonl", "parquet")),
    ("spark", ("parquet",)),
    ("rag", ("jsonl", "parquet", "json")),
])
def test_each_route_reads_the_formats_of_the_table(route, expected):
    assert formats_for(route) == expected


@pytest.mark.parametrize(("name", "route", "expected"), [
    ("log.pq", "memory", "parquet"), ("log.PQ", "out_of_core", "parquet"), ("rows.json", "rag", "json"),
    ("rows.jsonl.gz", "rag", "jsonl"), ("rows.txt", "rag", None), ("qrels.json", "memory", None),
    ("log.tsv", "out_of_core", "tsv"), ("log.jsonl", "spark", None), ("log.csv", "spark", None),
])
def test_a_name_gives_the_format_its_route_reads(name, route, expected):
    assert named_format(name, route) == expected


def test_a_name_that_names_no_format_gets_the_routes_default():
    # In memory anything unnamed is TREC text (.json too: JSON lists are RAG's); a RAG file is JSON Lines.
    assert (format_of("qrels.json"), format_of("run"), format_of("rows.txt", route="rag")) == ("trec", "trec", "jsonl")


def test_a_route_without_a_default_refuses_a_name_it_cannot_read():
    with pytest.raises(InputError, match=r"out-of-core evaluation reads CSV, TSV, JSON Lines, Parquet files"):
        format_of("log.json", route="out_of_core")
    with pytest.raises(InputError, match="is not one of 'parquet'"):
        format_of("log", "csv", route="spark")


def test_every_route_is_read_by_some_format():
    assert all(formats_for(route) for route in ROUTES)


def test_a_parquet_file_named_pq_is_read_as_parquet_in_memory(tmp_path, capsys):
    # Before the table, .pq was Parquet out of core but TREC text in memory.
    from rankproof.cli import main

    truth, run = tmp_path / "truth.pq", tmp_path / "run.pq"
    pq.write_table(pa.table({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"], "rating": [1, 1, 1]}), truth)
    pq.write_table(pa.table({"user": ["u1", "u1", "u2"], "item": ["a", "x", "c"], "score": [2.0, 1.0, 1.0]}), run)
    code = main(["evaluate", str(truth), str(run), "--columns", "query=user,doc=item,grade=rating,score=score",
                 "-m", "p@1"])
    assert code == 0
    assert "1.0000" in capsys.readouterr().out
