"""Saved results in the Parquet layout (``rankproof evaluate --format parquet -o FILE``), read back.

The layout is :mod:`rankproof.report.columnar`'s: the results document in the
schema metadata under :data:`PARQUET_KEY`, the
per-query values in columns (``run``, ``query``, one float64 column per
measure). The document is checked as a JSON one is
(:func:`~rankproof.stats.saved.results_from_document`: protocol, fingerprint,
means); the columns are checked here, each in one pass: present, float64,
finite (or NaN: excluded) and within the bounds a saved value has, and each
run's query ids distinct. Every refusal is one line naming the file.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..errors import InputError, literal
# shared with the writer, report/columnar.py
from ..results.layout import PARQUET_KEY, QUERY_COLUMN, RUN_COLUMN

__all__ = ["parquet_document", "PARQUET_KEY", "RUN_COLUMN", "QUERY_COLUMN"]

# The layout (written by rankproof.report.columnar): the document's metadata key and the two id
# columns (rankproof.results.layout); every other column is a measure, named by its text.

_FIX = "give a file written by rankproof evaluate --format parquet -o FILE"


def parquet_document(source: str, largest: float):
    """The results document of a Parquet saved-results file, and the reader of its runs' columns:
    ``runs_of`` of :func:`rankproof.stats.saved.results_from_document`, which checks the document.
    `largest` is the magnitude a saved value may have (the JSON reader's bound)."""
    table = _read(source)
    metadata = table.schema.metadata or {}
    if PARQUET_KEY.encode() not in metadata:
        raise InputError(what=f"a Parquet file without rankproof's '{PARQUET_KEY}' metadata: not saved results",
                         source=source, fix=_FIX)
    try:
        document = json.loads(metadata[PARQUET_KEY.encode()])
    except (ValueError, RecursionError) as error:
        raise InputError(what=literal(f"its '{PARQUET_KEY}' metadata is not valid JSON ({error})"),
                         source=source,
                         fix=_FIX) from None
    return document, _Columns(table, document, source, largest)


def _read(source: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(source, read_dictionary=[RUN_COLUMN])
    except (pa.ArrowException, OSError, ValueError) as error:
        raise InputError(what=literal(f"not a readable Parquet file ({str(error).splitlines()[0][:200]})"),
                         source=source, fix=_FIX) from None


class _Columns:
    """``runs_of`` of :func:`results_from_document`: each run's rows of the table, found once by run."""

    def __init__(self, table, document: Any, source: str, largest: float) -> None:
        import pyarrow as pa

        self.table, self.source, self.largest = table, source, largest
        for name in (RUN_COLUMN, QUERY_COLUMN):
            if name not in table.column_names:
                raise InputError(what=f"no '{name}' column", source=source, fix=_FIX)
        runs = table.column(RUN_COLUMN).combine_chunks()
        if not pa.types.is_dictionary(runs.type) or not pa.types.is_string(runs.type.value_type):
            raise InputError(what=f"the '{RUN_COLUMN}' column is not text", source=source, fix=_FIX)
        if not pa.types.is_string(table.schema.field(QUERY_COLUMN).type):
            raise InputError(what=f"the '{QUERY_COLUMN}' column is not text", source=source,
                             fix=_FIX)
        if runs.null_count or table.column(QUERY_COLUMN).null_count:
            raise InputError(what="a row without its run or query id", source=source, fix=_FIX)
        labels = runs.dictionary.to_pylist()
        codes = runs.indices.to_numpy(zero_copy_only=False)
        named = set(document.get("runs") or {}) if isinstance(document, dict) else set()
        stray = next((labels[c] for c in np.unique(codes).tolist() if labels[c] not in named), None)
        if stray is not None:
            raise InputError(what=literal(f"rows of run {stray}, which the metadata does not name"),
                             source=source,
                             value=stray, fix=f"the file was edited: {_FIX}")
        # Each run's rows, in file order: a stable sort of the codes, split where the run changes.
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(labels) + 1))
        self.rows = {label: order[bounds[i]:bounds[i + 1]] for i, label in enumerate(labels)}

    def __call__(self, name: str, run: Any):
        if not isinstance(run, dict):
            raise InputError(what=literal(f"run {name} of the metadata is not an object"),
                             source=self.source,
                             fix=_FIX)
        rows = self.rows.get(name, np.zeros(0, dtype=np.int64))
        column = self.table.column(QUERY_COLUMN).take(rows).combine_chunks()
        twice = _repeated(column)
        if twice is not None:
            raise InputError(what=literal(f"query {twice} has two rows"),
                             source=f"{self.source}: run {name}",
                             value=twice, fix=_FIX)
        queries = column.to_pylist()
        return queries, [], lambda text: self._column(name, text, rows, queries)

    def _column(self, name: str, text: str, rows: np.ndarray, queries: list) -> np.ndarray:
        import pyarrow as pa

        where = f"{self.source}: run {name}"
        if text not in self.table.column_names:
            raise InputError(what=literal(f"no column for {text}, which the metadata names"),
                             source=where,
                             value=text, fix=_FIX)
        column = self.table.column(text)
        if not pa.types.is_float64(column.type):
            raise InputError(what=literal(f"the column {text} is {column.type}, not float64"),
                             source=where,
                             value=text, fix=_FIX)
        values = column.take(rows).to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        bad = ~np.isnan(values) & ~(np.abs(values) <= self.largest)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise InputError(what=literal(f"{values[first]!r} is not a finite measure value of magnitude at most "
                                          f"{self.largest:g}"),
                             source=f"{where}, query {queries[first]}, {text}",
                             value=float(values[first]), fix=_FIX)
        return values


def _repeated(queries) -> "str | None":
    """The first (in text order) query id given twice, or None, without a Python object per id.

    Ids in strictly increasing text order are distinct (one comparison per neighbour); so are ids
    whose integer values are distinct (``1`` and ``01`` are one number but two ids, so only
    distinct numbers settle it). Anything else is hashed by Arrow.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(queries) < 2 or pc.all(pc.less(queries[:-1], queries[1:])).as_py():
        return None
    try:
        numbers = np.sort(pc.cast(queries, pa.int64()).to_numpy())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        numbers = None
    if numbers is not None and not (numbers[1:] == numbers[:-1]).any():
        return None
    counts = pc.value_counts(queries)
    twice = counts.field("values").filter(pc.greater(counts.field("counts"), 1))
    return None if len(twice) == 0 else str(pc.min(twice).as_py())
