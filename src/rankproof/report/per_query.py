"""The report's full per-query table: a gzip-compressed CSV file beside the page, not inside it.

The page keeps a chosen sample of queries in its drill-down, whatever the
number of users; every query's value of every measure and run is in
``NAME.per-query.csv.gz`` next to ``NAME.html``: one row per (run, query), a
column per measure (empty where the query is excluded), values at full
precision. It is written atomically, and refused (before any work) when it
would replace an input.

Examples
--------
>>> import gzip
>>> from rankproof import Qrels, Run, evaluate
>>> r = evaluate(Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}}), Run.from_dict({"q1": ["a"], "q2": ["x", "b"]}),
...              ["rr"])
>>> print(gzip.decompress(per_query_csv([r])).decode().replace('"', ""))
run,query,rr
run,q1,1
run,q2,0.5
<BLANKLINE>
>>> per_query_path("out/report.html")
PosixPath('out/report.per-query.csv.gz')
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = ["per_query_path", "per_query_csv", "write_per_query"]


def per_query_path(page: "str | os.PathLike[str]") -> Path:
    """The table's path beside the page: ``report.html`` -> ``report.per-query.csv.gz``."""
    path = Path(page)
    stem = path.stem if path.suffix.lower() in (".html", ".htm") else path.name
    return path.with_name(f"{stem}.per-query.csv.gz")


def per_query_csv(results: Sequence) -> bytes:
    """The table as gzip-compressed CSV bytes (written by Arrow's CSV writer: no Python loop per row)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = list(dict.fromkeys(str(m) for r in results for m in r.measures))
    parts = []
    for r in results:
        count = len(r.queries)
        columns = {"run": pa.array([r.run_name] * count, type=pa.string()) if count < 1000 else
                   pa.DictionaryArray.from_arrays(np.zeros(count, dtype=np.int32),
                                                  [r.run_name]).cast(pa.string()),
                   "query": pa.array([str(q) for q in r.queries], type=pa.string())}
        own = {str(m): m for m in r.measures}
        for name in names:
            values = r.values(own[name]) if name in own else np.full(count, np.nan)
            columns[name] = pa.array(values, mask=np.isnan(values), type=pa.float64())
        parts.append(pa.table(columns))
    sink = pa.BufferOutputStream()
    pacsv.write_csv(pa.concat_tables(parts), sink)
    # Level 3: a tenth of the size of the text at a few times zlib's fastest speed.
    return gzip.compress(sink.getvalue().to_pybytes(), compresslevel=3, mtime=0)


def write_per_query(results: Sequence, page: "str | os.PathLike[str]") -> Path:
    """Write the table beside `page`, atomically; its path."""
    from .output import write_output

    path = per_query_path(page)
    write_output(per_query_csv(results), path)
    return path
