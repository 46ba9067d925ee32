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
ideal            judged, retrieved, expanded                judged
unjudged         zero, error, condense                      zero
zero_ideal       zero, one, exclude, error, drop            zero
missing_query    zero, exclude, error                       zero
extra_query      ignore, error                              ignore
ties             expected, docid, input, error              expected
duplicates       error, first, count, once                  error
negative_grades  error, zero, unjudged                      error
aggregation      macro, micro, weighted                     macro
rel              integer relevance level of binary measures 1
score_precision  float64, float32, bfloat16, float16        float64
iprec_rounding   round, legacy                              round
precision_denominator  k, retrieved                         k
recall_denominator     relevant, min_k                      relevant
ap_denominator         relevant, min_k, hits                relevant
chunk_map        none, sep:#, regex:PATTERN, file:PATH      none
chunks           first, max                                 first
grades           integer, real                              integer
ids              none, strip, casefold, strip_zeros (a,b)   none
identical_ids    keep, drop                                 keep
subqueries       none, max                                  none
nuggets          none, partial_support:X (nuggetizer: 0.5)  none
judgments        none, layers:A>B (set from layered qrels)  none
counts           mean, sum (of num_ret, num_rel, num_rel_ret) mean
===============  =========================================  ==========

The three denominators, the two chunk policies, ``grades``, ``ids``, ``identical_ids``, ``subqueries``,
``nuggets``, ``judgments`` and ``counts`` came after the others: the canonical text names them only when they differ from their
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
import hashlib
from types import MappingProxyType
from typing import Any, Mapping

from ..errors import ProtocolError, literal
from .policies import (
    Gain,
    Discount,
    Ideal,
    Unjudged,
    ZeroIdeal,
    MissingQuery,
    ExtraQuery,
    Ties,
    Duplicates,
    NegativeGrades,
    ScorePrecision,
    IprecRounding,
    PrecisionDenominator,
    RecallDenominator,
    ApDenominator,
    Chunks,
    Grades,
    IdenticalIds,
    Subqueries,
    Aggregation,
    CountSummary,
    parse_chunk_map,
    parse_gain,
    parse_discount,
    parse_enum,
    parse_rel,
    unknown_policy,
    PARSERS,
    TEXT_ONLY_WHEN_CHANGED,
)
from .ids import ID_STEPS, IdPolicy, parse_ids
from .layers import Layers
from .nuggets import Nuggets
from .values import (LARGEST_GAIN, ChunkMap, DiscountFile, DiscountVector, GainMap, LogDiscount,
                     file_digest)
from .presets import PRESET_SETTINGS

