"""``compare(qrels, runs, measures)``: paired statistics for every pair of runs and measure.

Layered like evaluate: validate (names, tests, comparability: the inputs live in
:mod:`rankproof.stats.comparison_inputs`), compute (one
matrix of per-query differences, one row per pair x measure; every
statistic vectorised over its rows), correct across the whole family, and
return an immutable :class:`Comparison`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError, literal
from ..measures.base import Measure
from ..measures.parse import parse_measures
from ..protocol import Protocol
from ..protocol.resolve import as_protocol
from ..engines.options import MIN_COVERAGE, EvaluationOptions
from .comparison_inputs import comparable, evaluated_runs, same_queries, value_matrix
from .corrections import correct
from .matrix import query_ids
from .pairwise import pair_index
from .keywords import BootstrapMethod, CorrectionName, TestName
from .paired_rows import (BOOTSTRAP_METHODS, TIE_TOLERANCE, checked_options, method_lines,
                          row_statistics)
from .power import queries_needed
# The earlier private name, which tests import.
from .resampling import mean_intervals as _bootstrap  # noqa: F401
from .significance import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..typing import MeasuresLike, ProtocolLike

__all__ = ["compare", "Comparison", "ComparisonRow", "TIE_TOLERANCE", "BOOTSTRAP_METHODS"]


@dataclasses.dataclass(frozen=True)
class ComparisonRow:
    """One pair of runs on one measure. ``difference`` = ``mean_b - mean_a`` (positive: B is better).

    ``queries`` is the number of paired queries (a value in both runs);
    ``queries_needed`` is None when the difference is 0 (nothing to detect).
    """

    measure: str
    run_a: str
    run_b: str
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_corrected: float
    significant: bool
    effect_size: float
    wins: int
    ties: int
    losses: int
    queries: int
    queries_needed: int | None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Every pair x measure, the settings that produced them, and what was not comparable.

    ``means`` is ``((run, ((measure, mean), ...)), ...)``: each run's mean over
    its own queries under the protocol (:meth:`mean` reads it).
    ``mismatches`` is empty unless ``allow_mismatch=True`` let differences through.
    """

    rows: tuple[ComparisonRow, ...]
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    baseline: str | None
    test: str
    correction: str
    alpha: float
    confidence: float
    power: float
    n_resamples: int
    seed: int | None
    bootstrap_method: str
    protocol: Protocol
    qrels_digest: str | None
    means: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    mismatches: tuple[str, ...] = ()
    # Pairs whose order the judged docs alone do not decide (bounds=True): one sentence each.
    undecided: tuple[str, ...] = ()
    # Doubts about the inputs the evaluation found (ids that half match), "run: line" each.
    warnings: tuple[str, ...] = ()
    # method= as asked ('auto', 'resampling', 'normal'); per row (how its p-value, how its interval
    # was computed); the checks behind the choice, one sentence each (rankproof.stats.asymptotic).
    method: str = "resampling"
    methods: tuple[tuple[str, str], ...] = ()
    method_checks: tuple[str, ...] = ()

    def mean(self, run: str, measure: "str | Measure") -> float:
        return dict(dict(self.means)[run])[str(measure)]

    def row(self, run_a: str, run_b: str, measure: "str | Measure") -> ComparisonRow:
        """The row of a pair on a measure (either order of the pair)."""
        text = str(parse_measures([measure])[0])
        for row in self.rows:
            if row.measure == text and {row.run_a, row.run_b} == {run_a, run_b}:
                return row
        raise InputError(what=literal(f"no row compares {run_a} and {run_b} on {text}"),
                         value=(run_a, run_b, text),
                         fix=literal(f"check the names: runs {', '.join(self.runs)}, measures "
                                     f"{', '.join(self.measures)}"))

    @property
    def significant(self) -> tuple[ComparisonRow, ...]:
        """Rows whose corrected p-value is below alpha."""
        return tuple(row for row in self.rows if row.significant)

    def to_pandas(self):
        """One row per pair x measure, a column per field of :class:`ComparisonRow`."""
        import pandas as pd

        return pd.DataFrame([row.to_dict() for row in self.rows])

    def settings(self) -> dict[str, Any]:
        return {
            "test": self.test, "correction": self.correction, "alpha": self.alpha,
            "confidence": self.confidence, "bootstrap_method": self.bootstrap_method,
            "power": self.power, "n_resamples": self.n_resamples, "seed": self.seed,
            "baseline": self.baseline, "method": self.method,
            "methods_used": sorted({part for pair in self.methods for part in pair}),
            "method_checks": list(self.method_checks),
        }

    @property
    def test_used(self) -> str:
        """The test behind every row's p-value: ``test``, or ``'t'`` when method='auto' gave every row
        the paired t-test; ``'mixed'`` when rows differ."""
        kinds = {p.startswith("paired t-test") for p, _ in self.methods}
        if kinds == {True} and self.test == "randomization":
            return "t"
        return "mixed" if len(kinds) > 1 else self.test

    @staticmethod
    def row_fields() -> list[str]:
        """The fields of every row, in order (the columns of the CSV output)."""
        return [f.name for f in dataclasses.fields(ComparisonRow)]

    def summary(self) -> str:
        """The comparison as a plain-text table with its settings, protocol and mismatches."""
        from ..report.compare import to_table

        return to_table(self)

    def to_markdown(self) -> str:
        """A Markdown table (one row per measure x pair, significant ones marked ``*``) and its notes."""
        from ..report.compare import to_markdown

        return to_markdown(self)

    def to_latex(self) -> str:
        """A booktabs table for a paper: runs as rows labelled a, b, ..., measures as columns; each
        mean carries the labels of the runs it is significantly better than; the caption states the
        test, the correction and ``$p < \\alpha$`` in math mode."""
        from ..report.compare import to_latex

        return to_latex(self)

    def to_json(self) -> str:
        """Settings, protocol, means and every row at full precision, as JSON text."""
        from ..report.compare import to_json

        return to_json(self)

    def to_csv(self) -> str:
        """One line per measure x pair, every field at full precision."""
        from ..report.compare import to_csv

        return to_csv(self)

    def to_html(self, *, command: str | None = None) -> str:
        """A self-contained HTML page of this comparison: protocol, settings and the
        table with intervals, corrected significance marks, W/T/L, effect sizes and
        queries needed. Per-query plots need the per-query values:
        :func:`rankproof.report` draws those."""
        from ..report.figures import from_comparison
        from ..report.html import render

        return render(from_comparison(self, command=command))

    def _repr_html_(self) -> str:
        from ..report.html import in_frame

        return in_frame(self.to_html())

    def __repr__(self) -> str:
        return (f"Comparison({len(self.runs)} runs x {len(self.measures)} measures, {len(self.rows)} rows, "
                f"{len(self.significant)} significant; test={self.test} correction={self.correction})")



