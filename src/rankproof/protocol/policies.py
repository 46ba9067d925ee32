"""The policies of a :class:`~rankproof.protocol.Protocol`: their enums, the
values richer than an enum (gain maps, discount vectors and files, chunk maps),
and the parser of each policy's text, in canonical order (:data:`PARSERS`)."""

from __future__ import annotations

import dataclasses
import difflib
import enum
import hashlib
import math
from typing import Any, Literal, Mapping

from ..errors import ProtocolError, literal
from .ids import parse_ids


class _Policy(str, enum.Enum):
    """A policy option; its value is its canonical text."""

    def __str__(self) -> str:
        return self.value


class Gain(_Policy):
    """Gain of a grade ``g``: ``linear`` is g, ``exp2`` is 2^g - 1."""

    LINEAR = "linear"
    EXP2 = "exp2"


class Discount(_Policy):
    """Discount at rank ``i``: ``log2`` is 1/log2(i+1), ``reciprocal`` is 1/i."""

    LOG2 = "log2"
    RECIPROCAL = "reciprocal"


class Ideal(_Policy):
    """Pool of the ideal ranking: every judged doc, or only the retrieved ones."""

    JUDGED = "judged"
    RETRIEVED = "retrieved"


class Unjudged(_Policy):
    """A ranked doc without judgment: gain 0 (counted), an error, or dropped."""

    ZERO = "zero"
    ERROR = "error"
    CONDENSE = "condense"


class ZeroIdeal(_Policy):
    """A query with nothing relevant (ideal DCG 0, or R = 0)."""

    ZERO = "zero"
    ONE = "one"
    EXCLUDE = "exclude"
    ERROR = "error"


class MissingQuery(_Policy):
    """A query judged in the qrels but absent from the run."""

    ZERO = "zero"
    EXCLUDE = "exclude"
    ERROR = "error"


class ExtraQuery(_Policy):
    """A query in the run that the qrels do not judge."""

    IGNORE = "ignore"
    ERROR = "error"


class Ties(_Policy):
    """Order of docs with equal scores."""

    EXPECTED = "expected"
    DOCID = "docid"
    INPUT = "input"
    ERROR = "error"


class Duplicates(_Policy):
    """A doc listed twice for one query in a run."""

    ERROR = "error"
    FIRST = "first"


class NegativeGrades(_Policy):
    """A negative grade in the qrels.

    ``zero`` reads it as judged non-relevant (grade 0); ``unjudged`` as in the
    pool but not judged, which is what trec_eval does.
    """

    ERROR = "error"
    ZERO = "zero"
    UNJUDGED = "unjudged"


class ScorePrecision(_Policy):
    """How scores are held before ordering: float64, or float32 as trec_eval 9
    and pytrec_eval do (so scores closer than float32 can tell apart tie)."""

    FLOAT64 = "float64"
    FLOAT32 = "float32"


class IprecRounding(_Policy):
    """Rank cut-off of interpolated precision at recall level x with R relevant:
    ``round`` is lround(x * R) (trec_eval 10); ``legacy`` is (long)(x * R + 0.9)
    (trec_eval 9 and pytrec_eval)."""

    ROUND = "round"
    LEGACY = "legacy"


class PrecisionDenominator(_Policy):
    """Denominator of precision@k: ``k`` always (trec_eval, ir_measures), or
    ``retrieved``, min(k, length of the list) (so a list shorter than k is not
    penalised for the missing slots)."""

    K = "k"
    RETRIEVED = "retrieved"


class RecallDenominator(_Policy):
    """Denominator of recall@k: ``relevant`` is R, the number of relevant
    items (trec_eval); ``min_k`` is min(R, k), so a perfect top k scores 1
    even when R > k (sometimes called capped or R-normalised recall)."""

    RELEVANT = "relevant"
    MIN_K = "min_k"


class ApDenominator(_Policy):
    """Denominator of AP@k (the sum of precision at each relevant rank within
    k): ``relevant`` is R (trec_eval's map_cut); ``min_k`` is min(R, k) (the
    usual recommender MAP@k); ``hits`` is the number of relevant items within
    the top k (AP over the retrieved relevant only)."""

    RELEVANT = "relevant"
    MIN_K = "min_k"
    HITS = "hits"


