"""The value a many-system procedure returns: every pair tested, with family-wise adjusted p-values."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from ..errors import InputError, literal

__all__ = ["PairTest", "PairwiseTests", "pair_index", "pairwise_tests", "baseline_names"]


@dataclasses.dataclass(frozen=True)
class PairTest:
    """One pair: ``difference`` = mean of ``system_b`` - mean of ``system_a``; ``p_value`` is adjusted
    for the whole family of pairs (the procedure's own adjustment: no further correction applies)."""

    system_a: str
    system_b: str
    difference: float
    statistic: float
    p_value: float
    significant: bool

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class PairwiseTests:
    """A family of pairwise tests over systems measured on the same topics.

    ``means`` are the systems' means over the ``topics`` topics, in the order
    of ``systems``; ``exact`` says every permutation was enumerated.
    """

    procedure: str
    reference: str
    systems: tuple[str, ...]
    means: tuple[float, ...]
    pairs: tuple[PairTest, ...]
    alpha: float
    topics: int
    n_resamples: int
    seed: int | None
    exact: bool
    baselines: tuple[str, ...] = ()
    # How the p-values were computed when not by permutations, with the check behind the choice
    # (rankproof.stats.large_systems); empty for the permutation procedures.
    method: str = ""

    @property
    def significant(self) -> tuple[PairTest, ...]:
        return tuple(pair for pair in self.pairs if pair.significant)

    def pair(self, system_a: str, system_b: str) -> PairTest:
        """The test of a pair, in either order."""
        for pair in self.pairs:
            if {pair.system_a, pair.system_b} == {system_a, system_b}:
                return pair
        raise KeyError(f"no test of {system_a} against {system_b}")

    def to_dict(self) -> dict[str, Any]:
        fields = dataclasses.asdict(self)
        fields["pairs"] = [pair.to_dict() for pair in self.pairs]
        return fields


def pairwise_tests(procedure: str, reference: str, names: tuple[str, ...],
                   pairs: Sequence[tuple[int, int]], means: np.ndarray, observed: np.ndarray,
                   p_values: np.ndarray, *, alpha: float, topics: int, n_resamples: int,
                   seed: int | None, exact: bool, baselines: tuple[str, ...] = (),
                   method: str = "") -> PairwiseTests:
    """The family's value from its arrays: ``pairs[i]`` = (a, b) has statistic ``observed[i]`` and
    adjusted p-value ``p_values[i]``; ``means`` are the systems' means (b - a is the difference).

    >>> tests = pairwise_tests("p", "r", ("x", "y"), [(0, 1)], np.array([0.25, 0.75]),
    ...                        np.array([2.5]), np.array([0.01]), alpha=0.05, topics=9,
    ...                        n_resamples=0, seed=None, exact=False)
    >>> tests.pair("x", "y").difference, tests.pair("x", "y").significant
    (0.5, True)
    """
    rows = tuple(PairTest(system_a=names[a], system_b=names[b],
                          difference=float(means[b] - means[a]),
                          statistic=float(observed[i]), p_value=float(p_values[i]),
                          significant=bool(p_values[i] < alpha))
                 for i, (a, b) in enumerate(pairs))
    return PairwiseTests(procedure=procedure, reference=reference, systems=names,
                         means=tuple(float(m) for m in means), pairs=rows, alpha=alpha,
                         topics=topics, n_resamples=n_resamples, seed=seed, exact=exact,
                         baselines=baselines, method=method)


def baseline_names(names: tuple[str, ...], pairs: Sequence[tuple[int, int]],
                     baselines) -> tuple[str, ...]:
    """The baselines' names in the order :func:`pair_index` put them first (empty without
    baselines: every pair is tested).

    >>> baseline_names(("x", "y", "z"), pair_index(("x", "y", "z"), ["z", "x"]), ["z", "x"])
    ('z', 'x')
    """
    return tuple(names[a] for a in dict.fromkeys(a for a, _ in pairs)) if baselines else ()


def pair_index(systems: tuple[str, ...], baselines=None) -> list[tuple[int, int]]:
    """Column pairs (a, b) to test: every pair a < b, or each baseline against every other system.

    >>> pair_index(("x", "y", "z"))
    [(0, 1), (0, 2), (1, 2)]
    >>> pair_index(("x", "y", "z"), ["y"])
    [(1, 0), (1, 2)]
    """
    if not baselines:
        return [(a, b) for a in range(len(systems)) for b in range(a + 1, len(systems))]
    if isinstance(baselines, str):
        baselines = [baselines]
    unknown = [str(name) for name in baselines if str(name) not in systems]
    if unknown:
        raise InputError(what=literal(f"baseline {unknown[0]} is not one of the systems ({', '.join(systems)})"),
                         value=unknown[0], fix="name a baseline as its system is named")
    chosen = [systems.index(str(name)) for name in dict.fromkeys(baselines)]
    pairs: list[tuple[int, int]] = []
    for a in chosen:
        for b in range(len(systems)):
            if b != a and (b, a) not in pairs:
                pairs.append((a, b))
    return pairs
