"""The policy values richer than an enum: gain maps, discount vectors (given,
logarithmic, or read from a file), chunk maps; and how a file a policy names
is read (a regular file, hashed in chunks, named in the protocol by its digest)."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import Any, Callable, Literal, Mapping, TypeVar

from ..errors import ProtocolError, literal

__all__ = ["GainMap", "DiscountVector", "LogDiscount", "DiscountFile", "ChunkMap", "ChunkMapKind",
           "LARGEST_GAIN",
           "file_digest", "split_digest", "format_number", "read_policy"]

_Value = TypeVar("_Value")


def format_number(x: float) -> str:
    # repr keeps full precision and round-trips through float().
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def read_policy(value: Any, kind: type[_Value], from_text: Callable[[str], _Value]) -> _Value:
    """A policy value richer than an enum (a chunk map, judgment layers, nuggets), read the
    way each is: `value` itself when it is a `kind`; ``kind()``, the default, for the text
    ``none``; else `from_text` of its text, stripped."""
    if isinstance(value, kind):
        return value
    text = str(value).strip()
    return kind() if text == "none" else from_text(text)


# The largest gain any gain may reach: 2^g - 1 for g up to 996, so that a
# DCG over millions of documents still fits in float64.
LARGEST_GAIN = 1e300


@dataclasses.dataclass(frozen=True)
class GainMap:
    """An explicit grade -> gain table; grades absent from it have gain 0.

    Text form: ``map:0=0/1=1/2=3/3=7``.
    """

    gains: tuple[tuple[int, float], ...]

    def __post_init__(self) -> None:
        items = tuple(sorted((int(g), float(v)) for g, v in dict(self.gains).items()))
        if not items:
            raise ProtocolError(what="a gain map needs at least one grade=gain pair, e.g. map:1=1/2=3")
        for _, value in items:
            if not math.isfinite(value):
                raise ProtocolError(what=f"gain map values must be finite numbers; got {value}",
                                    value=value)
            # Sums of gains (DCG, and trec_eval's ideal DCG) must stay finite.
            if abs(value) > LARGEST_GAIN:
                raise ProtocolError(what=f"gain map values must be at most {LARGEST_GAIN:g} in magnitude, so that "
                                    f"sums of gains stay finite; got {value:g}", value=value)
        object.__setattr__(self, "gains", items)

    @classmethod
    def from_mapping(cls, mapping: Mapping[int, float]) -> "GainMap":
        return cls(tuple(mapping.items()))

    def __str__(self) -> str:
        return "map:" + "/".join(f"{g}={format_number(v)}" for g, v in self.gains)


@dataclasses.dataclass(frozen=True)
class DiscountVector:
    """An explicit discount per rank (rank 1 first); ranks past its end get 0.

    Text form: ``vector:1/0.5/0.25``.
    """

    values: tuple[float, ...]

    def __post_init__(self) -> None:
        values = tuple(float(v) for v in self.values)
        if not values or not all(math.isfinite(v) and v >= 0 for v in values):
            raise ProtocolError(what="a discount vector needs at least one finite, non-negative value per rank",
                                value=values)
        object.__setattr__(self, "values", values)

    def __str__(self) -> str:
        return "vector:" + "/".join(format_number(v) for v in self.values)


@dataclasses.dataclass(frozen=True)
class LogDiscount:
    """Discount ``1 / log_b(i + 1)`` at rank ``i`` for a base ``b`` other than 2
    (scikit-learn's ``dcg_score(log_base=b)``). NDCG does not depend on the
    base; DCG does. Base 2 is :attr:`Discount.LOG2` (``log:2`` reads as ``log2``).

    Text form: ``log:10``.
    """

    base: float

    def __post_init__(self) -> None:
        base = float(self.base)
        if not (math.isfinite(base) and base > 0 and base != 1):
            raise ProtocolError(what=f"a log discount needs a finite base > 0 other than 1; got {literal(repr(self.base))}", value=self.base)
        object.__setattr__(self, "base", base)

    def __str__(self) -> str:
        return f"log:{format_number(self.base)}"


def file_digest(path: str, what: str) -> str:
    """``sha256:`` and the first 16 hex digits of the SHA-256 of a file's bytes.

    The file is hashed in chunks. It must be a regular file (a protocol
    names it by its digest, so it must read the same every time: a device
    such as /dev/zero or a pipe is refused before any read), and a NUL byte
    in its first megabyte says it is no text file.

    Raises :class:`~rankproof.errors.ProtocolError` naming the file when it
    cannot be read.
    """
    digest = hashlib.sha256()
    with _open_side_file(path, what) as handle:
        first = True
        while chunk := handle.read(_CHUNK):
            if first:
                _refuse_binary(chunk, path, what)
            first = False
            digest.update(chunk)
    return _digest_text(digest)


def _refuse_binary(head: bytes, path: str, what: str) -> None:
    """A NUL byte in the first megabyte: no text file (Parquet and gzip aside)."""
    if b"\0" in head[:_CHUNK] and not head.startswith((b"PAR1", b"\x1f\x8b")):
        raise ProtocolError(what=f"the {what} file is binary (a NUL byte in its first megabyte)",
                            source=path,
                            fix=_SIDE_FILE_FIX.get(what, "give the text file"))


def _digest_text(digest) -> str:
    return "sha256:" + digest.hexdigest()[:16]


_CHUNK = 1 << 20
# A discount vector holds one number per rank: 16 MiB is a million ranks and more.
_LARGEST_DISCOUNT_FILE = 16 << 20


def _open_side_file(path: str, what: str):
    """Open a file a policy names, refusing what is not a regular file before reading it."""
    import os
    import stat

    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise ProtocolError(what=f"cannot read the {what} file ({literal(exc.strerror or exc)})",
                            source=path,
                            fix="check the path") from None
    try:
        regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except OSError:
        regular = False
    if not regular:
        handle.close()
        raise ProtocolError(what=f"the {what} file is not a regular file (a device or a pipe)",
                            source=path,
                            fix="a protocol names the file by its digest, so it is read twice: save it to a "
                                "file and give that")
    return handle


def split_digest(text: str) -> tuple[str, str]:
    """``PATH@sha256:HEX`` -> (PATH, digest); a path without digest -> (PATH, "")."""
    head, sep, tail = text.rpartition("@")
    if sep and tail.startswith("sha256:"):
        return head, tail
    return text, ""


def _checked_path(path: str, digest: str, what: str, actual: str | None = None) -> str:
    """The file's digest (`actual` when the caller hashed the bytes it read), refused
    when it differs from the one given in a protocol text."""
    if not path or any(c.isspace() for c in path):
        raise ProtocolError(what=f"the {what} file path {literal(repr(path))} must be non-empty and hold no blanks, "
                            "so that the protocol text reads back", fix="rename or link the file",
                            value=path)
    actual = file_digest(path, what) if actual is None else actual
    if digest and digest != actual:
        raise ProtocolError(what=f"the {what} file has digest {actual}, not {literal(digest)} as the protocol says: "
                            "it changed since the protocol was written", source=path, value=digest,
                            fix="evaluate with the original file, or drop the @digest to take the file as it is now")
    return actual


_DISCOUNT_FILE_FIX = "give a JSON list of numbers or an object with a \"discount\" list, as rankproof fit-pbm writes"
_SIDE_FILE_FIX = {"discount": _DISCOUNT_FILE_FIX,
                  "chunk map": "give a text table of 'chunk doc' lines, CSV/TSV/JSON Lines or Parquet"}


@dataclasses.dataclass(frozen=True)
class DiscountFile(DiscountVector):
    """A discount vector read from a JSON file: a list of numbers, or an
    object whose ``discount`` key holds one (what ``rankproof fit-pbm``
    writes). Ranks past its end get 0.

    Text form: ``file:discount.json@sha256:<16 hex digits>``; the digest is
    of the file's bytes, so a protocol text names exactly one vector. Two
    spellings of one file (``d.json``, ``./d.json``) or two copies of it are
    the same policy: equality and the protocol's fingerprint hold the vector
    and the digest, not the path.
    """

    path: str = dataclasses.field(default="", compare=False)
    digest: str = ""

    @classmethod
    def read(cls, path: str, digest: str = "") -> "DiscountFile":
        import json

        _checked_path(path, "", "discount", actual="")  # the path's form, before any read
        try:
            # Read once: the digest is of the bytes parsed, so the file cannot change in between.
            with _open_side_file(path, "discount") as handle:
                raw = handle.read(_LARGEST_DISCOUNT_FILE + 1)
            if len(raw) > _LARGEST_DISCOUNT_FILE:
                raise ProtocolError(what=f"the discount file is larger than {_LARGEST_DISCOUNT_FILE >> 20} MiB, "
                                    "more than a discount vector holds", source=path,
                                    fix=_DISCOUNT_FILE_FIX)
            _refuse_binary(raw, path, "discount")
            digest = _checked_path(path, digest, "discount",
                                   actual=_digest_text(hashlib.sha256(raw)))
            data = json.loads(raw.decode("utf-8"))
        except (OSError, UnicodeDecodeError, RecursionError) as exc:
            raise ProtocolError(what=f"cannot read a discount vector ({literal(exc)})", source=path,
                                fix=_DISCOUNT_FILE_FIX) from None
        except ValueError as exc:
            if isinstance(exc, ProtocolError):
                raise
            raise ProtocolError(what=f"cannot read a discount vector ({literal(exc)})", source=path,
                                fix=_DISCOUNT_FILE_FIX) from None
        values = data.get("discount") if isinstance(data, dict) else data
        if not isinstance(values, list) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ProtocolError(what="holds no discount vector", source=path,
                                fix=_DISCOUNT_FILE_FIX)
        try:
            return cls(values=tuple(values), path=path, digest=digest)
        except ProtocolError as exc:
            raise ProtocolError(what=exc.what or literal(exc), source=path, fix=exc.fix,
                                value=exc.value) from None

    def __str__(self) -> str:
        return f"file:{self.path}@{self.digest}"

    def content_text(self) -> str:
        """The text the protocol's fingerprint holds: the file's digest, not its path."""
        return f"file:{self.digest}"


# How a chunk_map names the document of a chunk id (see ChunkMap).
ChunkMapKind = Literal["none", "sep", "regex", "file"]


@dataclasses.dataclass(frozen=True, eq=False)
class ChunkMap:
    """How a ranked chunk id names its document (the ``chunk_map`` policy).

    ``none``: ids are document ids. ``sep:S``: the document is the id up to
    its last ``S`` (``doc7#chunk3`` -> ``doc7`` with ``sep:#``; an id
    without ``S`` is a document id already). ``regex:PATTERN``: the first
    group of the pattern's first match (an id it does not match is an
    error). ``file:PATH``: a two-column table ``chunk doc`` (whitespace,
    or CSV/TSV/JSON Lines/Parquet with columns ``chunk`` and ``doc``); a
    ranked chunk it does not list is an error. The text of a file map holds
    the SHA-256 digest of the file: ``file:chunks.tsv@sha256:...``.
    Separators and patterns hold no blanks, so the protocol text reads back.
    """

    kind: ChunkMapKind = "none"
    spec: str = ""
    digest: str = ""
    # A file map's table once read, (chunk ids sorted, doc id of each): the pipeline reads the
    # file once, when the protocol is resolved (pipeline/chunks.resolve_files), never in a join.
    table: Any = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ("none", "sep", "regex", "file"):
            raise ProtocolError(what=f"chunk_map kind {literal(repr(self.kind))} is not one of none, sep, regex, file",
                                value=self.kind)
        if self.kind == "none":
            return
        if not self.spec or any(c.isspace() for c in self.spec):
            raise ProtocolError(what=f"chunk_map={self.kind}: needs a value without blanks, e.g. "
                                "chunk_map=sep:# or chunk_map=regex:^(.+)_c[0-9]+$ or chunk_map=file:chunks.tsv",
                                value=self.spec)
        if self.kind == "regex":
            import re

            try:
                groups = re.compile(self.spec).groups
            except re.error as exc:
                raise ProtocolError(what=literal(f"chunk_map=regex:{self.spec}: not a regular expression ({exc})"),
                                    value=self.spec) from None
            if groups != 1:
                raise ProtocolError(what=literal(f"chunk_map=regex:{self.spec}: has {groups} groups"),
                                    fix="give exactly one, the document id, e.g. regex:^(.+)_c[0-9]+$",
                                    value=self.spec)
        if self.kind == "file":
            object.__setattr__(self, "digest", _checked_path(self.spec, self.digest, "chunk map"))

    def __str__(self) -> str:
        if self.kind == "none":
            return "none"
        if self.kind == "file":
            return f"file:{self.spec}@{self.digest}"
        return f"{self.kind}:{self.spec}"

    def content_text(self) -> str:
        """The text equality and the protocol's fingerprint hold: a file map is its digest, not its path."""
        return f"file:{self.digest}" if self.kind == "file" else str(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChunkMap):
            return NotImplemented
        return self.content_text() == other.content_text()

    def __hash__(self) -> int:
        return hash(self.content_text())

    @classmethod
    def recorded(cls, path: str, digest: str) -> "ChunkMap":
        """A file map as a saved result records it: its path and digest, the file not read
        (a saved result is compared by its protocol, never evaluated again)."""
        return cls._made(kind="file", spec=path, digest=digest, table=None)

    def with_table(self, chunks: Any, docs: Any) -> "ChunkMap":
        """This file map holding its table, read (and its digest checked) by the caller:
        the file is not hashed again."""
        return type(self)._made(kind=self.kind, spec=self.spec, digest=self.digest,
                                table=(chunks, docs))

    @classmethod
    def _made(cls, **fields: Any) -> "ChunkMap":
        chunk_map = object.__new__(cls)
        for name, value in fields.items():
            object.__setattr__(chunk_map, name, value)
        return chunk_map
