"""Results: per-query values, aggregates, the protocol and policy counts.

Results never compute measures; they hold what :func:`rankproof.evaluate`
produced and aggregate it under the protocol's aggregation policy.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..pipeline.alignment import QueryTable
from ..errors import MeasureError, literal
from ..measures.base import Measure
from ..measures.parse import held_measure, parse_measure
from ..protocol import Aggregation, CountSummary, Protocol
from ..typing import BootstrapMethod, QueryIds, Unlabelled
from . import advice
from .coverage import MIN_COVERAGE, check_query_coverage, coverage_warning, guard_coverage
from .concat import (Intervals, check_parts, joined_counts, joined_intervals, joined_measures,
                     joined_table)
from .counts import CUTOFF_KEYS, Counts, all_counts
from .shown import ShownQueries
from .side import SideValue, join_side, side_warnings
from .text import summary_text
from .values import Bounds, MeasureResult, TieRange, kept_mean

__all__ = ["Results", "MeasureResult", "Bounds", "TieRange", "Counts", "QueryIds", "MIN_COVERAGE",
           "check_query_coverage",
           "guard_coverage", "coverage_warning"]


class Results:
    """What an evaluation produced.

    Examples
    --------
    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 0}})
    >>> run = Run.from_dict({"q1": ["a", "x"], "q2": ["b"]})
    >>> results = evaluate(qrels, run, ["ndcg@10", "p@1"])
    >>> results.per_query("ndcg@10")
    {'q1': 1.0, 'q2': 0.0}
    >>> results.counts["zero_ideal_queries"]
    {'ndcg@10': 1}
    """

    def __init__(self, *, table: QueryTable,
                 counts: "Mapping[str, Any] | Callable[[], Mapping[str, Any]]",
                 protocol: Protocol, measures: dict[Measure, MeasureResult],
                 weights: np.ndarray | None,
                 run_name: str, qrels=None, query_ids: "QueryIds | None" = None,
                 complete_judgments: bool = False,
                 bounds: Intervals | None = None, tie_range: Intervals | None = None,
                 side: "Sequence[SideValue]" = (), qrels_digest: str | None = None,
                 min_coverage: float = MIN_COVERAGE) -> None:
        # Per-query facts and counts only: the evaluation's per-position arrays are gone once the
        # measures are computed (explain asks the pipeline again); `counts` may count on first use.
        self._table, self._counts, self._qrels = table, counts, qrels
        # Per measure, (lower, upper) per query, when evaluated with bounds=True; (min, max) per
        # query over the orders of tied docs, when evaluated with ties_range=True.
        self._bounds, self._tie_range = dict(bounds or {}), dict(tie_range or {})
        self._measures, self._weights = measures, weights
        self.protocol, self.run_name = protocol, run_name
        # True when the judgments list every relevant doc (a recommender's truth table): a doc
        # missing from them is non-relevant by definition, so there is nothing to warn about.
        self.complete_judgments = complete_judgments
        # The share of judged queries the caller asked the run to rank: its coverage warning (the
        # summary's, the command line's, the report's) is said below this share, not below another.
        self.min_coverage = min_coverage
        # The query ids shown to the caller (see QueryIds): evaluate_frame and
        # evaluate_scores give them so integer user ids come back as integers.
        self._ids = ShownQueries(table.queries, query_ids)
        # side-data measures (coverage, ...): results/side.py
        self.side: tuple[SideValue, ...] = tuple(side)
        if qrels_digest is not None:  # judgments read in parts (out of core): their digest together
            self.__dict__["qrels_digest"] = qrels_digest   # the cached property's value
        # From here on the public names are read-only (Results.replace gives a copy with others): a
        # value one caller renamed in place would be renamed for every other holder of it.
        self.__dict__["_frozen"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen") and not name.startswith("_"):
            raise AttributeError(f"Results are read-only: {name} cannot be assigned; "
                                 f"use results.replace({name}=...) for a copy with another {name}")
        object.__setattr__(self, name, value)

    def replace(self, *, run_name: str | None = None, side: "Sequence[SideValue] | None" = None,
                qrels_digest: str | None = None) -> "Results":
        """These results under another run name, with other side-data values, or with the digest of
        judgments read in parts (out of core: the parts' judgments together): a shallow copy.

        The per-query arrays are shared, not copied (they are never written).

        >>> from rankproof import Qrels, Run, evaluate
        >>> r = evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["a"]}), ["rr"])
        >>> r.replace(run_name="bm25").run_name, r.run_name
        ('bm25', 'run')
        """
        copied = copy.copy(self)
        if run_name is not None:
            copied.__dict__["run_name"] = run_name
        if side is not None:
            copied.__dict__["side"] = tuple(side)
        if qrels_digest is not None:
            copied.__dict__["qrels_digest"] = qrels_digest   # the cached property's value
        return copied

    def _shown(self, array: np.ndarray) -> np.ndarray:
        """A per-query array in the order the queries are shown."""
        return self._ids.shown(array)

    @property
    def qrels_source(self) -> str:
        return self._table.qrels_source

    @cached_property
    def qrels_digest(self) -> str | None:
        """Content digest of the judgments (see :func:`rankproof.data.digest.qrels_digest`)."""
        from ..data.digest import qrels_digest

        return qrels_digest(self._qrels) if self._qrels is not None else None

    # -- access ------------------------------------------------------------
    @property
    def queries(self) -> list:
        """Evaluated queries, in order.

        Text ids in text order for files and :class:`~rankproof.Qrels`; from
        :func:`rankproof.evaluate_frame`, integer user ids stay integers in
        numeric order; from :func:`rankproof.evaluate_scores`, the row index
        (or the ``queries=`` names) in row order.
        """
        return self._ids.ids().tolist()

    @property
    def query_coverage(self) -> float:
        """Share of the judged queries that the run ranks (1.0 when nothing is judged)."""
        judged = self._table.judged_queries
        if not judged:
            return 1.0
        return (judged - self._table.missing_queries) / judged

    @property
    def measures(self) -> list[Measure]:
        return list(self._measures)

    @property
    def table(self) -> QueryTable:
        """The per-query table the evaluation gave (queries in text order, counts per query, notes)."""
        return self._table

    @property
    def warnings(self) -> tuple[str, ...]:
        """Doubts about the input, one line each naming the fix (:mod:`rankproof.results.matching`),
        then those of the side-data measures (items outside the catalogue: :func:`.side.side_warnings`)."""
        return tuple(self._table.warnings) + side_warnings(self.side)

    @property
    def weights(self) -> np.ndarray | None:
        """The query weights (aligned with :attr:`table`'s queries), or None when unweighted."""
        return self._weights

    def result(self, measure: "str | Measure") -> MeasureResult:
        """One evaluated measure over every query (aligned with :attr:`table`'s queries)."""
        return self._measures[held_measure(measure, self._measures)]

    def values(self, measure: "str | Measure") -> np.ndarray:
        """Per-query values as an array aligned with :attr:`queries` (NaN = excluded)."""
        return self._shown(self.result(measure).value).copy()

    def per_query(self, measure: "str | Measure") -> dict:
        """``{query: value}`` for the queries the measure's mean includes, in the order of :attr:`queries`."""
        result = self.result(measure)
        keep = np.flatnonzero(self._shown(result.included))
        return dict(zip(self._ids.ids()[keep].tolist(), self._shown(result.value)[keep].tolist()))

    def mean(self, measure: "str | Measure") -> float:
        """The aggregate under the protocol's aggregation policy.

        macro: mean of per-query values; micro: sum of numerators over sum of
        denominators; weighted: sum(w * v) / sum(w). Excluded queries take no
        part; with no query left the mean is NaN. A count measure (num_ret,
        num_rel, num_rel_ret) under the policy ``counts=sum`` (the trec_eval,
        pytrec_eval and ir_measures presets) is summed over the queries instead,
        as those tools report it.
        """
        result = self.result(measure)
        keep = result.included
        if not keep.any():
            return math.nan
        if result.measure.spec.count and self.protocol.counts is CountSummary.SUM:
            return float(result.value[keep].sum())
        if self.protocol.aggregation is Aggregation.MICRO:
            if result.numerator is None or result.denominator is None:  # evaluate refuses these
                raise MeasureError(what=f"{literal(result.measure)} is not a ratio of sums, so it has no micro mean")
            denominator = result.denominator[keep].sum()
            return float(result.numerator[keep].sum() / denominator) if denominator else 0.0
        if self.protocol.aggregation is Aggregation.WEIGHTED:
            if self._weights is None:  # evaluate refuses aggregation=weighted without weights
                raise MeasureError(what="aggregation=weighted, but these results hold no {query} weights")
            return kept_mean(result.value, keep, self._weights)
        return kept_mean(result.value, keep)

    def dispersion(self, measure: "str | Measure"):
        """The spread of the per-query values the mean includes: std (ranx's ``return_std``),
        quartiles, range (:class:`~rankproof.results.dispersion.Dispersion`)."""
        from .dispersion import dispersion

        return dispersion(np.array(list(self.per_query(measure).values()), dtype=np.float64))

    @property
    def has_bounds(self) -> bool:
        """Were the bounds under unjudged docs computed (``evaluate(..., bounds=True)``)?"""
        return bool(self._bounds)

    def bounds(self, measure: "str | Measure") -> Bounds:
        """The measure's value with its bounds under the unjudged docs, per query and averaged.

        The lower bound scores every unjudged doc as gain 0 (the value
        itself under ``unjudged=zero``); the upper one judges every unjudged
        doc that can land within the measure's cutoff at the highest grade
        (the highest judged grade, at least ``rel``), ideal DCG and R
        recomputed with them. Per query the interval runs from the smaller
        to the larger of the two. For sums of gains over the ranking (dcg,
        p, rr, hit, err, rbp, num_rel_ret) they bound every completion of the
        judgments; for measures normalised by the judged pool (ndcg, ap, r),
        whose ideal grows too, a mixed completion can fall outside.

        Examples
        --------
        One relevant doc a, an unjudged doc x at rank 1. P@2 is 1/2, and 1
        if x is relevant; NDCG@2 is 1/log2(3) = 0.631, and 1 when x is at
        the highest grade (the ideal then holds x and a):

        >>> from rankproof import Qrels, Run, evaluate
        >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0}})
        >>> results = evaluate(qrels, Run.from_dict({"q": ["x", "a"]}), ["p@2", "ndcg@2"], bounds=True)
        >>> results.bounds("p@2").format()
        '0.500 [0.500, 1.000]'
        >>> results.bounds("ndcg@2").format()
        '0.631 [0.631, 1.000]'
        """
        return self._interval(Bounds, measure, self._bounds, "the bounds of", "{do[bounds]}")

    def _interval(self, kind: type, measure: "str | Measure", computed: Intervals, label: str,
                  fix: str):
        """Per-query intervals and their ends averaged over the queries where they are defined
        (refused, with `fix`, for a measure whose intervals were not `computed`)."""
        result = self.result(measure)
        if result.measure not in computed:
            raise MeasureError(what=f"{label} {literal(result.measure)} were not computed", fix=fix)
        low, high = computed[result.measure]
        keep, weights = ~np.isnan(low), None
        if self.protocol.aggregation is Aggregation.WEIGHTED:
            weights = self._weights if self._weights is not None else np.ones(len(low))
        return kind(measure=result.measure, value=self.mean(result.measure),
                    lower=kept_mean(low, keep, weights), upper=kept_mean(high, keep, weights),
                    queries=self.queries, query_value=self._shown(result.value).copy(),
                    query_lower=self._shown(low).copy(), query_upper=self._shown(high).copy())

    @property
    def has_tie_range(self) -> bool:
        """Was the range over the orders of tied docs computed (``evaluate(..., ties_range=True)``)?"""
        return bool(self._tie_range)

    def tie_range(self, measure: "str | Measure") -> TieRange:
        """The measure's value with its lowest and highest value over the
        orders of tied docs, per query and for the mean (see
        :class:`~rankproof.results.values.TieRange` and docs/ties.md).

        Examples
        --------
        a (relevant) and x tie at the top: P@1 is 1 if a comes first, 0 if
        x does; ties=expected gives the mean over the two orders, 0.5:

        >>> from rankproof import Qrels, Run, evaluate
        >>> qrels = Qrels.from_dict({"q": {"a": 1}})
        >>> results = evaluate(qrels, Run.from_dict({"q": {"x": 0.5, "a": 0.5}}), ["p@1"], ties_range=True)
        >>> results.tie_range("p@1").format()
        '0.500 [0.000, 1.000]'
        """
        return self._interval(TieRange, measure, self._tie_range, "the ranges over tied orders of",
                              "{do[ties_range]}")

    @classmethod
    def concat(cls, parts: "Sequence[Results]", run_name: str | None = None, *, sort: bool = False,
               query_ids: "QueryIds | None" = None, qrels_digest: str | None = None) -> "Results":
        """Results of disjoint sets of queries (shards, partitions) as one.

        Every part must hold the same measures under the same protocol; a
        query may appear in one part only. Per-list side-data measures (ILD,
        novelty, ...) are joined too; a catalogue one (coverage, Gini) is refused,
        since the parts' values do not make the whole's. Values are joined, counts added
        (each is a count of cases), and the aggregate is then taken over all
        queries, as one evaluation of the whole would (``sort=True``: in its order, so
        the means agree to the last bit; ``query_ids``: as ``evaluate_alignment``'s;
        ``qrels_digest``: the digest of the parts' judgments together, when they were read in parts).

        >>> from rankproof import Qrels, Run, evaluate
        >>> qrels = Qrels.from_dict({"a": {"x": 1}, "b": {"y": 1}})
        >>> run = Run.from_dict({"a": ["x"], "b": ["z", "y"]})
        >>> whole = evaluate(qrels, run, "rr")
        >>> parts = [evaluate(Qrels.from_dict({q: d}), Run.from_dict({q: run_q}), "rr")
        ...          for q, d, run_q in [("a", {"x": 1}, ["x"]), ("b", {"y": 1}, ["z", "y"])]]
        >>> Results.concat(parts).mean("rr") == whole.mean("rr") == 0.75
        True
        """
        parts = list(parts)
        check_parts(parts)
        first = parts[0]
        table, cat = joined_table([part._table for part in parts], sort)
        weights = [part._weights for part in parts if part._weights is not None]
        measures = first.measures
        return cls(table=table, counts=joined_counts([part._counts for part in parts]),
                   protocol=first.protocol,
                   measures=joined_measures([part._measures for part in parts], measures, cat),
                   weights=cat(weights) if len(weights) == len(parts) else None,
                   run_name=run_name or first.run_name, query_ids=query_ids,
                   complete_judgments=all(part.complete_judgments for part in parts),
                   bounds=joined_intervals([part._bounds for part in parts], measures, cat),
                   tie_range=joined_intervals([part._tie_range for part in parts], measures, cat),
                   side=join_side([part.side for part in parts]), qrels_digest=qrels_digest,
                   min_coverage=first.min_coverage)

    def select(self, measures: "Sequence[str | Measure]") -> "Results":
        """These results with only `measures` (each must have been evaluated), in that order.

        One evaluation serves several views (the report's page and its curves over k). Counts per
        measure keep these only; their arrays are copied (the compiled kernel's block is freed).

        >>> from rankproof import Qrels, Run, evaluate
        >>> r = evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["x", "a"]}), ["rr", "p@1", "ndcg@2"])
        >>> page = r.select(["ndcg@2", "rr"])
        >>> [str(m) for m in page.measures], page.mean("rr"), list(page.counts["zero_ideal_queries"])
        (['ndcg@2', 'rr'], 0.5, ['ndcg@2'])
        """
        chosen = {m: dataclasses.replace(r, **{k: np.array(v)  # type: ignore[arg-type]
                                               for k, v in vars(r).items()
                                               if isinstance(v, np.ndarray)})
                  for m, r in ((m, self.result(m)) for m in map(parse_measure, measures))}
        if callable(self._counts):   # counted once, for both
            self._counts = self._counts()
        names, by_policy, selected = {str(m) for m in chosen}, self._counts, copy.copy(self)
        selected.__dict__.pop("counts", None)
        selected._measures = chosen
        selected._bounds = {m: v for m, v in self._bounds.items() if m in chosen}
        selected._tie_range = {m: v for m, v in self._tie_range.items() if m in chosen}
        selected._counts = {k: ({n: c for n, c in v.items() if n in names} if k in CUTOFF_KEYS
                                else v) for k, v in by_policy.items()}
        return selected

    def means(self) -> dict[str, float]:
        """``{measure text: mean}`` for every measure, in the order asked."""
        return {str(m): self.mean(m) for m in self._measures}

    def by(self, segment, *, measures=None, confidence: float = 0.95, n_resamples: int = 2000,
           bootstrap_method: BootstrapMethod = "percentile", seed: int = 0,
           unlabelled: Unlabelled = "error",
           resamples: int | None = None, method: BootstrapMethod | None = None):
        """Each segment's mean, count and bootstrap confidence interval, per measure.

        Parameters
        ----------
        segment : mapping query -> label, or pandas.Series indexed by query
            E.g. ``{"u1": "new", "u2": "returning"}``. Keys are read as text,
            so user ``7`` and ``"7"`` are one query.
        measures : str or list, optional
            Which of the evaluated measures; all by default.
        confidence : float
            Level of the interval, 0.95 by default.
        n_resamples : int
            Bootstrap resamples per (segment, measure); each costs one pass
            over the segment's queries. 2000 keeps the Monte Carlo error of
            the 95% endpoints near 3% of the interval's half-width, and costs
            about 1 s per measure for 50k queries (percentile or basic: drawn
            and gathered by numpy in chunks).
        bootstrap_method : {'percentile', 'basic', 'BCa'}
            The bootstrap interval, as :func:`scipy.stats.bootstrap` defines
            it. ``BCa`` corrects bias and skew; its jackknife is computed in
            closed form (linear in the segment's size) and its resamples in
            chunks, so memory stays bounded for any segment.
        seed : int
            Seeds the resampling, so the interval is reproducible.
        unlabelled : {'error', 'group', 'drop'}
            Evaluated queries the segment does not label: an error naming
            them, a segment of their own named ``'(unlabelled)'``, or left out.
        resamples, method : optional
            The earlier names of `n_resamples` and `bootstrap_method`
            (deprecated: they still work, with a DeprecationWarning).

        Returns
        -------
        rankproof.stats.segments.Segments
            Rows of (segment, measure, mean, count, low, high); ``to_pandas()``
            gives a DataFrame. The mean follows the aggregation policy (macro,
            weighted or micro) and the bootstrap resamples what that mean is
            made of; queries a measure excludes are not counted.

        Examples
        --------
        >>> from rankproof import Qrels, Run, evaluate
        >>> qrels = Qrels.from_dict({"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}})
        >>> run = Run.from_dict({"a": ["x"], "b": ["y", "x"], "c": ["y"]})
        >>> results = evaluate(qrels, run, ["rr"])
        >>> table = results.by({"a": "new", "b": "new", "c": "returning"})
        >>> row = table.get("new", "rr")
        >>> row.mean, row.count      # (1 + 1/2) / 2
        (0.75, 2)
        >>> row.low, row.high        # resamples of two values: 0.5, 0.75 or 1
        (0.5, 1.0)
        """
        from ..stats.segments import by_segment

        return by_segment(self, segment, measures=measures, confidence=confidence,
                          n_resamples=n_resamples,
                          bootstrap_method=bootstrap_method, seed=seed, unlabelled=unlabelled,
                          resamples=resamples, method=method)

    # -- counts ------------------------------------------------------------
    @cached_property
    def counts(self) -> Counts:
        """Every case a policy touched.

        Keys: queries_in_qrels, queries_in_run, queries_evaluated,
        queries_missing_from_run, queries_missing_from_qrels, duplicates_dropped,
        negative_grades, unjudged_retrieved, unjudged_dropped, tied_groups,
        tied_docs (tied_groups_from_precision under a score_precision
        other than float64), and per measure (dicts keyed by measure text):
        zero_ideal_queries, excluded_queries, unjudged_in_cutoff,
        tied_groups_crossing_cutoff.
        """
        by_policy = self._counts() if callable(self._counts) else self._counts
        self._counts = by_policy  # counted: a counting function lets go of what it counts from
        return all_counts(by_policy, self._measures)

    # -- tables and text ---------------------------------------------------
    def to_pandas(self):
        """One row per evaluated query: every measure, DCG parts of NDCG, and flags.

        Rows in the order of :attr:`queries`, whose ids (and their dtype) the
        ``query`` column holds, so it merges with the caller's own tables.
        Columns: ``query``, one per measure (NaN = excluded), ``<ndcg>:dcg`` and
        ``<ndcg>:ideal_dcg`` for each NDCG measure, ``in_run`` (False: scored as
        an empty ranking), ``retrieved``, ``unjudged_retrieved``, and
        ``zero_ideal:<measure>`` for normalised measures.
        """
        from .frame import per_query_frame

        return per_query_frame(self._table, self._measures, self._ids.given, self._ids.order)

    def summary(self) -> str:
        """Means, the protocol, its fingerprint and every nonzero count, as text
        (:func:`rankproof.results.text.summary_text`)."""
        return summary_text(self)

    @property
    def notes(self) -> tuple[str, ...]:
        """Facts about the input the printed results state: where a score matrix's pool comes
        from, that a log's truth is complete, that ``rel`` counts every rating as relevant
        (:func:`rankproof.results.advice.notes`)."""
        return tuple(advice.notes(self))

    def to_html(self, *, command: str | None = None) -> str:
        """A self-contained HTML page of these results: header, counts and warnings,
        means with bootstrap intervals, and each measure's per-query distribution.

        Curves over k, precision-recall, the drill-down and significance need the
        rankings and other runs: :func:`rankproof.report` draws those.
        """
        from ..report.figures import from_results
        from ..report.html import render

        return render(from_results([self], command=command))

    def _repr_html_(self) -> str:
        from ..report.html import in_frame

        return in_frame(self.to_html())

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" for k, v in [*self.means().items(),
                                                      *((s.measure, s.value) for s in self.side)])
        return f"Results({self.run_name!r}: {means}; protocol {self.protocol.fingerprint})"