class Chunks(_Policy):
    """Which chunk of a document stands for it once ``chunk_map`` maps chunk
    ids to document ids: ``first``, the chunk listed first for the query (the
    run's own order); ``max``, the chunk with the highest score (MaxP), the
    first listed among equal scores. The document's other chunks leave the
    ranking, so the documents after them move up."""

    FIRST = "first"
    MAX = "max"


class Grades(_Policy):
    """What a grade may be: an ``integer`` (0, 1, 2; a grade such as 1.5 is
    refused), or any finite ``real`` number (LLM labels in [0, 3], star
    ratings 0.5 .. 5). Gains apply to real grades as to integers (linear: g,
    exp2: 2^g - 1); binary measures call a doc relevant when its grade is at
    least ``rel``, which may then be real too (``rel=2.5``)."""

    INTEGER = "integer"
    REAL = "real"


class Aggregation(_Policy):
    """How per-query values become one number."""

    MACRO = "macro"
    MICRO = "micro"
    WEIGHTED = "weighted"


def _format_number(x: float) -> str:
    # repr keeps full precision and round-trips through float().
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


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
                raise ProtocolError(what=f"gain map values must be finite numbers; got {value}", value=value)
            # Sums of gains (DCG, and trec_eval's ideal DCG) must stay finite.
            if abs(value) > LARGEST_GAIN:
                raise ProtocolError(what=f"gain map values must be at most {LARGEST_GAIN:g} in magnitude, so that "
                                    f"sums of gains stay finite; got {value:g}", value=value)
        object.__setattr__(self, "gains", items)

    @classmethod
    def from_mapping(cls, mapping: Mapping[int, float]) -> "GainMap":
        return cls(tuple(mapping.items()))

    def __str__(self) -> str:
        return "map:" + "/".join(f"{g}={_format_number(v)}" for g, v in self.gains)


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
        return "vector:" + "/".join(_format_number(v) for v in self.values)


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
        return f"log:{_format_number(self.base)}"


def file_digest(path: str, what: str) -> str:
    """``sha256:`` and the first 16 hex digits of the SHA-256 of a file's bytes.

    The file is hashed in chunks. It must be a regular file (a protocol
    names it by its digest, so it is read twice and must read the same:
    a device such as /dev/zero or a pipe is refused before any read), and
    a NUL byte in its first megabyte says it is no text file.

    Raises :class:`~rankproof.errors.ProtocolError` naming the file when it
    cannot be read.
    """
    digest = hashlib.sha256()
    with _open_side_file(path, what) as handle:
        first = True
        while chunk := handle.read(_CHUNK):
            if first and b"\0" in chunk and not chunk.startswith((b"PAR1", b"\x1f\x8b")):  # Parquet, gzip
                raise ProtocolError(what=f"the {what} file is binary (a NUL byte in its first megabyte)", source=path,
                                    fix=_SIDE_FILE_FIX.get(what, "give the text file"))
            first = False
            digest.update(chunk)
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
        raise ProtocolError(what=f"cannot read the {what} file ({literal(exc.strerror or exc)})", source=path,
                            fix="check the path") from None
    try:
        regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except OSError:
        regular = False
    if not regular:
        handle.close()
        raise ProtocolError(what=f"the {what} file is not a regular file (a device or a pipe)", source=path,
                            fix="a protocol names the file by its digest, so it is read twice: save it to a "
                                "file and give that")
    return handle


def _split_digest(text: str) -> tuple[str, str]:
    """``PATH@sha256:HEX`` -> (PATH, digest); a path without digest -> (PATH, "")."""
    head, sep, tail = text.rpartition("@")
    if sep and tail.startswith("sha256:"):
        return head, tail
    return text, ""


