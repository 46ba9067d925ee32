"""What one Spark partition runs: rankproof's own pipeline and engine, once.

A partition receives the blobs of its bucket of queries
(:mod:`rankproof.spark.pack`): every row of those queries, of both the qrels
and the run. Each side's rows are put back in input order (by their place,
:data:`~rankproof.spark.pack.ROW`), become a :class:`~rankproof.Qrels` and a
:class:`~rankproof.Run` through the same table readers every front door
uses, and :func:`rankproof.evaluate` applies every row policy and computes
every measure in one call. Nothing here interprets a policy: the values of a
query are those the local engine gives it, because they are computed by it.

The output is a few rows of (summary, values): the per-query values (each
measure's value, the numerator and denominator micro averaging sums, its
flags) as Arrow IPC blobs, and one summary (JSON) with the partition's
counts, notes, grade range, its queries' coverage facts (judged, ranked,
missing, extra: each query is in one partition only, so the driver adds
them up) and each measure's exact sums (:mod:`rankproof.spark.sums`), or the
rankproof error the partition raised, which the driver raises again: a bad
input is reported as one line, not as a worker's traceback. The error goes
over by its fields (:func:`error_summary`); a row of a table it names is
named by its place in its input, which the driver turns into the row.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from ..errors import RankproofError
from ..measures.base import Measure
from ..protocol import MissingQuery, Protocol
from .inputs import Columns
from .pack import BLOB, QRELS_SIDE, ROW, RUN_SIDE, SIDE, from_blob, to_blob
from .sums import exact_sum

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from ..results import Results

__all__ = ["output_schema", "PartitionTask", "SUMMARY", "VALUES", "EVALUATED_SCHEMA",
           "error_summary", "unpack_values",
           "SOME_IDS", "GUARD_IDS"]

SUMMARY, VALUES = "_rankproof_summary", "_rankproof_values"
EVALUATED_SCHEMA = f"{SUMMARY} string, {VALUES} binary"
SOME_IDS = 4  # ids of missing and extra queries each partition names, for messages
# unmatched query ids each partition samples for the partial-match guard (evenly spaced)
GUARD_IDS = 200
VALUES_PER_BLOB = 1 << 20  # queries per blob of values


def _plain(value: Any) -> Any:
    """A value JSON carries as it is; anything else as its repr."""
    return value if value is None or isinstance(value, (str, bool, int, float)) else repr(value)


def error_summary(error: RankproofError, side: int | None = None,
                  rows: "pa.ChunkedArray | None" = None) -> dict:
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
                               "fields": {name: _plain(value)
                                          for name, value in error.fields().items()}}
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
    """The Spark DDL schema of the per-query values, measure i in columns
    ``v{i}`` (value, NaN when excluded), ``i{i}`` (included in the mean),
    ``n{i}`` / ``d{i}`` (numerator, denominator; null when the measure has
    none) and ``z{i}`` (nothing relevant).

    >>> output_schema(1)
    'query string, in_run boolean, retrieved long, unjudged_retrieved long, v0 double, i0 boolean, n0 double, d0 double, z0 boolean'
    """
    fields = ["query string", "in_run boolean", "retrieved long", "unjudged_retrieved long"]
    for i in range(num_measures):
        fields += [f"v{i} double", f"i{i} boolean", f"n{i} double", f"d{i} double", f"z{i} boolean"]
    return ", ".join(fields)


def _arrow_schema(num_measures: int) -> "pa.Schema":
    import pyarrow as pa

    fields = [("query", pa.string()), ("in_run", pa.bool_()), ("retrieved", pa.int64()),
              ("unjudged_retrieved", pa.int64())]
    for i in range(num_measures):
        fields += [(f"v{i}", pa.float64()), (f"i{i}", pa.bool_()), (f"n{i}", pa.float64()),
                   (f"d{i}", pa.float64()), (f"z{i}", pa.bool_())]
    return pa.schema(fields)


def unpack_values(batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    """The ``mapInArrow`` function giving the per-query values (:func:`output_schema`) of blobs of them."""
    for batch in batches:
        for blob in batch.column(0):
            if blob.is_valid:
                yield from from_blob(blob.as_buffer()).to_batches()


def _sentinel_query(queries: np.ndarray) -> str:
    """A query id that none of `queries` is."""
    taken = set(queries.tolist())
    candidate = "~rankproof-no-query"
    while candidate in taken:
        candidate += "~"
    return candidate


def _distinct(table: "pa.Table", column: str, as_text: bool) -> "pa.Array":
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = (pc.unique(table.column(column)).drop_null() if table.num_rows
            else pa.array([], pa.string()))
    return (keys.cast(pa.string()) if as_text or not pa.types.is_integer(keys.type)
            else keys.cast(pa.int64()))


def query_facts(qrels: "pa.Table", run: "pa.Table", column: str) -> dict[str, Any]:
    """How many queries the partition's qrels judge and its run ranks, which of them
    the other side lacks (counted, and the first few ids named), from the raw rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    as_text = (qrels.num_rows and run.num_rows and qrels.column(column).type
               != run.column(column).type)
    judged, ranked = _distinct(qrels, column, bool(as_text)), _distinct(run, column, bool(as_text))
    if judged.type != ranked.type:
        judged, ranked = judged.cast(pa.string()), ranked.cast(pa.string())
    missing = judged.filter(pc.invert(pc.is_in(judged, value_set=ranked)))
    extra = ranked.filter(pc.invert(pc.is_in(ranked, value_set=judged)))

    def some(ids: "pa.Array") -> list[str]:
        return ids.cast(pa.string()).sort().slice(0, SOME_IDS).to_pylist()

    def spread(ids: "pa.Array") -> list[str]:
        ordered = ids.cast(pa.string()).sort()
        if len(ordered) <= GUARD_IDS:
            return ordered.to_pylist()
        return ordered.take(pa.array(np.linspace(0, len(ordered) - 1,
                                                 GUARD_IDS).astype(np.int64))).to_pylist()

    # '001' and '1' are spread to different partitions: each side's unmatched ids go to the driver's
    # guard
    return {"qrels": len(judged), "run": len(ranked), "missing": len(missing), "extra": len(extra),
            "some_missing": some(missing), "some_extra": some(extra),
            "sample_missing": spread(missing), "sample_extra": spread(extra)}


