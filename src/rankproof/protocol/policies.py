"""The policies of a :class:`~rankproof.protocol.Protocol`: their enums, and the
parser of each policy's text, in canonical order (:data:`PARSERS`). The values
richer than an enum (gain maps, discount vectors and files, chunk maps) live in
:mod:`rankproof.protocol.values`."""

from __future__ import annotations

import difflib
import enum
import math
from typing import Any, Mapping

from ..errors import ProtocolError, literal, shorten
from .ids import parse_ids
from .layers import parse_layers
from .nuggets import parse_nuggets
from .values import (
    ChunkMap,
    DiscountFile,
    DiscountVector,
    GainMap,
    LogDiscount,
    read_policy,
    split_digest,
)


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
    """Pool of the ideal ranking: every judged doc, or only the retrieved ones;
    or ``expanded``: every judged doc plus one more relevant doc for each
    repeated copy of a relevant doc within the cutoff (at that doc's grade),
    the ideal ranking cut at the list's length when the list is shorter than
    the cutoff (MLflow's ``ndcg_at_k``, which turns repeated ids into extra
    targets and scores with scikit-learn's ``ndcg_score`` at ``k = len(list)``)."""

    JUDGED = "judged"
    RETRIEVED = "retrieved"
    EXPANDED = "expanded"


class Unjudged(_Policy):
    """A ranked doc without judgment: gain 0 (counted), an error, or dropped."""

    ZERO = "zero"
    ERROR = "error"
    CONDENSE = "condense"


class ZeroIdeal(_Policy):
    """A query with nothing relevant (ideal DCG 0, or R = 0): the measures
    undefined there score it 0 or 1 or leave it out (``exclude``);
    ``error`` refuses it whatever the measure (P, hit and RR too, as
    LlamaIndex raises on an empty expected list); ``drop`` leaves it out of
    every measure, also of those defined without R (P, hit, RR), as
    sentence-transformers' InformationRetrievalEvaluator drops such queries
    when built. A query the qrels declare with no judgment
    (:meth:`Qrels.with_queries <rankproof.Qrels.with_queries>`) is such a query."""

    ZERO = "zero"
    ONE = "one"
    EXCLUDE = "exclude"
    ERROR = "error"
    DROP = "drop"


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
    """A doc listed twice for one query in a run: an ``error``; keep the
    ``first`` copy (the later ones leave the ranking, the docs after them move
    up); ``count`` every copy, each at its own rank with its doc's gain (so a
    relevant doc listed twice gains twice: what LlamaIndex, ragas and MLflow's
    precision do); or keep every copy at its rank but credit the doc ``once``,
    at its first copy, the later ones gaining nothing (Haystack, MLflow's
    recall)."""

    ERROR = "error"
    FIRST = "first"
    COUNT = "count"
    ONCE = "once"


class Subqueries(_Policy):
    """Queries split into sub-queries (``base_1``, ``base_2``, ...): measured as
    they are (``none``), or merged into ``base``, each doc at its best score
    over the sub-queries (``max``: MTEB's ``max_over_subqueries``)."""

    NONE = "none"
    MAX = "max"


class IdenticalIds(_Policy):
    """A ranked doc whose id is the query's own id (a corpus that holds its
    queries, as ArguAna and Quora do): ``keep`` it, or ``drop`` it from the
    ranking before measuring (MTEB's and BEIR's ``ignore_identical_ids``)."""

    KEEP = "keep"
    DROP = "drop"


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
    and pytrec_eval do (so scores closer than float32 can tell apart tie), or
    the low-precision formats of embeddings, bfloat16 and float16 (rounded to
    nearest, ties to even, as hardware does), to see how many ties they make."""

    FLOAT64 = "float64"
    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"
    FLOAT16 = "float16"


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


class CountSummary(_Policy):
    """How the count measures (num_ret, num_rel, num_rel_ret) aggregate over the queries:
    their ``mean`` (rankproof), or their ``sum``, as trec_eval, pytrec_eval and ir_measures
    report them (a count measure's aggregation is part of its definition there)."""

    MEAN = "mean"
    SUM = "sum"


class Aggregation(_Policy):
    """How per-query values become one number."""

    MACRO = "macro"
    MICRO = "micro"
    WEIGHTED = "weighted"


def parse_chunk_map(value: Any) -> ChunkMap:
    """Read a chunk_map policy from its text form (``none``, ``sep:#``,
    ``regex:PATTERN``, ``file:PATH[@sha256:DIGEST]``)."""
    return read_policy(value, ChunkMap, _chunk_map)


def _chunk_map(text: str) -> ChunkMap:
    kind, sep, spec = text.partition(":")
    if not sep or kind not in ("sep", "regex", "file"):
        raise ProtocolError(what=f"policy chunk_map does not accept {literal(repr(text))}",
                            value=text,
                            fix="choose one of none, sep:#, regex:PATTERN (one group: the document id), "
                                "file:PATH (a chunk -> doc table)")
    if kind == "file":
        path, digest = split_digest(spec)
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
    return shorten(repr(value), limit, tell_length=True)


def _gain_pairs(text: str) -> tuple[tuple[int, float], ...]:
    """The grade=gain pairs of ``map:0=0/1=1``: each grade once, an integer, each gain a number."""
    fix = "write it as map:0=0/1=1/2=3"
    pairs: dict[int, float] = {}
    for item in (part for part in text[4:].split("/") if part):
        grade, sep, gain = item.partition("=")
        digits = grade.strip().lstrip("+-")
        if not sep or not digits.isdigit() or len(digits) > 19:
            raise ProtocolError(what=f"gain map {literal(_shown(text))}: item {literal(_shown(item))} is not "
                                "grade=gain with an integer grade (at most 19 digits)", value=text,
                                fix=fix)
        try:
            number = float(gain)
        except ValueError:
            raise ProtocolError(what=f"the gain of grade {grade.strip()} in the gain map is "
                                f"{literal(_shown(gain))}, not a number", value=text,
                                fix=fix) from None
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
        return DiscountFile.read(*split_digest(text[5:]))
    if text.startswith("vector:"):
        try:
            return DiscountVector(tuple(float(v) for v in text[7:].split("/") if v))
        except ValueError:
            raise ProtocolError(what=f"cannot read discount vector {literal(repr(text))}",
                                value=text,
                                fix="write it as vector:1/0.63/0.5") from None
    return parse_enum("discount", Discount, text,
                      extra=["log:BASE", "vector:1/0.5/...", "file:PATH.json"])


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
        raise ProtocolError(what=f"policy {name} does not accept {literal(repr(value))}",
                            value=value,
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
    "identical_ids": lambda v: parse_enum("identical_ids", IdenticalIds, v),
    "subqueries": lambda v: parse_enum("subqueries", Subqueries, v),
    "nuggets": parse_nuggets,
    "judgments": parse_layers,
    "counts": lambda v: parse_enum("counts", CountSummary, v),
}

# Policies added after the first release: the canonical text names them only
# when they differ from their default, so older texts and fingerprints hold.
TEXT_ONLY_WHEN_CHANGED = ("precision_denominator", "recall_denominator", "ap_denominator",
                           "chunk_map", "chunks", "grades", "ids", "identical_ids", "subqueries",
                          "nuggets",
                           "judgments", "counts")


def unknown_policy(key: str) -> ProtocolError:
    near = difflib.get_close_matches(key, list(PARSERS), n=3)
    hint = f"; did you mean {' or '.join(near)}?" if near else "."
    return ProtocolError(what=f"unknown policy {literal(repr(key))}{hint} Policies: {', '.join(PARSERS)}", value=key)


