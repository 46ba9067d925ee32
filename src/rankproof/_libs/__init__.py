"""The compiled loops (Cython, nogil), one module per job.

- :mod:`~rankproof._libs.trec_scan`: reading TREC files (lines, columns,
  values), interning their ids as it goes;
- :mod:`~rankproof._libs.interner`: the id tables (ids to codes), Arrow
  columns interned into them, the parts of a file merged;
- :mod:`~rankproof._libs.vocabulary`: the distinct ids sorted by code point;
- :mod:`~rankproof._libs.align_scan`: the alignment passes (row flags, tie
  runs, cutoff counts, the per-query stable sort);
- :mod:`~rankproof._libs.ranked`: the fused per-query pass of the ranked,
  set and count measures (what each sums over a query's tie groups:
  ``expected.pxd``);
- :mod:`~rankproof._libs.diversity`: the intent-aware measures;
- :mod:`~rankproof._libs.dense`: DCG parts of score matrices.

They trust their inputs (the Python layers validate) and know nothing of
ids, files or policies. Each has a ``.pyi`` stub beside it.
"""
