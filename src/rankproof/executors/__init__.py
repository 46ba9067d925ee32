"""The executors of the evaluation step (:mod:`rankproof.engines.executor`), one module each.

- :mod:`~rankproof.executors.memory`: the inputs read whole, the step in memory;
- :mod:`~rankproof.executors.outofcore`: files larger than memory, in parts of whole queries;
- :mod:`~rankproof.executors.spark`: Parquet data on a Spark session.

Each module imports its machinery inside its methods: the chooser
(:func:`rankproof.engines.executor.choose`) asks every executor whether it
is wanted, and a plain evaluation loads neither pyarrow nor Spark. The package
exports nothing: the executors are reached through ``rankproof.engines.EXECUTORS``.
"""
