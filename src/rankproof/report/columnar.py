"""Results as a Parquet file (``rankproof evaluate --format parquet -o FILE``): the saved-results layout for
windows of millions of queries.

The JSON document (:func:`rankproof.report.data.results_document`) spells each
query's values as text, and reading a million queries of it back takes
seconds of parsing; a column of float64 is read in milliseconds. The file holds:

- one row per (run, query): a ``run`` column (dictionary encoded), a ``query``
  column, and one float64 column per measure, named by the measure's text
  (``ndcg@10``); NaN where the JSON holds null (the query is excluded);
- the rest of the JSON document (protocol text and fingerprint, qrels digest,
  counts, means, side values), as JSON text in the schema's metadata under the
  key ``rankproof`` (:data:`rankproof.results.layout.PARQUET_KEY`).

:func:`rankproof.stats.load_results` reads either layout, telling them apart
by the file's first bytes, and checks both the same way.

Examples
--------
>>> import io
>>> import pyarrow.parquet as pq
>>> from rankproof import Qrels, Run, evaluate
>>> results = evaluate(Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}}),
...                    Run.from_dict({"q1": ["a"], "q2": ["c", "b"]}), ["rr"])
>>> table = pq.read_table(io.BytesIO(to_parquet([results])))
>>> table.column_names, table.column("rr").to_pylist()
(['run', 'query', 'rr'], [1.0, 0.5])
>>> b"rankproof" in table.schema.metadata
True
"""

from __future__ import annotations

import io
from typing import Sequence

import numpy as np

from ..io.json_text import json_text
from ..results import Results
from ..results.layout import PARQUET_KEY, QUERY_COLUMN, RUN_COLUMN
from .data import results_document

__all__ = ["to_parquet"]


def to_parquet(results: Sequence[Results]) -> bytes:
    """The Parquet file's bytes: per-query values in columns, the rest of the results document in its metadata.

    Runs with different measures share the table: a run's measures are the keys of its ``mean`` in the
    metadata, and only those columns are read back for it.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..errors import InputError, literal

    run_names = [r.run_name for r in results]
    twice = next((name for i, name in enumerate(run_names) if name in run_names[:i]), None)
    if twice is not None:   # the rows of both would read back as one run
        raise InputError(what=literal(f"two evaluations are named {twice}"), value=twice,
                         fix="give each run its own name (Results.run_name)")
    document = results_document(results, per_query=False)
    names = list(dict.fromkeys(str(m) for r in results for m in r.measures))
    sizes = [len(r.queries) for r in results]
    runs = pa.DictionaryArray.from_arrays(np.repeat(np.arange(len(results), dtype=np.int32), sizes),
                                          run_names)
    queries = pa.array([str(q) for r in results for q in r.queries], type=pa.string())
    columns = {RUN_COLUMN: runs, QUERY_COLUMN: queries}
    for name in names:
        columns[name] = pa.array(np.concatenate([_values(r, name) for r in results]),
                                 type=pa.float64())
    table = pa.table(columns).replace_schema_metadata({PARQUET_KEY: json_text(document,
                                                                              ensure_ascii=False)})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def _values(r: Results, name: str) -> np.ndarray:
    """The run's per-query values of the measure named `name` (NaN where the run has no such measure)."""
    for m in r.measures:
        if str(m) == name:
            return np.asarray(r.values(m), dtype=np.float64)
    return np.full(len(r.queries), np.nan)