def _checked_path(path: str, digest: str, what: str) -> str:
    """The file's digest, refused when it differs from the one given in a protocol text."""
    if not path or any(c.isspace() for c in path):
        raise ProtocolError(what=f"the {what} file path {literal(repr(path))} must be non-empty and hold no blanks, "
                            "so that the protocol text reads back", fix="rename or link the file", value=path)
    actual = file_digest(path, what)
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

        digest = _checked_path(path, digest, "discount")
        try:
            with _open_side_file(path, "discount") as handle:
                raw = handle.read(_LARGEST_DISCOUNT_FILE + 1)
            if len(raw) > _LARGEST_DISCOUNT_FILE:
                raise ProtocolError(what=f"the discount file is larger than {_LARGEST_DISCOUNT_FILE >> 20} MiB, "
                                    "more than a discount vector holds", source=path, fix=_DISCOUNT_FILE_FIX)
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
            raise ProtocolError(what="holds no discount vector", source=path, fix=_DISCOUNT_FILE_FIX)
        try:
            return cls(values=tuple(values), path=path, digest=digest)
        except ProtocolError as exc:
            raise ProtocolError(what=exc.what or literal(exc), source=path, fix=exc.fix, value=exc.value) from None

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
        chunk_map = object.__new__(cls)
        for name, value in (("kind", "file"), ("spec", path), ("digest", digest)):
            object.__setattr__(chunk_map, name, value)
        return chunk_map


def parse_chunk_map(value: Any) -> ChunkMap:
    """Read a chunk_map policy from its text form (``none``, ``sep:#``,
    ``regex:PATTERN``, ``file:PATH[@sha256:DIGEST]``)."""
    if isinstance(value, ChunkMap):
        return value
    text = str(value).strip()
    if text == "none":
        return ChunkMap()
    kind, sep, spec = text.partition(":")
    if not sep or kind not in ("sep", "regex", "file"):
        raise ProtocolError(what=f"policy chunk_map does not accept {literal(repr(value))}", value=value,
                            fix="choose one of none, sep:#, regex:PATTERN (one group: the document id), "
                                "file:PATH (a chunk -> doc table)")
    if kind == "file":
        path, digest = _split_digest(spec)
        return ChunkMap("file", path, digest)
    return ChunkMap("sep" if kind == "sep" else "regex", spec)


def parse_gain(value: Any) -> Gain | GainMap:
    """Read a gain policy from an enum, a mapping or its text form."""
    if isinstance(value, (Gain, GainMap)):
        return value
    if isinstance(value, Mapping):
        return GainMap.from_mapping(value)
    text = str(value).strip()
    if text.startswith("map:"):
        return GainMap(_gain_pairs(text))
    return parse_enum("gain", Gain, text, extra=["map:0=0/1=1/..."])


