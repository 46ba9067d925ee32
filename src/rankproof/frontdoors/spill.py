"""Per-query values on disk: the Results of an out-of-core evaluation whose users' values exceed its budget.

Under a memory budget too small to hold every user's values (5 million
users' values take about a gigabyte), each part's per-query arrays are
written to files in a temporary folder as the part finishes, and what the
means need is accumulated as the parts go: per measure, the count of included
queries and the *exact* sums (:class:`ExactSum`) of the values, of the
numerators and denominators (micro) and of the weighted values and weights
(weighted), and the policy counts. The Results given back
(:class:`SpilledResults`) hold the per-query arrays memory-mapped from those
files, so a mean, a count or a coverage check reads no per-query array, and
the pages of a per-query array are read only when it is asked for.

A mean is the exact sum divided by the count, rounded once: the correctly
rounded mean of the values. The in-memory evaluation adds with numpy's
pairwise sum, which is within a few units in the last place of it (the two
agree to about 1e-15 relative; they are not always equal bit for bit).

The queries come in the order of the parts (for a log sorted by user, the
log's order) rather than sorted. The folder is removed when the Results are
garbage-collected or the process exits, and, when the process is killed, by
the next out-of-core evaluation (:func:`rankproof.frontdoors.budget.temporary_folder`).

Examples
--------
>>> import numpy as np
>>> total = ExactSum()
>>> total.add(np.array([0.1, 0.2])); total.add(np.array([0.3]))
>>> total.mean(3) == 0.2, sum([0.1, 0.2, 0.3]) / 3 == 0.2
(True, False)
"""

from __future__ import annotations

import math
import os
import shutil
import weakref
from fractions import Fraction
from functools import cached_property
from typing import Any, Callable, cast

import numpy as np

from ..errors import InputError
from ..pipeline.alignment import QueryTable
from ..protocol import Aggregation, CountSummary
from ..results import Counts, MeasureResult, Results

__all__ = ["ExactSum", "Spill", "SpilledResults"]

# Every float64 is an integer times 2**-SHIFT (the smallest subnormal is 2**-1074, a 53-bit
# significand below it reaches 2**-1126).
_SHIFT = 1126
# Values summed at once: bincount adds 27-bit halves as float64, exact below 2**53 in total.
_CHUNK = 1 << 24


class ExactSum:
    """The exact sum of float64 values added in any order and in any number of pieces.

    Each finite value is ``M * 2**(e - 53)`` with an integer M of 53 bits
    (``numpy.frexp``); the M's are added, per exponent, in two halves of 26
    and 27 bits (so float64 adds them exactly), and the sum is kept as one
    Python integer times ``2**-1126``. Infinities and NaN are added apart (a
    NaN or opposite infinities make the sum NaN).
    """

    def __init__(self) -> None:
        self.total = 0          # the sum of the finite values times 2**_SHIFT
        self.special = 0.0      # the sum of the others

    def add(self, values: np.ndarray) -> None:
        values = np.asarray(values, dtype=np.float64).ravel()
        finite = np.isfinite(values)
        if not finite.all():
            self.special += float(values[~finite].sum())
            values = values[finite]
        for start in range(0, values.size, _CHUNK):
            mantissa, exponent = np.frexp(values[start:start + _CHUNK])
            whole = (mantissa * 2.0**53).astype(np.int64)          # exact: 53 bits at most
            shift = exponent.astype(np.int64) + (_SHIFT - 53)      # >= 0 for every float64
            high, low = whole >> 26, whole & ((1 << 26) - 1)      # whole = high * 2**26 + low
            highs = np.bincount(shift, weights=high.astype(np.float64))
            lows = np.bincount(shift, weights=low.astype(np.float64))
            for s in np.flatnonzero((highs != 0) | (lows != 0)).tolist():
                self.total += (int(highs[s]) << (s + 26)) + (int(lows[s]) << s)

    def fraction(self) -> Fraction:
        """The finite values' sum, exactly."""
        return Fraction(self.total, 1 << _SHIFT)

    def value(self) -> float:
        """The sum, rounded once."""
        return float(self.fraction()) + self.special

    def mean(self, count: int) -> float:
        """The sum over `count`, rounded once (NaN for no value)."""
        if not count:
            return math.nan
        return float(self.fraction() / count) + self.special

    def over(self, other: "ExactSum") -> float:
        """This sum over another, rounded once; None when the other is zero."""
        # an infinity or a NaN: float arithmetic says what it gives
        if self.special or other.special:
            return self.value() / other.value()
        below = other.fraction()
        return math.nan if not below else float(self.fraction() / below)