class PartitionTask:
    """The function Spark calls on each partition (``mapInArrow``); picklable.

    Parameters
    ----------
    measures : the parsed measures, in the order of the output columns
    protocol : the caller's protocol; each partition evaluates under it with
        ``extra_query=ignore``, ``missing_query=exclude`` for ``error`` and
        ``aggregation=macro``, since the driver applies those itself (the
        query policies from every partition's facts, the mean from their sums)
    columns : the caller's column names
    qrels_source, run_source, run_name : for messages and results
    """

    def __init__(self, measures: Sequence[Measure], protocol: Protocol, columns: Columns,
                 qrels_source: str, run_source: str, run_name: str) -> None:
        self.measures = list(measures)
        self.protocol = protocol
        self.columns = columns
        self.qrels_source = qrels_source
        self.run_source = run_source
        self.run_name = run_name

    def __call__(self, batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        yield from self.outputs(*self._sides(batches))

    def empty(self, side: int) -> "pa.Table":
        """A table of no rows with one side's columns and the place column."""
        import pyarrow as pa

        return pa.table({name: pa.array([], pa.string() if name != ROW else pa.int64())
                         for name in list(self.columns.of(side)) + [ROW]})

    def outputs(self, qrels: "pa.Table | None",
                run: "pa.Table | None") -> Iterator["pa.RecordBatch"]:
        """The partition's output rows (per-query value blobs, then the summary) for
        each side's rows in input order with their place (None: no rows)."""
        import pyarrow as pa

        qrels = self.empty(QRELS_SIDE) if qrels is None else qrels
        run = self.empty(RUN_SIDE) if run is None else run
        summary: dict[str, Any] = {"counts": {}, "notes": [], "grade_range": None, "error": None,
                                   "facts": query_facts(qrels, run, self.columns.query),
                                   "sums": None}
        if qrels.num_rows or run.num_rows:
            try:
                results, counts = self._evaluate(qrels, run, summary["facts"])
            except _AtRow as located:
                summary["error"] = error_summary(located.error, located.side, located.rows)
            except RankproofError as error:
                summary["error"] = error_summary(error)
            else:
                summary["counts"] = counts
                if results is not None:
                    values = self._rows(results)
                    for start in range(0, values.num_rows, VALUES_PER_BLOB):
                        blob = to_blob(values.slice(start, VALUES_PER_BLOB))
                        yield pa.record_batch([pa.nulls(1, pa.string()),
                                               pa.array([blob.to_pybytes()], pa.binary())],
                                              names=[SUMMARY, VALUES])
                    summary["notes"] = list(results.table.notes)
                    grade_range = results.table.grade_range
                    summary["grade_range"] = (None if grade_range is None
                                              else [float(v) for v in grade_range])
                    summary["sums"] = self._sums(results)
        yield pa.record_batch([pa.array([json.dumps(summary)], pa.string()),
                               pa.nulls(1, pa.binary())],
                              names=[SUMMARY, VALUES])

    def _sides(self, batches: Iterable["pa.RecordBatch"]) -> tuple["pa.Table", "pa.Table"]:
        """Each side's rows of the partition, in input order (their place), with the place column."""
        import pyarrow as pa

        parts: dict[int, list["pa.Table"]] = {QRELS_SIDE: [], RUN_SIDE: []}
        for batch in batches:
            sides = batch.column(SIDE).to_numpy(zero_copy_only=False)
            for side, blob in zip(sides, batch.column(BLOB)):
                parts[int(side)].append(from_blob(blob.as_buffer()))
        tables = []
        for side in (QRELS_SIDE, RUN_SIDE):
            if not parts[side]:
                tables.append(self.empty(side))
                continue
            # Each blob holds rows of one stretch of the input, in order, and stretches do not
            # overlap: blobs in the order of their first row are the rows in input order.
            blobs = sorted(parts[side],
                           key=lambda part: part.column(ROW)[0].as_py() if part.num_rows else -1)
            table = pa.concat_tables(blobs, promote_options="permissive")
            rows = table.column(ROW).to_numpy()
            # never expected; sorted row by row then
            if len(rows) > 1 and not (rows[1:] > rows[:-1]).all():
                table = table.take(pa.array(np.argsort(rows, kind="stable")))
            tables.append(table)
        return tables[0], tables[1]

    @staticmethod
    def _read(side: int, rows: "pa.ChunkedArray", read):
        """`read()`, with an error naming a row of the side's table raised as :class:`_AtRow`."""
        try:
            return read()
        except RankproofError as error:
            if error.row is None:
                raise
            raise _AtRow(error, side, rows) from None

    def _evaluate(self, qrels_table: "pa.Table", run_table: "pa.Table",
                  facts: dict[str, Any]) -> tuple["Results | None", dict[str, Any]]:
        """The partition's results (None when it evaluates no query) and counts; `facts`
        are the partition's :func:`query_facts`."""
        import pyarrow as pa

        from ..data.qrels import Qrels
        from ..data.run import Run
        from ..evaluation import evaluate
        from ..pipeline.alignment import apply_negative_grades

        columns = self.columns
        run = None
        if run_table.num_rows:  # read even when nothing is judged: a bad row is refused as locally
            run = self._read(RUN_SIDE, run_table.column(ROW), lambda: Run.from_table(
                run_table, query=columns.query, doc=columns.doc, score=columns.score,
                source=self.run_source,
                name=self.run_name))
        if not qrels_table.num_rows:
            return None, {}
        qrels = self._read(QRELS_SIDE, qrels_table.column(ROW), lambda: Qrels.from_table(
            qrels_table, query=columns.query, doc=columns.doc, grade=columns.grade or "grade",
            source=self.qrels_source))
        # Some judged query is ranked: the facts compare the raw ids as the readers do (7 and "7"
        # are one id).
        shared = run is not None and facts["missing"] < facts["qrels"]
        protocol = self.protocol.replace(extra_query="ignore", aggregation="macro")
        # the driver raises it, from every partition's facts
        if protocol.missing_query is MissingQuery.ERROR:
            protocol = protocol.replace(missing_query="exclude")
        if not shared and protocol.missing_query is not MissingQuery.ZERO:
            # Every judged query here is missing from the run and left out of
            # the mean: nothing to evaluate, but the judgments still pass the
            # negative_grades policy, as in a local evaluation.
            def judgment(i: int) -> dict:
                return {"source": qrels.source,
                        "query": str(qrels.queries[np.searchsorted(qrels.offsets, i, "right") - 1]),
                        "doc": str(qrels.docs[qrels.doc_codes[i]])}

            apply_negative_grades(qrels.grades, protocol, judgment)
            return None, {"negative_grades": int((qrels.grades < 0).sum())}
        if run is None:
            # Every judged query here is missing from the run and scored as an
            # empty ranking; align() needs a ranked row, so the run gets one of
            # a query nobody judged, which extra_query=ignore leaves out (the
            # query counts are the driver's, from every partition's facts).
            sentinel = pa.table({columns.query: [_sentinel_query(qrels.queries)],
                                 columns.doc: ["-"],
                                 **({columns.score: [0.0]} if columns.score is not None else {})})
            run = Run.from_table(sentinel, query=columns.query, doc=columns.doc,
                                 score=columns.score,
                                 source=self.run_source, name=self.run_name)
        results = evaluate(qrels, run, self.measures, protocol, allow_partial=True)
        return results, dict(results.counts)

    def _sums(self, results: "Results") -> list[dict[str, Any]]:
        """Per measure, over the included queries: their count and the exact sums
        (as text) of values, numerators and denominators."""
        sums = []
        for measure in self.measures:
            result = results.result(measure)
            keep = np.asarray(result.included, dtype=bool)

            def total(part: np.ndarray | None) -> str | None:
                exact = (None if part is None
                         else exact_sum(np.asarray(part, dtype=np.float64)[keep]))
                return None if exact is None else str(exact)

            sums.append({"count": int(keep.sum()), "value": total(result.value),
                         "num": total(result.numerator),
                         "den": total(result.denominator)})
        return sums

    def _rows(self, results: "Results") -> "pa.Table":
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
        return pa.Table.from_arrays(arrays, schema=_arrow_schema(len(self.measures)))