__all__ = [
    "Protocol",
    "Gain",
    "Discount",
    "GainMap",
    "DiscountVector",
    "LogDiscount",
    "Ideal",
    "Unjudged",
    "IdenticalIds",
    "Subqueries",
    "ZeroIdeal",
    "MissingQuery",
    "ExtraQuery",
    "Ties",
    "Duplicates",
    "NegativeGrades",
    "Aggregation",
    "CountSummary",
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
    "IdPolicy",
    "ID_STEPS",
    "PRESETS",
    # the policies' parsers, for the measures' parameters and the readers
    "parse_chunk_map", "parse_gain", "parse_discount", "parse_enum", "parse_rel", "parse_ids",
    "LARGEST_GAIN",
]


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
    ideal : {'judged', 'retrieved', 'expanded'}
        Where the ideal ranking of NDCG comes from: every judged document of
        the query, or only the documents the run returned (reranking NDCG);
        ``expanded`` adds one relevant document per repeated copy of a
        relevant document within the cutoff and cuts the ideal at the list's
        length (MLflow's ``ndcg_at_k``).
    unjudged : {'zero', 'error', 'condense'}
        A ranked document with no judgment gets gain 0 and is counted, is an
        error, or is dropped from the ranking before measuring (Sakai's
        condensed list).
    zero_ideal : {'zero', 'one', 'exclude', 'error', 'drop'}
        A query with nothing relevant (ideal DCG 0 for NDCG; R = 0 for AP,
        recall, R-precision, bpref) scores 0, scores 1, leaves the mean of
        those measures, or is an error. Always counted. ``drop`` leaves it
        out of the mean of every measure, also of those defined without R
        (P, hit, RR): no judged doc at grade ``rel`` or above
        (sentence-transformers' evaluator).
    missing_query : {'zero', 'exclude', 'error'}
        A query judged in the qrels that the run does not rank.
    extra_query : {'ignore', 'error'}
        A query the run ranks that the qrels do not judge (ignored and counted).
    ties : {'expected', 'docid', 'input', 'error'}
        Documents with equal scores: the exact expectation over every order of
        each tied group; trec_eval's doc id descending; the order they were
        given in; or an error naming them. Scores always decide first; a run
        given as ordered lists has no scores, and its order is the ranking.
    duplicates : {'error', 'first', 'count', 'once'}
        A document listed twice for one query: an error; keep the first (the
        later copies leave the ranking); count every copy at its rank with its
        gain (LlamaIndex, ragas); or keep every copy at its rank and credit
        the document once, at its first copy (Haystack).
    negative_grades : {'error', 'zero', 'unjudged'}
        A negative grade in the qrels: an error, judged non-relevant, or
        treated as unjudged (trec_eval).
    aggregation : {'macro', 'micro', 'weighted'}
        Mean of per-query values; sum of numerators over sum of denominators
        (ratio measures only); or a mean weighted by given query weights.
    rel : int, or float under ``grades='real'``
        Lowest grade that binary measures (P, R, AP, RR, ...) call relevant.
    score_precision : {'float64', 'float32', 'bfloat16', 'float16'}
        Scores are compared as read (float64) or rounded to float32 first, as
        trec_eval 9 and pytrec_eval hold them (nearly equal scores then tie),
        or to bfloat16 or float16, as low-precision embeddings hold them
        (``tied_groups_from_precision`` in the counts: the ties they made).
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
    ids : {'none', 'strip', 'casefold', 'strip_zeros'} or several joined by commas
        How query and doc ids of both sides are normalised before they are
        matched (``strip_zeros``: ``001`` is ``1``); ``none`` matches them
        exactly. Counted as ``ids_normalised`` (see :class:`IdPolicy`).
    identical_ids : {'keep', 'drop'}
        A ranked document whose id equals its query's id is kept, or dropped
        before measuring (MTEB's and BEIR's ``ignore_identical_ids``).
    subqueries : {'none', 'max'}
        Sub-queries ``base_1``, ``base_2``, ... measured as they are, or
        merged into ``base``, each doc at its best score (MTEB's
        ``max_over_subqueries``); counted as ``subqueries_merged``.
    nuggets : {'none', 'partial_support:X'}
        The values score answers by nuggets, not rankings: set by
        :func:`rankproof.evaluate_nuggets` (``partial_support:0.5``,
        nuggetizer's credit for a partially supported nugget), ``none`` for
        every ranking.
    judgments : {'none', 'layers:A>B...'}
        Where the judgments came from: set by :func:`rankproof.evaluate`
        from qrels layered by :meth:`rankproof.Qrels.layer` (the sources in
        order of precedence), ``none`` for plain qrels.
    counts : {'mean', 'sum'}
        The count measures (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``)
        aggregated by :meth:`Results.mean <rankproof.Results.mean>` as their
        mean over the queries, or their sum, as trec_eval, pytrec_eval and
        ir_measures report them (the ``trec_eval`` presets set ``sum``).

    Notes
    -----
    The last eleven appear in the canonical text only when not at their
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
    ids: IdPolicy = IdPolicy()
    identical_ids: IdenticalIds = IdenticalIds.KEEP
    subqueries: Subqueries = Subqueries.NONE
    nuggets: Nuggets = Nuggets()
    judgments: Layers = Layers()
    counts: CountSummary = CountSummary.MEAN

    def __post_init__(self) -> None:
        # Normalise every field, so Protocol(gain="exp2") == Protocol(gain=Gain.EXP2).
        for name, parse in PARSERS.items():
            object.__setattr__(self, name, parse(getattr(self, name)))
        if isinstance(self.rel, float) and self.grades is not Grades.REAL:
            raise ProtocolError(what=f"rel={self.rel!r} is not an integer grade", value=self.rel,
                                fix="set the policy grades=real to read real-valued grades and thresholds, "
                                    "or give an integer rel")

    # -- text form -------------------------------------------------------
    def __str__(self) -> str:
        return self._text(str)

    def _text(self, spell) -> str:
        return " ".join(
            f"{name}={spell(getattr(self, name))}"
            for name in PARSERS
            if name not in TEXT_ONLY_WHEN_CHANGED
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
                raise ProtocolError(what=f"cannot read {literal(repr(item))} in protocol text",
                                    value=item,
                                    fix="write policies as key=value")
            if key not in PARSERS:
                raise unknown_policy(key)
            if key in changes:
                raise ProtocolError(what=f"policy {literal(key)} is given twice in protocol text",
                                    value=key)
            changes[key] = value
        return cls(**changes)

    @property
    def fingerprint(self) -> str:
        """First 12 hex digits of the SHA-256 of the canonical text.

        A policy read from a file (``discount=file:``, ``chunk_map=file:``)
        enters it by the file's digest, not its path: ``file:d.json`` and
        ``file:./d.json`` (or a copy elsewhere) give one fingerprint, so
        results saved in one folder compare with results saved in another.
        """
        return hashlib.sha256(self._text(_content_text).encode("utf-8")).hexdigest()[:12]

    @property
    def path_fingerprint(self) -> str:
        """The fingerprint as versions before content fingerprints wrote it (paths included),
        read back from saved results; equal to :attr:`fingerprint` without file policies."""
        return hashlib.sha256(str(self).encode("utf-8")).hexdigest()[:12]

    def replace(self, **changes: Any) -> "Protocol":
        """A copy with some policies changed; unknown names are refused."""
        for key in changes:
            if key not in PARSERS:
                raise unknown_policy(key)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Policies as JSON-ready values (text forms, ``rel`` as int)."""
        return {
            name: (getattr(self, name) if name == "rel" else str(getattr(self, name)))
            for name in PARSERS
        }

    def differences(self, other: "Protocol") -> dict[str, tuple[str, str]]:
        """Policies that differ: name -> (this value, other value)."""
        return {
            name: (str(getattr(self, name)), str(getattr(other, name)))
            for name in PARSERS
            if getattr(self, name) != getattr(other, name)
        }

    @classmethod
    def preset(cls, name: str) -> "Protocol":
        """A named preset: ``rankproof`` (the defaults), ``trec_eval``, ``trec_eval9``,
        ``sklearn``, ``lightgbm``, ``ranx``, ``spark`` (MLlib's RankingMetrics),
        ``pytrec_eval`` or ``ir_measures`` (both trec_eval 9's settings: pytrec_eval
        wraps it, and ir_measures computes its trec measures with pytrec_eval).

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
            raise ProtocolError(what=f"unknown preset {literal(repr(name))}{hint} Presets: {', '.join(PRESETS)}",
                                value=name) from None

    @staticmethod
    def policy_names() -> tuple[str, ...]:
        return tuple(PARSERS)


def _content_text(value: Any) -> str:
    """A policy's text for the fingerprint: a file's digest stands for its path."""
    content = getattr(value, "content_text", None)
    return content() if content is not None else str(value)


_DEFAULTS = {field.name: field.default for field in dataclasses.fields(Protocol)}

# The presets as Protocol values, read-only: a caller cannot add or replace one.
PRESETS: Mapping[str, Protocol] = MappingProxyType(
    {name: Protocol(**settings) for name, settings in PRESET_SETTINGS.items()})