# -- the entry point ---------------------------------------------------------------------
def compare(
    qrels,
    runs: "Mapping[str, Any] | Sequence[Any]",
    measures: "MeasuresLike | None" = None,
    protocol: ProtocolLike = None,
    *,
    test: TestName = "randomization",
    correction: CorrectionName = "holm",
    alpha: float = 0.05,
    baseline: str | None = None,
    confidence: float = 0.95,
    bootstrap_method: BootstrapMethod = "percentile",
    power: float = 0.8,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    allow_mismatch: bool = False,
    labels=None,
    allow_partial: bool = False,
    bounds: bool = False,
    method: str = "auto",
    min_coverage: float = MIN_COVERAGE,
) -> Comparison:
    """Compare runs pairwise on per-query values: differences, intervals, tests, corrections.

    For every pair (A, B) of runs, or every run B against ``baseline`` A, and
    every measure, over the queries both runs have a value for:

    - ``mean_a``, ``mean_b`` and ``difference`` = mean(B - A) (macro means);
    - ``ci_low``, ``ci_high``: paired bootstrap interval of the difference at
      ``confidence`` (``scipy.stats.bootstrap`` resampling queries, method
      ``bootstrap_method``: percentile by default, or BCa);
    - ``p_value`` of the two-sided paired ``test``: ``'t'`` (``ttest_rel``),
      ``'wilcoxon'`` (signed-rank) or ``'randomization'`` (sign-flip
      permutation test, ``n_resamples`` seeded draws; exact when 2**n queries
      are fewer, see :func:`rankproof.stats.significance.randomization`);
    - ``p_corrected`` across all pairs x measures (``correction``: ``'holm'``,
      ``'bonferroni'``, ``'bh'`` Benjamini-Hochberg, or ``'none'``) and
      ``significant`` = p_corrected < alpha;
    - ``effect_size``: paired Cohen's d, mean(B - A) / sd(B - A) (ddof 1);
    - ``wins``, ``ties``, ``losses``: queries where B is above, equal to
      (within 1e-12), below A;
    - ``queries_needed``: the smallest number of queries at which a paired
      t-test reaches ``power`` at ``alpha`` for this effect size (None: no
      difference to detect).

    Parameters
    ----------
    qrels : Qrels or None
        Needed when any run is a :class:`~rankproof.Run`.
    runs : mapping name -> Run / Results / saved results, or a list of them
        Lists are named by each run's name. Saved results come from
        :func:`rankproof.stats.load_results`.
    measures : measures, default every measure of the first Results
    protocol : Protocol, preset name or text, default ``Protocol()``
        Used to evaluate Runs; Results keep their own.
    allow_mismatch : bool, default False
        Runs evaluated under different protocols, on different qrels or on
        different query sets are refused (:class:`~rankproof.errors.ComparabilityError`).
        With True they are compared on the queries they share, and
        ``Comparison.mismatches`` says what differs.
    allow_partial : bool, default False
        Evaluate Runs that rank fewer than half of the judged queries (see
        :func:`rankproof.evaluate`); refused by default.
    min_coverage : float, default 0.5
        The share of the judged queries a Run must rank (see :func:`rankproof.evaluate`).
    method : {'auto', 'resampling', 'normal'}, default 'auto'
        How p-values (of the randomization test) and intervals are computed.
        ``'resampling'``: sign flips and the bootstrap, always. ``'auto'``: a
        row with 1,000 paired queries or more takes the paired t-test and the
        normal interval mean +- z se where the checks of
        :mod:`rankproof.stats.asymptotic` show resampling could not tell them
        apart (a Berry-Esseen bound on the p-value's error and the skewness
        shift of the interval's ends, each within the Monte Carlo error of
        ``n_resamples`` draws); smaller rows always resample, so their numbers
        do not change. ``'normal'``: the normal forms for every row. What each
        row used is in ``Comparison.methods`` and the checks in
        ``Comparison.method_checks`` (printed under the table).
    labels : list or mapping, optional
        Names the runs in rows and tables: one label per run, in order, or
        ``{run name: label}`` for some of them (``baseline`` then takes the
        label). A mapping of runs ``{label: run}`` names them too.

    Returns
    -------
    Comparison
        ``summary()``, ``to_markdown()``, ``to_latex()``, ``to_json()``,
        ``to_csv()`` and ``to_pandas()`` render it.

    Notes
    -----
    Which queries enter is the protocol's business, not compare's: under
    ``missing_query=zero`` (the default) a judged query a run does not rank
    scores 0, so every run evaluated on the same qrels has the same query
    set; under ``missing_query=exclude`` runs that skip different queries
    have different sets and are refused. Queries excluded by
    ``zero_ideal=exclude`` (NaN) leave the pairs they are NaN in. The tests
    work on per-query values, so only ``aggregation=macro`` is accepted.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> from rankproof import compare
    >>> qrels = Qrels.from_dict({f"q{i}": {"a": 1, "b": 1} for i in range(6)})
    >>> good = Run.from_dict({f"q{i}": ["a", "b"] for i in range(6)}, name="good")
    >>> bad = Run.from_dict({f"q{i}": ["x", "a"] for i in range(6)}, name="bad")
    >>> result = compare(qrels, [bad, good], ["p@1"])
    >>> row = result.rows[0]
    >>> (row.run_a, row.run_b, row.difference, row.wins, row.ties, row.losses)
    ('bad', 'good', 1.0, 6, 0, 0)

    Six wins out of six: the exact randomization test over the 2**6 sign
    assignments gives p = 2 / 64.

    >>> row.p_value
    0.03125
    """
    test, correction, bootstrap_method = checked_options(
        test=test, correction=correction, bootstrap_method=bootstrap_method, alpha=alpha,
        confidence=confidence,
        power=power, n_resamples=n_resamples, seed=seed, method=method)
    if protocol is not None:
        protocol = as_protocol(protocol)   # a Protocol as it is; a name or text resolved
    options = EvaluationOptions(allow_partial=allow_partial, bounds=bounds,
                                min_coverage=min_coverage)
    names, evaluated, measure_list = evaluated_runs(qrels, runs, measures, protocol, labels,
                                                    options)
    queries = [query_ids(result) for result in evaluated]   # arrays: no list of a million ids
    same = same_queries(queries)
    mismatches = comparable(names, evaluated, baseline, allow_mismatch, queries, same)
    # Every pair, or the baseline against each other run (comparable() has checked its name).
    pairs = pair_index(tuple(names), None if baseline is None else [baseline])
    _, values = value_matrix(evaluated, measure_list, queries, same)
    del queries
    # One row per measure x pair: B - A per query, NaN where either has no value.
    index = [(m, a, b) for m in range(len(measure_list)) for a, b in pairs]
    rows, methods, checks = _rows(values, index, names, measure_list, test=test,
                                  correction=correction, alpha=alpha, confidence=confidence,
                                  power=power, n_resamples=n_resamples, seed=seed,
                                  bootstrap_method=bootstrap_method, method=method)
    return Comparison(
        rows=rows, runs=tuple(names), measures=tuple(str(m) for m in measure_list),
        baseline=baseline,
        test=test, correction=correction, alpha=float(alpha), confidence=float(confidence),
        power=float(power),
        n_resamples=n_resamples, seed=seed, bootstrap_method=bootstrap_method,
        protocol=evaluated[0].protocol, qrels_digest=evaluated[0].qrels_digest,
        means=_means(names, evaluated, measure_list),
        mismatches=tuple(mismatches), undecided=_undecided(names, evaluated, index, measure_list),
        warnings=tuple(f"{name}: {line}" for name, result in zip(names, evaluated)
                       for line in getattr(result, "warnings", ())),
        method=method, methods=methods, method_checks=checks)



