"""Tests of the TREC qrels and run readers in rankproof.io.trec."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankproof.errors import ParseError
from rankproof.io.trec import (
    QrelsColumns,
    RunColumns,
    read_trec_qrels_columns,
    read_trec_run_columns,
)

from paths import CRANFIELD, SRC


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Write content byte for byte (no newline translation)."""
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def qrels_rows(columns: QrelsColumns) -> list[tuple[str, str, int, int]]:
    return list(
        zip(
            columns.query_vocab[columns.query_codes].tolist(),
            columns.doc_vocab[columns.doc_codes].tolist(),
            columns.grade.tolist(),
            columns.line.tolist(),
            strict=True,
        )
    )


def run_rows(columns: RunColumns) -> list[tuple[str, str, float, int]]:
    return list(
        zip(
            columns.query_vocab[columns.query_codes].tolist(),
            columns.doc_vocab[columns.doc_codes].tolist(),
            columns.score.tolist(),
            columns.line.tolist(),
            strict=True,
        )
    )


def check_interned(codes: np.ndarray, vocab: np.ndarray) -> None:
    """The invariants every interned column must meet."""
    assert codes.dtype == np.int64
    assert vocab.dtype.kind == "U"
    assert vocab.tolist() == sorted(set(vocab.tolist()))  # unique, code-point order
    assert codes.min() >= 0 and codes.max() < vocab.size
    assert np.unique(codes).size == vocab.size  # no unused ids


def check_columns(columns) -> None:
    check_interned(columns.query_codes, columns.query_vocab)
    check_interned(columns.doc_codes, columns.doc_vocab)
    assert columns.line.dtype == np.int64
    n = columns.line.size
    assert columns.query_codes.size == columns.doc_codes.size == n
    values = columns.grade if isinstance(columns, QrelsColumns) else columns.score
    assert values.size == n
    assert values.dtype == (np.int64 if isinstance(columns, QrelsColumns) else np.float64)


def reference_rows(text: str, width: int) -> list[tuple[str, str, str, int]]:
    """Parse TREC text line by line, the slow obvious way."""
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        fields = line.replace("\t", " ").replace("\r", " ").split(" ")
        fields = [field for field in fields if field]
        if not fields or fields[0].startswith("#"):
            continue
        assert len(fields) == width
        rows.append((fields[0], fields[2], fields[3 if width == 4 else 4], number))
    return rows


