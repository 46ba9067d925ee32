"""The compiled engine: the ranked family in one fused pass per query.

:mod:`rankproof._libs.ranked` (Cython, nogil) computes every requested
measure of the ranked family and trec_eval's set and count measures (see
``KINDS``) for a query while its ranking is in cache, tie groups in closed
form as the numpy reference does. This module turns the measures into the
kernel's plan (small integer tables) and builds the gain and discount tables
once. It computes only what it ``supports``; the planner
(:mod:`rankproof.engines.plan`) gives every other measure to the next engine
and runs the tie refusals before it.
"""

from __future__ import annotations

import dataclasses
import math
import os
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import MeasureError, literal
from ..measures.base import REGISTRY, GradeTable, Measure
from ..measures.compute import Values, discount_table, gains_of
from ..protocol import ApDenominator, Gain, GainMap, Ideal, PrecisionDenominator, RecallDenominator
from ..measures.user_models import err_max_grade, err_stop_chance

__all__ = ["CompiledEngine", "KINDS", "KERNEL_KINDS"]


def _kernel_enums() -> dict[str, dict[str, int]]:
    """The kernel's enums by name, read from _libs/ranked.pyx (its .pxd writes
    each number once): ``Kind`` by the name a MeasureSpec's ``kernel`` gives
    (``Kind.NDCG`` is "ndcg"), the plan's ``Column``, ``Param``, ``Denominator``
    and ``Pool``, and the gain formulas of common.pxd's GainKind; all empty when
    the extension is not built (``CompiledEngine()`` then says so)."""
    try:
        from .._libs import ranked
    except ImportError:
        return {name: {} for name in ("Kind", "Column", "Param", "Denominator", "Pool", "GainKind")}
    enums = ranked.plan_layout()
    enums["Kind"] = {kind.name.lower(): int(kind) for kind in ranked.Kind}
    return enums


_ENUMS = _kernel_enums()
KERNEL_KINDS: dict[str, int] = _ENUMS["Kind"]
# Measure name -> kernel kind, generated from the registry (the measures with a kernel).
KINDS: dict[str, int] = {spec.name: KERNEL_KINDS[spec.kernel] for spec in REGISTRY.values()
                         if spec.kernel is not None and spec.kernel in KERNEL_KINDS}


def _enum(name: str, member: str) -> int:
    """One number of the kernel's enums; -1 when the extension is not built
    (no plan is made then)."""
    return _ENUMS[name].get(member, -1)


# Denominator policies -> the kernel's number, by the parameter a measure reads.
_DENOMINATORS: dict[str, dict] = {
    "precision_denominator": {PrecisionDenominator.K: _enum("Denominator", "BY_K"),
                              PrecisionDenominator.RETRIEVED: _enum("Denominator", "RETRIEVED")},
    "recall_denominator": {RecallDenominator.RELEVANT: _enum("Denominator", "RELEVANT"),
                           RecallDenominator.MIN_K: _enum("Denominator", "MIN_K")},
    "ap_denominator": {ApDenominator.RELEVANT: _enum("Denominator", "RELEVANT"),
                       ApDenominator.MIN_K: _enum("Denominator", "MIN_K"),
                       ApDenominator.HITS: _enum("Denominator", "HITS")},
}
_POOLS = {Ideal.JUDGED: _enum("Pool", "POOL_JUDGED"),
          Ideal.RETRIEVED: _enum("Pool", "POOL_RETRIEVED")}
# Gain formulas of the kernel (for grades outside a gain table's range).
_FORMULAS = {Gain.LINEAR: _enum("GainKind", "LINEAR"), Gain.EXP2: _enum("GainKind", "EXP2")}
_MAP = _enum("GainKind", "TABLE")
# Columns of the kernel's plan row, and the width of its params row.
_KIND, _CUTOFF, _REL, _GAIN, _DISCOUNT, _POLICY, _SOURCE, _PLAN_COLUMNS = (
    _enum("Column", name)
    for name in ("KIND", "CUTOFF", "REL", "GAIN", "DISCOUNT", "POLICY", "SOURCE",
                                       "PLAN_COLUMNS"))
