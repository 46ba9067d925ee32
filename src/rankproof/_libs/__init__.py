"""The compiled loops (Cython, nogil), one module per job.

- :mod:`~rankproof._libs.trec_scan`: reading TREC files and interning ids;
- :mod:`~rankproof._libs.align_scan`: the alignment passes (row flags, tie
  runs, cutoff counts, the per-query stable sort);
- :mod:`~rankproof._libs.ranked`: the fused per-query pass of the ranked,
  set and count measures;
- :mod:`~rankproof._libs.diversity`: the intent-aware measures;
- :mod:`~rankproof._libs.dense`: DCG parts of score matrices.

They trust their inputs (the Python layers validate) and know nothing of
ids, files or policies. Each has a ``.pyi`` stub beside it.
"""
