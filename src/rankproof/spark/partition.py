"""What one Spark partition runs: rankproof's own pipeline and engine, once.

A partition holds every row of its queries, of both the qrels and the run
(:func:`rankproof.spark.inputs.stacked`, repartitioned by query and sorted
within the partition by side and input order). Arrow hands them over in
batches that split a query's rows, so all the batches of the partition are
gathered first; then the rows become a :class:`~rankproof.Qrels` and a
:class:`~rankproof.Run` through the same table readers every front door
uses, and :func:`rankproof.evaluate` applies every row policy and computes
every measure in one call. Nothing here interprets a policy: the values of a
query are those the local engine gives it, because they are computed by it.

The output is one Arrow row per evaluated query (its values, the numerators
and denominators micro averaging sums, its flags) and one summary row per
partition (query null) with the partition's counts, notes and grade range,
or the rankproof error the partition raised, which the driver raises again:
a bad input is reported as one line, not as a worker's traceback. The error
goes over by its fields (:func:`error_summary`); a row of a table it names
is named by its place in the stacked table (side and input order), which
only the driver can turn into the row of the input.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from ..errors import RankproofError
from ..measures.base import Measure
from ..protocol import MissingQuery, Protocol
from .inputs import QRELS_SIDE, ROW, RUN_SIDE, SIDE, Columns

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from ..results import Results

__all__ = ["output_schema", "PartitionTask", "SUMMARY", "error_summary"]

SUMMARY = "_rankproof_summary"


def _plain(value: Any) -> Any:
    """A value JSON carries as it is; anything else as its repr."""
    return value if value is None or isinstance(value, (str, bool, int, float)) else repr(value)


def error_summary(error: RankproofError, side: int | None = None, rows: "pa.ChunkedArray | None" = None) -> dict:
    """A partition's error as JSON can carry it to the driver: its type, its
    message and its fields. When it names a row of one side's table (`side`,
    whose rows' places in the stacked table are `rows`), the place of that
    row goes instead (``input_row``: side and input order), which the driver
    turns into the row of the whole input.

    >>> from rankproof.errors import ParseError
    >>> error_summary(ParseError(what="no score", source="run", row=2), 1, [10, 42])["input_row"]
    [1, 42]
    """
    summary: dict[str, Any] = {"type": type(error).__name__, "message": str(error),
                               "fields": {name: _plain(value) for name, value in error.fields().items()}}
    if summary["fields"] and error.row is not None and rows is not None:
        place = rows[error.row - 1]
        summary["input_row"] = [side, int(place.as_py() if hasattr(place, "as_py") else place)]
        summary["fields"]["row"] = None
    return summary


class _AtRow(Exception):
    """A rankproof error raised by a reader of one side's table (see :func:`error_summary`)."""

    def __init__(self, error: RankproofError, side: int, rows: "pa.ChunkedArray") -> None:
        super().__init__(str(error))
        self.error, self.side, self.rows = error, side, rows


def output_schema(num_measures: int) -> str:
    """The Spark DDL schema of a partition's output, measure i in columns
    ``v{i}`` (value, NaN when excluded), ``i{i}`` (included in the mean),
    ``n{i}`` / ``d{i}`` (numerator, denominator; null when the measure has
    none) and ``z{i}`` (nothing relevant).

    >>> output_schema(1)
    'query string, in_run boolean, retrieved long, unjudged_retrieved long, v0 double, i0 boolean, n0 double, d0 double, z0 boolean, _rankproof_summary string'
    """
    fields = ["query string", "in_run boolean", "retrieved long", "unjudged_retrieved long"]
    for i in range(num_measures):
        fields += [f"v{i} double", f"i{i} boolean", f"n{i} double", f"d{i} double", f"z{i} boolean"]
    fields.append(f"{SUMMARY} string")
    return ", ".join(fields)