_PARAM_COLUMNS = _enum("Param", "PARAM_COLUMNS")


def _kernel_params(measure: Measure) -> tuple[str, ...]:
    """The measure's own real-valued parameters, in the order of the kernel's
    params row (ERR's max_grade sets its table instead)."""
    spec = measure.spec
    return () if spec.grade_table is GradeTable.STOP_CHANCE else spec.own_params


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
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else (os.cpu_count() or 1))
    return max(1, min(cores, num_queries // _QUERIES_PER_THREAD, 8))


class CompiledEngine:
    """The default engine (see the module docstring).

    ``supports(measure, alignment, protocol)`` is True for the measures with
    a kernel (``MeasureSpec.kernel``, see ``KINDS``), except the measures that
    read a table indexed by grade (``MeasureSpec.grade_table``) when the
    grades span more than 4096 values (or, for real grades, take more than
    4096 distinct values): the planner leaves those to the next engine.
    Real-valued grades are computed in the compiled pass through their ranks
    (see ``_evaluate_real``).
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
        self._last: "tuple[weakref.ref, _Grades] | None" = None

    def supports(self, measure: Measure, alignment=None, protocol=None) -> bool:
        spec = measure.spec
        if spec.kernel is None or (measure.cutoff is not None and not spec.kernel_cutoff):
            return False
        if (protocol is not None and "ideal" in spec.params
            and measure.setting("ideal", protocol) not in _POOLS):
            return False  # ideal=expanded: the numpy engine builds that ideal
        if spec.grade_table is None or alignment is None:
            return True
        return self._fits([measure], self._grades(alignment), protocol)

    def _grades(self, alignment) -> "_Grades":
        """The facts of the alignment's grades the table checks read, computed once per alignment."""
        alignment = alignment.flat()  # flat arrays (a score matrix's general alignment)
        cached = self._last
        if cached is not None and cached[0]() is alignment:
            return cached[1]
        grades = _Grades(alignment)
        try:
            self._last = (weakref.ref(alignment), grades)
        except TypeError:  # an alignment that takes no weak reference: no cache
            pass
        return grades

    def _fits(self, measures: Sequence[Measure], grades: "_Grades", protocol) -> bool:
        """Do the tables these measures read fit (4096 grades, or distinct real grades)?"""
        if grades.real_table is not None:
            return len(grades.real_table) <= _LARGEST_GRADE_SPAN
        low, high = self._grade_range(measures if protocol is not None else [], protocol, grades)
        return high - low < _LARGEST_GRADE_SPAN

    def evaluate(self, alignment, measures: Sequence[Measure], protocol) -> dict[Measure, Values]:
        # the kernels read flat arrays (pipeline/aligned.AlignmentLike)
        alignment = alignment.flat()
        refused = [m for m in measures if m.spec.kernel is None]
        grades = self._grades(alignment)
        tabled = [m for m in measures if m.spec.grade_table is not None]
        # a joint span too large: name a measure
        if tabled and not self._fits(tabled, grades, protocol):
            refused += [m for m in tabled if not self._fits([m], grades, protocol)]
        if refused:  # the planner asks supports() first
            raise MeasureError(what=f"the compiled engine cannot compute {literal(refused[0])} here",
                               fix="evaluate through rankproof.evaluate, whose planner picks an engine")
        if not measures:
            return {}
        if grades.real_table is not None:
            return self._evaluate_real(alignment, measures, protocol, grades.real_table)
        grade = np.ascontiguousarray(alignment.grade, dtype=np.int64)
        pool_grade = np.ascontiguousarray(alignment.pool_grade, dtype=np.int64)
        low, high = self._grade_range(measures, protocol, grades)
        # Every measure reading a table fits one (supports() said so); the others never read it,
        # so grades spanning more than a table may hold (grade 10^9) build a one-entry table.
        tables = bool(tabled) or high - low < _LARGEST_GRADE_SPAN
        table_grades = (np.arange(low, high + 1, dtype=np.int64) if tables
                        else np.array([low], dtype=np.int64))
        return self._compiled(alignment, measures, protocol, grade, pool_grade, low, table_grades,
                              _integer_rel)

    def _evaluate_real(self, alignment, measures: Sequence[Measure], protocol,
                       table_grades: np.ndarray) -> dict[Measure, Values]:
        """Real-valued grades (grades=real, or a score matrix's real relevance).

        The kernel indexes its gain tables by integer grade, so each distinct
        real grade is replaced by its rank among them (0.0 included, the grade
        of unjudged docs): ranks keep every order, so ``grade >= rel`` is
        ``rank >= rank of the smallest grade >= rel``, and the gain table of
        rank i holds the gain of the i-th real grade. Exact, and no kernel
        change. Beyond 4096 distinct grades the measures reading a table are
        not supported (as for integer grades), and the others get a one-entry
        table they never read.
        """
        grade = np.ascontiguousarray(np.searchsorted(table_grades,
                                                     np.asarray(alignment.grade, np.float64)),
                                     dtype=np.int64)
        grade[~np.asarray(alignment.judged, dtype=bool)] = int(np.searchsorted(table_grades, 0.0))
        pool_grade = np.ascontiguousarray(
            np.searchsorted(table_grades, np.asarray(alignment.pool_grade, np.float64)),
            dtype=np.int64)

        def rel_code(rel: "int | float") -> int:
            return int(np.searchsorted(table_grades, float(rel), side="left"))

        fits = len(table_grades) <= _LARGEST_GRADE_SPAN
        tables = table_grades if fits else np.array([0], dtype=np.int64)
        return self._compiled(alignment, measures, protocol, grade, pool_grade, 0, tables, rel_code)

    @staticmethod
    def _grade_range(measures, protocol, grades: "_Grades") -> tuple[int, int]:
        """The grades the gain tables cover: 0 (unjudged docs), the judged
        pool's grades (judged docs in rankings are judged in the pool), the
        grades a gain map lists, and every ranked grade when an ideal comes
        from the retrieved docs (the counting sort looks each one up). Grades
        outside get their gain by formula in the kernel."""
        low, high = grades.pool_range
        for m in measures:
            if m.spec.grade_table is not GradeTable.GAIN:
                continue
            gain = m.setting("gain", protocol)
            if isinstance(gain, GainMap):
                listed = [g for g, _ in gain.gains]
                low, high = min(low, *listed), max(high, *listed)
            if ("ideal" in m.spec.params and m.setting("ideal", protocol) is Ideal.RETRIEVED
                and grades.ranked_range):
                low, high = min(low, grades.ranked_range[0]), max(high, grades.ranked_range[1])
        return low, high

    def _compiled(self, alignment, measures: Sequence[Measure], protocol, grade, pool_grade,
                  low: int, table_grades: np.ndarray,
                  rel_code: Callable[[Any], int]) -> dict[Measure, Values]:
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

        plan, params, (gains, discounts, sources, rels) = _plan(alignment, measures, protocol,
                                                                rel_code)

        # Gain tables over the table's grades, and the distinct positive
        # gains of each, highest first (the ideal's counting sort).
        gain_rows = [_table_row(table_grades, g) for g in gains] or [np.zeros(span)]
        level_gain, level_of, num_levels = _levels(gain_rows, span)
        formula = np.array([_FORMULAS.get(g, _MAP) for g in gains] or [_MAP], dtype=np.int64)
        discount = np.array([discount_table(d, longest) for d in discounts] or [np.zeros(longest)])
        cumulative = np.zeros((len(discount), longest + 1))
        np.cumsum(discount, axis=1, out=cumulative[:, 1:])

        value, numerator, denominator, undefined, crossings = self._kernel(
            offsets, group_offsets, grade, judged, pool_offsets, pool_grade,
            np.ascontiguousarray(np.array(gain_rows)), level_of, level_gain, num_levels, formula,
            low,
            discount, cumulative, plan, params, np.array(rels, dtype=np.int64),
            np.array(sources, dtype=np.int64).reshape(-1, 2), _threads(num_queries))

        # `crossings` (AP over the hits with a tied group crossing k) were refused by the planner.
        del crossings
        results = {}
        for j, m in enumerate(measures):
            fields = {"numerator": numerator[j], "denominator": denominator[j],
                      "undefined": undefined[j].view(bool)}
            results[m] = Values(value[j], **{name: fields[name] for name in m.spec.fields})
        return results


def _plan(alignment, measures: Sequence[Measure], protocol, rel_code: Callable[[Any], int]):
    """The kernel's plan (one row of columns per measure) and params, with the distinct gain
    settings, discount settings, (gain, pool) ideal sources and rel values the rows point into."""
    gains: list = []       # distinct gain settings, in order of first use
    discounts: list = []   # distinct discount settings
    sources: list = []     # distinct (gain id, pool) ideal sources
    rels: list = []        # distinct rel values

    def index(table: list, item) -> int:
        if item not in table:
            table.append(item)
        return table.index(item)

    params = np.zeros((len(measures), _PARAM_COLUMNS))
    plan = np.full((len(measures), _PLAN_COLUMNS), -1, dtype=np.int64)
    plan[:, _DISCOUNT] = 0
    plan[:, _GAIN] = 0
    for j, m in enumerate(measures):
        spec = m.spec
        plan[j, _KIND] = KINDS[m.name]
        plan[j, _CUTOFF] = m.cutoff if m.cutoff is not None else -1
        if "rel" in spec.params:
            plan[j, _REL] = index(rels, rel_code(m.setting("rel", protocol)))
        if spec.grade_table is GradeTable.GAIN:
            plan[j, _GAIN] = index(gains, m.setting("gain", protocol))
            plan[j, _DISCOUNT] = index(discounts, m.setting("discount", protocol))
        elif spec.grade_table is GradeTable.STOP_CHANCE:
            plan[j, _GAIN] = index(gains, _StopChance(err_max_grade(alignment, m)))
        if "ideal" in spec.params:
            plan[j, _SOURCE] = index(sources,
                                     (plan[j, _GAIN], _POOLS[m.setting("ideal", protocol)]))
        for column, name in enumerate(_kernel_params(m)):
            params[j, column] = float(m.setting(name, protocol))
        for name in spec.policy_params:
            if name in _DENOMINATORS:
                plan[j, _POLICY] = _DENOMINATORS[name][m.setting(name, protocol)]
    return plan, params, (gains, discounts, sources, rels)


def _levels(gain_rows: list, span: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct positive gains of each gain table, highest first (the ideal's counting
    sort): (the gains by level, each grade's level or -1, how many levels each table has)."""
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
    return level_gain, level_of, num_levels


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


class _Grades:
    """What the table checks read of an alignment's grades.

    ``real_table``: for real grades, the distinct grades of the judged docs
    in rankings and pools, and 0.0, ascending (None for integer grades).
    ``pool_range``: the lowest and highest of 0 and the pools' integer
    grades; ``ranked_range``: of the ranked grades (None when nothing is ranked).
    """

    def __init__(self, alignment) -> None:
        grade, pool_grade = np.asarray(alignment.grade), np.asarray(alignment.pool_grade)
        self.real_table: np.ndarray | None = None
        self.pool_range = (0, 0)
        self.ranked_range: tuple[int, int] | None = None
        if grade.dtype.kind == "f" or pool_grade.dtype.kind == "f":
            judged_grades = grade.astype(np.float64)[np.asarray(alignment.judged, dtype=bool)]
            self.real_table = np.unique(np.concatenate([pool_grade.astype(np.float64),
                                                        judged_grades, [0.0]]))
            return
        if len(pool_grade):
            self.pool_range = (min(0, int(pool_grade.min())), max(0, int(pool_grade.max())))
        if len(grade):
            self.ranked_range = (int(grade.min()), int(grade.max()))
