"""Results: per-query values, aggregates, the protocol and policy counts.

Results never compute measures; they hold what :func:`rankproof.evaluate`
produced and aggregate it under the protocol's aggregation policy.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cached_property
from typing import Any

import numpy as np

from .data.align import Alignment
from .errors import MeasureError
from .measures.base import Measure, parse_measure
from .protocol import Aggregation, Protocol

__all__ = ["Results", "MeasureResult"]


@dataclasses.dataclass(frozen=True)
class MeasureResult:
    """One measure over every evaluated query.

    ``value`` is NaN where ``included`` is False (excluded by zero_ideal='exclude').
    """

    measure: Measure
    value: np.ndarray
    included: np.ndarray
    numerator: np.ndarray | None
    denominator: np.ndarray | None
    zero_ideal: np.ndarray


def _group_end(group_offsets: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """End (exclusive) of the group holding each of the given positions."""
    return group_offsets[np.searchsorted(group_offsets, positions, side="right")]


def _unjudged_before(a: Alignment) -> np.ndarray:
    """Number of unjudged docs before each position (and, last, in all)."""
    unjudged_before = np.empty(len(a.judged) + 1, dtype=np.int64)
    unjudged_before[0] = 0
    np.cumsum(~a.judged, out=unjudged_before[1:])
    return unjudged_before


def _unjudged_in_cutoff(a: Alignment, unjudged_before: np.ndarray, k: int) -> int:
    """Unjudged docs that can land within the top k: those whose group starts before k."""
    # Per query, everything up to the end of the group holding rank k.
    lengths = np.diff(a.offsets)
    ranked = np.flatnonzero(lengths > 0)
    last_inside = a.offsets[ranked] + np.minimum(k, lengths[ranked]) - 1
    end = _group_end(a.group_offsets, last_inside)
    return int((unjudged_before[end] - unjudged_before[a.offsets[ranked]]).sum())


def _tied_groups_crossing(a: Alignment, k: int) -> int:
    """Groups of equal scores holding both rank k and rank k + 1."""
    lengths = np.diff(a.offsets)
    longer = np.flatnonzero(lengths > k)
    last_inside = a.offsets[longer] + k - 1
    return int((_group_end(a.tie_offsets, last_inside) > last_inside + 1).sum())


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

    def __init__(self, *, alignment: Alignment, protocol: Protocol,
                 measures: dict[Measure, MeasureResult], weights: np.ndarray | None, run_name: str,
                 qrels=None) -> None:
        self._alignment = alignment
        self._qrels = qrels
        self.protocol = protocol
        self._measures = measures
        self._weights = weights
        self.run_name = run_name
        # True when the judgments list every relevant doc (a recommender's
        # truth table): a doc missing from them is non-relevant by definition,
        # so there is nothing to warn about.
        self.complete_judgments = False

    def _with_complete_judgments(self, note: str) -> "Results":
        """These results, stating that every doc absent from the judgments is non-relevant."""
        import copy

        stated = copy.copy(self)
        stated._alignment = dataclasses.replace(self._alignment, notes=(*self._alignment.notes, note))
        stated.complete_judgments = True
        return stated

    @property
    def qrels_source(self) -> str:
        return self._alignment.qrels_source

    @cached_property
    def qrels_digest(self) -> str | None:
        """Content digest of the judgments (see :func:`rankproof.data.digest.qrels_digest`)."""
        from .data.digest import qrels_digest

        return qrels_digest(self._qrels) if self._qrels is not None else None

    # -- access ------------------------------------------------------------
    @property
    def queries(self) -> list[str]:
        """Evaluated queries, in order."""
        return self._alignment.queries.tolist()

    @property
    def measures(self) -> list[Measure]:
        return list(self._measures)

    def _result(self, measure: "str | Measure") -> MeasureResult:
        key = parse_measure(measure)
        try:
            return self._measures[key]
        except KeyError:
            asked = ", ".join(str(m) for m in self._measures)
            raise MeasureError(f"{key} was not evaluated; these were: {asked}") from None

    def values(self, measure: "str | Measure") -> np.ndarray:
        """Per-query values as an array aligned with :attr:`queries` (NaN = excluded)."""
        return self._result(measure).value.copy()

    def per_query(self, measure: "str | Measure") -> dict[str, float]:
        """``{query: value}`` for the queries the measure's mean includes."""
        result = self._result(measure)
        keep = np.flatnonzero(result.included)
        return dict(zip(self._alignment.queries[keep].tolist(), result.value[keep].tolist()))

    def mean(self, measure: "str | Measure") -> float:
        """The aggregate under the protocol's aggregation policy.

        macro: mean of per-query values; micro: sum of numerators over sum of
        denominators; weighted: sum(w * v) / sum(w). Excluded queries take no
        part; with no query left the mean is NaN.
        """
        result = self._result(measure)
        keep = result.included
        if not keep.any():
            return math.nan
        if self.protocol.aggregation is Aggregation.MICRO:
            denominator = result.denominator[keep].sum()
            return float(result.numerator[keep].sum() / denominator) if denominator else 0.0
        if self.protocol.aggregation is Aggregation.WEIGHTED:
            w = self._weights[keep]
            return float(np.dot(w, result.value[keep]) / w.sum()) if w.sum() else math.nan
        return float(result.value[keep].mean())

    def means(self) -> dict[str, float]:
        """``{measure text: mean}`` for every measure, in the order asked."""
        return {str(m): self.mean(m) for m in self._measures}

    def by(self, segment, *, measures=None, confidence: float = 0.95, resamples: int = 2000,
           method: str = "percentile", seed: int = 0, unlabelled: str = "error"):
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
        resamples : int
            Bootstrap resamples per (segment, measure); each costs one pass
            over the segment's queries.
        method : {'percentile', 'basic', 'BCa'}
            The :func:`scipy.stats.bootstrap` method. ``BCa`` corrects bias
            and skew but its jackknife costs time quadratic in the segment's
            size: keep it for segments of a few thousand queries.
        seed : int
            Seeds the resampling, so the interval is reproducible.
        unlabelled : {'error', 'group', 'drop'}
            Evaluated queries the segment does not label: an error naming
            them, a segment of their own named ``'(unlabelled)'``, or left out.

        Returns
        -------
        rankproof.segments.Segments
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
        from .segments import by_segment

        return by_segment(self, segment, measures=measures, confidence=confidence, resamples=resamples,
                          method=method, seed=seed, unlabelled=unlabelled)

    # -- counts ------------------------------------------------------------
    @cached_property
    def counts(self) -> dict[str, Any]:
        """Every case a policy touched.

        Keys: queries_in_qrels, queries_in_run, queries_evaluated,
        queries_missing_from_run, queries_missing_from_qrels, duplicates_dropped,
        negative_grades, unjudged_retrieved, unjudged_dropped, tied_groups,
        tied_docs, and per measure (dicts keyed by measure text):
        zero_ideal_queries, excluded_queries, unjudged_in_cutoff,
        tied_groups_crossing_cutoff.
        """
        a = self._alignment
        counts: dict[str, Any] = dict(a.counts)
        counts["zero_ideal_queries"] = {
            str(m): int(r.zero_ideal.sum()) for m, r in self._measures.items() if m.spec.normalised}
        counts["excluded_queries"] = {
            str(m): int((~r.included).sum()) for m, r in self._measures.items() if m.spec.normalised}
        if hasattr(a, "cutoff_counts"):  # a fast path that counted these itself (rankproof.scores)
            counts.update(a.cutoff_counts(self._measures))
            return counts

        counts["unjudged_in_cutoff"] = {}
        counts["tied_groups_crossing_cutoff"] = {}
        if any(measure.spec.cutoff for measure in self._measures):
            unjudged_before = _unjudged_before(a)  # one pass, shared by every cutoff
        for measure in self._measures:
            if measure.cutoff is None:
                if measure.spec.cutoff:
                    counts["unjudged_in_cutoff"][str(measure)] = int(unjudged_before[-1])
                continue
            # A doc whose tie group starts inside the cutoff can land inside it.
            counts["unjudged_in_cutoff"][str(measure)] = _unjudged_in_cutoff(a, unjudged_before, measure.cutoff)
            counts["tied_groups_crossing_cutoff"][str(measure)] = _tied_groups_crossing(a, measure.cutoff)
        return counts

    # -- tables and text ---------------------------------------------------
    def to_pandas(self):
        """One row per evaluated query: every measure, DCG parts of NDCG, and flags.

        Columns: ``query``, one per measure (NaN = excluded), ``<ndcg>:dcg`` and
        ``<ndcg>:ideal_dcg`` for each NDCG measure, ``in_run`` (False: scored as
        an empty ranking), ``retrieved``, ``unjudged_retrieved``, and
        ``zero_ideal:<measure>`` for normalised measures.
        """
        import pandas as pd

        a = self._alignment
        columns: dict[str, Any] = {"query": a.queries.tolist()}
        for measure, result in self._measures.items():
            columns[str(measure)] = result.value
        for measure, result in self._measures.items():
            if measure.name == "ndcg":
                columns[f"{measure}:dcg"] = result.numerator
                columns[f"{measure}:ideal_dcg"] = result.denominator
        columns["in_run"] = a.in_run
        columns["retrieved"] = a.lengths
        position_query = np.repeat(np.arange(a.num_queries), a.lengths)
        columns["unjudged_retrieved"] = np.bincount(position_query[~a.judged], minlength=a.num_queries)
        for measure, result in self._measures.items():
            if measure.spec.normalised:
                columns[f"zero_ideal:{measure}"] = result.zero_ideal
        return pd.DataFrame(columns)

    def summary(self) -> str:
        """Means, the protocol, its fingerprint and every nonzero count, as text."""
        lines = [f"run {self.run_name}: {self.counts['queries_evaluated']} queries evaluated"]
        width = max(len(str(m)) for m in self._measures)
        for measure in self._measures:
            lines.append(f"  {str(measure):<{width}}  {self.mean(measure):.4f}")
        lines.append(f"protocol {self.protocol}")
        lines.append(f"fingerprint {self.protocol.fingerprint}")
        lines.extend(f"note {note}" for note in getattr(self._alignment, "notes", ()))
        touched = []
        for key, value in self.counts.items():
            if isinstance(value, dict):
                touched.extend(f"{key}[{m}]={v}" for m, v in value.items() if v)
            elif value and key not in ("queries_in_qrels", "queries_in_run", "queries_evaluated"):
                touched.append(f"{key}={value}")
        lines.append("counts " + (", ".join(touched) if touched else "none touched"))
        inside = sum(self.counts["unjudged_in_cutoff"].values())
        if inside and not self.complete_judgments:
            lines.append("warning: unjudged docs fall inside the cutoff and are scored as non-relevant; "
                         "unjudged is not non-relevant")
        return "\n".join(lines)

    def to_html(self, *, command: str | None = None) -> str:
        """A self-contained HTML page of these results: header, counts and warnings,
        means with bootstrap intervals, and each measure's per-query distribution.

        Curves over k, precision-recall, the drill-down and significance need the
        rankings and other runs: :func:`rankproof.report` draws those.
        """
        from .figures import from_results
        from .report.html import render

        return render(from_results([self], command=command))

    def _repr_html_(self) -> str:
        from .report.html import in_frame

        return in_frame(self.to_html())

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" for k, v in self.means().items())
        return f"Results({self.run_name!r}: {means}; protocol {self.protocol.fingerprint})"
