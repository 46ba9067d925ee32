"""Reading a text file for any reader: OS errors, gzip, binary and encoding checks.

Every message names the file (and the line, where there is one) and says
what to do, in one shape for every format.
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path
from typing import Callable, Iterator

from ..errors import ParseError, literal
from .limits import (
    FIFO_TIMEOUT,
    MAX_DECOMPRESSED_BYTES,
    MAX_DECOMPRESSION_RATIO,
    MAX_NESTING_DEPTH,
    MAX_STREAM_BYTES,
)

__all__ = ["read_bytes", "read_stream", "stream_chunks", "load_text", "encoding_hint",
           "check_json_nesting", "json_int"]

_UTF8_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"


def encoding_hint(data: bytes, otherwise: str) -> str:
    """Guess why a file is not UTF-8 text from its first bytes, else say `otherwise`."""
    if data[:2] == b"\x1f\x8b":
        return "it looks gzip-compressed, so give it a .gz extension"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "it looks like UTF-16 text, so re-save it as UTF-8"
    return otherwise


_CHUNK = 1 << 20
# Below this decompressed size the ratio limit does not apply: small files of
# repeated lines can compress very well and cost nothing.
_RATIO_FLOOR = 64 * 1024 * 1024


def _open(file: Path, source: str, what: str):
    """Open a file for reading in binary; a FIFO waits for a writer at most FIFO_TIMEOUT."""
    directory = ParseError(source=source, what="is a directory, not a file",
                           fix=f"give the path of the {literal(what)} file itself")
    try:
        if file.is_dir():
            raise directory
        if stat.S_ISFIFO(os.stat(file).st_mode):
            return _open_fifo(file, source)
        return open(file, "rb")
    except FileNotFoundError:
        raise ParseError(source=source, what="does not exist", fix="check the path") from None
    except IsADirectoryError:
        raise directory from None
    except PermissionError:
        raise ParseError(source=source, what="cannot be read (permission denied)",
                         fix="check the file's permissions") from None
    except OSError as exc:
        raise _os_error(exc, source) from None


def _os_error(exc: OSError, source: str) -> ParseError:
    reason = exc.strerror or str(exc)
    return ParseError(source=source, what=f"cannot be read ({literal(reason)})",
                      fix="check that it is a readable file")


def _open_fifo(file: Path, source: str):
    """Open a named pipe without blocking forever when nobody ever writes to it.

    A non-blocking open succeeds at once; poll then waits until a writer
    connects and writes (or closes), for at most the FIFO_TIMEOUT limit.
    """
    import select

    descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(descriptor, select.POLLIN | select.POLLHUP)
        seconds = FIFO_TIMEOUT.value()
        if not poller.poll(seconds * 1000):
            raise ParseError(source=source, fix=FIFO_TIMEOUT.fix, what=FIFO_TIMEOUT.beyond(
                f"is a FIFO (named pipe) that nothing wrote to within {seconds} s, which"))
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bytes(file: Path, source: str, what: str, size: int = -1) -> bytes:
    """Read a file (or its first `size` bytes), turning OS errors into ParseErrors.

    `what` names the kind of file ("qrels", "run") for the message about a directory.
    An input with no size (a pipe, a device) is refused past the stream-size limit.
    """
    with _open(Path(file), source, what) as handle:
        return _read_all(handle, source, size)


def _read_all(handle, source: str, size: int = -1, check=None) -> bytes:
    """Read in chunks; `check(chunk)` sees the first chunk before the rest is read."""
    try:
        try:
            regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
        except (AttributeError, ValueError, OSError):
            regular = False  # a stream without a descriptor: limit it as a pipe
        if size >= 0 and regular:
            return handle.read(size)
        if regular:
            # One buffer for the whole file (joining chunks would hold it
            # twice); the first megabyte is checked first, then read again.
            if check is not None:
                check(handle.read(_CHUNK))
                handle.seek(0)
            return handle.read()
        return b"".join(stream_chunks(handle, source, check, size))
    except OSError as exc:
        raise _os_error(exc, source) from None


def stream_chunks(handle, source: str, check: "Callable[[bytes], None] | None" = None,
                  size: int = -1) -> Iterator[bytes]:
    """The chunks of an input with no size (a pipe, a device, stdin), read 1 MiB at a
    time: `check(chunk)` sees the first before the rest is read (so ``< /dev/zero`` is
    refused at once), and the whole is refused past the stream-size limit.
    `size` (when not negative) stops the reading there."""
    limit = MAX_STREAM_BYTES.value()
    total = 0
    while size < 0 or total < size:
        chunk = handle.read(_CHUNK if size < 0 else min(_CHUNK, size - total))
        if not chunk:
            return
        if not total and check is not None:
            check(chunk)
        total += len(chunk)
        if total > limit:
            raise ParseError(source=source, fix=MAX_STREAM_BYTES.fix, what=MAX_STREAM_BYTES.beyond(
                f"is a stream (pipe or device) of more than {limit} bytes, which"))
        yield chunk


def _gunzip(handle, source: str, compressed_size: int | None, check) -> bytes:
    """Decompress a gzip stream chunk by chunk, with `check` on the first output chunk.

    A gzip bomb (4 GiB of zeros in 4 MB) is refused on its first megabyte (a
    NUL byte) or, when it is valid text, by the decompressed-size and ratio
    limits, before it fills memory.
    """
    most = MAX_DECOMPRESSED_BYTES.value()
    ratio = MAX_DECOMPRESSION_RATIO.value()
    stream_limit = None if compressed_size is not None else MAX_STREAM_BYTES.value()
    inflater = zlib.decompressobj(wbits=31)
    out: list[bytes] = []
    total = 0
    read = 0

    def produce(piece: bytes) -> None:
        nonlocal total
        if not piece:
            return
        if not out:
            check(piece)
        out.append(piece)
        total += len(piece)
        if total > most:
            raise ParseError(source=source, fix=MAX_DECOMPRESSED_BYTES.fix,
                             what=MAX_DECOMPRESSED_BYTES.beyond(
                f"decompresses to more than {most} bytes, which"))
        if total > _RATIO_FLOOR and total > ratio * max(read, 1):
            raise ParseError(source=source, fix=MAX_DECOMPRESSION_RATIO.fix,
                             what=MAX_DECOMPRESSION_RATIO.beyond(
                f"decompresses to more than {ratio} times its compressed size ({read} bytes so far), "
                "a decompression bomb or a very repetitive file, which"))

    try:
        while True:
            # Small reads keep the ratio check close behind the inflation.
            raw = handle.read(1 << 16)
            if not raw:
                break
            read += len(raw)
            if stream_limit is not None and read > stream_limit:
                raise ParseError(source=source, fix=MAX_STREAM_BYTES.fix,
                                 what=MAX_STREAM_BYTES.beyond(
                    f"is a stream (pipe or device) of more than {stream_limit} bytes, which"))
            pending = raw
            while pending:
                if inflater.eof:
                    if not pending.strip(b"\x00"):
                        break  # trailing NUL padding, which gzip tolerates
                    # Another gzip member follows (files made with cat a.gz b.gz).
                    inflater = zlib.decompressobj(wbits=31)
                # At most one chunk of output per call: a bomb never inflates at once.
                produce(inflater.decompress(pending, _CHUNK))
                pending = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
        if read and not inflater.eof:
            raise EOFError("Compressed file ended before the end-of-stream marker was reached")
    except (zlib.error, EOFError) as exc:
        raise ParseError(source=source, what=f"is not a valid gzip file ({literal(exc)})",
                         fix="decompress it again, or drop the .gz extension if it is plain text") from None
    except OSError as exc:
        raise _os_error(exc, source) from None
    return b"".join(out)


def _check_text(data: bytes, source: str, label: str, binary_hint: Callable[[bytes], str],
                encoding_fix: Callable[[bytes], str], partial: bool = False) -> None:
    """Refuse a NUL byte or bytes that are not UTF-8, naming the line.

    With `partial`, `data` is the first chunk of a longer file: a UTF-8
    sequence cut by the chunk's end is not an error.
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ParseError(source=source, line=line,
                         what=f"holds a NUL byte, so this is a binary file, not {label} text",
                         fix=literal(binary_hint(data)))
    # isascii is a fast C scan; only files with non-ASCII bytes pay for decoding.
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if partial and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
                return
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise ParseError(source=source, line=line, value=data[exc.start],
                             what=f"byte 0x{data[exc.start]:02x} at position {column} is not valid UTF-8",
                             fix=literal(encoding_fix(data))) from None


