"""Readers that turn qrels and run files (and tables) into interned columns.

- :mod:`.trec`: TREC qrels (``query 0 doc grade``) and runs
  (``query Q0 doc rank score tag``), plain or ``.gz``, read by one compiled
  pass (:mod:`._trec_scan`);
- :mod:`.formats`: CSV/TSV with a header, JSON Lines and Parquet, chosen by
  extension or by name;
- :mod:`.tables`: pyarrow tables and pandas or polars DataFrames.

Every reader is vectorised and names the file and line (or row) of a bad value.
"""