# Per-query differences held at once (rows x queries): about 32 MB, however many runs are compared.
_ROW_VALUES = 4_000_000


def _rows(values: np.ndarray, index: list[tuple[int, int, int]], names: list[str],
          measure_list: list[Measure], *,
          test: TestName, correction: CorrectionName, alpha: float, confidence: float, power: float,
          n_resamples: int, seed: int | None, bootstrap_method: BootstrapMethod, method: str
          ) -> tuple[tuple[ComparisonRow, ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """One row per (measure, run A, run B) of `index`: every statistic vectorised over the rows;
    with the rows, how each row's p-value and interval were computed and the checks behind that
    (:func:`~rankproof.stats.paired_rows.method_lines`).

    `values` is values[run, measure, query] (NaN where a run has no value).
    Rows are computed in blocks of about 4 million differences, so memory
    stays flat with many runs (pairs grow as the square of the runs); every
    statistic of a row depends on that row alone (the randomization test and
    the bootstrap draw from the same seed in every block), and the
    correction runs once over all p-values.
    """
    block = max(1, _ROW_VALUES // max(1, values.shape[2]))
    parts = [row_statistics(values, index[start:start + block], names, measure_list, test=test,
                            confidence=confidence, n_resamples=n_resamples, seed=seed,
                            bootstrap_method=bootstrap_method, method=method)
             for start in range(0, len(index), block)]
    stat = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    p = stat["p"]
    # Undefined p-values are not in the family the correction counts.
    p_corrected = np.full(len(p), np.nan)
    defined = ~np.isnan(p)
    p_corrected[defined] = correct(p[defined], correction)
    effect = stat["effect"]
    rows = tuple(
        ComparisonRow(
            measure=str(measure_list[m]), run_a=names[a], run_b=names[b],
            mean_a=float(stat["mean_a"][r]), mean_b=float(stat["mean_b"][r]),
            difference=float(stat["difference"][r]),
            ci_low=float(stat["low"][r]), ci_high=float(stat["high"][r]),
            p_value=float(p[r]), p_corrected=float(p_corrected[r]),
            significant=bool(p_corrected[r] < alpha),
            effect_size=float(effect[r]), wins=int(stat["wins"][r]), ties=int(stat["ties"][r]),
            losses=int(stat["losses"][r]), queries=int(stat["n"][r]),
            queries_needed=queries_needed(float(effect[r]), alpha, power))
        for r, (m, a, b) in enumerate(index))
    return rows, *method_lines(stat, method=method, test=test, confidence=confidence,
                               n_resamples=n_resamples, bootstrap_method=bootstrap_method)


def _undecided(names: list[str], evaluated: list[Any], index,
               measure_list: list[Measure]) -> tuple[str, ...]:
    """The pairs x measures whose means' bounds under the unjudged docs overlap,
    so that the judged docs alone do not decide which run is better (runs
    evaluated with bounds=True; none otherwise)."""
    if not all(getattr(result, "has_bounds", False) for result in evaluated):
        return ()
    found = []
    for m, a, b in index:
        first, second = evaluated[a].bounds(measure_list[m]), evaluated[b].bounds(measure_list[m])
        if first.overlaps(second):
            found.append(f"{measure_list[m]}: {names[a]} {first.format()} and {names[b]} {second.format()} overlap, "
                         "so the unjudged docs could reverse their order")
    return tuple(found)


def _means(names: list[str], evaluated: list[Any], measure_list: list[Measure]
           ) -> tuple[tuple[str, tuple[tuple[str, float], ...]], ...]:
    """Each run's mean of each measure over its own queries (NaN where it has none)."""
    return tuple((name, tuple((str(m), _mean(result, m)) for m in measure_list))
                 for name, result in zip(names, evaluated))


def _mean(result, measure) -> float:
    value = result.mean(measure)
    return float(value) if value is not None else math.nan