def parse_error(reader, path: Path) -> str:
    """Run a reader that must fail and return its one-line message."""
    with pytest.raises(ParseError) as info:
        reader(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


# --------------------------------------------------------------------- qrels


def test_qrels_round_trip_with_messy_whitespace(tmp_path):
    text = (
        "# judgments for the test\r\n"
        "q1 0 d1 1\r\n"
        "q1\t0\td2\t0\r\n"
        "\r\n"
        "   \t \r\n"
        "  q2   0  d1    2   \r\n"
        "\t# an indented comment\n"
        "q10 Q0 d3 -1\n"
        "q2 0 d#4 +3\n"
        "q1 0 d2 7"  # no newline at the end
    )
    path = write(tmp_path, "qrels.txt", text)
    columns = read_trec_qrels_columns(path)
    check_columns(columns)
    assert columns.source == str(path)
    assert qrels_rows(columns) == [
        ("q1", "d1", 1, 2),
        ("q1", "d2", 0, 3),
        ("q2", "d1", 2, 6),
        ("q10", "d3", -1, 8),  # negative grades are the policy's business
        ("q2", "d#4", 3, 9),  # '#' inside a line is data
        ("q1", "d2", 7, 10),  # duplicates too
    ]
    assert columns.query_vocab.tolist() == ["q1", "q10", "q2"]
    assert columns.query_codes.tolist() == [0, 0, 2, 1, 2, 0]


def test_qrels_accepts_str_path_and_gzip(tmp_path):
    text = "1 0 184 3\n1 0 29 2\n\n2 0 12 1\n"
    plain = write(tmp_path, "qrels.txt", text)
    packed = write(tmp_path, "qrels.txt.gz", gzip.compress(text.encode()))
    from_plain = read_trec_qrels_columns(str(plain))
    from_packed = read_trec_qrels_columns(packed)
    assert from_plain.source == str(plain)
    assert from_packed.source == str(packed)
    assert qrels_rows(from_plain) == qrels_rows(from_packed) == [
        ("1", "184", 3, 1),
        ("1", "29", 2, 2),
        ("2", "12", 1, 4),
    ]


def test_vocabulary_is_sorted_by_code_point(tmp_path):
    docs = ["é", "Z", "a", "10", "9", "Ä", "z", "中", "😀", "b"]
    text = "".join(f"q 0 {doc} 1\n" for doc in docs)
    columns = read_trec_qrels_columns(write(tmp_path, "qrels.txt", text))
    check_columns(columns)
    assert columns.doc_vocab.tolist() == sorted(docs)  # Python sorts by code point
    assert columns.doc_vocab[columns.doc_codes].tolist() == docs


def test_utf8_bom_is_not_part_of_the_first_id(tmp_path):
    path = write(tmp_path, "qrels.txt", b"\xef\xbb\xbfq1 0 d1 1\nq2 0 d2 0\n")
    columns = read_trec_qrels_columns(path)
    assert qrels_rows(columns) == [("q1", "d1", 1, 1), ("q2", "d2", 0, 2)]


def test_cranfield_qrels():
    columns = read_trec_qrels_columns(CRANFIELD / "qrels.txt")
    check_columns(columns)
    assert columns.line.size == 1836
    assert columns.query_vocab.size == 225
    assert qrels_rows(columns)[0] == ("1", "184", 3, 1)
    assert set(columns.grade.tolist()) <= {0, 1, 2, 3, 4}
    text = (CRANFIELD / "qrels.txt").read_text()
    expected = [(q, d, int(g), n) for q, d, g, n in reference_rows(text, 4)]
    assert qrels_rows(columns) == expected


# ----------------------------------------------------------------------- run


def test_run_round_trip_with_messy_whitespace(tmp_path):
    text = (
        "\n"
        "# a run\n"
        "q1 Q0 d1 1 2.5 myrun\r\n"
        "q1\tQ0\td2\tfirst\t-1e3\tother\r\n"  # rank need not be numeric
        "   q2  Q0   d1 1   .5 myrun  \n"
        "\n"
        "q2 BM25 d3 2 +7 myrun"
    )
    path = write(tmp_path, "run.txt", text)
    columns = read_trec_run_columns(path)
    check_columns(columns)
    assert columns.source == str(path)
    assert columns.tag == "myrun"  # from the first data line
    assert run_rows(columns) == [
        ("q1", "d1", 2.5, 3),
        ("q1", "d2", -1000.0, 4),
        ("q2", "d1", 0.5, 5),
        ("q2", "d3", 7.0, 7),
    ]


def test_run_gzip(tmp_path):
    text = "q1 Q0 d1 1 3.0 tagA\nq1 Q0 d2 2 2.0 tagA\n"
    path = write(tmp_path, "run.TXT.GZ", gzip.compress(text.encode()))
    columns = read_trec_run_columns(path)
    assert columns.tag == "tagA"
    assert run_rows(columns) == [("q1", "d1", 3.0, 1), ("q1", "d2", 2.0, 2)]


def test_cranfield_bm25_run():
    path = CRANFIELD / "bm25.run"
    columns = read_trec_run_columns(path)
    check_columns(columns)
    assert columns.line.size == 11250
    assert columns.query_vocab.size == 225
    assert columns.tag == "STANDARD"
    first = run_rows(columns)[0]
    assert first[:2] == ("1", "184")
    assert first[2] == pytest.approx(11.176427)
    assert first[3] == 1
    expected = [(q, d, float(s), n) for q, d, s, n in reference_rows(path.read_text(), 6)]
    assert run_rows(columns) == expected


def test_200k_line_file_matches_a_line_by_line_parse(tmp_path):
    # Not a timing test: it checks the vectorised path on a file big enough
    # to span several blocks, with irregular lines sprinkled through it.
    rng = np.random.default_rng(7)
    n = 200_000
    queries = rng.integers(0, 500, n)
    docs = rng.integers(0, 50_000, n)
    scores = np.round(rng.normal(size=n) * 10, 6)
    lines = []
    for i, (query, doc, score) in enumerate(
        zip(queries.tolist(), docs.tolist(), scores.tolist(), strict=True)
    ):
        line = f"q{query} Q0 D{doc} {i % 1000 + 1} {score!r} run{i % 3}"
        if i % 997 == 0:
            line = line.replace(" ", "\t")
        if i % 1009 == 0:
            lines.append("# comment")
        if i % 1013 == 0:
            lines.append("")
        if i % 1019 == 0:
            line = "  " + line + "  \r"
        lines.append(line)
    text = "\n".join(lines) + "\n"
    path = write(tmp_path, "big.run", text)
    columns = read_trec_run_columns(path)
    check_columns(columns)
    expected = reference_rows(text, 6)
    assert len(expected) == n
    assert columns.tag == "run0"
    assert columns.line.tolist() == [row[3] for row in expected]
    assert columns.query_vocab[columns.query_codes].tolist() == [row[0] for row in expected]
    assert columns.doc_vocab[columns.doc_codes].tolist() == [row[1] for row in expected]
    np.testing.assert_array_equal(columns.score, scores)


def test_importing_the_reader_does_not_import_pyarrow():
    code = "import sys, rankproof.io.trec; print('pyarrow' in sys.modules)"
    env = dict(os.environ)
    src = str(SRC)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert result.stdout.strip() == "False"


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize("reader", [read_trec_qrels_columns, read_trec_run_columns])
def test_missing_file(tmp_path, reader):
    message = parse_error(reader, tmp_path / "nope.txt")
    assert "does not exist" in message


@pytest.mark.parametrize("reader", [read_trec_qrels_columns, read_trec_run_columns])
def test_directory(tmp_path, reader):
    message = parse_error(reader, tmp_path)
    assert "is a directory" in message


def test_unreadable_file(tmp_path, monkeypatch):
    import rankproof.io.files as files

    path = write(tmp_path, "qrels.txt", "q 0 d 1\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # Shadow the builtin inside the module: a chmod does not stop root.
    monkeypatch.setattr(files, "open", refuse, raising=False)
    message = parse_error(read_trec_qrels_columns, path)
    assert "cannot be read" in message and "permission" in message


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file"
)
def test_unreadable_file_for_real(tmp_path):
    path = write(tmp_path, "qrels.txt", "q 0 d 1\n")
    path.chmod(0)
    try:
        message = parse_error(read_trec_qrels_columns, path)
    finally:
        path.chmod(0o600)
    assert "cannot be read" in message


@pytest.mark.parametrize("content", ["", "\n\n", "# only\n  # comments\n\r\n", "   \t"])
def test_qrels_without_judgments(tmp_path, content):
    message = parse_error(read_trec_qrels_columns, write(tmp_path, "qrels.txt", content))
    assert "holds no judgments" in message


@pytest.mark.parametrize("content", ["", "# header only\n"])
def test_run_without_documents(tmp_path, content):
    message = parse_error(read_trec_run_columns, write(tmp_path, "run.txt", content))
    assert "holds no ranked documents" in message


def test_binary_file_names_the_line(tmp_path):
    path = write(tmp_path, "qrels.txt", b"q 0 d 1\nq 0 e 1\nq 0\x00 f 1\n")
    message = parse_error(read_trec_qrels_columns, path)
    assert "line 3" in message and "binary" in message


def test_gzip_without_gz_extension_is_read_by_its_magic_bytes(tmp_path):
    # Issue 14: gzip is recognised by its first bytes (stdin has no name), not refused.
    path = write(tmp_path, "run.txt", gzip.compress(b"q Q0 d 1 1.0 t\n"))
    plain = write(tmp_path, "plain.txt", b"q Q0 d 1 1.0 t\n")
    packed, expected = read_trec_run_columns(path), read_trec_run_columns(plain)
    assert packed.query_vocab.tolist() == expected.query_vocab.tolist() == ["q"]
    assert packed.doc_vocab.tolist() == expected.doc_vocab.tolist() and packed.score.tolist() == [1.0]


def test_invalid_gzip(tmp_path):
    path = write(tmp_path, "qrels.txt.gz", "q 0 d 1\n")
    message = parse_error(read_trec_qrels_columns, path)
    assert "not a valid gzip file" in message


def test_invalid_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "run.txt", b"q Q0 d 1 1.0 t\n\nq Q0 caf\xe9 2 0.5 t\n")
    message = parse_error(read_trec_run_columns, path)
    assert "line 3" in message and "UTF-8" in message and "0xe9" in message