class _Measure:
    """What one measure's mean and counts need, accumulated over the parts."""

    def __init__(self) -> None:
        self.included = 0
        self.zero_ideal = 0
        self.values, self.numerators, self.denominators = ExactSum(), ExactSum(), ExactSum()
        self.weighted, self.weights = ExactSum(), ExactSum()
        self.ratio = True       # every part gave numerators and denominators

    def add(self, result: MeasureResult, weights: np.ndarray | None) -> None:
        keep = result.included
        self.included += int(keep.sum())
        self.zero_ideal += int(result.zero_ideal.sum())
        self.values.add(result.value[keep])
        if result.numerator is None or result.denominator is None:
            self.ratio = False
        else:
            self.numerators.add(result.numerator[keep])
            self.denominators.add(result.denominator[keep])
        if weights is not None:
            self.weighted.add(weights[keep] * result.value[keep])
            self.weights.add(weights[keep])


def _merge_counts(total: dict, counts) -> None:
    """Add a part's counts (each a count of cases; per measure, dicts) into `total`."""
    for key, value in counts.items():
        if key in ("zero_ideal_queries", "excluded_queries"):
            continue  # from the values: SpilledResults.counts
        if isinstance(value, dict):
            inner = total.setdefault(key, {})
            inner.update({m: inner.get(m, 0) + v for m, v in value.items()})
        else:
            total[key] = total.get(key, 0) + value


