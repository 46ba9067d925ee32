"""What every measure function shares: the Context of one evaluation and Values.

A measure function (``MeasureSpec.compute``) takes a :class:`Context` (the
aligned rankings, the protocol, shared caches) and a
:class:`~rankproof.measures.base.Measure`, and returns :class:`Values`.
The protocol's query policies (zero ideal, aggregation) are applied later,
in :mod:`rankproof.evaluate`.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

import numpy as np

from ..pipeline.alignment import Alignment
from ..kernels.ranked import Ranked
from ..kernels.segments import ranks_within
from ..protocol import Discount, DiscountVector, Gain, GainMap, Ideal, LogDiscount, Protocol
from ..errors import MeasureError
from .base import Measure

__all__ = ["Context", "Values", "gains_of", "discount_table", "ratio"]


@dataclasses.dataclass(frozen=True)
class Values:
    """Per-query values of one measure.

    ``numerator / denominator`` is the value for ratio measures (used by micro
    averaging); ``undefined`` marks queries where the denominator is 0 because
    nothing is relevant (the zero_ideal policy decides their value).
    """

    value: np.ndarray
    numerator: np.ndarray | None = None
    denominator: np.ndarray | None = None
    undefined: np.ndarray | None = None


# 2^996 - 1 is the largest exp2 gain below LARGEST_GAIN (1e300).
_LARGEST_EXP2_GRADE = 996


def gains_of(grades: np.ndarray, gain: "Gain | GainMap") -> np.ndarray:
    """Gain of each grade: g (linear), 2^g - 1 (exp2), or an explicit table.

    >>> gains_of(np.array([0, 1, 3]), Gain.EXP2).tolist()
    [0.0, 1.0, 7.0]
    """
    if gain is Gain.LINEAR:
        return grades.astype(np.float64)
    if gain is Gain.EXP2:
        if grades.size and grades.max() > _LARGEST_EXP2_GRADE:
            raise MeasureError(what=f"{{grade}} {int(grades.max())} with gain=exp2 gives 2^{int(grades.max())} - 1, "
                               f"beyond what a DCG can sum in float64 (exp2 takes {{grades}} up to "
                               f"{_LARGEST_EXP2_GRADE})", value=int(grades.max()),
                               fix="use gain=linear, or {do[grade_map]}")
        return np.exp2(grades.astype(np.float64)) - 1.0
    table_grades = np.array([g for g, _ in gain.gains], dtype=np.int64)
    table_gains = np.array([v for _, v in gain.gains], dtype=np.float64)
    at = np.searchsorted(table_grades, grades)
    at_clipped = np.minimum(at, len(table_grades) - 1)
    return np.where(table_grades[at_clipped] == grades, table_gains[at_clipped], 0.0)


def discount_table(discount: "Discount | LogDiscount | DiscountVector", length: int) -> np.ndarray:
    """Discount of ranks 1..length: ``table[i]`` is the discount of rank i + 1.

    >>> discount_table(LogDiscount(10), 3).round(4).tolist()  # 1 / log10(i + 1)
    [3.3219, 2.0959, 1.661]
    """
    rank = np.arange(1, max(length, 1) + 1, dtype=np.float64)
    if discount is Discount.LOG2:
        return 1.0 / np.log2(rank + 1.0)
    if discount is Discount.RECIPROCAL:
        return 1.0 / rank
    if isinstance(discount, LogDiscount):
        return 1.0 / (np.log(rank + 1.0) / np.log(discount.base))
    table = np.zeros(len(rank))
    values = np.asarray(discount.values, dtype=np.float64)[: len(rank)]
    table[: len(values)] = values
    return table


class Context:
    """Everything the measure functions share for one evaluation."""

    def __init__(self, alignment: Alignment, protocol: Protocol) -> None:
        self.alignment = alignment
        self.protocol = protocol
        self.ranked = Ranked(alignment.offsets, alignment.group_offsets)
        pool_sizes = np.diff(alignment.pool_offsets)
        longest = int(max(self.ranked.lengths.max(initial=0), pool_sizes.max(initial=0)))
        self.table_length = max(longest, 1)
        # Arrays shared by the measures of one evaluation, keyed by what they depend on.
        self.cache: dict = {}

    @cached_property
    def pool_query(self) -> np.ndarray:
        return np.repeat(np.arange(self.alignment.num_queries),
                         np.diff(self.alignment.pool_offsets))

    def relevant(self, rel: int) -> np.ndarray:
        """Per ranked position: judged with grade >= rel."""
        key = ("relevant", rel)
        if key not in self.cache:
            self.cache[key] = (self.alignment.judged
                               & (self.alignment.grade >= rel)).astype(np.float64)
        return self.cache[key]

    def num_rel(self, rel: int) -> np.ndarray:
        """R per query: judged docs with grade >= rel."""
        key = ("num_rel", rel)
        if key not in self.cache:
            flags = self.alignment.pool_grade >= rel
            self.cache[key] = np.bincount(self.pool_query[flags],
                                          minlength=self.alignment.num_queries)
        return self.cache[key]

    def gains(self, gain) -> np.ndarray:
        """Per ranked position; unjudged docs have gain 0 whatever the gain table says."""
        key = ("gains", str(gain))
        if key not in self.cache:
            self.cache[key] = np.where(self.alignment.judged, gains_of(self.alignment.grade, gain),
                                       0.0)
        return self.cache[key]

    def discount(self, discount) -> np.ndarray:
        key = ("discount", str(discount))
        if key not in self.cache:
            self.cache[key] = discount_table(discount, self.table_length)
        return self.cache[key]

    def ideal_dcg(self, measure: Measure) -> np.ndarray:
        """DCG@k of the best order of the ideal pool (only positive gains count)."""
        gain = measure.setting("gain", self.protocol)
        ideal = measure.setting("ideal", self.protocol)
        discount = self.discount(measure.setting("discount", self.protocol))
        a = self.alignment
        k = self.ranked.cutoff(measure.cutoff) if measure.cutoff is not None else None
        if ideal is Ideal.JUDGED:
            gains, offsets, query = gains_of(a.pool_grade, gain), a.pool_offsets, self.pool_query
        elif ideal is Ideal.EXPANDED:
            gains, query = self._expanded_pool(gain, self.ranked.cutoff(measure.cutoff))
            offsets = np.concatenate([[0], np.cumsum(np.bincount(query, minlength=a.num_queries))])
            # the ideal cut at the list's length when the list is shorter than k
            k = np.minimum(self.ranked.cutoff(measure.cutoff), self.ranked.lengths)
        else:
            gains, offsets = self.gains(gain), a.offsets
            query = np.repeat(np.arange(a.num_queries), np.diff(offsets))
        gains = np.maximum(gains, 0.0)
        order = np.lexsort((-gains, query))
        rank0 = ranks_within(np.diff(offsets))
        inside = rank0 < (k[query] if k is not None else np.iinfo(np.int64).max)
        weight = np.where(inside, discount[np.minimum(rank0, len(discount) - 1)], 0.0)
        return np.bincount(query, weights=gains[order] * weight, minlength=a.num_queries)

    def _expanded_pool(self, gain, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(gain, query) of the judged pool plus, per query, one entry for each
        repeated copy of a judged doc ranked within the top k (``ideal=expanded``),
        sorted by query."""
        a = self.alignment
        lengths = np.diff(a.offsets)
        query = np.repeat(np.arange(a.num_queries), lengths)
        key = query * max(len(a.docs), 1) + a.doc
        first = np.zeros(len(key), dtype=bool)
        # positions run in rank order within a query
        first[np.unique(key, return_index=True)[1]] = True
        copies = ~first & a.judged & (ranks_within(lengths) < k[query])
        all_query = np.concatenate([self.pool_query, query[copies]])
        all_gains = np.concatenate([gains_of(a.pool_grade, gain), gains_of(a.grade[copies], gain)])
        order = np.argsort(all_query, kind="stable")
        return all_gains[order], all_query[order]

    def has_positive_pool(self, gain) -> np.ndarray:
        """Per query: does its judged pool hold a positive gain."""
        positive = gains_of(self.alignment.pool_grade, gain) > 0
        return np.bincount(self.pool_query[positive], minlength=self.alignment.num_queries) > 0

    def k(self, measure: Measure) -> np.ndarray:
        return self.ranked.cutoff(measure.cutoff)

    def count_denominator(self, measure: Measure) -> np.ndarray:
        """k for P and judged; without a cutoff, the ranking's length."""
        return self.k(measure).astype(np.float64)


def ratio(numerator: np.ndarray, denominator: np.ndarray, undefined_when_zero: bool) -> Values:
    """numerator / denominator per query (0 where the denominator is 0, and
    marked undefined when ``undefined_when_zero``)."""
    denominator = np.asarray(denominator, dtype=np.float64)
    zero = denominator == 0
    value = np.divide(numerator, denominator, out=np.zeros(len(numerator)), where=~zero)
    return Values(value, numerator, denominator, zero if undefined_when_zero else None)
