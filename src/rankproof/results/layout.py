"""The saved-results Parquet layout's names, shared by its writer and its reader.

The writer (:func:`rankproof.report.columnar.to_parquet`, a renderer) and the
reader (:mod:`rankproof.stats.saved_parquet`) sit in two layers; the names
they agree on live here, below both, once.
"""

from __future__ import annotations

__all__ = ["PARQUET_KEY", "RUN_COLUMN", "QUERY_COLUMN"]

# the schema metadata key holding the rest of the results document (JSON)
PARQUET_KEY = "rankproof"
RUN_COLUMN = "run"
QUERY_COLUMN = "query"
