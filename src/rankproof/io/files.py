"""Reading a text file for any reader: OS errors, gzip, binary and encoding checks.

Every message names the file (and the line, where there is one) and says
what to do, in one shape for every format.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Callable

from rankproof.errors import ParseError, where

__all__ = ["read_bytes", "load_text", "encoding_hint"]

_UTF8_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"


def encoding_hint(data: bytes, otherwise: str) -> str:
    """Guess why a file is not UTF-8 text from its first bytes, else say `otherwise`."""
    if data[:2] == b"\x1f\x8b":
        return "it looks gzip-compressed, so give it a .gz extension"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "it looks like UTF-16 text, so re-save it as UTF-8"
    return otherwise


def read_bytes(file: Path, source: str, what: str, size: int = -1) -> bytes:
    """Read a file (or its first `size` bytes), turning OS errors into ParseErrors.

    `what` names the kind of file ("qrels", "run") for the message about a directory.
    """
    directory = ParseError(f"{where(source=source)}is a directory, not a file; give the path of the {what} file itself")
    if file.is_dir():
        raise directory
    try:
        with open(file, "rb") as handle:
            return handle.read(size)
    except FileNotFoundError:
        raise ParseError(f"{where(source=source)}does not exist; check the path") from None
    except IsADirectoryError:
        raise directory from None
    except PermissionError:
        raise ParseError(
            f"{where(source=source)}cannot be read (permission denied); check the file's permissions"
        ) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ParseError(
            f"{where(source=source)}cannot be read ({reason}); check that it is a readable file"
        ) from None


def load_text(path, source: str, *, what: str, label: str, binary_hint: Callable[[bytes], str],
              encoding_fix: Callable[[bytes], str]) -> bytes:
    """Read, decompress (``.gz`` or gzip magic bytes) and check a text file; return UTF-8 bytes without a BOM.

    `label` names the format in messages ("TREC", "CSV"); `binary_hint(data)`
    and `encoding_fix(data)` say what to do about a binary or non-UTF-8 file.
    """
    file = Path(path)
    data = read_bytes(file, source, what)
    # gzip is recognised by its magic bytes as well as by name: stdin and
    # files renamed without .gz are read the same way.
    if file.name.lower().endswith(".gz") or data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ParseError(
                f"{where(source=source)}is not a valid gzip file ({exc}); "
                "decompress it again, or drop the .gz extension if it is plain text"
            ) from None

    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ParseError(
            f"{where(source=source, line=line)}holds a NUL byte, so this is a binary "
            f"file, not {label} text; {binary_hint(data)}"
        )
    # isascii is a fast C scan; only files with non-ASCII bytes pay for decoding.
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise ParseError(
                f"{where(source=source, line=line)}byte 0x{data[exc.start]:02x} at "
                f"position {column} is not valid UTF-8; {encoding_fix(data)}"
            ) from None
    # Editors on Windows often write a BOM; it would otherwise end up in the
    # first id or column name. Removing it keeps every newline, so line numbers hold.
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    return data
