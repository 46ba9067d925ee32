"""Whether fusion can help: how much the components agree, and the fused run against each of them.

Fusion gains when components find different relevant docs and rank the
shared ones differently (Lee 1997: good runs that overlap more on relevant
than on non-relevant docs; Vogt and Cottrell 1999). Near-duplicate
components (high overlap, high rank correlation) give little to fuse.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from ..data.run import Run
from ..errors import InputError, literal
from .table import Table, build_table
from .ties import FusionTies, parse_ties

__all__ = ["Complementarity", "PairAgreement", "complementarity", "compare_fused"]

# Above these a pair is called near-duplicate; below the lower ones, complementary.
HIGH_OVERLAP, HIGH_TAU = 0.8, 0.8
LOW_OVERLAP, LOW_TAU = 0.5, 0.5


@dataclasses.dataclass(frozen=True)
class PairAgreement:
    """Two components over the queries both rank.

    ``overlap``: mean over queries of ``|top_k(a) & top_k(b)| / k``.
    ``tau``: mean Kendall tau-b of their ranks on the docs both rank (queries
    with two or more shared docs; NaN when none). With qrels,
    ``relevant_overlap`` and ``nonrelevant_overlap`` are Lee's overlaps of
    the top k: ``2 |A & B| / (|A| + |B|)`` over relevant, and over
    non-relevant, retrieved docs (pooled over queries).
    """

    a: str
    b: str
    overlap: float
    tau: float
    queries: int
    relevant_overlap: float | None = None
    nonrelevant_overlap: float | None = None

    @property
    def verdict(self) -> str:
        if self.queries == 0:
            return "no query in common: nothing to compare"
        if self.overlap >= HIGH_OVERLAP and self.tau >= HIGH_TAU:
            return "near-duplicates: fusion has little to add"
        if self.overlap <= LOW_OVERLAP or self.tau <= LOW_TAU:
            return "complementary: fusion can help"
        return "partly complementary"


@dataclasses.dataclass(frozen=True)
class Complementarity:
    """Agreement of every pair of components at cutoff ``k``."""

    k: int
    pairs: tuple[PairAgreement, ...]

    def summary(self) -> str:
        lines = [f"complementarity of the components (top {self.k}):",
                 f"  {'pair':<32} {'overlap@' + str(self.k):>10} {'tau':>7} {'rel/nonrel overlap':>19}  verdict"]
        for p in self.pairs:
            lee = ("" if p.relevant_overlap is None else
                   f"{_shown(p.relevant_overlap)}/{_shown(p.nonrelevant_overlap)}")
            lines.append(f"  {p.a + ' / ' + p.b:<32} {_shown(p.overlap):>10} {_shown(p.tau):>7} {lee:>19}  {p.verdict}")
        lines.append("  (Lee 1997: fusion gains when relevant overlap exceeds non-relevant overlap)")
        return "\n".join(lines)


def _shown(value: "float | None") -> str:
    """Three decimals, or n/a for a value nothing defines (no query or no doc in common)."""
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.3f}"


def _tau(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import kendalltau

    if len(x) < 2:
        return float("nan")
    return float(kendalltau(x, y).statistic)


def _lee(sets_a: list[set], sets_b: list[set]) -> float:
    common = sum(len(a & b) for a, b in zip(sets_a, sets_b))
    total = sum(len(a) + len(b) for a, b in zip(sets_a, sets_b))
    return 2 * common / total if total else float("nan")


def _pair(table: Table, i: int, j: int, k: int, relevant: np.ndarray | None) -> PairAgreement:
    overlaps, taus = [], []
    rel_a, rel_b, non_a, non_b = [], [], [], []
    for q in range(len(table.queries)):
        lo, hi = int(table.offsets[q]), int(table.offsets[q + 1])
        if table.lengths[q, i] == 0 or table.lengths[q, j] == 0:
            continue
        pa, pb = table.positions[lo:hi, i], table.positions[lo:hi, j]
        top_a, top_b = (pa >= 0) & (pa < k), (pb >= 0) & (pb < k)
        overlaps.append((top_a & top_b).sum() / k)
        shared = (pa >= 0) & (pb >= 0)
        taus.append(_tau(pa[shared], pb[shared]))
        if relevant is not None:
            rel = relevant[lo:hi]
            rel_a.append(set(np.flatnonzero(top_a & rel).tolist()))
            rel_b.append(set(np.flatnonzero(top_b & rel).tolist()))
            non_a.append(set(np.flatnonzero(top_a & ~rel).tolist()))
            non_b.append(set(np.flatnonzero(top_b & ~rel).tolist()))
    finite = [t for t in taus if np.isfinite(t)]
    return PairAgreement(
        a=table.names[i], b=table.names[j],
        overlap=float(np.mean(overlaps)) if overlaps else float("nan"),
        tau=float(np.mean(finite)) if finite else float("nan"), queries=len(overlaps),
        relevant_overlap=None if relevant is None else _lee(rel_a, rel_b),
        nonrelevant_overlap=None if relevant is None else _lee(non_a, non_b))


def complementarity(runs: "Sequence[Run] | Mapping[str, Run]", *, k: int = 10, qrels=None,
                    ties: "FusionTies | str" = "docid") -> Complementarity:
    """Overlap@k and Kendall's tau of every pair of components (and Lee's overlaps with qrels).

    References: Lee, "Analyses of multiple evidence combination", SIGIR 1997;
    Kendall, "A new measure of rank correlation", Biometrika 30 (1938), tau-b
    as ``scipy.stats.kendalltau``.

    Examples
    --------
    >>> from rankproof import Run
    >>> a = Run.from_dict({"q1": ["d1", "d2", "d3"]})
    >>> b = Run.from_dict({"q1": ["d3", "d2", "d4"]})
    >>> pair = complementarity([a, b], k=3).pairs[0]
    >>> round(pair.overlap, 4), pair.tau      # d2, d3 shared, in opposite orders
    (0.6667, -1.0)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(source="fuse",
                         what=literal(f"the cutoff k={k!r} of the complementarity must be an "
                                                     "integer >= 1"), value=k, fix="e.g. k=10")
    components = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    table = build_table(components, parse_ties(ties))
    if isinstance(runs, Mapping):
        table = dataclasses.replace(table, names=tuple(str(name) for name in runs))
    relevant = None
    if qrels is not None:
        from .training import judgments

        relevant = judgments(table, qrels)[0]
    pairs = tuple(_pair(table, i, j, k, relevant)
                  for i, j in itertools.combinations(range(len(components)), 2))
    return Complementarity(k=k, pairs=pairs)


def compare_fused(qrels, fused: Run, runs: "Sequence[Run] | Mapping[str, Run]", measures=None,
                  protocol=None,
                  **options):
    """The fused run against each component: :func:`rankproof.compare` with the fused run as baseline.

    Every row is (fused, component): ``difference`` is component minus
    fused, so a negative difference means the fusion did better; the
    correction runs over components x measures. ``options`` are
    :func:`rankproof.compare`'s (test, correction, alpha, seed, ...).
    """
    from ..stats import compare

    named = dict(runs) if isinstance(runs, Mapping) else {run.name: run for run in runs}
    fused_name = fused.name if fused.name not in named else f"{fused.name} (fused)"
    return compare(qrels, {fused_name: fused, **named}, measures, protocol, baseline=fused_name,
                   **options)