def _shown(value: Any, limit: int = 60) -> str:
    """repr of a value from the input, cut so that a message stays one readable line."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 3]}... ({len(text):,} characters)"


def _gain_pairs(text: str) -> tuple[tuple[int, float], ...]:
    """The grade=gain pairs of ``map:0=0/1=1``: each grade once, an integer, each gain a number."""
    fix = "write it as map:0=0/1=1/2=3"
    pairs: dict[int, float] = {}
    for item in (part for part in text[4:].split("/") if part):
        grade, sep, gain = item.partition("=")
        digits = grade.strip().lstrip("+-")
        if not sep or not digits.isdigit() or len(digits) > 19:
            raise ProtocolError(what=f"gain map {literal(_shown(text))}: item {literal(_shown(item))} is not "
                                "grade=gain with an integer grade (at most 19 digits)", value=text, fix=fix)
        try:
            number = float(gain)
        except ValueError:
            raise ProtocolError(what=f"the gain of grade {grade.strip()} in the gain map is "
                                f"{literal(_shown(gain))}, not a number", value=text, fix=fix) from None
        if int(grade) in pairs:
            raise ProtocolError(what=f"grade {int(grade)} is given twice in gain map {literal(_shown(text))}",
                                value=text, fix="give each grade once")
        pairs[int(grade)] = number
    return tuple(pairs.items())


def parse_discount(value: Any) -> Discount | LogDiscount | DiscountVector:
    """Read a discount policy from an enum, a sequence or its text form."""
    if isinstance(value, LogDiscount):
        return Discount.LOG2 if value.base == 2 else value
    if isinstance(value, (Discount, DiscountVector)):
        return value
    if isinstance(value, (list, tuple)):
        return DiscountVector(tuple(value))
    text = str(value).strip()
    if text.startswith("log:"):
        try:
            base = float(text[4:])
        except ValueError:
            raise ProtocolError(what=f"cannot read log discount {literal(repr(text))}", value=text,
                                fix="write it as log:10") from None
        return parse_discount(LogDiscount(base))
    if text.startswith("file:"):
        return DiscountFile.read(*_split_digest(text[5:]))
    if text.startswith("vector:"):
        try:
            return DiscountVector(tuple(float(v) for v in text[7:].split("/") if v))
        except ValueError:
            raise ProtocolError(what=f"cannot read discount vector {literal(repr(text))}", value=text,
                                fix="write it as vector:1/0.63/0.5") from None
    return parse_enum("discount", Discount, text, extra=["log:BASE", "vector:1/0.5/...", "file:PATH.json"])


def parse_enum(name: str, enum_type: type[enum.Enum], value: Any, extra=()) -> Any:
    """``value`` as a member of ``enum_type`` (a member, or its text), or a
    ProtocolError naming the policy ``name`` and its choices (``extra`` lists
    choices the enum does not hold, for the message)."""
    if isinstance(value, enum_type):
        return value
    try:
        return enum_type(str(value).strip().lower())
    except ValueError:
        options = [member.value for member in enum_type] + list(extra)
        raise ProtocolError(what=f"policy {name} does not accept {literal(repr(value))}", value=value,
                            fix=f"choose one of {', '.join(options)}") from None


def parse_rel(value: Any) -> "int | float":
    """Read a relevance level: an integer, or a finite real number for real
    grades (``2.5``); integral values are held as int, so ``rel=2.0`` is
    ``rel=2`` (booleans refused).

    >>> parse_rel("2"), parse_rel(2.0), parse_rel("1.5")
    (2, 2, 1.5)
    """
    if isinstance(value, bool):
        raise ProtocolError(what=f"rel must be an integer grade; got {value!r}", value=value)
    if isinstance(value, int):
        return value
    number: float | None = None
    if isinstance(value, float):
        number = value
    elif isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            try:
                number = float(value.strip())
            except ValueError:
                number = None
    if number is not None and math.isfinite(number):
        return int(number) if number.is_integer() else number
    raise ProtocolError(what="rel must be an integer grade such as 1 or 2 (or a real number such as 1.5 "
                        f"under grades=real); got {literal(_shown(value))}", value=value)


# The fields of a Protocol, their parsers, in canonical order.
PARSERS = {
    "gain": parse_gain,
    "discount": parse_discount,
    "ideal": lambda v: parse_enum("ideal", Ideal, v),
    "unjudged": lambda v: parse_enum("unjudged", Unjudged, v),
    "zero_ideal": lambda v: parse_enum("zero_ideal", ZeroIdeal, v),
    "missing_query": lambda v: parse_enum("missing_query", MissingQuery, v),
    "extra_query": lambda v: parse_enum("extra_query", ExtraQuery, v),
    "ties": lambda v: parse_enum("ties", Ties, v),
    "duplicates": lambda v: parse_enum("duplicates", Duplicates, v),
    "negative_grades": lambda v: parse_enum("negative_grades", NegativeGrades, v),
    "aggregation": lambda v: parse_enum("aggregation", Aggregation, v),
    "rel": parse_rel,
    "score_precision": lambda v: parse_enum("score_precision", ScorePrecision, v),
    "iprec_rounding": lambda v: parse_enum("iprec_rounding", IprecRounding, v),
    "precision_denominator": lambda v: parse_enum("precision_denominator", PrecisionDenominator, v),
    "recall_denominator": lambda v: parse_enum("recall_denominator", RecallDenominator, v),
    "ap_denominator": lambda v: parse_enum("ap_denominator", ApDenominator, v),
    "chunk_map": parse_chunk_map,
    "chunks": lambda v: parse_enum("chunks", Chunks, v),
    "grades": lambda v: parse_enum("grades", Grades, v),
    "ids": parse_ids,
}

# Policies added after the first release: the canonical text names them only
# when they differ from their default, so older texts and fingerprints hold.
TEXT_ONLY_WHEN_CHANGED = ("precision_denominator", "recall_denominator", "ap_denominator",
                           "chunk_map", "chunks", "grades", "ids")


def unknown_policy(key: str) -> ProtocolError:
    near = difflib.get_close_matches(key, list(PARSERS), n=3)
    hint = f"; did you mean {' or '.join(near)}?" if near else "."
    return ProtocolError(what=f"unknown policy {literal(repr(key))}{hint} Policies: {', '.join(PARSERS)}", value=key)