def load_text(path, source: str, *, what: str, label: str, binary_hint: Callable[[bytes], str],
              encoding_fix: Callable[[bytes], str]) -> bytes:
    """Read, decompress (``.gz`` or gzip magic bytes) and check a text file; return UTF-8 bytes without a BOM.

    `label` names the format in messages ("TREC", "CSV"); `binary_hint(data)`
    and `encoding_fix(data)` say what to do about a binary or non-UTF-8 file.
    The first megabyte is checked before the rest is read or inflated, so a
    binary device or a gzip bomb is refused at once.
    """
    file = Path(path)

    def first(chunk: bytes) -> None:
        _check_text(chunk, source, label, binary_hint, encoding_fix, partial=True)

    with _open(file, source, what) as handle:
        # gzip is recognised by its magic bytes as well as by name: stdin and
        # files renamed without .gz are read the same way.
        head = handle.peek(2)[:2] if hasattr(handle, "peek") else b""
        if file.name.lower().endswith(".gz") or head == _GZIP_MAGIC:
            try:
                info = os.fstat(handle.fileno())
            except OSError as exc:
                raise _os_error(exc, source) from None
            data = _gunzip(handle, source, info.st_size if stat.S_ISREG(info.st_mode) else None,
                           first)
        else:
            data = _read_all(handle, source, check=first)
    _check_text(data, source, label, binary_hint, encoding_fix)
    # Editors on Windows often write a BOM; it would otherwise end up in the
    # first id or column name. Removing it keeps every newline, so line numbers hold.
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    return data


