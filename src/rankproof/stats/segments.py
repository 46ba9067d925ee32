"""Results by segment: each segment's mean, count and a bootstrap confidence interval.

A segment is a label per query (new vs returning users, head vs tail
queries). Queries are grouped with numpy, and each (segment, measure) gets one
bootstrap, vectorised over the resamples (percentile and basic intervals by
numpy gathers in chunks; BCa with scipy's draws and a closed-form jackknife,
:mod:`.resampling`): no Python loop over queries, memory linear in the queries.

The mean follows the protocol's aggregation policy, and so does the
bootstrap: ``macro`` resamples query values; ``weighted`` resamples (value,
weight) pairs and takes sum(w v) / sum(w); ``micro`` resamples (numerator,
denominator) pairs and takes their sums' ratio. Queries a measure excludes
(``zero_ideal=exclude``) take no part in that measure's count or mean.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import InputError, literal
from ..protocol import Aggregation
from ..results.values import alias
from .keywords import BootstrapMethod, renamed_keyword
from .asymptotic import MIN_QUERIES, LargeSample, interval_check, normal_intervals
from .resampling import bca_interval, leave_one_out, resampled_statistics

__all__ = ["SegmentRow", "Segments", "SegmentGroups", "UNLABELLED", "segment_labels",
           "segment_groups",
           "by_segment"]

UNLABELLED = "(unlabelled)"
_METHODS = ("percentile", "basic", "BCa")


@dataclasses.dataclass(frozen=True)
class SegmentRow:
    """One measure over one segment.

    ``low`` and ``high`` bound the bootstrap confidence interval of ``mean``
    (NaN when fewer than 2 queries count).
    """

    segment: Any
    measure: str
    mean: float
    count: int
    low: float
    high: float


@dataclasses.dataclass(frozen=True)
class Segments:
    """What :meth:`rankproof.Results.by` returns: one row per (segment, measure).

    Attributes
    ----------
    rows : tuple of SegmentRow
        Segments in sorted label order, measures in the order evaluated.
    confidence : float
    bootstrap_method : str
        The :func:`scipy.stats.bootstrap` method.
    n_resamples : int
    seed : int
    """

    rows: tuple[SegmentRow, ...]
    confidence: float
    bootstrap_method: str
    n_resamples: int
    seed: int
    # interval= as asked ('auto', 'bootstrap', 'normal'); how many rows took the normal interval,
    # and the largest skewness shift (in standard errors) among them (rankproof.stats.asymptotic).
    interval: str = "bootstrap"
    normal_rows: int = 0
    largest_shift: float = math.nan

    @property
    def method_check(self) -> str:
        """How the intervals were computed, with the check behind the normal ones (one sentence)."""
        bootstrap = f"{self.bootstrap_method} bootstrap ({self.n_resamples} resamples, seed {self.seed})"
        if not self.normal_rows:
            return f"intervals: {bootstrap}"
        kept = len(self.rows) - self.normal_rows
        return (f"intervals: normal (mean -+ z se, delta method for ratios) on {self.normal_rows} of {len(self.rows)} "
                f"rows: skewness moves the bootstrap ends by at most {self.largest_shift:.2g} se, within the "
                f"Monte Carlo error of {self.n_resamples} resamples"
                + (f"; {kept} rows (fewer than {MIN_QUERIES:,} queries or skewed) took the {bootstrap}" if kept
                   else ""))

    method = alias("bootstrap_method", "The earlier name of :attr:`bootstrap_method`.")
    resamples = alias("n_resamples", "The earlier name of :attr:`n_resamples`.")

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def get(self, segment: Any, measure: str) -> SegmentRow:
        """The row of one segment and measure."""
        for row in self.rows:
            if row.segment == segment and row.measure == str(measure):
                return row
        raise KeyError((segment, str(measure)))

    def to_pandas(self):
        """A DataFrame with columns segment, measure, mean, count, low, high."""
        import pandas as pd

        return pd.DataFrame([dataclasses.asdict(row) for row in self.rows],
                            columns=["segment", "measure", "mean", "count", "low", "high"])

    def __str__(self) -> str:
        kind = (f"{self.bootstrap_method} bootstrap, {self.n_resamples} resamples"
                if not self.normal_rows else
                "normal" if self.normal_rows == len(self.rows)
                else f"normal or {self.bootstrap_method} bootstrap")
        lines = [f"{'segment':<16} {'measure':<14} {'mean':>8} {'count':>8}  {self.confidence:.0%} CI ({kind})"]
        for row in self.rows:
            lines.append(f"{str(row.segment):<16} {row.measure:<14} {row.mean:>8.4f} {row.count:>8}  "
                         f"[{row.low:.4f}, {row.high:.4f}]")
        if self.normal_rows:
            lines.append(self.method_check)
        return "\n".join(lines)


def segment_labels(segment, queries: np.ndarray, unlabelled: str) -> tuple[np.ndarray,
                                                                           np.ndarray | None]:
    """The label of every query, as an array aligned with `queries` (sorted str ids),
    and which queries to keep (None: all; only ``unlabelled='drop'`` drops some).

    `segment` is a mapping query -> label (keys are read as text, so user 7
    and "7" are one query) or a pandas Series indexed by query.
    """
    if hasattr(segment, "index") and hasattr(segment, "to_numpy"):  # a pandas Series
        keys, labels = np.asarray(segment.index.to_numpy()), np.asarray(segment.to_numpy())
    elif isinstance(segment, Mapping):
        keys, labels = np.asarray(list(segment.keys())), np.asarray(list(segment.values()))
    else:
        raise InputError(what="a segment must be a mapping {{{query}: label}} or a pandas Series indexed by {query}; "
                              f"got {type(segment).__name__}", value=type(segment).__name__)
    keys = keys.astype(str)
    order = np.argsort(keys, kind="stable")
    keys, labels = keys[order], labels[order]
    if len(keys) and (keys[1:] == keys[:-1]).any():
        repeated = keys[1:][keys[1:] == keys[:-1]][0]
        raise InputError(what="{query} " + literal(repeated) + " is labelled twice in the segment",
                         value=repeated,
                         fix="give each {query} one label")
    at = np.minimum(np.searchsorted(keys, queries), max(len(keys) - 1, 0))
    found = (keys[at] == queries) if len(keys) else np.zeros(len(queries), dtype=bool)
    if found.all():
        return labels[at], None
    missing = queries[~found]
    if unlabelled == "error":
        shown = (", ".join(missing[:3].tolist())
                 + (f" and {len(missing) - 3} more" if len(missing) > 3 else ""))
        raise InputError(
            what=f"{len(missing)} evaluated {{queries}} have no segment label ({literal(shown)})",
            value=missing.tolist(),
            fix=f"label them, or pass unlabelled='group' to put them in a segment {UNLABELLED!r}, or unlabelled='drop'")
    if unlabelled == "drop":
        return labels[at], found
    result = labels[at] if labels.dtype.kind == "U" else labels[at].astype(object)
    if (result.dtype.kind == "U" and result.dtype.itemsize
        < np.dtype(f"<U{len(UNLABELLED)}").itemsize):
        result = result.astype(f"<U{len(UNLABELLED)}")
    result[~found] = UNLABELLED
    return result, None


def _groups(labels: np.ndarray, keep: np.ndarray | None) -> list[tuple[Any, np.ndarray]]:
    """(label, query indices) per distinct label, labels sorted (by their text when mixed)."""
    index = np.arange(len(labels)) if keep is None else np.flatnonzero(keep)
    values = labels[index]
    try:
        distinct, inverse = np.unique(values, return_inverse=True)
    except TypeError:  # labels of several types: group by their text
        distinct, inverse = np.unique(values.astype(str), return_inverse=True)
        firsts = {str(v): v for v in values.tolist()}
        distinct = np.array([firsts[d] for d in distinct.tolist()], dtype=object)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(distinct) + 1))
    return [(distinct[i].item() if hasattr(distinct[i], "item") else distinct[i],
             index[order[bounds[i]:bounds[i + 1]]]) for i in range(len(distinct))]


@dataclasses.dataclass(frozen=True, eq=False)
class SegmentGroups:
    """Each segment's queries among `queries`: a segment matched to the query ids once, for every
    run evaluated on them (:func:`segment_groups`; a million users matched once, not once per run).

    ``groups`` holds (label, indices into ``queries``) per segment, labels sorted.
    """

    queries: np.ndarray
    groups: tuple[tuple[Any, np.ndarray], ...]


def segment_groups(segment, queries: np.ndarray, unlabelled: str = "error") -> SegmentGroups:
    """`segment` (as :func:`by_segment` takes it) matched to `queries` (``Results.table.queries``),
    for :func:`by_segment` to read instead of the segment, for every run with these queries.

    >>> grouped = segment_groups({"q1": "new", "q2": "old", "q3": "new"}, np.array(["q1", "q2", "q3"]))
    >>> [(label, members.tolist()) for label, members in grouped.groups]
    [('new', [0, 2]), ('old', [1])]
    """
    _check_unlabelled(unlabelled)
    labels, keep = segment_labels(segment, queries, unlabelled)
    return SegmentGroups(queries=queries, groups=tuple(_groups(labels, keep)))


def _check_unlabelled(unlabelled: str) -> None:
    if unlabelled not in ("error", "group", "drop"):
        raise InputError(what=f"unlabelled must be 'error', 'group' or 'drop'; got {unlabelled!r}",
                         value=unlabelled)


def _interval(data: tuple[np.ndarray, ...], statistic, confidence: float, n_resamples: int,
              bootstrap_method: str, rng) -> tuple[float, float]:
    if len(data[0]) < 2:
        return math.nan, math.nan
    point = float(statistic(*data, axis=-1))
    if all(np.all(d == d[0]) for d in data):
        return point, point  # every resample gives the same value
    if bootstrap_method != "BCa":
        return _resampled_interval(data, statistic, point, confidence, n_resamples,
                                   bootstrap_method, rng)
    # scipy's draws (64-bit indices) in chunks, and the jackknife in closed form: linear memory and
    # time.
    resampled = resampled_statistics(data, statistic, n_resamples, rng)
    jackknife = leave_one_out(*_sums(data, statistic))
    low, high = bca_interval(np.asarray(point), resampled, jackknife, confidence)
    return float(low), float(high)


def _normal_interval(data: tuple[np.ndarray, ...], statistic, confidence: float, n_resamples: int,
                     force: bool = False) -> tuple[float, float, float] | None:
    """(low, high, skewness shift in se) of the normal interval of a ratio of sums, where
    :func:`rankproof.stats.asymptotic.interval_check` says the bootstrap could not tell it apart; else None.

    The ratio R = sum(num) / sum(den) is linearised (the delta method): its influence values
    u_i = (num_i - R den_i) / mean(den) have mean 0 and R's standard error is sd(u) / sqrt(n); for a
    mean (den = 1) u is the centred values, and the interval is the plain mean -+ z sd / sqrt(n).
    """
    count = len(data[0])
    if count < (2 if force else MIN_QUERIES):
        return None
    sums = _sums(data, statistic)
    numerators = np.asarray(sums[0], dtype=np.float64)
    denominators = np.asarray(sums[1], dtype=np.float64) if len(sums) > 1 else np.ones(count)
    total = float(denominators.sum())
    if total == 0:
        return None
    ratio = float(numerators.sum()) / total
    influence = (numerators - ratio * denominators) / (total / count)
    moments = LargeSample(influence[None])
    shift, switch, _ = interval_check(moments, confidence, n_resamples)
    if not (switch[0] or force):
        return None
    (low, high), = normal_intervals(moments, confidence) - moments.mean[:, None]
    return ratio + float(low), ratio + float(high), float(shift[0])


def _sums(data: tuple[np.ndarray, ...], statistic) -> tuple[np.ndarray, ...]:
    """The statistic as a ratio of sums: (numerators,) for a mean, (numerators, denominators) otherwise."""
    if statistic is _weighted_mean:
        return data[0] * data[1], data[1]
    return data


# Resampled indices held at once: chunks of resamples keep memory near 32 MB.
_CHUNK_VALUES = 4_000_000


def _resampled_interval(data, statistic, point: float, confidence: float, n_resamples: int,
                        bootstrap_method: str, rng) -> tuple[float, float]:
    """The percentile (or basic) bootstrap interval, as :func:`scipy.stats.bootstrap` computes it.

    Each resample draws n indices uniformly with replacement (the same
    indices for every array of `data`: the pairs stay paired) and applies
    `statistic`; the interval is the (1 - c)/2 and (1 + c)/2 quantiles
    (linear interpolation) of the resampled statistics, reflected about the
    point estimate for ``basic``. Drawing 32-bit indices in chunks and
    gathering with numpy is several times faster than scipy's general
    routine (50k queries x 2000 resamples: about 2 s instead of 7 s), with
    the same distribution.
    """
    n = len(data[0])
    index_type = np.int32 if n < 2**31 else np.int64
    chunk = max(1, _CHUNK_VALUES // n)
    statistics = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        index = rng.integers(0, n, size=(count, n), dtype=index_type)
        statistics[start:start + count] = statistic(*(d[index] for d in data), axis=-1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(statistics, [alpha, 1 - alpha])
    if bootstrap_method == "basic":
        low, high = 2 * point - high, 2 * point - low
    return float(low), float(high)


def _mean(values, axis=-1):
    return np.mean(values, axis=axis)


def _weighted_mean(values, weights, axis=-1):
    total = np.sum(weights, axis=axis)
    return np.sum(values * weights, axis=axis) / np.where(total == 0, np.nan, total)


def _ratio_of_sums(numerators, denominators, axis=-1):
    total = np.sum(denominators, axis=axis)
    return np.sum(numerators, axis=axis) / np.where(total == 0, np.nan, total)


def _statistic(aggregation: Aggregation, result, inside: np.ndarray,
               weights: np.ndarray | None) -> tuple[tuple[np.ndarray, ...],
                                                    Callable[..., np.ndarray]]:
    """The per-query columns of a segment's mean, and the statistic over them."""
    if aggregation is Aggregation.WEIGHTED:
        if weights is None:  # evaluate refuses aggregation=weighted without weights
            raise InputError(what="aggregation=weighted, but these results hold no {query} weights")
        return (result.value[inside], weights[inside]), _weighted_mean
    if aggregation is Aggregation.MICRO:
        return (result.numerator[inside].astype(np.float64),
                result.denominator[inside].astype(np.float64)), _ratio_of_sums
    return (result.value[inside],), _mean


