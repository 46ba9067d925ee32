"""The compiled engine: the ranked family in one fused pass per query.

:mod:`rankproof._libs.ranked` (Cython, nogil) computes every requested
measure of the ranked family and trec_eval's set and count measures (see
``KINDS``) for a query while its ranking is in cache, tie groups in closed
form as the numpy reference does. This module turns the measures into the
kernel's plan (small integer tables), builds the gain and discount tables
once, and hands every other measure to the numpy engine, measure by measure.
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import TieError
from ..measures.base import Measure
from ..measures.compute import Values, discount_table, gains_of
from ..protocol import ApDenominator, Gain, GainMap, Ideal, PrecisionDenominator, RecallDenominator
from ..measures.user_models import err_max_grade, err_stop_chance
from .base import NumpyEngine, refuse_ordered_ties

__all__ = ["CompiledEngine", "KINDS"]


def _kernel_kinds() -> dict[str, int]:
    """Measure name -> the kernel's kind number, from the kernel's enum
    (``Kind.NDCG`` computes "ndcg"); empty when the extension is not built
    (``CompiledEngine()`` then says so)."""
    try:
        from .._libs.ranked import Kind
    except ImportError:
        return {}
    return {kind.name.lower(): int(kind) for kind in Kind}


KINDS: dict[str, int] = _kernel_kinds()

# Real-valued parameters, in the order of the kernel's params row.
_PARAMS: dict[str, tuple[str, ...]] = {
    "rprec_mult": ("mult",), "set_f": ("beta",), "utility": ("a", "b", "c", "d", "docs"),
}
_GAIN_KINDS = {"dcg", "ideal_dcg", "ndcg"}
_IDEAL_KINDS = {"ideal_dcg", "ndcg"}
_NO_REL = {"dcg", "ideal_dcg", "ndcg", "judged", "num_ret", "unjudged", "err"}
# Measures that read a table indexed by grade (gains, ERR's stopping chances).
_TABLE_KINDS = _GAIN_KINDS | {"err"}

# The fields of Values each measure returns, as the numpy engine does
# (micro averaging reads numerator / denominator; zero_ideal reads undefined).
_VALUE, _UNDEFINED, _RATIO, _NORMALISED_RATIO = ((), ("undefined",), ("numerator", "denominator"),
                                                 ("numerator", "denominator", "undefined"))
_FIELDS: dict[str, tuple[str, ...]] = {
    "dcg": _VALUE, "ideal_dcg": _VALUE, "rr": _VALUE, "hit": _VALUE, "num_ret": _VALUE,
    "num_rel": _VALUE, "num_rel_ret": _VALUE, "utility": _VALUE, "num_nonrel_judged_ret": _VALUE,
    "ap": _UNDEFINED, "bpref": _UNDEFINED, "set_ap": _UNDEFINED, "set_f": _UNDEFINED,
    "p": _RATIO, "judged": _RATIO, "set_p": _RATIO, "unjudged": _RATIO,
    "ndcg": _NORMALISED_RATIO, "r": _NORMALISED_RATIO, "rprec": _NORMALISED_RATIO,
    "set_r": _NORMALISED_RATIO, "set_relative_p": _NORMALISED_RATIO, "relative_p": _NORMALISED_RATIO,
    "rprec_mult": _NORMALISED_RATIO, "err": _VALUE,
}

# Denominator policy -> the kernel's number, per measure.
_POLICIES: dict[str, tuple[str, dict]] = {
    "p": ("precision_denominator", {PrecisionDenominator.K: 0, PrecisionDenominator.RETRIEVED: 1}),
    "r": ("recall_denominator", {RecallDenominator.RELEVANT: 0, RecallDenominator.MIN_K: 1}),
    "ap": ("ap_denominator", {ApDenominator.RELEVANT: 0, ApDenominator.MIN_K: 1, ApDenominator.HITS: 2}),
}
_HITS = 2
_POOLS = {Ideal.JUDGED: 0, Ideal.RETRIEVED: 1}
# Gain formulas of the kernel (for grades outside a gain table's range).
_FORMULAS = {Gain.LINEAR: 0, Gain.EXP2: 1}
_MAP = 2

# Gains are looked up in a table indexed by grade; beyond this many distinct
# grades in the pools (e.g. grades in the thousands) the gain measures go to
# the numpy engine.
_LARGEST_GRADE_SPAN = 4096
# Below this many queries one thread is faster than starting several.
_QUERIES_PER_THREAD = 20_000


def _distinct_descending(values: np.ndarray) -> np.ndarray:
    """The distinct values, highest first: ``np.unique(values)[::-1]`` for
    finite values, without np.unique, whose first call imports numpy.ma
    (~20 ms of a small evaluation's whole process).

    >>> _distinct_descending(np.array([1.0, 3.0, 1.0, 2.0])).tolist()
    [3.0, 2.0, 1.0]
    """
    ordered = np.sort(values)[::-1]
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


def _threads(num_queries: int) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, num_queries // _QUERIES_PER_THREAD, 8))


class CompiledEngine:
    """The default engine (see the module docstring).

    ``supports(measure)`` is True for the measures of ``KINDS``, computed in
    the compiled pass; the others are computed by :class:`NumpyEngine`, and so are
    the gain measures when grades span more than 4096 values (or, for real
    grades, take more than 4096 distinct values). Real-valued grades are
    computed in the compiled pass through their ranks (see ``_evaluate_real``).
    """

    name = "compiled"

    def __init__(self) -> None:
        try:
            from .._libs import ranked as _ranked
        except ImportError as error:  # a source checkout whose extensions were never built
            raise ImportError(
                f"rankproof's compiled engine is not built ({error}); build it with `make ext` "
                "(or `pip install .`), or pass engine='numpy'"
            ) from error
        self._kernel = _ranked.evaluate_ranked
        self._reference = NumpyEngine()

    def supports(self, measure: Measure) -> bool:
        return measure.name in KINDS

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        if alignment.grade.dtype.kind == "f" or alignment.pool_grade.dtype.kind == "f":
            return self._evaluate_real(alignment, measures, protocol)
        grade = np.ascontiguousarray(alignment.grade, dtype=np.int64)
        pool_grade = np.ascontiguousarray(alignment.pool_grade, dtype=np.int64)
        low, high = self._grade_range(measures, protocol, grade, pool_grade)
        # Grades spanning more than a table may hold (grade 10^9) build no table at all.
        table_grades = np.arange(low, high + 1, dtype=np.int64) if high - low < _LARGEST_GRADE_SPAN else None
        return self._split(alignment, measures, protocol, grade, pool_grade, low, table_grades, _integer_rel)

    def _evaluate_real(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        """Real-valued grades (grades=real, or a score matrix's real relevance).

        The kernel indexes its gain tables by integer grade, so each distinct
        real grade is replaced by its rank among them (0.0 included, the grade
        of unjudged docs): ranks keep every order, so ``grade >= rel`` is
        ``rank >= rank of the smallest grade >= rel``, and the gain table of
        rank i holds the gain of the i-th real grade. Exact, and no kernel
        change. The gain measures go to the numpy engine beyond 4096
        distinct grades, as for integer grades.
        """
        judged_grades = np.asarray(alignment.grade, dtype=np.float64)[np.asarray(alignment.judged, dtype=bool)]
        table_grades = np.unique(np.concatenate([np.asarray(alignment.pool_grade, dtype=np.float64),
                                                 judged_grades, [0.0]]))
        grade = np.ascontiguousarray(np.searchsorted(table_grades, np.asarray(alignment.grade, np.float64)),
                                     dtype=np.int64)
        grade[~np.asarray(alignment.judged, dtype=bool)] = int(np.searchsorted(table_grades, 0.0))
        pool_grade = np.ascontiguousarray(
            np.searchsorted(table_grades, np.asarray(alignment.pool_grade, np.float64)), dtype=np.int64)

        def rel_code(rel: "int | float") -> int:
            return int(np.searchsorted(table_grades, float(rel), side="left"))

        fits = len(table_grades) <= _LARGEST_GRADE_SPAN
        return self._split(alignment, measures, protocol, grade, pool_grade, 0, table_grades if fits else None,
                           rel_code)

    def _split(self, alignment, measures: Sequence[Measure], protocol, grade, pool_grade, low: int,
               table_grades: np.ndarray | None, rel_code: Callable[[Any], int]) -> dict[Measure, Values]:
        """The kernel's measures to the kernel, the others to the numpy engine.

        `table_grades` None: the grades span more than the gain tables may
        hold, so the measures that read a table go to the numpy engine too,
        and the kernel gets a one-entry table it never reads.
        """
        def compiled(m: Measure) -> bool:
            return self.supports(m) and (m.name not in _TABLE_KINDS or table_grades is not None)

        refuse_ordered_ties(alignment, measures)
        mine = [m for m in measures if compiled(m)]
        values = self._reference.evaluate(alignment, [m for m in measures if not compiled(m)], protocol)
        if mine:
            tables = table_grades if table_grades is not None else np.array([low], dtype=np.int64)
            values.update(self._compiled(alignment, mine, protocol, grade, pool_grade, low, tables, rel_code))
        return {m: values[m] for m in measures}

    @staticmethod
    def _grade_range(measures, protocol, grade, pool_grade) -> tuple[int, int]:
        """The grades the gain tables cover: 0 (unjudged docs), the judged
        pool's grades (judged docs in rankings are judged in the pool), the
        grades a gain map lists, and every ranked grade when an ideal comes
        from the retrieved docs (the counting sort looks each one up). Grades
        outside get their gain by formula in the kernel."""
        low = high = 0
        if len(pool_grade):
            low, high = min(low, int(pool_grade.min())), max(high, int(pool_grade.max()))
        for m in measures:
            if m.name not in _GAIN_KINDS:
                continue
            gain = m.setting("gain", protocol)
            if isinstance(gain, GainMap):
                listed = [g for g, _ in gain.gains]
                low, high = min(low, *listed), max(high, *listed)
            if m.name in _IDEAL_KINDS and m.setting("ideal", protocol) is Ideal.RETRIEVED and len(grade):
                low, high = min(low, int(grade.min())), max(high, int(grade.max()))
        return low, high

    def _compiled(self, alignment, measures: list[Measure], protocol, grade, pool_grade,
                  low: int, table_grades: np.ndarray, rel_code: Callable[[Any], int]) -> dict[Measure, Values]:
        """The kernel's pass. `grade` and `pool_grade` index the gain tables
        from `low`; `table_grades` are the grades the tables cover, in order
        (the grade of table entry i); `rel_code(rel)` is the lowest table grade
        counted relevant at the level rel, as the kernel compares grades."""
        span = len(table_grades)
        offsets = np.ascontiguousarray(alignment.offsets, dtype=np.int64)
        group_offsets = np.ascontiguousarray(alignment.group_offsets, dtype=np.int64)
        pool_offsets = np.ascontiguousarray(alignment.pool_offsets, dtype=np.int64)
        num_queries = len(offsets) - 1
        judged = np.ascontiguousarray(alignment.judged, dtype=bool).view(np.uint8)
        longest = int(max(np.diff(offsets).max(initial=0), np.diff(pool_offsets).max(initial=0), 1))

        gains: list = []       # distinct gain settings, in order of first use
        discounts: list = []   # distinct discount settings
        sources: list = []     # distinct (gain id, pool) ideal sources
        rels: list = []        # distinct rel values

        def index(table: list, item) -> int:
            if item not in table:
                table.append(item)
            return table.index(item)

        params = np.zeros((len(measures), 5))
        plan = np.full((len(measures), 7), -1, dtype=np.int64)
        plan[:, 4] = 0
        plan[:, 3] = 0
        for j, m in enumerate(measures):
            plan[j, 0] = KINDS[m.name]
            plan[j, 1] = m.cutoff if m.cutoff is not None else -1
            if m.name not in _NO_REL:
                plan[j, 2] = index(rels, rel_code(m.setting("rel", protocol)))
            if m.name in _GAIN_KINDS:
                plan[j, 3] = index(gains, m.setting("gain", protocol))
                plan[j, 4] = index(discounts, m.setting("discount", protocol))
            if m.name == "err":
                plan[j, 3] = index(gains, _StopChance(err_max_grade(alignment, m)))
            if m.name in _IDEAL_KINDS:
                plan[j, 6] = index(sources, (plan[j, 3], _POOLS[m.setting("ideal", protocol)]))
            for column, name in enumerate(_PARAMS.get(m.name, ())):
                params[j, column] = float(m.setting(name, protocol))
            if m.name in _POLICIES:
                policy, numbers = _POLICIES[m.name]
                plan[j, 5] = numbers[m.setting(policy, protocol)]

        # Gain tables over the table's grades, and the distinct positive
        # gains of each, highest first (the ideal's counting sort).
        gain_rows = [_table_row(table_grades, g) for g in gains] or [np.zeros(span)]
        levels = [_distinct_descending(row[row > 0]) for row in gain_rows]
        max_levels = max(1, max(len(level) for level in levels))
        level_gain = np.zeros((len(gain_rows), max_levels))
        level_of = np.full((len(gain_rows), span), -1, dtype=np.int32)
        for t, (row, level) in enumerate(zip(gain_rows, levels)):
            level_gain[t, :len(level)] = level
            positive = row > 0
            # level 0 holds the highest gain: search the ascending copy, then flip.
            level_of[t, positive] = len(level) - 1 - np.searchsorted(level[::-1], row[positive])
        num_levels = np.array([len(level) for level in levels], dtype=np.int64)
        formula = np.array([_FORMULAS.get(g, _MAP) for g in gains] or [_MAP], dtype=np.int64)
        discount = np.array([discount_table(d, longest) for d in discounts] or [np.zeros(longest)])
        cumulative = np.zeros((len(discount), longest + 1))
        np.cumsum(discount, axis=1, out=cumulative[:, 1:])

        value, numerator, denominator, undefined, crossings = self._kernel(
            offsets, group_offsets, grade, judged, pool_offsets, pool_grade,
            np.ascontiguousarray(np.array(gain_rows)), level_of, level_gain, num_levels, formula, low,
            discount, cumulative, plan, params, np.array(rels, dtype=np.int64),
            np.array(sources, dtype=np.int64).reshape(-1, 2), _threads(num_queries))

        results = {}
        for j, m in enumerate(measures):
            if m.name == "ap" and plan[j, 5] == _HITS and crossings[j].any():
                _refuse_crossing(alignment, m, crossings[j])
            fields = {"numerator": numerator[j], "denominator": denominator[j],
                      "undefined": undefined[j].view(bool)}
            results[m] = Values(value[j], **{name: fields[name] for name in _FIELDS[m.name]})
        return results


@dataclasses.dataclass(frozen=True)
class _StopChance:
    """ERR's table: the chance (2^g - 1) / 2^max_grade that grade g stops the user."""

    max_grade: float


def _table_row(grades: np.ndarray, gain: Any) -> np.ndarray:
    """The table of a gain setting (or ERR's stopping chances) over the given grades."""
    if isinstance(gain, _StopChance):
        return err_stop_chance(grades, gain.max_grade)
    return gains_of(grades, gain)


def _integer_rel(rel: "int | float") -> int:
    """An integer grade is >= rel exactly when it is >= ceil(rel) (rel=1.5 under grades=real)."""
    return int(math.ceil(rel))


def _refuse_crossing(alignment, m: Measure, crossings: np.ndarray) -> None:
    """AP over the hits divides by a count that, under ties=expected, varies
    with the order of a tied group crossing the cutoff: no exact closed form."""
    query = alignment.queries[int(np.argmax(crossings))]
    raise TieError(
        f"query {query}: {m} divides by the relevant docs in the top {m.cutoff}, which depends on "
        f"the order of tied docs crossing the cutoff ({int(crossings.sum())} such groups); set the "
        "policy ties=docid or ties=input, or ap_denominator=relevant or min_k"
    )