def test_too_few_columns(tmp_path):
    lines = ["1 0 29 3"] * 14 + ["", "# comment", "1 0 184", "1 0 31 2"]
    path = write(tmp_path, "qrels.txt", "\n".join(lines) + "\n")
    message = parse_error(read_trec_qrels_columns, path)
    assert message.startswith(
        f"{path} line 17: expected 4 columns (query 0 doc grade), found 3: '1 0 184'; "
    )


def test_too_many_columns_in_qrels_suggests_a_swap(tmp_path):
    path = write(tmp_path, "qrels.txt", "q 0 d 1\nq Q0 d 1 2.5 tag\n")
    message = parse_error(read_trec_qrels_columns, path)
    assert "line 2" in message and "found 6" in message and "swapped" in message


@pytest.mark.parametrize(
    ("bad", "found"),
    [("q1 Q0 d9 3 0.5", 5), ("q1 Q0 d9 3 0.5 tag extra", 7), ("q1 0 d9 1", 4)],
)
def test_run_wrong_column_count(tmp_path, bad, found):
    text = "q1 Q0 d1 1 2.0 tag\n\tq1 Q0 d2 2 1.0 tag\r\n" + bad + "\n"
    message = parse_error(read_trec_run_columns, write(tmp_path, "run.txt", text))
    assert "line 3" in message
    assert f"expected 6 columns (query Q0 doc rank score tag), found {found}" in message


