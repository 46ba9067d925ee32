"""Readers that turn qrels and run files (and tables) into interned columns.

- :mod:`.trec`: TREC qrels (``query 0 doc grade``) and runs
  (``query Q0 doc rank score tag``), plain or ``.gz``, read by one compiled
  pass (:mod:`rankproof._libs.trec_scan`);
- :mod:`.formats`: CSV/TSV with a header (:mod:`.delimited`), JSON Lines
  (:mod:`.jsonl`) and Parquet (:mod:`.parquet`), chosen by extension or by
  name;
- :mod:`.tables`: pyarrow tables and pandas or polars DataFrames, through
  :mod:`.named_columns` (the named columns), :mod:`.arrow` (Arrow as numpy,
  interning) and :mod:`.checks` (ids, grades, scores);
- :mod:`.values`: what a grade or a score may be, in every format;
- :mod:`.files`, :mod:`.limits`, :mod:`.lines`, :mod:`.what`: reading a file
  safely, the limits on hostile input, line numbers, how messages name a file.

Every reader is vectorised and raises errors with fields
(:mod:`rankproof.errors`): the file and line (or row), the query and doc, the
value and the fix, which each front door words in its own vocabulary.
"""