class Spill:
    """Each part's per-query arrays appended to files in `folder`, and what the means need added up.

    ``add(part)`` once per part (a :class:`~rankproof.Results` of whole
    users), in the order the queries are to be shown; ``results()`` at the
    end. Per-list side-data measures, bounds and tie ranges are refused (they
    are evaluated in memory).
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.parts = 0
        self.rows = 0
        self.width = 1                       # characters of the longest query id
        self.first: dict[str, Any] | None = None
        self.sums: dict = {}
        self.counts: dict[str, Any] = {}
        self.notes: dict[str, int] = {}
        self.warnings: dict[str, int] = {}
        self.grades: list[tuple] = []
        self.judged = self.missing = 0
        self.weighted: bool | None = None    # do the parts carry weights (None: no part yet)

    def _append(self, name: str, array: np.ndarray) -> None:
        with open(os.path.join(self.folder, name), "ab") as handle:
            np.ascontiguousarray(array).tofile(handle)

    def add(self, part: Results) -> None:
        if part.side or part.has_bounds or part.has_tie_range:
            raise InputError(what="side-data measures, bounds and tie ranges are evaluated in memory",
                             fix="leave out memory_budget (--memory-budget), or give one that holds every "
                                 "user's values")
        self._check(part)
        table = part.table
        np.save(os.path.join(self.folder, f"queries-{self.parts}.npy"), table.queries)
        self.width = max(self.width, table.queries.dtype.itemsize // 4)
        for name, array in (("in_run", table.in_run), ("retrieved", table.retrieved),
                            ("unjudged", table.unjudged_retrieved)):
            self._append(name, array)
        weights = part.weights
        if self.weighted is None:
            self.weighted = weights is not None
        if self.weighted != (weights is not None):
            raise InputError(what="some parts of the log were evaluated with weights and some without")
        if weights is not None:
            self._append("weights", weights.astype(np.float64))
        for index, measure in enumerate(part.measures):
            result = part.result(measure)
            for name in ("value", "included", "numerator", "denominator", "zero_ideal"):
                array = getattr(result, name)
                if array is not None:
                    self._append(f"{index}-{name}", array)
            self.sums.setdefault(measure, _Measure()).add(result, weights)
        _merge_counts(self.counts, part.counts)
        self.notes.update(dict.fromkeys(table.notes, 0))
        self.warnings.update(dict.fromkeys(table.warnings, 0))
        if table.grade_range is not None:
            self.grades.append(table.grade_range)
        self.judged += table.judged_queries
        self.missing += table.missing_queries
        self.rows += len(table.queries)
        self.parts += 1

    def _check(self, part: Results) -> None:
        """Every part under one protocol, with the same measures (as Results.concat asks)."""
        shape = {"protocol": part.protocol, "measures": part.measures, "run_name": part.run_name,
                 "sources": (part.table.qrels_source, part.table.run_source),
                 "complete": part.complete_judgments, "min_coverage": part.min_coverage}
        if self.first is None:
            self.first = shape
        elif (shape["protocol"], shape["measures"]) != (self.first["protocol"],
                                                        self.first["measures"]):
            raise InputError(what="the parts of the log were evaluated under different protocols or measures")
        else:
            self.first["complete"] = self.first["complete"] and shape["complete"]

    def _mapped(self, name: str, dtype) -> np.ndarray:
        path = os.path.join(self.folder, name)
        if not self.rows:
            return np.zeros(0, dtype=dtype)
        return np.memmap(path, dtype=dtype, mode="r", shape=(self.rows,))

    def _queries(self) -> np.ndarray:
        """The parts' query ids in one file of the widest ids' width, memory-mapped."""
        dtype = np.dtype(f"<U{self.width}")
        with open(os.path.join(self.folder, "queries"), "wb") as handle:
            for index in range(self.parts):
                path = os.path.join(self.folder, f"queries-{index}.npy")
                np.load(path).astype(dtype).tofile(handle)
                os.remove(path)
        return self._mapped("queries", dtype)

    def results(self, run_name: str | None = None, query_ids=None) -> "SpilledResults":
        """The Results of every part, their per-query arrays mapped from the files (removed with them)."""
        if self.first is None:
            raise InputError(what="the log gave no part to evaluate")
        first = self.first
        table = QueryTable(
            queries=self._queries(), in_run=self._mapped("in_run", np.bool_),
            retrieved=self._mapped("retrieved", np.int64),
            unjudged_retrieved=self._mapped("unjudged", np.int64),
            qrels_source=first["sources"][0], run_source=first["sources"][1],
            notes=tuple(self.notes),
            grade_range=(min(r[0] for r in self.grades), max(r[1] for r in self.grades))
            if self.grades else None,
            judged_queries=self.judged, warnings=tuple(self.warnings), missing_queries=self.missing)
        measures = {}
        for index, measure in enumerate(first["measures"]):
            ratio = self.sums[measure].ratio
            measures[measure] = MeasureResult(
                measure=measure, value=self._mapped(f"{index}-value", np.float64),
                included=self._mapped(f"{index}-included", np.bool_),
                numerator=self._mapped(f"{index}-numerator", np.float64) if ratio else None,
                denominator=self._mapped(f"{index}-denominator", np.float64) if ratio else None,
                zero_ideal=self._mapped(f"{index}-zero_ideal", np.bool_))
        found = SpilledResults(table=table, counts=self.counts, protocol=first["protocol"],
                               measures=measures,
                               weights=self._mapped("weights", np.float64) if self.weighted
                               else None,
                               run_name=run_name or first["run_name"], query_ids=query_ids,
                               complete_judgments=first["complete"],
                               min_coverage=first["min_coverage"])
        found.adopt(self.sums, self.counts, self.folder)
        return found

    def discard(self) -> None:
        """Remove the folder (an evaluation that failed)."""
        shutil.rmtree(self.folder, ignore_errors=True)


class SpilledResults(Results):
    """Results whose per-query arrays are memory-mapped files: means and counts from sums kept aside.

    Everything else reads the arrays (:meth:`values`, :meth:`per_query`,
    :meth:`to_pandas`, ...), which brings their pages into memory.
    """

    def adopt(self, sums: dict, counts: dict, folder: str) -> None:
        """Take the accumulated sums and counts, and the folder (removed with these results, or at exit)."""
        self._sums = sums
        self._policy_counts = counts
        self._folder = folder
        weakref.finalize(self, shutil.rmtree, folder, True)

    @property
    def folder(self) -> str:
        """The folder of the per-query files (removed with these results, or at exit)."""
        return self._folder

    def mean(self, measure) -> float:
        """As :meth:`Results.mean`, from the exact sums: the correctly rounded aggregate."""
        from ..errors import MeasureError, literal

        result = self.result(measure)
        sums = self._sums[result.measure]
        if not sums.included:
            return math.nan
        if result.measure.spec.count and self.protocol.counts is CountSummary.SUM:
            return sums.values.value()
        if self.protocol.aggregation is Aggregation.MICRO:
            if not sums.ratio:
                raise MeasureError(what=f"{literal(result.measure)} is not a ratio of sums, so it has no micro mean")
            below = sums.denominators.value()
            return sums.numerators.over(sums.denominators) if below else 0.0
        if self.protocol.aggregation is Aggregation.WEIGHTED:
            if self.weights is None:
                raise MeasureError(what="aggregation=weighted, but these results hold no {query} weights")
            return sums.weighted.over(sums.weights)
        return sums.values.mean(sums.included)

    @cached_property
    def counts(self) -> Counts:
        """As :attr:`Results.counts`; the per-measure query counts from the sums, not the arrays."""
        cutoff_keys = ("unjudged_in_cutoff", "tied_groups_crossing_cutoff")
        by_policy = self._policy_counts
        counts: dict[str, Any] = {k: v for k, v in by_policy.items() if k not in cutoff_keys}
        counted = [m for m in self.measures if m.spec.normalised or self._sums[m].zero_ideal]
        counts["zero_ideal_queries"] = {str(m): self._sums[m].zero_ideal for m in counted}
        counted += [m for m in self.measures if m.spec.always_excluded and m not in counted]
        rows = len(self.table.queries)
        counts["excluded_queries"] = {str(m): rows - self._sums[m].included for m in counted}
        counts.update({k: by_policy[k] for k in cutoff_keys if k in by_policy})
        return cast(Counts, counts)


class Joined:
    """The parts' Results as they come: held and joined by :meth:`Results.concat` at the end, or
    (with a :class:`Spill`) written to disk once the next part is evaluated (the last part may
    be evaluated again, with a trailing part that lacked truth or predictions)."""

    def __init__(self, folder: "Callable[[], str] | None" = None) -> None:
        # `folder` makes the spill's folder: None holds the parts in memory.
        self.folder = folder
        self.spill = Spill(folder()) if folder is not None else None
        self.held: list[Results] = []

    def __len__(self) -> int:
        return len(self.held) + (self.spill.parts if self.spill is not None else 0)

    def append(self, part: Results) -> None:
        self._flush()
        self.held.append(part)

    def replace_last(self, part: Results) -> None:
        self.held[-1] = part

    def _flush(self) -> None:
        if self.spill is not None:
            for held in self.held:
                self.spill.add(held)
            self.held = []

    def results(self, run_name: str | None = None, query_ids=None) -> Results:
        """The whole evaluation's Results (sorted by query when held; in part order when spilled)."""
        if self.spill is None:
            return Results.concat(self.held, run_name=run_name, sort=True, query_ids=query_ids)
        self._flush()
        return self.spill.results(run_name, query_ids)

    def discard(self) -> None:
        """Drop what was evaluated, and the spill's folder (an evaluation that failed or starts over)."""
        self.held = []
        if self.spill is not None:
            self.spill.discard()

    def restart(self) -> None:
        """Drop what was evaluated, to evaluate again from the first part (in a new folder)."""
        self.discard()
        self.spill = Spill(self.folder()) if self.folder is not None else None
