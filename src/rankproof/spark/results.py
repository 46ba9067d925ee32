"""SparkResults: what an evaluation on Spark produced, kept where it lives.

Means and counts are small and held in the driver; per-query values stay in
Spark (cached by the evaluation, as Arrow IPC blobs) until asked for:
:attr:`SparkResults.per_query` is that DataFrame, :meth:`~SparkResults.write_parquet`
writes it, and :meth:`~SparkResults.to_results` collects it into the
:class:`rankproof.Results` the local engine returns, for every renderer,
``compare`` and ``per_query`` dictionary.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engines.options import MIN_COVERAGE
from ..measures.base import Measure
from ..measures.parse import held_measure
from ..protocol import Protocol

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

    from ..results import Results

__all__ = ["SparkResults"]


class SparkResults:
    """Means, counts, the protocol and per-query values of a Spark evaluation.

    Built by :func:`rankproof.spark.evaluate`. Means and counts equal those
    of :func:`rankproof.evaluate` on the same inputs; ``to_results()`` gives
    that :class:`rankproof.Results` itself (collecting one row per query).
    """

    def __init__(self, *, blobs: "DataFrame", measures: list[Measure], protocol: Protocol,
                 means: dict[Measure, float], counts: dict[str, Any], notes: tuple[str, ...],
                 grade_range: tuple[float, float] | None, run_name: str, qrels_source: str,
                 run_source: str, weights: "DataFrame | None", cached: "DataFrame | None" = None,
                 warnings: tuple[str, ...] = (), min_coverage: float = MIN_COVERAGE) -> None:
        # one column: Arrow IPC blobs of per-query values (partition.output_schema)
        self._blobs = blobs
        self._cached = cached if cached is not None else blobs  # what the evaluation persisted
        self._measures = measures
        self.protocol = protocol
        self._means = means
        self._counts = counts
        self._notes = notes
        self._grade_range = grade_range
        self.run_name = run_name
        self.qrels_source = qrels_source
        self.run_source = run_source
        self._weights = weights
        self.complete_judgments = False
        self.warnings = warnings  # the partial-match guard's doubts, as Results.warnings
        self.min_coverage = min_coverage  # the share asked for, as Results.min_coverage

    def complete(self, *, means: dict[Measure, float], notes: tuple[str, ...],
                 grade_range: tuple[float, float] | None) -> None:
        """Set what the driver makes of every partition's summary (the evaluation does)."""
        self._means, self._notes, self._grade_range = means, notes, grade_range

    @property
    def values_frame(self) -> "DataFrame":
        """The per-query values with rankproof's internal columns (:func:`~rankproof.spark.partition.output_schema`)."""
        import warnings

        from .partition import output_schema, unpack_values
        from .session import quiet_pyspark

        with warnings.catch_warnings():
            quiet_pyspark()
            return self._blobs.mapInArrow(unpack_values, output_schema(len(self._measures)))

    # -- what is held in the driver ------------------------------------------
    @property
    def fingerprint(self) -> str:
        """The protocol's fingerprint."""
        return self.protocol.fingerprint

    @property
    def measures(self) -> list[Measure]:
        return list(self._measures)

    def _index(self, measure: "str | Measure") -> int:
        return self._measures.index(held_measure(measure, self._measures))

    def mean(self, measure: "str | Measure") -> float:
        """The aggregate under the protocol's aggregation policy, reduced in Spark
        (macro, micro or weighted, as :meth:`rankproof.Results.mean` defines them)."""
        return self._means[self._measures[self._index(measure)]]

    def means(self) -> dict[str, float]:
        """``{measure text: mean}`` for every measure, in the order asked."""
        return {str(m): self._means[m] for m in self._measures}

    @property
    def counts(self) -> dict[str, Any]:
        """Every case a policy touched; the same keys as :attr:`rankproof.Results.counts`."""
        return {key: (dict(value) if isinstance(value, dict) else value)
                for key, value in self._counts.items()}

    @property
    def query_coverage(self) -> float:
        """Share of the judged queries that the run ranks (1.0 when nothing is judged)."""
        judged = self._counts["queries_in_qrels"]
        return 1.0 if not judged else (judged - self._counts["queries_missing_from_run"]) / judged

    @property
    def notes(self) -> tuple[str, ...]:
        return self._notes

    # -- per query, in Spark --------------------------------------------------
    @property
    def per_query(self) -> "DataFrame":
        """One row per evaluated query, as a Spark DataFrame (nothing collected).

        The columns of :meth:`rankproof.Results.to_pandas`: ``query`` (the id as
        text), one per measure (NaN = excluded), ``<ndcg>:dcg`` and
        ``<ndcg>:ideal_dcg``, ``in_run``, ``retrieved``, ``unjudged_retrieved``
        and ``zero_ideal:<measure>`` for normalised measures.
        """
        from pyspark.sql import functions as F

        selected = [F.col("query")]
        selected += [F.col(f"v{i}").alias(str(m)) for i, m in enumerate(self._measures)]
        for i, m in enumerate(self._measures):
            if m.spec.dcg_parts:
                selected += [F.col(f"n{i}").alias(f"{m}:dcg"),
                             F.col(f"d{i}").alias(f"{m}:ideal_dcg")]
        selected += [F.col("in_run"), F.col("retrieved"), F.col("unjudged_retrieved")]
        selected += [F.col(f"z{i}").alias(f"zero_ideal:{m}") for i, m in enumerate(self._measures)
                     if m.spec.normalised]
        return self.values_frame.select(*selected)

    def write_parquet(self, path: str, mode: str = "errorifexists") -> None:
        """Write :attr:`per_query` as Parquet (a directory, written by the executors)."""
        self.per_query.write.mode(mode).parquet(path)

    def unpersist(self) -> None:
        """Free the cached per-query values (the means and counts stay)."""
        self._cached.unpersist()

    # -- collected --------------------------------------------------------------
    def to_results(self) -> "Results":
        """The :class:`rankproof.Results` of the local engine: collects one row per query."""
        from ..pipeline.alignment import QueryTable
        from ..results import MeasureResult, Results

        import pyarrow as pa

        from .pack import from_blob

        collected = self._blobs.toArrow() if hasattr(self._blobs, "toArrow") else None
        blobs = (collected.column(0).to_pylist() if collected is not None
                 else [r[0] for r in self._blobs.collect()])
        table = pa.concat_tables([from_blob(bytes(blob)) for blob in blobs]) if blobs else None
        queries = (table.column("query").to_numpy(zero_copy_only=False).astype(str) if table
                   else np.array([], str))
        order = np.argsort(queries, kind="stable")  # text order, as the local alignment's
        queries = queries[order]

        def column(name: str, dtype: Any) -> np.ndarray:
            if table is None:
                return np.array([], dtype=dtype)
            return table.column(name).to_numpy(zero_copy_only=False).astype(dtype,
                                                                            copy=False)[order]

        query_table = QueryTable(
            queries=queries, in_run=column("in_run", bool), retrieved=column("retrieved", np.int64),
            unjudged_retrieved=column("unjudged_retrieved", np.int64),
            qrels_source=self.qrels_source,
            run_source=self.run_source, notes=self._notes, grade_range=self._grade_range,
            judged_queries=self._counts["queries_in_qrels"],
            missing_queries=self._counts["queries_missing_from_run"],
            warnings=self.warnings)
        measures = {}
        for i, m in enumerate(self._measures):
            def ratio(name: str) -> np.ndarray | None:
                if (table is not None and len(queries) and table.column(name).null_count
                    == len(queries)):
                    return None
                return column(name, np.float64)

            measures[m] = MeasureResult(measure=m, value=column(f"v{i}", np.float64),
                                        included=column(f"i{i}", bool),
                                        numerator=ratio(f"n{i}"), denominator=ratio(f"d{i}"),
                                        zero_ideal=column(f"z{i}", bool))
        weights = None
        if self._weights is not None:
            given = {str(row[0]): float(row[1]) for row in self._weights.collect()}
            weights = np.array([given[q] for q in queries.tolist()])
        return Results(table=query_table, counts=dict(self._counts), protocol=self.protocol,
                       measures=measures,
                       weights=weights, run_name=self.run_name,
                       complete_judgments=self.complete_judgments,
                       min_coverage=self.min_coverage)

    def to_pandas(self):
        """:meth:`rankproof.Results.to_pandas` of :meth:`to_results` (collects)."""
        return self.to_results().to_pandas()

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" if not math.isnan(v) else f"{k}=nan"
                          for k, v in self.means().items())
        return f"SparkResults({self.run_name!r}: {means}; protocol {self.protocol.fingerprint})"