# "2.0" is 2 since issue 28, as trec_eval reads it (tests/io/test_trec_integral_grades.py).
@pytest.mark.parametrize("value", ["1.5", "abc", "0x10", "1e3", "1_0", "2.05"])
def test_grade_not_an_integer(tmp_path, value):
    text = f"# header\nq1 0 d1 1\nq1 0 d2 {value}\nq1 0 d3 1\n"
    message = parse_error(read_trec_qrels_columns, write(tmp_path, "qrels.txt", text))
    assert "line 3" in message and "query q1" in message and "doc d2" in message
    assert repr(value) in message and "integers" in message
    if value in ("1.5", "1e3", "2.0"):
        assert "grade map" in message


def test_grade_too_large(tmp_path):
    text = "q1 0 d1 1\nq1 0 d2 99999999999999999999\n"
    message = parse_error(read_trec_qrels_columns, write(tmp_path, "qrels.txt", text))
    assert "line 2" in message and "64-bit" in message


@pytest.mark.parametrize("value", ["abc", "1,5", "1.2.3", "--1", ""])
def test_score_not_a_number(tmp_path, value):
    text = f"q1 Q0 d1 1 2.0 t\n\nq1 Q0 d2 2 {value} t\n"
    if value == "":  # an empty score leaves five columns
        text = "q1 Q0 d1 1 2.0 t\n\nq1 Q0 d2 2 t\n"
    message = parse_error(read_trec_run_columns, write(tmp_path, "run.txt", text))
    assert "line 3" in message
    if value:
        assert "query q1" in message and "doc d2" in message
        assert repr(value) in message and "not a number" in message


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("nan", "NaN score"),
        ("NaN", "NaN score"),
        ("-inf", "infinite score"),
        ("1e999", "infinite score"),
    ],
)
def test_score_not_finite(tmp_path, value, words):
    text = f"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n# c\nq2 Q0 d3 1 {value} t\n"
    message = parse_error(read_trec_run_columns, write(tmp_path, "run.txt", text))
    assert "line 4" in message and "query q2" in message and "doc d3" in message
    assert words in message and repr(value) in message and "finite score" in message


def test_first_bad_line_wins(tmp_path):
    # A bad grade comes before a bad column count; the grade is reported.
    text = "q 0 d1 1\nq 0 d2 x\nq 0 d3\n"
    message = parse_error(read_trec_qrels_columns, write(tmp_path, "qrels.txt", text))
    assert "line 2" in message and "'x'" in message


@pytest.mark.parametrize("where", ["early", "late"])
def test_errors_deep_in_a_big_file(tmp_path, where):
    n = 150_000
    bad = 7 if where == "early" else n - 3
    lines = [f"q{i % 50} Q0 d{i} {i} {i / 7!r} t" for i in range(n)]
    lines[bad - 1] = "q1 Q0 dx 1 nan t"
    message = parse_error(read_trec_run_columns, write(tmp_path, "run.txt", "\n".join(lines)))
    assert f"line {bad}:" in message and "NaN score" in message

    lines[bad - 1] = "q1 Q0 dx 1 t"
    message = parse_error(read_trec_run_columns, write(tmp_path, "run.txt", "\n".join(lines)))
    assert f"line {bad}:" in message and "found 5" in message


@pytest.mark.parametrize("at", [0, 1 << 18, (1 << 18) - 1, (1 << 18) + 1, 3 * (1 << 18)])
def test_a_double_space_anywhere_is_normalised(tmp_path, at):
    # The check for runs of spaces scans the file a quarter megabyte at a
    # time; a run straddling two chunks must still be found. Without
    # normalisation, "q Q0  d 1 2" would read as six columns with an empty doc.
    line = "q1 Q0 d{} 1 {} tag\n"
    text = "".join(line.format(i, 1000 - i) for i in range(40_000))
    cut = text.index(" ", at)  # the first space at or after `at`
    messy = text[:cut] + " " + text[cut:]
    expected = reference_rows(text, 6)
    columns = read_trec_run_columns(write(tmp_path, "run.txt", messy))
    assert columns.doc_vocab[columns.doc_codes].tolist() == [row[1] for row in expected]
    np.testing.assert_array_equal(columns.score, [float(row[2]) for row in expected])