def _arrow_schema(num_measures: int) -> "pa.Schema":
    import pyarrow as pa

    fields = [("query", pa.string()), ("in_run", pa.bool_()), ("retrieved", pa.int64()),
              ("unjudged_retrieved", pa.int64())]
    for i in range(num_measures):
        fields += [(f"v{i}", pa.float64()), (f"i{i}", pa.bool_()), (f"n{i}", pa.float64()),
                   (f"d{i}", pa.float64()), (f"z{i}", pa.bool_())]
    fields.append((SUMMARY, pa.string()))
    return pa.schema(fields)


def _sentinel_query(queries: np.ndarray) -> str:
    """A query id that none of `queries` is."""
    taken = set(queries.tolist())
    candidate = "~rankproof-no-query"
    while candidate in taken:
        candidate += "~"
    return candidate


class PartitionTask:
    """The function Spark calls on each partition (``mapInArrow``); picklable.

    Parameters
    ----------
    measures : the parsed measures, in the order of the output columns
    protocol : the caller's protocol; each partition evaluates under it with
        ``extra_query=ignore`` and ``aggregation=macro``, since the driver
        applies those two itself (the query policies with a Spark join over
        all queries, the mean with a Spark reduction)
    columns : the caller's column names
    layout : where each side's columns are in the stacked table (:func:`~rankproof.spark.inputs.stacked`)
    qrels_source, run_source, run_name : for messages and results
    """

    def __init__(self, measures: Sequence[Measure], protocol: Protocol, columns: Columns,
                 layout: dict[str, dict[str, str]], qrels_source: str, run_source: str, run_name: str) -> None:
        self.measures = list(measures)
        self.layout = layout
        self.protocol = protocol
        self.columns = columns
        self.qrels_source = qrels_source
        self.run_source = run_source
        self.run_name = run_name

    def __call__(self, batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        import pyarrow as pa

        schema = _arrow_schema(len(self.measures))
        gathered = list(batches)
        summary: dict[str, Any] = {"counts": {}, "notes": [], "grade_range": None, "error": None}
        rows = None
        if gathered and sum(batch.num_rows for batch in gathered):
            table = pa.Table.from_batches(gathered)
            try:
                results, counts = self._evaluate(table)
            except _AtRow as located:
                summary["error"] = error_summary(located.error, located.side, located.rows)
            except RankproofError as error:
                summary["error"] = error_summary(error)
            else:
                summary["counts"] = counts
                if results is not None:
                    rows = self._rows(results, schema)
                    summary["notes"] = list(results.table.notes)
                    grade_range = results.table.grade_range
                    summary["grade_range"] = None if grade_range is None else [float(v) for v in grade_range]
        if rows is not None and rows.num_rows:
            yield rows
        last = {name: pa.nulls(1, type=field.type) for name, field in zip(schema.names, schema)}
        last[SUMMARY] = pa.array([json.dumps(summary)], type=pa.string())
        yield pa.record_batch(list(last.values()), schema=schema)

    def _sides(self, table: "pa.Table") -> tuple["pa.Table", "pa.Table", "pa.ChunkedArray", "pa.ChunkedArray"]:
        """Each side's table, and the place of each of its rows in the stacked table."""
        import pyarrow.compute as pc

        is_qrels = pc.equal(table.column(SIDE), QRELS_SIDE)
        judged = table.filter(is_qrels)
        ranked = table.filter(pc.invert(is_qrels))
        columns, layout = self.columns, self.layout
        qrels = judged.select([layout["qrels"][role] for role in ("query", "doc", "grade")]).rename_columns(
            [columns.query, columns.doc, columns.grade or "grade"])
        roles = ["query", "doc"] + (["score"] if columns.score is not None else [])
        names = [columns.query, columns.doc] + ([columns.score] if columns.score is not None else [])
        run = ranked.select([layout["run"][role] for role in roles]).rename_columns(names)
        return qrels, run, judged.column(ROW), ranked.column(ROW)

    @staticmethod
    def _read(side: int, rows: "pa.ChunkedArray", read):
        """`read()`, with an error naming a row of the side's table raised as :class:`_AtRow`."""
        try:
            return read()
        except RankproofError as error:
            if error.row is None:
                raise
            raise _AtRow(error, side, rows) from None

    def _evaluate(self, table: "pa.Table") -> tuple["Results | None", dict[str, Any]]:
        """The partition's results (None when it evaluates no query) and counts."""
        import pyarrow as pa

        from ..data.qrels import Qrels
        from ..data.run import Run
        from ..evaluation import evaluate
        from ..pipeline.alignment import apply_negative_grades

        columns = self.columns
        qrels_table, run_table, judged_rows, ranked_rows = self._sides(table)
        run = None
        if run_table.num_rows:  # read even when nothing is judged: a bad row is refused as locally
            run = self._read(RUN_SIDE, ranked_rows, lambda: Run.from_table(
                run_table, query=columns.query, doc=columns.doc, score=columns.score, source=self.run_source,
                name=self.run_name))
        if not qrels_table.num_rows:
            return None, {}
        qrels = self._read(QRELS_SIDE, judged_rows, lambda: Qrels.from_table(
            qrels_table, query=columns.query, doc=columns.doc, grade=columns.grade or "grade",
            source=self.qrels_source))
        shared = run is not None and bool(np.isin(qrels.queries, run.queries).any())
        protocol = self.protocol.replace(extra_query="ignore", aggregation="macro")
        if not shared and protocol.missing_query is not MissingQuery.ZERO:
            # Every judged query here is missing from the run and left out of
            # the mean: nothing to evaluate, but the judgments still pass the
            # negative_grades policy, as in a local evaluation.
            def judgment(i: int) -> dict:
                return {"source": qrels.source, "query": str(qrels.queries[np.searchsorted(qrels.offsets, i, "right") - 1]),
                        "doc": str(qrels.docs[qrels.doc_codes[i]])}

            apply_negative_grades(qrels.grades, protocol, judgment)
            return None, {"negative_grades": int((qrels.grades < 0).sum())}
        if run is None:
            # Every judged query here is missing from the run and scored as an
            # empty ranking; align() needs a ranked row, so the run gets one of
            # a query nobody judged, which extra_query=ignore leaves out (the
            # query counts are the driver's, from a join over all queries).
            sentinel = pa.table({columns.query: [_sentinel_query(qrels.queries)], columns.doc: ["-"],
                                 **({columns.score: [0.0]} if columns.score is not None else {})})
            run = Run.from_table(sentinel, query=columns.query, doc=columns.doc, score=columns.score,
                                 source=self.run_source, name=self.run_name)
        results = evaluate(qrels, run, self.measures, protocol, allow_partial=True)
        return results, dict(results.counts)

    def _rows(self, results: "Results", schema: "pa.Schema") -> "pa.RecordBatch":
        import pyarrow as pa

        table = results.table
        arrays: list[Any] = [pa.array(table.queries.astype(str), type=pa.string()),
                             pa.array(np.asarray(table.in_run, dtype=bool)),
                             pa.array(np.asarray(table.retrieved, dtype=np.int64)),
                             pa.array(np.asarray(table.unjudged_retrieved, dtype=np.int64))]
        n = len(table.queries)
        for measure in self.measures:
            result = results.result(measure)

            def ratio(part: np.ndarray | None) -> "pa.Array":
                if part is None:
                    return pa.nulls(n, type=pa.float64())
                return pa.array(np.asarray(part, dtype=np.float64))

            arrays += [pa.array(np.asarray(result.value, dtype=np.float64)),
                       pa.array(np.asarray(result.included, dtype=bool)),
                       ratio(result.numerator), ratio(result.denominator),
                       pa.array(np.asarray(result.zero_ideal, dtype=bool))]
        arrays.append(pa.nulls(n, type=pa.string()))
        return pa.record_batch(arrays, schema=schema)