def _grouped(segment, queries: np.ndarray, unlabelled: str) -> "tuple[tuple[Any, np.ndarray], ...]":
    """(label, query indices) per segment: matched now, or as :func:`segment_groups` matched them."""
    if not isinstance(segment, SegmentGroups):
        return segment_groups(segment, queries, unlabelled).groups
    if segment.queries is not queries and not np.array_equal(segment.queries, queries):
        raise InputError(what="the segment was matched to other queries than these results'",
                         fix="match it to these results' queries: segment_groups(segment, results.table.queries)")
    return segment.groups


def by_segment(results, segment, *, measures=None, confidence: float = 0.95,
               n_resamples: int = 2000,
               bootstrap_method: BootstrapMethod = "percentile", seed: int = 0,
               unlabelled: str = "error",
               resamples: int | None = None, method: str | None = None,
               interval: str = "auto") -> Segments:
    """See :meth:`rankproof.Results.by`. ``resamples`` and ``method`` are the
    earlier names of ``n_resamples`` and ``bootstrap_method`` (deprecated).

    ``interval='auto'`` (the default) gives a segment of :data:`~rankproof.stats.asymptotic.MIN_QUERIES`
    queries or more the normal interval where the bootstrap could not tell them apart (the skewness
    check of :func:`rankproof.stats.asymptotic.interval_check`; a ratio of sums by the delta method),
    and bootstraps the others; ``'bootstrap'`` always bootstraps; ``'normal'`` never does (segments of
    2 queries or more). ``Segments.method_check`` says what was done. ``segment`` may also be a
    :class:`SegmentGroups` matched to these results' queries (:func:`segment_groups`), read as it is.
    """
    n_resamples = renamed_keyword(n_resamples, resamples, new="n_resamples", old="resamples",
                                  default=2000,
                                  where="Results.by")
    bootstrap_method = renamed_keyword(bootstrap_method, method, new="bootstrap_method",
                                       old="method",
                                       default="percentile", where="Results.by")
    if interval not in ("auto", "bootstrap", "normal"):
        raise InputError(what=literal(f"interval must be 'auto', 'bootstrap' or 'normal'; got {interval!r}"),
                         value=interval)
    _check_unlabelled(unlabelled)
    if bootstrap_method not in _METHODS:
        raise InputError(what=f"method must be one of {', '.join(_METHODS)}; got {bootstrap_method!r}",
                         value=bootstrap_method)
    if not 0 < confidence < 1:
        raise InputError(what=f"confidence must be between 0 and 1, e.g. 0.95; got {confidence!r}",
                         value=confidence)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise InputError(what=f"resamples must be a positive integer, e.g. 2000; got {n_resamples!r}",
                         value=n_resamples)
    chosen = results.measures if measures is None else [results.result(m).measure for m in
                                                          ([measures] if isinstance(measures, str)
                                                           else measures)]
    aggregation = results.protocol.aggregation
    rng = np.random.default_rng(seed)
    rows, shifts = [], []
    for label, members in _grouped(segment, results.table.queries, unlabelled):
        for measure in chosen:
            result = results.result(measure)
            inside = members[result.included[members]]
            data, statistic = _statistic(aggregation, result, inside, results.weights)
            mean = float(statistic(*data, axis=-1)) if len(inside) else math.nan
            if aggregation is Aggregation.MICRO and len(inside) and data[1].sum() == 0:
                mean = 0.0  # as Results.mean: nothing to divide by scores 0
            normal = (_normal_interval(data, statistic, confidence, n_resamples,
                                       force=interval == "normal")
                      if interval != "bootstrap" else None)
            if normal is not None:
                low, high, shift = normal
                shifts.append(shift)
            else:
                low, high = _interval(data, statistic, confidence, n_resamples, bootstrap_method,
                                      rng)
            rows.append(SegmentRow(segment=label, measure=str(measure), mean=mean,
                                   count=int(len(inside)),
                                   low=low, high=high))
    return Segments(rows=tuple(rows), confidence=confidence, bootstrap_method=bootstrap_method,
                    n_resamples=n_resamples, seed=seed, interval=interval, normal_rows=len(shifts),
                    largest_shift=max(shifts, default=math.nan))
