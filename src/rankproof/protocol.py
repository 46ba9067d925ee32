"""The evaluation protocol: every convention a ranking measure depends on.

A :class:`Protocol` is a frozen value. It has one canonical text form
(``str(protocol)``), parsed back by :meth:`Protocol.from_text`, and a short
fingerprint (a hash of that text) so two reports can be checked for
comparability at a glance.

Policies
--------
===============  =========================================  ==========
policy           options                                    default
===============  =========================================  ==========
gain             linear, exp2, map:G=V/G=V...               linear
discount         log2, reciprocal, log:BASE, vector:d1/...  log2
ideal            judged, retrieved                          judged
unjudged         zero, error, condense                      zero
zero_ideal       zero, one, exclude, error                  zero
missing_query    zero, exclude, error                       zero
extra_query      ignore, error                              ignore
ties             expected, docid, input, error              expected
duplicates       error, first                               error
negative_grades  error, zero, unjudged                      error
aggregation      macro, micro, weighted                     macro
rel              integer relevance level of binary measures 1
score_precision  float64, float32                           float64
iprec_rounding   round, legacy                              round
precision_denominator  k, retrieved                         k
recall_denominator     relevant, min_k                      relevant
ap_denominator         relevant, min_k, hits                relevant
chunk_map        none, sep:#, regex:PATTERN, file:PATH      none
chunks           first, max                                 first
grades           integer, real                              integer
===============  =========================================  ==========

The three denominators, the two chunk policies and ``grades`` came after the
others: the canonical text names them only when they differ from their
defaults (both chunk policies whenever a ``chunk_map`` is set), so every
protocol written before keeps its text and fingerprint.

``discount=file:PATH`` reads a discount vector from a JSON file (such as the
examination probabilities ``rankproof fit-pbm`` writes); the text names the
path and the SHA-256 digest of the file's bytes, checked when read back.

Examples
--------
>>> from rankproof import Protocol
>>> p = Protocol(gain="exp2")
>>> str(p)  # doctest: +NORMALIZE_WHITESPACE
'gain=exp2 discount=log2 ideal=judged unjudged=zero zero_ideal=zero
 missing_query=zero extra_query=ignore ties=expected duplicates=error
 negative_grades=error aggregation=macro rel=1 score_precision=float64
 iprec_rounding=round'
>>> Protocol.from_text(str(p)) == p
True
>>> Protocol.preset("trec_eval").ties
<Ties.DOCID: 'docid'>
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import hashlib
import math
from typing import Any, Mapping

from .errors import ProtocolError

__all__ = [
    "Protocol",
    "Gain",
    "Discount",
    "GainMap",
    "DiscountVector",
    "LogDiscount",
    "Ideal",
    "Unjudged",
    "ZeroIdeal",
    "MissingQuery",
    "ExtraQuery",
    "Ties",
    "Duplicates",
    "NegativeGrades",
    "Aggregation",
    "ScorePrecision",
    "IprecRounding",
    "PrecisionDenominator",
    "RecallDenominator",
    "ApDenominator",
    "ChunkMap",
    "Chunks",
    "DiscountFile",
    "file_digest",
    "Grades",
    "PRESETS",
]


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
            raise ProtocolError("a gain map needs at least one grade=gain pair, e.g. map:1=1/2=3")
        for _, value in items:
            if not math.isfinite(value):
                raise ProtocolError(f"gain map values must be finite numbers; got {value}")
            # Sums of gains (DCG, and trec_eval's ideal DCG) must stay finite.
            if abs(value) > LARGEST_GAIN:
                raise ProtocolError(f"gain map values must be at most {LARGEST_GAIN:g} in magnitude, so that "
                                    f"sums of gains stay finite; got {value:g}")
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
            raise ProtocolError(
                "a discount vector needs at least one finite, non-negative value per rank"
            )
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
            raise ProtocolError(f"a log discount needs a finite base > 0 other than 1; got {self.base!r}")
        object.__setattr__(self, "base", base)

    def __str__(self) -> str:
        return f"log:{_format_number(self.base)}"


def file_digest(path: str, what: str) -> str:
    """``sha256:`` and the first 16 hex digits of the SHA-256 of a file's bytes.

    Raises :class:`~rankproof.errors.ProtocolError` naming the file when it
    cannot be read.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ProtocolError(f"{path}: cannot read the {what} file ({exc.strerror or exc}); check the path") from None
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def _split_digest(text: str) -> tuple[str, str]:
    """``PATH@sha256:HEX`` -> (PATH, digest); a path without digest -> (PATH, "")."""
    head, sep, tail = text.rpartition("@")
    if sep and tail.startswith("sha256:"):
        return head, tail
    return text, ""


