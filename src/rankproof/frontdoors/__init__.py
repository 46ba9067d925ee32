"""The front doors: each converts one kind of input once and calls the evaluation step.

- :mod:`~rankproof.frontdoors.frame`: long logs (DataFrames, Arrow tables, Parquet paths);
- :mod:`~rankproof.frontdoors.outofcore`: logs larger than memory, evaluated in parts;
- :mod:`~rankproof.frontdoors.scores`: score matrices (``y_true``, ``y_score``);
- :mod:`~rankproof.frontdoors.sklearn`: scikit-learn scorers;
- :mod:`~rankproof.frontdoors.streaming`: batches accumulated across a training loop;
- :mod:`~rankproof.frontdoors.rag`: RAG rows (retrieved and relevant ids per question).

The public names are re-exported by :mod:`rankproof` (``rankproof.evaluate_frame``,
``rankproof.evaluate_scores``, ``rankproof.evaluate_rag``); ``rankproof.sklearn`` and
``rankproof.streaming`` stay importable under those names for training scripts.
"""
