"""The compiled TREC reader against a line-by-line reference written here.

The reference reads a file the slow, obvious way (split on newlines, strip
blanks, split on runs of blanks, Python's own number parsing, ``sorted`` for
the vocabulary); hypothesis writes files with random ids (non-ASCII and
``#`` included), random mixes of blanks, comments, blank lines, CRLF, and
numbers in every spelling, and the readers must agree row for row, or refuse
the same line.
"""

from __future__ import annotations

import gzip
import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankproof.errors import ParseError
from rankproof.io.trec import read_trec_qrels_columns, read_trec_run_columns

BLANKS = b" \t\r\x0b\x0c"  # trec_eval's isspace, less the newline
SEPARATOR = re.compile(rb"[ \t\r\x0b\x0c]+")
INTEGER = re.compile(rb"[+-]?[0-9]+")
INTEGRAL = re.compile(rb"^([+-]?[0-9]+)\.0*$")
NUMBER = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class Refused(Exception):
    """The reference refuses the file at `line`."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def reference_read(data: bytes, width: int):
    """Rows ``(query, doc, value, line)`` of a TREC file, or raise Refused."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    value_index = 3 if width == 4 else 4
    rows, tag = [], None
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.strip(BLANKS)
        if not line or line.startswith(b"#"):
            continue
        fields = SEPARATOR.split(line)
        if len(fields) != width:
            raise Refused(number)
        text = fields[value_index]
        if width == 4:
            text = INTEGRAL.sub(rb"\1", text)   # 3.0 and 3. are 3, as trec_eval reads them
            if not INTEGER.fullmatch(text) or not -(2**63) <= int(text) < 2**63:
                raise Refused(number)
            value = int(text)
        else:
            if not NUMBER.fullmatch(text) or not math.isfinite(float(text)):
                raise Refused(number)
            value = float(text)
        if tag is None:
            tag = fields[-1].decode()
        rows.append((fields[0].decode(), fields[2].decode(), value, number))
    return rows, tag


def reference_intern(ids: list[str]) -> tuple[list[int], list[str]]:
    vocabulary = sorted(set(ids))  # Python sorts str by code point
    index = {name: code for code, name in enumerate(vocabulary)}
    return [index[name] for name in ids], vocabulary


def check_against_reference(data: bytes, width: int, name: str = "file.txt") -> None:
    reader = read_trec_qrels_columns if width == 4 else read_trec_run_columns
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        try:
            rows, tag = reference_read(data, width)
        except Refused as refused:
            with pytest.raises(ParseError) as info:
                reader(path)
            assert f"{path} line {refused.line}: " in str(info.value)
            return
        if not rows:
            with pytest.raises(ParseError, match="holds no"):
                reader(path)
            return
        columns = reader(path)
    queries, docs, values, lines = (list(column) for column in zip(*rows, strict=True))
    query_codes, query_vocab = reference_intern(queries)
    doc_codes, doc_vocab = reference_intern(docs)
    assert columns.query_vocab.dtype.kind == columns.doc_vocab.dtype.kind == "U"
    assert columns.query_vocab.tolist() == query_vocab
    assert columns.doc_vocab.tolist() == doc_vocab
    assert columns.query_codes.dtype == columns.doc_codes.dtype == columns.line.dtype == np.int64
    assert columns.query_codes.tolist() == query_codes
    assert columns.doc_codes.tolist() == doc_codes
    assert columns.line.tolist() == lines
    got = columns.grade if width == 4 else columns.score
    assert got.dtype == (np.int64 if width == 4 else np.float64)
    # Exact equality: the scores are Python's correctly rounded float(text).
    assert got.tolist() == values
    if width == 6:
        assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in values]
        assert columns.tag == tag


# -- strategies -------------------------------------------------------------------

ID_CHARS = st.sampled_from(list("abcXYZ019_-.:/#+é中😀ßΩ") + ["\x01", "\x7f", '"', "\\"])
ids = st.text(ID_CHARS, min_size=1, max_size=12)
separators = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t", " \r ", "\r"])
edges = st.sampled_from(["", " ", "\t", "  \t", "\r"])
line_ends = st.sampled_from(["\n", "\r\n", " \n", "\t\r\n"])