def _checked_path(path: str, digest: str, what: str) -> str:
    """The file's digest, refused when it differs from the one given in a protocol text."""
    if not path or any(c.isspace() for c in path):
        raise ProtocolError(f"the {what} file path {path!r} must be non-empty and hold no blanks, so that "
                            "the protocol text reads back; rename or link the file")
    actual = file_digest(path, what)
    if digest and digest != actual:
        raise ProtocolError(f"{path}: the {what} file has digest {actual}, not {digest} as the protocol says: "
                            "it changed since the protocol was written; evaluate with the original file, or "
                            "drop the @digest to take the file as it is now")
    return actual


@dataclasses.dataclass(frozen=True)
class DiscountFile(DiscountVector):
    """A discount vector read from a JSON file: a list of numbers, or an
    object whose ``discount`` key holds one (what ``rankproof fit-pbm``
    writes). Ranks past its end get 0.

    Text form: ``file:discount.json@sha256:<16 hex digits>``; the digest is
    of the file's bytes, so a protocol text names exactly one vector.
    """

    path: str = ""
    digest: str = ""

    @classmethod
    def read(cls, path: str, digest: str = "") -> "DiscountFile":
        import json

        digest = _checked_path(path, digest, "discount")
        try:
            with open(path, "rb") as handle:
                data = json.loads(handle.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ProtocolError(f"{path}: cannot read a discount vector ({exc}); give a JSON list of numbers "
                                "or an object with a \"discount\" list, as rankproof fit-pbm writes") from None
        values = data.get("discount") if isinstance(data, dict) else data
        if not isinstance(values, list) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ProtocolError(f"{path}: holds no discount vector; give a JSON list of numbers or an object "
                                "with a \"discount\" list, as rankproof fit-pbm writes")
        try:
            return cls(values=tuple(values), path=path, digest=digest)
        except ProtocolError as exc:
            raise ProtocolError(f"{path}: {exc}") from None

    def __str__(self) -> str:
        return f"file:{self.path}@{self.digest}"


@dataclasses.dataclass(frozen=True)
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

    kind: str = "none"
    spec: str = ""
    digest: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("none", "sep", "regex", "file"):
            raise ProtocolError(f"chunk_map kind {self.kind!r} is not one of none, sep, regex, file")
        if self.kind == "none":
            return
        if not self.spec or any(c.isspace() for c in self.spec):
            raise ProtocolError(f"chunk_map={self.kind}: needs a value without blanks, e.g. "
                                "chunk_map=sep:# or chunk_map=regex:^(.+)_c[0-9]+$ or chunk_map=file:chunks.tsv")
        if self.kind == "regex":
            import re

            try:
                groups = re.compile(self.spec).groups
            except re.error as exc:
                raise ProtocolError(f"chunk_map=regex:{self.spec}: not a regular expression ({exc})") from None
            if groups != 1:
                raise ProtocolError(f"chunk_map=regex:{self.spec}: has {groups} groups; give exactly one, "
                                    "the document id, e.g. regex:^(.+)_c[0-9]+$")
        if self.kind == "file":
            object.__setattr__(self, "digest", _checked_path(self.spec, self.digest, "chunk map"))

    def __str__(self) -> str:
        if self.kind == "none":
            return "none"
        if self.kind == "file":
            return f"file:{self.spec}@{self.digest}"
        return f"{self.kind}:{self.spec}"


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
        raise ProtocolError(f"policy chunk_map does not accept {value!r}; choose one of none, sep:#, "
                            "regex:PATTERN (one group: the document id), file:PATH (a chunk -> doc table)")
    if kind == "file":
        path, digest = _split_digest(spec)
        return ChunkMap("file", path, digest)
    return ChunkMap(kind, spec)


def parse_gain(value: Any) -> Gain | GainMap:
    """Read a gain policy from an enum, a mapping or its text form."""
    if isinstance(value, (Gain, GainMap)):
        return value
    if isinstance(value, Mapping):
        return GainMap.from_mapping(value)
    text = str(value).strip()
    if text.startswith("map:"):
        try:
            pairs = [item.split("=") for item in text[4:].split("/") if item]
            return GainMap(tuple((int(g), float(v)) for g, v in pairs))
        except ValueError:
            raise ProtocolError(
                f"cannot read gain map {text!r}; write it as map:0=0/1=1/2=3"
            ) from None
    return _parse_enum("gain", Gain, text, extra=["map:0=0/1=1/..."])


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
            raise ProtocolError(f"cannot read log discount {text!r}; write it as log:10") from None
        return parse_discount(LogDiscount(base))
    if text.startswith("file:"):
        return DiscountFile.read(*_split_digest(text[5:]))
    if text.startswith("vector:"):
        try:
            return DiscountVector(tuple(float(v) for v in text[7:].split("/") if v))
        except ValueError:
            raise ProtocolError(
                f"cannot read discount vector {text!r}; write it as vector:1/0.63/0.5"
            ) from None
    return _parse_enum("discount", Discount, text, extra=["log:BASE", "vector:1/0.5/...", "file:PATH.json"])


def _parse_enum(name: str, enum_type: type[enum.Enum], value: Any, extra=()) -> Any:
    if isinstance(value, enum_type):
        return value
    try:
        return enum_type(str(value).strip().lower())
    except ValueError:
        options = [member.value for member in enum_type] + list(extra)
        raise ProtocolError(
            f"policy {name} does not accept {value!r}; choose one of {', '.join(options)}"
        ) from None


def parse_rel(value: Any) -> "int | float":
    """Read a relevance level: an integer, or a finite real number for real
    grades (``2.5``); integral values are held as int, so ``rel=2.0`` is
    ``rel=2`` (booleans refused).

    >>> parse_rel("2"), parse_rel(2.0), parse_rel("1.5")
    (2, 2, 1.5)
    """
    if isinstance(value, bool):
        raise ProtocolError(f"rel must be an integer grade; got {value!r}")
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
    raise ProtocolError(f"rel must be an integer grade such as 1 or 2 (or a real number such as 1.5 "
                        f"under grades=real); got {value!r}")


# The fields of a Protocol, their parsers, in canonical order.
_PARSERS = {
    "gain": parse_gain,
    "discount": parse_discount,
    "ideal": lambda v: _parse_enum("ideal", Ideal, v),
    "unjudged": lambda v: _parse_enum("unjudged", Unjudged, v),
    "zero_ideal": lambda v: _parse_enum("zero_ideal", ZeroIdeal, v),
    "missing_query": lambda v: _parse_enum("missing_query", MissingQuery, v),
    "extra_query": lambda v: _parse_enum("extra_query", ExtraQuery, v),
    "ties": lambda v: _parse_enum("ties", Ties, v),
    "duplicates": lambda v: _parse_enum("duplicates", Duplicates, v),
    "negative_grades": lambda v: _parse_enum("negative_grades", NegativeGrades, v),
    "aggregation": lambda v: _parse_enum("aggregation", Aggregation, v),
    "rel": parse_rel,
    "score_precision": lambda v: _parse_enum("score_precision", ScorePrecision, v),
    "iprec_rounding": lambda v: _parse_enum("iprec_rounding", IprecRounding, v),
    "precision_denominator": lambda v: _parse_enum("precision_denominator", PrecisionDenominator, v),
    "recall_denominator": lambda v: _parse_enum("recall_denominator", RecallDenominator, v),
    "ap_denominator": lambda v: _parse_enum("ap_denominator", ApDenominator, v),
    "chunk_map": parse_chunk_map,
    "chunks": lambda v: _parse_enum("chunks", Chunks, v),
    "grades": lambda v: _parse_enum("grades", Grades, v),
}

# Policies added after the first release: the canonical text names them only
# when they differ from their default, so older texts and fingerprints hold.
_TEXT_ONLY_WHEN_CHANGED = ("precision_denominator", "recall_denominator", "ap_denominator",
                           "chunk_map", "chunks", "grades")


def _unknown_policy(key: str) -> ProtocolError:
    near = difflib.get_close_matches(key, list(_PARSERS), n=3)
    hint = f"; did you mean {' or '.join(near)}?" if near else "."
    return ProtocolError(
        f"unknown policy {key!r}{hint} Policies: {', '.join(_PARSERS)}"
    )


@dataclasses.dataclass(frozen=True)
class Protocol:
    """Every policy a ranking measure depends on, as one frozen value.

    Parameters
    ----------
    gain : {'linear', 'exp2'} or mapping grade -> gain
        Gain of a document of grade ``g``: ``g`` or ``2**g - 1``.
    discount : {'log2', 'reciprocal', 'log:BASE'} or sequence of float
        Weight of rank ``i``: ``1 / log2(i + 1)``, ``1 / i``,
        ``1 / log_BASE(i + 1)``, or the ``i``-th value of an explicit vector
        (0 past its end).
    ideal : {'judged', 'retrieved'}
        Where the ideal ranking of NDCG comes from: every judged document of
        the query, or only the documents the run returned (reranking NDCG).
    unjudged : {'zero', 'error', 'condense'}
        A ranked document with no judgment gets gain 0 and is counted, is an
        error, or is dropped from the ranking before measuring (Sakai's
        condensed list).
    zero_ideal : {'zero', 'one', 'exclude', 'error'}
        A query with nothing relevant (ideal DCG 0 for NDCG; R = 0 for AP,
        recall, R-precision, bpref) scores 0, scores 1, leaves the mean of
        those measures, or is an error. Always counted.
    missing_query : {'zero', 'exclude', 'error'}
        A query judged in the qrels that the run does not rank.
    extra_query : {'ignore', 'error'}
        A query the run ranks that the qrels do not judge (ignored and counted).
    ties : {'expected', 'docid', 'input', 'error'}
        Documents with equal scores: the exact expectation over every order of
        each tied group; trec_eval's doc id descending; the order they were
        given in; or an error naming them. Scores always decide first; a run
        given as ordered lists has no scores, and its order is the ranking.
    duplicates : {'error', 'first'}
        A document listed twice for one query: an error, or keep the first.
    negative_grades : {'error', 'zero', 'unjudged'}
        A negative grade in the qrels: an error, judged non-relevant, or
        treated as unjudged (trec_eval).
    aggregation : {'macro', 'micro', 'weighted'}
        Mean of per-query values; sum of numerators over sum of denominators
        (ratio measures only); or a mean weighted by given query weights.
    rel : int, or float under ``grades='real'``
        Lowest grade that binary measures (P, R, AP, RR, ...) call relevant.
    score_precision : {'float64', 'float32'}
        Scores are compared as read (float64) or rounded to float32 first, as
        trec_eval 9 and pytrec_eval hold them (nearly equal scores then tie).
    iprec_rounding : {'round', 'legacy'}
        Rank cut-off of interpolated precision at a recall level (trec_eval 10
        rounds; trec_eval 9 adds 0.9 and truncates).
    precision_denominator : {'k', 'retrieved'}
        P@k divides by k, or by min(k, number of docs retrieved).
    recall_denominator : {'relevant', 'min_k'}
        R@k divides by R (the relevant docs of the query), or by min(R, k).
    ap_denominator : {'relevant', 'min_k', 'hits'}
        AP@k divides its sum of precisions by R, by min(R, k), or by the
        number of relevant docs within the top k.
    chunk_map : {'none', 'sep:S', 'regex:PATTERN', 'file:PATH'}
        Ranked ids are chunks of documents (RAG retrieval judged at document
        level): how a chunk id names its document (see :class:`ChunkMap`).
        Applied before every other row policy.
    chunks : {'first', 'max'}
        A document ranks once, where its first-listed (``first``) or
        highest-scored (``max``) chunk ranks; its other chunks leave the
        ranking, so later documents move up. Counted as ``chunks_merged``.
    grades : {'integer', 'real'}
        Grades are integers (a grade such as 1.5 is an error naming the
        policy), or real numbers (LLM labels, star ratings): gains and the
        ``rel`` threshold then apply to the real values.

    The last six appear in the canonical text only when not at their
    default, so protocols written before they existed keep their text and
    fingerprint.
    """

    gain: Gain | GainMap = Gain.LINEAR
    discount: Discount | LogDiscount | DiscountVector = Discount.LOG2
    ideal: Ideal = Ideal.JUDGED
    unjudged: Unjudged = Unjudged.ZERO
    zero_ideal: ZeroIdeal = ZeroIdeal.ZERO
    missing_query: MissingQuery = MissingQuery.ZERO
    extra_query: ExtraQuery = ExtraQuery.IGNORE
    ties: Ties = Ties.EXPECTED
    duplicates: Duplicates = Duplicates.ERROR
    negative_grades: NegativeGrades = NegativeGrades.ERROR
    aggregation: Aggregation = Aggregation.MACRO
    rel: "int | float" = 1
    score_precision: ScorePrecision = ScorePrecision.FLOAT64
    iprec_rounding: IprecRounding = IprecRounding.ROUND
    precision_denominator: PrecisionDenominator = PrecisionDenominator.K
    recall_denominator: RecallDenominator = RecallDenominator.RELEVANT
    ap_denominator: ApDenominator = ApDenominator.RELEVANT
    chunk_map: ChunkMap = ChunkMap()
    chunks: Chunks = Chunks.FIRST
    grades: Grades = Grades.INTEGER

    def __post_init__(self) -> None:
        # Normalise every field, so Protocol(gain="exp2") == Protocol(gain=Gain.EXP2).
        for name, parse in _PARSERS.items():
            object.__setattr__(self, name, parse(getattr(self, name)))
        if isinstance(self.rel, float) and self.grades is not Grades.REAL:
            raise ProtocolError(f"rel={self.rel!r} is not an integer grade; set the policy grades=real "
                                "to read real-valued grades and thresholds, or give an integer rel")

    # -- text form -------------------------------------------------------
    def __str__(self) -> str:
        return " ".join(
            f"{name}={getattr(self, name)}"
            for name in _PARSERS
            if name not in _TEXT_ONLY_WHEN_CHANGED
            or getattr(self, name) != _DEFAULTS[name]
            or (name == "chunks" and self.chunk_map.kind != "none")
        )

    @classmethod
    def from_text(cls, text: str) -> "Protocol":
        """Parse ``key=value`` pairs separated by spaces; missing keys take defaults.

        Examples
        --------
        >>> Protocol.from_text("ties=docid rel=2").rel
        2
        """
        changes: dict[str, Any] = {}  # text values: __post_init__ parses them
        for item in text.split():
            key, sep, value = item.partition("=")
            if not sep:
                raise ProtocolError(
                    f"cannot read {item!r} in protocol text; write policies as key=value"
                )
            if key not in _PARSERS:
                raise _unknown_policy(key)
            if key in changes:
                raise ProtocolError(f"policy {key} is given twice in protocol text")
            changes[key] = value
        return cls(**changes)

    @property
    def fingerprint(self) -> str:
        """First 12 hex digits of the SHA-256 of the canonical text."""
        return hashlib.sha256(str(self).encode("utf-8")).hexdigest()[:12]

    def replace(self, **changes: Any) -> "Protocol":
        """A copy with some policies changed; unknown names are refused."""
        for key in changes:
            if key not in _PARSERS:
                raise _unknown_policy(key)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Policies as JSON-ready values (text forms, ``rel`` as int)."""
        return {
            name: (getattr(self, name) if name == "rel" else str(getattr(self, name)))
            for name in _PARSERS
        }

    def differences(self, other: "Protocol") -> dict[str, tuple[str, str]]:
        """Policies that differ: name -> (this value, other value)."""
        return {
            name: (str(getattr(self, name)), str(getattr(other, name)))
            for name in _PARSERS
            if getattr(self, name) != getattr(other, name)
        }

    @classmethod
    def preset(cls, name: str) -> "Protocol":
        """A named preset: ``rankproof`` (the defaults), ``trec_eval``, ``trec_eval9``,
        ``sklearn``, ``lightgbm``, ``ranx`` or ``spark`` (MLlib's RankingMetrics).

        The trec_eval presets keep ``grades=integer``: trec_eval reads a
        grade with C's ``atol``, silently cutting 1.5 to 1 (and 0.7 to 0),
        which rankproof refuses instead; the ``rankproof trec-eval`` drop-in
        reads grades as trec_eval does.
        """
        try:
            return PRESETS[name]
        except KeyError:
            near = difflib.get_close_matches(name, list(PRESETS), n=2)
            hint = f"; did you mean {' or '.join(near)}?" if near else "."
            raise ProtocolError(
                f"unknown preset {name!r}{hint} Presets: {', '.join(PRESETS)}"
            ) from None

    @staticmethod
    def policy_names() -> tuple[str, ...]:
        return tuple(_PARSERS)


_DEFAULTS = {field.name: field.default for field in dataclasses.fields(Protocol)}

# trec_eval 10 as far as the measures of this package go: linear gain, log2
# discount, ideal from the judged pool, unjudged docs non-relevant, ties broken
# by doc id descending, negative grades in the pool but unjudged, queries
# without relevant docs scored 0, and (without -c) an abort when a judged query
# is missing from the run.
#
# Grades: trec_eval 10 reads the grade column with C's atol (get_qrels.c), which
# stops at the first character that is not a digit, silently: 1.5 counts as 1,
# 2.9 as 2, 0.7 and -0.5 as 0 (judged non-relevant), 1e2 as 1. The presets keep
# grades=integer, so such a grade is an error here rather than a silent
# truncation; `rankproof trec-eval` (the drop-in) reads them as atol does and
# stays byte-identical to trec_eval. Evaluating real grades as reals is
# grades=real, which no trec_eval version offers.
_TREC_EVAL = Protocol(
    ties=Ties.DOCID,
    negative_grades=NegativeGrades.UNJUDGED,
    missing_query=MissingQuery.ERROR,
    extra_query=ExtraQuery.IGNORE,
    zero_ideal=ZeroIdeal.ZERO,
    duplicates=Duplicates.ERROR,
)

PRESETS: dict[str, Protocol] = {
    "rankproof": Protocol(),
    "trec_eval": _TREC_EVAL,
    # trec_eval 9 and pytrec_eval differ from trec_eval 10 in three ways:
    # scores held as float32 (nearly equal scores tie, then doc id
    # descending), the older interpolated-precision cut-off, and the mean over
    # the queries in both run and qrels.
    "trec_eval9": _TREC_EVAL.replace(
        missing_query=MissingQuery.EXCLUDE,
        score_precision=ScorePrecision.FLOAT32,
        iprec_rounding=IprecRounding.LEGACY,
    ),
}

# scikit-learn's ndcg_score / dcg_score: linear gain (the y_true values),
# log2 discount, ties averaged over their orders (McSherry & Najork, as
# rankproof's ties=expected), rows without relevance scored 0, negative y_true
# refused (ndcg_score does), a plain mean over rows. sample_weight is
# aggregation=weighted with weights=sample_weight; ignore_ties=True is
# documented in rankproof.scores.
PRESETS["sklearn"] = Protocol()

# LightGBM's ndcg@k eval metric (src/metric/rank_metric.hpp, dcg_calculator.cpp):
# label_gain 2^i - 1, discount 1/log2(2 + i) at 0-based position i, a stable
# sort by score descending (tied docs keep their input order), a query whose
# labels are all 0 scores 1, negative labels refused.
PRESETS["lightgbm"] = Protocol(gain=Gain.EXP2, ties=Ties.INPUT, zero_ideal=ZeroIdeal.ONE)

# ranx (ranx/metrics/ndcg.py, data_structures/common.py), its `ndcg` (Jarvelin's
# linear gain; `ndcg_burges` is gain=exp2): log2 discount, the ideal from the
# judged docs, judgments below the relevance level (negative grades among them)
# dropped, so they gain 0; an ideal DCG of 0 divides by 1, giving 0. Runs are
# ordered by numba's np.argsort of the negated scores, a quicksort that keeps
# tied docs in file order on small groups (insertion sort below 16 elements)
# but not always on long lists: ties=input is the nearest stated policy, and
# reproduces ranx on the bundled Cranfield runs. evaluate(...,
# make_comparable=True) scores queries missing from the run 0 and drops extra
# ones (without it ranx refuses differing query sets).
PRESETS["ranx"] = Protocol(ties=Ties.INPUT, negative_grades=NegativeGrades.ZERO)

# Spark MLlib's RankingMetrics and pyspark.ml.evaluation.RankingEvaluator
# (mllib/evaluation/RankingMetrics.scala), which take, per user, the predicted
# items in order and the set of relevant items: precisionAt(k) divides by k;
# recallAt(k) by the number of relevant items; meanAveragePrecisionAt(k) by
# min(relevant, k), meanAveragePrecision by the number relevant; ndcgAt(k)
# gains 1 per relevant item, its ideal from min(relevant, k) of them; a user
# with no relevant item scores 0 (logged). Predictions are ordered lists, so
# their order is the ranking: ties=input. MLlib ignores graded relevance
# (README, "Spark"): this preset matches it on binary judgments.
PRESETS["spark"] = Protocol(ties=Ties.INPUT, ap_denominator=ApDenominator.MIN_K)
