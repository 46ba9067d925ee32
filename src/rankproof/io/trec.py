"""Reading TREC qrels and run files into interned columns.

The readers never loop over lines in Python on the normal path. The bytes are
normalised with C-level operations (``bytes.translate``, ``bytes.replace`` and
one ``re.sub``, each run only when the file needs it) so that every data line
is its columns joined by single spaces and every blank or comment line is
empty; pyarrow's multithreaded CSV reader then splits the columns, and numpy
finds the original line number of every non-empty line from the positions of
the newlines. Normalisation never adds or removes a newline, so line numbers
always refer to the original file.

Only when pyarrow rejects the file, or a value fails a check, does a Python
loop walk the original lines, to name the first bad one.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rankproof.errors import ParseError, where
from rankproof.io.files import encoding_hint, load_text
from rankproof.io.limits import MAX_ID_LENGTH
from rankproof.io.trec_small import intern_columns, split_columns

__all__ = [
    "QrelsColumns",
    "RunColumns",
    "read_trec_qrels_columns",
    "read_trec_run_columns",
]


@dataclass(frozen=True)
class QrelsColumns:
    """The judgments of a TREC qrels file, one entry per data line, in file order.

    Attributes
    ----------
    query_codes : numpy.ndarray of int64
        Code of each row's query in `query_vocab`.
    query_vocab : numpy.ndarray of str
        Query ids, unique and sorted by code point.
    doc_codes : numpy.ndarray of int64
        Code of each row's document in `doc_vocab`.
    doc_vocab : numpy.ndarray of str
        Document ids, unique and sorted by code point.
    grade : numpy.ndarray of int64
        Relevance grade of each row, as written (negative grades included).
    line : numpy.ndarray of int64
        1-based line number of each row in the original file; ``-1`` for
        rows that have no line (a table in memory, a Parquet file).
    source : str
        The path as given, for messages.
    """

    query_codes: np.ndarray
    query_vocab: np.ndarray
    doc_codes: np.ndarray
    doc_vocab: np.ndarray
    grade: np.ndarray
    line: np.ndarray
    source: str


@dataclass(frozen=True)
class RunColumns:
    """The ranked documents of a TREC run file, one entry per data line, in file order.

    Attributes
    ----------
    query_codes : numpy.ndarray of int64
        Code of each row's query in `query_vocab`.
    query_vocab : numpy.ndarray of str
        Query ids, unique and sorted by code point.
    doc_codes : numpy.ndarray of int64
        Code of each row's document in `doc_vocab`.
    doc_vocab : numpy.ndarray of str
        Document ids, unique and sorted by code point.
    score : numpy.ndarray of float64
        Score of each row; always finite.
    line : numpy.ndarray of int64
        1-based line number of each row in the original file; ``-1`` for
        rows that have no line (a table in memory, a Parquet file).
    source : str
        The path as given, for messages.
    tag : str or None
        The run tag (6th column) of the first data line; None when the rows
        did not come from a TREC file.
    has_scores : bool
        False when the source gave no scores and its rows are in rank order
        within each query; `score` then holds ``-position`` within the query
        (0, -1, -2, ...), which sorts into the given order without ties.
        TREC files always have scores.
    """

    query_codes: np.ndarray
    query_vocab: np.ndarray
    doc_codes: np.ndarray
    doc_vocab: np.ndarray
    score: np.ndarray
    line: np.ndarray
    source: str
    tag: str | None
    # Last and defaulted, so that code building RunColumns positionally or
    # without it keeps working.
    has_scores: bool = True


# Integers as trec_eval's atol reads them, minus the leading whitespace (which
# cannot occur inside a column). pyarrow alone would also take "0x10" as 16.
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
# Exactly the floats pyarrow's CSV reader accepts, so that the error-path loop
# agrees with the fast path about which value is bad.
_FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)",
    re.ASCII | re.IGNORECASE,
)
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

# trec_eval splits fields with C's isspace: tab, CR, vertical tab and form feed
# separate columns as a space does. Mapping all of them here keeps the fast
# paths (which split on spaces only) and the line-by-line check in agreement.
_BLANKS_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_BLANKS = b" \t\r\x0b\x0c"
_SPACE_RUNS = re.compile(rb"  +")
_COMMENT_LINES = re.compile(rb"\n#[^\n]*")
_FIELD_SEPARATOR = re.compile(rb"[ \t\r\x0b\x0c]+")
_NON_EMPTY_LINE = re.compile(rb"[^\n]+")
_SHOWN_CHARS = 80


def _grade_problem(value: str) -> str | None:
    """Say what is wrong with a grade, or return None if it is a valid integer."""
    if _INTEGER.fullmatch(value):
        if _INT64_MIN <= int(value) <= _INT64_MAX:
            return None
        return (
            f"grade {value!r} does not fit in a 64-bit integer; "
            "use small integer grades such as 0, 1, 2"
        )
    if _FLOAT.fullmatch(value):
        return (
            f"grade {value!r} is not an integer; grades must be integers, so map "
            "fractional grades to integers with a grade map (e.g. 0.5 -> 1, 1.0 -> 2)"
        )
    return f"grade {value!r} is not an integer; grades must be integers such as 0, 1, 2"


def _score_problem(value: str) -> str | None:
    """Say what is wrong with a score, or return None if it is a finite number."""
    if not _FLOAT.fullmatch(value):
        return (
            f"score {value!r} is not a number; "
            "give every document a numeric score such as 11.17"
        )
    number = float(value)
    if math.isnan(number):
        return f"NaN score {value!r}; give every document a finite score"
    if math.isinf(number):
        return f"infinite score {value!r}; give every document a finite score"
    return None


@dataclass(frozen=True)
class _Format:
    """What distinguishes a qrels file from a run file when reading one."""

    what: str
    names: tuple[str, ...]
    layout: str
    value_index: int
    value_problem: Callable[[str], str | None]
    nothing: str
    unit: str
    swapped_width: int
    swapped_hint: str
    shape_hint: str


_QRELS = _Format(
    what="qrels",
    names=("query", "iteration", "doc", "grade"),
    layout="query 0 doc grade",
    value_index=3,
    value_problem=_grade_problem,
    nothing="holds no judgments",
    unit="judgment",
    swapped_width=6,
    swapped_hint=(
        "this looks like a run line (query Q0 doc rank score tag); "
        "check that the qrels and run files are not swapped"
    ),
    shape_hint=(
        "write one judgment per line as 'query 0 doc grade', separated by spaces "
        "or tabs (ids cannot contain whitespace)"
    ),
)

_RUN = _Format(
    what="run",
    names=("query", "q0", "doc", "rank", "score", "tag"),
    layout="query Q0 doc rank score tag",
    value_index=4,
    value_problem=_score_problem,
    nothing="holds no ranked documents",
    unit="ranked document",
    swapped_width=4,
    swapped_hint=(
        "this looks like a qrels line (query 0 doc grade); "
        "check that the run and qrels files are not swapped"
    ),
    shape_hint=(
        "write one ranked document per line as 'query Q0 doc rank score tag', "
        "separated by spaces or tabs (ids and the tag cannot contain whitespace)"
    ),
)


def _shorten(text: str) -> str:
    """Cut text that would make a one-line message unreadable."""
    if len(text) <= _SHOWN_CHARS:
        return text
    return text[: _SHOWN_CHARS - 3] + "..."


def _load(path, source: str, fmt: _Format) -> bytes:
    """Read, decompress and check the file; return UTF-8 bytes without a BOM."""
    return load_text(
        path, source, what=fmt.what, label="TREC",
        binary_hint=lambda data: encoding_hint(data, f"give the plain-text {fmt.what} file instead"),
        encoding_fix=lambda data: encoding_hint(data, "TREC files must be UTF-8 text, so re-save it as UTF-8"),
    )


def _newlines(data: bytes) -> np.ndarray:
    """Return the byte offsets of every newline in `data`, as int64.

    The scan goes one megabyte at a time (a loop over chunks, not lines):
    comparing the whole buffer at once would allocate, and fault in, one
    bool per byte, which costs several times more than the comparison.
    """
    buffer = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    parts = [
        np.flatnonzero(buffer[offset : offset + step] == 0x0A) + offset
        for offset in range(0, buffer.size, step)
    ]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(parts).astype(np.int64, copy=False)


def _line_bounds(size: int, breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the start and end (exclusive, newline excluded) of every line."""
    starts = np.empty(breaks.size + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = breaks + 1
    ends = np.empty_like(starts)
    ends[:-1] = breaks
    ends[-1] = size
    return starts, ends


def _has_space_run(buffer: np.ndarray) -> bool:
    """Tell whether two spaces follow each other anywhere in `buffer`.

    ``b"  " in data`` stops at every single space of a TREC file to look at the
    next byte, which makes it five times slower than comparing a quarter
    megabyte at a time with numpy (small chunks stay in cache).
    """
    step = 1 << 18
    for offset in range(0, buffer.size, step):
        space = buffer[offset : offset + step + 1] == 0x20
        if (space[1:] & space[:-1]).any():
            return True
    return False


def _is_clean(data: bytes, breaks: np.ndarray) -> bool:
    """Tell whether `data` (without tabs or CRs) is already in normalised form.

    A run of blanks is found by one substring search; leading and trailing
    blanks and comment lines by looking at the bytes beside each newline,
    which is cheaper than three more searches of the whole buffer.
    """
    if not data or data[:1] in (b" ", b"#") or data.endswith(b" "):
        return not data
    buffer = np.frombuffer(data, dtype=np.uint8)
    if _has_space_run(buffer):
        return False
    after = breaks[breaks + 1 < len(buffer)] + 1
    before = breaks[breaks > 0] - 1
    following, preceding = buffer[after], buffer[before]
    return not ((following == 0x20).any() or (following == 0x23).any() or (preceding == 0x20).any())


def _normalise(data: bytes) -> tuple[bytes, np.ndarray]:
    """Make each data line its columns joined by one space, and other lines empty.

    Every step is a C-level pass over the buffer, and the steps are skipped
    when the file does not need them. No newline is added or removed.

    Returns
    -------
    text : bytes
        The normalised buffer.
    breaks : numpy.ndarray of int64
        Offsets of its newlines.
    """
    if b"\t" in data or b"\r" in data or b"\x0b" in data or b"\x0c" in data:
        data = data.translate(_BLANKS_TO_SPACE)
    breaks = _newlines(data)
    if _is_clean(data, breaks):
        return data, breaks
    if b"  " in data:
        data = _SPACE_RUNS.sub(b" ", data)
    # Runs are single spaces now, so one replace removes each line's trailing
    # and leading blanks.
    if b" \n" in data:
        data = data.replace(b" \n", b"\n")
    if b"\n " in data:
        data = data.replace(b"\n ", b"\n")
    data = data.strip(b" ")
    # A line whose first non-blank character is '#' is a comment (trec_eval 10).
    if data.startswith(b"#"):
        cut = data.find(b"\n")
        data = b"" if cut < 0 else data[cut:]
    if b"\n#" in data:
        data = _COMMENT_LINES.sub(b"\n", data)
    return data, _newlines(data)


def _data_lines(
    text: bytes, breaks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the 1-based line numbers, starts and ends of the non-empty lines."""
    starts, ends = _line_bounds(len(text), breaks)
    keep = ends > starts
    if keep[:-1].all():
        # No blank line but perhaps the empty one after the final newline:
        # slices, not copies, on the common path.
        count = len(keep) - (0 if keep[-1] else 1)
        return np.arange(1, count + 1, dtype=np.int64), starts[:count], ends[:count]
    return np.flatnonzero(keep).astype(np.int64) + 1, starts[keep], ends[keep]


def _row_error(
    fields: list[str], shown: str, fmt: _Format, source: str, line: int
) -> ParseError | None:
    """Return the error for one data line, or None if the line is fine."""
    width = len(fmt.names)
    if len(fields) != width:
        hint = fmt.swapped_hint if len(fields) == fmt.swapped_width else fmt.shape_hint
        return ParseError(
            f"{where(source=source, line=line)}expected {width} columns "
            f"({fmt.layout}), found {len(fields)}: {_shorten(shown)!r}; {hint}"
        )
    problem = fmt.value_problem(fields[fmt.value_index])
    if problem is None:
        return None
    location = where(
        source=source, line=line, query=_shorten(fields[0]), doc=_shorten(fields[2])
    )
    return ParseError(location + problem)


def _first_bad_line(data: bytes, fmt: _Format, source: str) -> ParseError | None:
    """Walk the original lines in Python and return the error for the first bad one.

    Only used once the vectorised path has failed, so its cost does not matter
    on valid files.
    """
    for line, raw in enumerate(io.BytesIO(data), start=1):
        stripped = raw.strip(_BLANKS + b"\n")
        if not stripped or stripped.startswith(b"#"):
            continue
        fields = [field.decode("utf-8") for field in _FIELD_SEPARATOR.split(stripped)]
        error = _row_error(fields, stripped.decode("utf-8"), fmt, source, line)
        if error is not None:
            return error
    return None


def _data_bounds(text: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of every data line of a normalised text.

    Recomputed when needed rather than kept: two int64 arrays per line would
    stay alive through the parse, the step where memory peaks.
    """
    _, starts, ends = _data_lines(text, _newlines(text))
    return starts, ends


def _first_data_line(text: bytes) -> bytes:
    """The first non-empty line of a normalised text."""
    return _NON_EMPTY_LINE.search(text).group()


def _error_at_row(
    text: bytes,
    lines: np.ndarray,
    row: int,
    fmt: _Format,
    source: str,
) -> ParseError:
    """Build the error for a row the vectorised checks found bad."""
    starts, ends = _data_bounds(text)
    shown = text[starts[row] : ends[row]].decode("utf-8")
    error = _row_error(shown.split(" "), shown, fmt, source, int(lines[row]))
    if error is None:  # pragma: no cover - the vectorised and scalar checks disagree
        raise RuntimeError(f"row {row} was flagged as bad but passes the scalar check")
    return error


def _check_field_lengths(text: bytes, breaks: np.ndarray, fmt: _Format, source: str) -> None:
    """Refuse a field longer than the id-length limit (see :mod:`rankproof.io.limits`).

    Only a line longer than the limit can hold such a field, and line lengths
    come from the newline offsets a chunk at a time, so a valid file pays
    one pass over its newline offsets and no copy.
    """
    longest = MAX_ID_LENGTH.value()
    if len(text) <= longest:
        return
    bounds = np.concatenate(([-1], breaks, [len(text)])) if breaks.size < (1 << 16) else None
    step = 1 << 20
    candidates = range(0, breaks.size + 1, step) if bounds is None else [0]
    for offset in candidates:
        if bounds is None:
            head = breaks[offset - 1] if offset else -1
            chunk = breaks[offset : offset + step]
            tail = [len(text)] if offset + step >= breaks.size else []
            part = np.concatenate(([head], chunk, tail))
        else:
            part = bounds
        lengths = np.diff(part) - 1
        if lengths.size == 0 or lengths.max() <= longest:
            continue
        index = int(np.argmax(lengths > longest))
        start = int(part[index]) + 1
        end = start + int(lengths[index])
        line = offset + index + 1
        for number, field in enumerate(text[start:end].split(b" ")):
            if len(field) > longest:
                name = fmt.names[number] if number < len(fmt.names) else f"column {number + 1}"
                shown = field[:40].decode("utf-8", "replace") + "..."
                raise ParseError(where(source=source, line=line) + MAX_ID_LENGTH.refusal(
                    f"the {name} field of {len(field)} bytes ({shown!r})"))


def _prepare(path, fmt: _Format):
    """Load and normalise a file, and number its data lines.

    Also returns ``data_starts()``, which gives the start of every data line
    from the newline offsets found here; drop it before parsing a big file,
    as it keeps those offsets alive.
    """
    source = str(path)
    raw = _load(path, source, fmt)
    text, breaks = _normalise(raw)
    _check_field_lengths(text, breaks, fmt, source)
    lines, _, _ = _data_lines(text, breaks)
    if lines.size == 0:
        raise ParseError(
            f"{where(source=source)}{fmt.nothing} (the file is empty or has only "
            f"blank and comment lines); give one '{fmt.layout}' line per {fmt.unit}"
        )
    return source, raw, text, lines, lambda: _data_lines(text, breaks)[1]


def _parse(text: bytes, raw: bytes, fmt: _Format, source: str, column_types: dict):
    """Split the normalised text into a pyarrow table of the wanted columns."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    read_options = pacsv.ReadOptions(
        column_names=list(fmt.names), use_threads=True, block_size=1 << 24
    )
    # No quoting, no escapes: TREC files give '"' and '\' no meaning.
    parse_options = pacsv.ParseOptions(
        delimiter=" ",
        quote_char=False,
        double_quote=False,
        escape_char=False,
        newlines_in_values=False,
        ignore_empty_lines=True,
    )
    # No null spellings ("NA", "null", ...): they are ids or bad values here.
    # UTF-8 was checked on the whole file already.
    convert_options = pacsv.ConvertOptions(
        column_types=column_types,
        include_columns=list(column_types),
        null_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        check_utf8=False,
    )
    try:
        return pacsv.read_csv(
            pa.BufferReader(text),
            read_options=read_options,
            parse_options=parse_options,
            convert_options=convert_options,
        )
    except pa.ArrowInvalid as exc:
        raise _arrow_failure(raw, fmt, source, exc) from None


def _arrow_failure(raw: bytes, fmt: _Format, source: str, exc: Exception) -> ParseError:
    """Name the first bad line after pyarrow gave up on the file."""
    error = _first_bad_line(raw, fmt, source)
    if error is not None:
        return error
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ParseError(
        f"{where(source=source)}cannot be read as a TREC {fmt.what} file ({reason}); "
        f"check that every line is '{fmt.layout}'"
    )


def _release_arrow_memory() -> None:
    """Hand the memory arrow freed back to the system.

    Arrow's allocator keeps freed pages for reuse, but the arrays that come
    next are numpy's, which cannot use them: returning them keeps them from
    adding to the peak of the evaluation that follows.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _owned(values, dtype) -> np.ndarray:
    """Return a writable, contiguous numpy array of the given dtype."""
    array = np.asarray(values, dtype=dtype)
    if not (array.flags.writeable and array.flags.c_contiguous):
        array = np.array(array, dtype=dtype, order="C")
    return array


def _intern_column(column) -> tuple[np.ndarray, np.ndarray]:
    """Intern a pyarrow string (or integer) column into ``(codes, sorted vocabulary)``.

    Hashing with ``dictionary_encode`` and then sorting only the distinct ids
    is much faster than sorting every row, as ``numpy.unique`` would.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(column, pa.ChunkedArray):
        column = pa.chunked_array([column])
    # Encoding the chunks directly (they share one dictionary) avoids
    # concatenating every id of the column first.
    encoded = pc.dictionary_encode(column)
    if encoded.num_chunks == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype="<U1")
    dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary
    if not pa.types.is_large_string(dictionary.type):
        # Integer ids (from a table) become their decimal text here, once per
        # distinct id, so that 7 and "7" are one id and the order is strcmp's.
        dictionary = pc.cast(dictionary, pa.large_string())
    indices = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks])
    # Arrow compares strings bytewise, which on UTF-8 is code-point order:
    # the order numpy uses for str arrays and the one interning promises.
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64)
    codes = rank[indices]
    vocabulary = _strings_to_numpy(dictionary.take(order))
    return codes, vocabulary


def _intern_columns_together(first, second):
    """Intern two columns at once, the first in a second thread.

    Hashing and gathering run in arrow and numpy with the GIL released, so
    on two cores the query column costs almost nothing beside the doc column.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(_intern_column, first)
        interned_second = _intern_column(second)
        return pending.result(), interned_second


def _strings_to_numpy(strings) -> np.ndarray:
    """A pyarrow string array as a numpy str array, without a Python object per id.

    ASCII ids (the usual case) are padded with NULs to one width by arrow,
    whose buffer is then a fixed-width bytes array that numpy decodes in C
    (numpy strips trailing NULs). Others take the slow, per-id road.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not strings.type.equals(pa.large_string()):
        strings = strings.cast(pa.large_string())
    if len(strings) == 0 or strings.null_count:
        return np.asarray(strings.to_pylist(), dtype=str)
    _, offsets_buffer, data_buffer = strings.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[strings.offset : strings.offset + len(strings) + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    width = int(np.diff(offsets).max())
    # One long id would make the fixed-width array huge: bound its size.
    too_wide = width * len(strings) > 256 * 1024 * 1024
    if width == 0 or too_wide or (data[offsets[0] : offsets[-1]] >= 0x80).any():
        return np.asarray(strings.to_pylist(), dtype=str)
    # ASCII: one code point per byte, so padding to `width` code points gives
    # `width` bytes per id, back to back.
    padded = pc.utf8_rpad(strings, width=width, padding="\x00")
    _, padded_offsets, padded_data = padded.buffers()
    first = int(np.frombuffer(padded_offsets, dtype=np.int64)[padded.offset])
    fixed = np.frombuffer(padded_data, dtype=f"S{width}", count=len(padded), offset=first)
    return fixed.astype(str)


def read_trec_qrels_columns(path) -> QrelsColumns:
    """Read a TREC qrels file (``query 0 doc grade``) into interned columns.

    Columns are separated by any run of spaces or tabs; leading and trailing
    blanks and CRLF line ends are tolerated; blank lines and lines whose first
    non-blank character is ``#`` are skipped. The second column is ignored.
    A ``.gz`` file is decompressed. Duplicates and negative grades are left
    for the evaluation policy to judge.

    Parameters
    ----------
    path : str or os.PathLike
        The qrels file.

    Returns
    -------
    QrelsColumns
        One entry per judgment, in file order.

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, unreadable, not UTF-8 text, holds no
        judgments, or a line has the wrong number of columns or a grade that
        is not an integer. The message names the file and line.
    """
    source, raw, text, lines, data_starts = _prepare(path, _QRELS)
    small = split_columns(text, data_starts, width=4, numeric=3, integer=True)
    del data_starts
    if small is not None:
        table, grade = small
        (query_codes, query_vocab), (doc_codes, doc_vocab) = intern_columns(table, text, 0, 2)
        return QrelsColumns(query_codes=query_codes, query_vocab=query_vocab, doc_codes=doc_codes,
                            doc_vocab=doc_vocab, grade=grade, line=lines, source=source)

    import pyarrow as pa
    import pyarrow.compute as pc

    table = _parse(
        text,
        raw,
        _QRELS,
        source,
        {"query": pa.string(), "doc": pa.string(), "grade": pa.string()},
    )
    if table.num_rows != lines.size:  # pragma: no cover - internal invariant
        raise RuntimeError("pyarrow and numpy disagree about the number of data lines")

    # Grades are read as text and checked here, because pyarrow's own integer
    # parser also takes hexadecimal ("0x10") and refuses a leading '+'.
    grade_text = table.column("grade")
    integer = pc.match_substring_regex(grade_text, pattern=r"^[+-]?[0-9]+$")
    bad_row = pc.index(integer, False).as_py()
    if bad_row >= 0:
        raise _error_at_row(text, lines, bad_row, _QRELS, source)
    try:
        grade = pc.cast(pc.utf8_ltrim(grade_text, characters="+"), pa.int64())
    except pa.ArrowInvalid as exc:  # an integer too large for int64
        raise _arrow_failure(raw, _QRELS, source, exc) from None

    (query_codes, query_vocab), (doc_codes, doc_vocab) = _intern_columns_together(
        table.column("query"), table.column("doc"))
    grade = _owned(grade.to_numpy(), np.int64)
    del table, grade_text, integer
    _release_arrow_memory()
    return QrelsColumns(
        query_codes=query_codes,
        query_vocab=query_vocab,
        doc_codes=doc_codes,
        doc_vocab=doc_vocab,
        grade=grade,
        line=lines,
        source=source,
    )


def read_trec_run_columns(path) -> RunColumns:
    """Read a TREC run file (``query Q0 doc rank score tag``) into interned columns.

    Columns are separated by any run of spaces or tabs; leading and trailing
    blanks and CRLF line ends are tolerated; blank lines and lines whose first
    non-blank character is ``#`` are skipped. The second and fourth columns
    are ignored (the rank need not be a number); the order of documents comes
    from the scores, later. A ``.gz`` file is decompressed.

    Parameters
    ----------
    path : str or os.PathLike
        The run file.

    Returns
    -------
    RunColumns
        One entry per ranked document, in file order.

    Raises
    ------
    rankproof.errors.ParseError
        If the file is missing, unreadable, not UTF-8 text, holds no ranked
        documents, or a line has the wrong number of columns or a score that
        is not a finite number. The message names the file and line.
    """
    source, raw, text, lines, data_starts = _prepare(path, _RUN)
    small = split_columns(text, data_starts, width=6, numeric=4, integer=False)
    del data_starts  # it holds the newline offsets: not through the parse
    if small is not None:
        table, score = small
        (query_codes, query_vocab), (doc_codes, doc_vocab) = intern_columns(table, text, 0, 2)
        return RunColumns(query_codes=query_codes, query_vocab=query_vocab, doc_codes=doc_codes,
                          doc_vocab=doc_vocab, score=score, line=lines, source=source,
                          tag=table[0, 5].decode("utf-8"))

    import pyarrow as pa

    table = _parse(
        text,
        raw,
        _RUN,
        source,
        {"query": pa.string(), "doc": pa.string(), "score": pa.float64()},
    )
    if table.num_rows != lines.size:  # pragma: no cover - internal invariant
        raise RuntimeError("pyarrow and numpy disagree about the number of data lines")

    score = _owned(table.column("score").to_numpy(), np.float64)
    finite = np.isfinite(score)
    if not finite.all():
        bad_row = int(np.argmin(finite))
        raise _error_at_row(text, lines, bad_row, _RUN, source)

    # Every data line has six columns by now, so the first one has a tag.
    tag = _first_data_line(text).split(b" ")[5].decode("utf-8")
    # The file's bytes are no longer needed: free them before interning,
    # the step where memory peaks.
    del raw, text
    (query_codes, query_vocab), (doc_codes, doc_vocab) = _intern_columns_together(
        table.column("query"), table.column("doc"))
    del table
    _release_arrow_memory()
    return RunColumns(
        query_codes=query_codes,
        query_vocab=query_vocab,
        doc_codes=doc_codes,
        doc_vocab=doc_vocab,
        score=score,
        line=lines,
        source=source,
        tag=tag,
    )