@st.composite
def decimals(draw) -> str:
    """A number in any spelling the reader accepts, some beyond the fast path."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.text("0123456789", min_size=0, max_size=draw(st.sampled_from([3, 18, 30]))))
    fraction = draw(st.none() | st.text("0123456789", max_size=draw(st.sampled_from([4, 20]))))
    if not whole and not fraction:
        whole = draw(st.text("0123456789", min_size=1, max_size=3))
    text = sign + whole + ("" if fraction is None else "." + fraction)
    if draw(st.booleans()):
        text += draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "+", "-"]))
        text += str(draw(st.integers(0, 400)))
    return text


values_for_runs = st.one_of(
    decimals(),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["nan", "-inf", "Infinity", "1e999", "0x10", "1_0", "1,5", "--1", "1e", ".", "abc"]),
)
values_for_qrels = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.integers(0, 3).map(lambda g: f"+{g}"),
    st.sampled_from(["9223372036854775808", "-9223372036854775809", "1.5", "2.0", "x", "0x1", "1e3"]),
)


@st.composite
def trec_files(draw, width: int) -> bytes:
    """A TREC file: data lines in messy whitespace, with comments and blank lines."""
    value = values_for_qrels if width == 4 else values_for_runs
    queries = draw(st.lists(ids, min_size=1, max_size=4))
    docs = draw(st.lists(ids, min_size=1, max_size=8))
    lines = []
    if draw(st.booleans()):
        lines.append("\ufeff")  # a BOM, at the very start
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["data"] * 6 + ["blank", "comment", "bad"]))
        if kind == "blank":
            lines.append(draw(edges) + draw(line_ends))
            continue
        if kind == "comment":
            # Comments may hold anything but a newline, \v and NUL included.
            lines.append(draw(edges) + "#" + draw(st.text(st.characters(
                blacklist_characters="\n\x00", blacklist_categories=("Cs",)), max_size=10)) + draw(line_ends))
            continue
        fields = [draw(st.sampled_from(queries)), "Q0" if width == 6 else "0", draw(st.sampled_from(docs))]
        fields += [draw(value)] if width == 4 else [draw(st.sampled_from(["1", "rank"])), draw(value), "tag"]
        if kind == "bad":
            damage = draw(st.sampled_from(["drop", "extra", "vt", "ff"]))
            if damage == "drop":
                fields.pop(draw(st.integers(0, len(fields) - 1)))
            elif damage == "extra":
                fields.append("more")
            else:
                at = draw(st.integers(0, len(fields) - 1))
                fields[at] += "\x0b" if damage == "vt" else "\x0c"
        text = draw(edges)
        for field in fields:
            text += field + draw(separators)
        lines.append(text.rstrip(" \t\r") + draw(edges) + draw(line_ends))
    if lines and draw(st.booleans()):
        lines[-1] = lines[-1].rstrip("\r\n")  # no newline at the end
    return "".join(lines).encode("utf-8")


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@SETTINGS
@given(trec_files(width=6))
def test_runs_read_as_the_reference_reads_them(data):
    check_against_reference(data, 6)


@pytest.mark.slow
@SETTINGS
@given(trec_files(width=4))
def test_qrels_read_as_the_reference_reads_them(data):
    check_against_reference(data, 4)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(trec_files(width=6), st.booleans())
def test_files_cut_into_parts_read_as_whole_files(data, qrels):
    """Big files are scanned in parts (one per core), merged afterwards: force
    four parts on these small files, wherever the cuts fall, and compare."""
    import rankproof.io.trec as trec

    if qrels:
        data = re.sub(rb"Q0", b"0", data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec, "_PART_BYTES", 1)
        patch.setattr(trec.os, "cpu_count", lambda: 4)
        parts = trec._parts(data)
        assert 1 <= len(parts) <= 4 and parts[0][0] == 0 and parts[-1][1] == len(data)
        assert all(a < b for a, b in parts) or parts == [(0, 0)]
        assert all(data[end - 1 : end] == b"\n" and end == begin
                   for (_, end), (begin, _) in zip(parts, parts[1:]))
        assert len(trec._parts(b"q Q0 d 1 1 t\n" * 8)) == 4
        check_against_reference(data, 6)


@settings(max_examples=40, deadline=None)
@given(trec_files(width=6))
def test_gzip_reads_as_plain(data):
    check_against_reference(data, 6, name="run.txt.gz")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(decimals())
def test_every_score_is_python_float_exactly(text):
    """Scores are correctly rounded, on the fast path (short numbers) and off it."""
    data = f"q Q0 d 1 {text} t\n".encode()
    check_against_reference(data, 6)


# -- refusals ---------------------------------------------------------------------


def read_error(tmp_path: Path, data: bytes, width: int) -> str:
    path = tmp_path / ("qrels.txt" if width == 4 else "run.txt")
    path.write_bytes(data)
    reader = read_trec_qrels_columns if width == 4 else read_trec_run_columns
    with pytest.raises(ParseError) as info:
        reader(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path} line ")
    return message


@pytest.mark.parametrize("byte", [b"\x0b", b"\x0c"])
def test_vertical_tab_and_form_feed_separate_columns_as_in_trec_eval(tmp_path, byte):
    # trec_eval splits columns with C's isspace: \v and \f are blanks, so a
    # line that holds one inside an id has a column too many.
    good = b"# comments may hold them \x0b\x0c\n1 0" + byte + b"18 2\n" + byte + b"\n" + byte + b"2 0 5 1\n"
    path = tmp_path / "qrels.txt"
    path.write_bytes(good)
    columns = read_trec_qrels_columns(path)
    assert columns.doc_vocab.tolist() == ["18", "5"] and columns.line.tolist() == [2, 4]
    message = read_error(tmp_path, b"1 0 5 1\n1 0 18" + byte + b"4 2\n", 4)
    assert "line 2:" in message and "found 5" in message


def test_the_vt_repro_of_issue_13_is_refused_by_both_readers(tmp_path):
    qrels = read_error(tmp_path, b"1 0 \x0b 3\n1 0 18\x0b4 2\n2 0 5 1\n", 4)
    run = read_error(tmp_path, b"1 Q0 \x0b 1 2 t\n1 Q0 18\x0b4 2 1 t\n2 Q0 5 1 1 t\n", 6)
    assert "line 1:" in qrels and "line 1:" in run and "found 3" in qrels


def test_nul_byte_is_refused_with_its_line(tmp_path):
    message = read_error(tmp_path, b"q Q0 d 1 1.0 t\n\nq Q0 e\x00 2 0.5 t\n", 6)
    assert "line 3:" in message and "NUL" in message


@pytest.mark.parametrize(
    ("line", "found"), [("q Q0 d 1 1.0", 5), ("q Q0 d 1 1.0 t x", 7), ("q", 1), ("q 0 d 1", 4)]
)
def test_wrong_column_count_names_the_line(tmp_path, line, found):
    data = f"# head\nq Q0 a 1 2.0 t\n\n{line}\nq Q0 b 2 1.0 t\n".encode()
    message = read_error(tmp_path, data, 6)
    assert "line 4:" in message and f"found {found}" in message


# -- one path for every size ---------------------------------------------------------


@pytest.mark.parametrize("copies", [1, 30_000, 600_000])
def test_files_of_every_size_read_alike(tmp_path, copies):
    """Tiny, megabyte and 25 MB files (past the old 24 MB switch) read and refuse alike."""
    block = (
        "# c\r\n"
        "  q1\tQ0 d1 1 2.5 run  \r\n"
        "q1 Q0\t\td\u00e92 2 -1e3 run\n"
        "\n"
        "q10 Q0 d1 3 .5 run\n"
    )
    data = (block * copies).encode()
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    columns = read_trec_run_columns(path)
    assert columns.query_vocab.tolist() == ["q1", "q10"]
    assert columns.doc_vocab.tolist() == ["d1", "d\u00e92"]
    assert columns.query_codes[:3].tolist() == [0, 0, 1]
    assert columns.doc_codes[:3].tolist() == [0, 1, 0]
    assert columns.score[:3].tolist() == [2.5, -1000.0, 0.5]
    assert columns.line[-3:].tolist() == [5 * copies - 3, 5 * copies - 2, 5 * copies]
    assert columns.line.size == 3 * copies
    # The same \v at the end of each file splits a column the same way.
    path.write_bytes(data + b"q2 Q0 d\x0b3 1 1.0 run\n")
    with pytest.raises(ParseError) as info:
        read_trec_run_columns(path)
    assert f"line {5 * copies + 1}:" in str(info.value) and "found 7" in str(info.value)


# -- tables intern through the same compiled table -----------------------------------


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.lists(ids, min_size=1, max_size=40),
        st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40),
        st.lists(st.integers(0, 30), min_size=1, max_size=40),
    ),
    st.integers(0, 3),
    st.integers(1, 4),
)
def test_table_ids_intern_as_the_reference_does(values, skip, chunks):
    """Strings (sliced, chunked, non-ASCII) and integers (as their decimal text)."""
    import pyarrow as pa

    from rankproof.io.tables import run_columns_from_table

    padded = values[:1] * skip + values  # a slice with an offset into its buffers
    array = pa.array(padded).slice(skip)
    cut = sorted({len(values) * k // chunks for k in range(chunks + 1)})
    column = pa.chunked_array([array.slice(a, b - a) for a, b in zip(cut, cut[1:])], type=array.type)
    table = pa.table({"query": column, "doc": column, "score": pa.array([1.0] * len(values))})
    columns = run_columns_from_table(table)
    codes, vocabulary = reference_intern([str(v) for v in values])
    for got_codes, got_vocabulary in ((columns.query_codes, columns.query_vocab),
                                      (columns.doc_codes, columns.doc_vocab)):
        assert got_vocabulary.dtype.kind == "U" and got_codes.dtype == np.int64
        assert got_vocabulary.tolist() == vocabulary
        assert got_codes.tolist() == codes


def test_long_ids_sharing_long_prefixes(tmp_path):
    """Ids past the 16 bytes a slot holds, and runs of equal 8-byte sort keys
    long enough for the sort to go on to the next 8 bytes."""
    rng = np.random.default_rng(3)
    stems = ["http://example.org/a/very/long/common/prefix/", "http://example.org/a/very/", "é" * 9]
    docs = [stem + suffix for stem in stems for suffix in ["", "0", "00", "1", "10", "é", "\u4e2d"]]
    docs += [stems[0] + str(number) for number in rng.permutation(3000).tolist()]
    docs = [docs[i] for i in rng.permutation(len(docs))]
    data = "".join(f"q{i % 7} 0 {doc} {i % 3}\n" for i, doc in enumerate(docs + docs[:50])).encode()
    check_against_reference(data, 4)