def read_stream(stream, source: str, *, label: str, binary_hint: Callable[[bytes], str]) -> bytes:
    """Read a stream with no size (stdin) up to the stream-size limit.

    Its first megabyte is checked as :func:`load_text` does, so binary
    input (``< /dev/zero``) is refused at once.
    """
    def first(chunk: bytes) -> None:
        _check_text(chunk, source, label, binary_hint, binary_hint, partial=True)

    return _read_all(stream, source, check=first)


def json_int(text: str) -> "int | float":
    """``parse_int`` for :func:`json.loads`: an integer too long for ``int()``.

    Python refuses to convert more than 4,300 digits (a guard against
    quadratic time) with an error that names none of the input; such an
    integer is read as the float it overflows to (``inf``), so the check of
    the field that holds it (a grade, a cutoff, ``rel``) refuses it by name.

    >>> json_int("12"), json_int("9" * 5000)
    (12, inf)
    """
    return int(text) if len(text) <= 4000 else float(text)


def check_json_nesting(data: bytes, source: str) -> None:
    """Refuse JSON (or JSON Lines) nested deeper than the nesting limit.

    Parsers recurse once per level: pyarrow's reader crashes the process on
    a value nested 10,000 deep, Python's raises RecursionError. A line can
    be that deep only if it holds that many ``[`` or ``{``, which numpy
    counts per line without a loop; only such lines are walked, in Python,
    minding strings, and the walk stops at the limit.

    Examples
    --------
    >>> check_json_nesting(b'{"a": [[1]]}\\n', "x.jsonl")
    >>> check_json_nesting(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', "x.jsonl")
    >>> try:
    ...     check_json_nesting(b"[" * 100 + b"]" * 100, "x.json")
    ... except ParseError as error:
    ...     print(str(error)[:60])
    x.json line 1: JSON nested deeper than 64 levels is beyond t
    """
    import numpy as np

    limit = MAX_NESTING_DEPTH.value()
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    buffer = np.frombuffer(data, dtype=np.uint8)
    breaks = np.flatnonzero(buffer == 0x0A)
    counts = np.zeros(breaks.size + 1, dtype=np.int64)
    step = 1 << 24
    for offset in range(0, buffer.size, step):
        chunk = buffer[offset: offset + step]
        opening = np.flatnonzero((chunk == 0x5B) | (chunk == 0x7B)) + offset
        counts += np.bincount(np.searchsorted(breaks, opening), minlength=counts.size)
    for line in np.flatnonzero(counts > limit):
        start = int(breaks[line - 1]) + 1 if line else 0
        end = int(breaks[line]) if line < breaks.size else len(data)
        if _depth_beyond(data[start:end], limit):
            raise ParseError(source=source, line=int(line) + 1, fix=MAX_NESTING_DEPTH.fix,
                             what=MAX_NESTING_DEPTH.beyond(f"JSON nested deeper than {limit} levels"))


def _depth_beyond(text: bytes, limit: int) -> bool:
    """Tell whether brackets outside strings nest deeper than `limit` in `text`."""
    if b"\\" not in text:
        return _depth_beyond_unescaped(text, limit)
    depth = 0
    inside = escaped = False
    for byte in text:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def _depth_beyond_unescaped(text: bytes, limit: int) -> bool:
    """:func:`_depth_beyond` for text without a backslash, in numpy (a results file is one 50 MB line).

    Without escapes every quote opens or closes a string, so a byte is inside
    a string when an odd number of quotes precede it. Only quotes and
    brackets matter: they are picked out by a lookup table, then a running
    count over them alone, chunk by chunk, carrying the depth and whether the
    chunk starts inside a string.
    """
    import numpy as np

    kinds = np.zeros(256, dtype=np.int8)      # 1 a quote, 2 an opening bracket, 3 a closing one
    kinds[0x22], kinds[[0x5B, 0x7B]], kinds[[0x5D, 0x7D]] = 1, 2, 3
    buffer = np.frombuffer(text, dtype=np.uint8)
    depth, inside = 0, 0
    step = 1 << 24
    for offset in range(0, buffer.size, step):
        events = kinds[buffer[offset: offset + step]]
        events = events[events != 0]
        if not events.size:
            continue
        # int32 counts: a chunk of 16 MiB cannot overflow them.
        within = ((np.cumsum(events == 1, dtype=np.int32) + inside) & 1).astype(bool)
        steps = (events == 2).astype(np.int8) - (events == 3)
        steps[within] = 0
        levels = np.cumsum(steps, dtype=np.int32)
        levels += depth
        if levels.max() > limit:
            return True
        depth, inside = int(levels[-1]), int(within[-1])
    return False
