"""rankproof on Spark: the same protocol and the same numbers, where the data lives.

``rankproof.spark.evaluate(qrels, run, measures, protocol)`` takes Spark
DataFrames or Parquet paths and returns :class:`SparkResults`: means and
counts equal to :func:`rankproof.evaluate`'s on the same rows, per-query
values as a Spark DataFrame. Each partition of queries is evaluated by
rankproof's own pipeline and compiled engine, once, through Arrow.

Needs the ``spark`` extra (``pip install rankproof[spark]``): pyspark and a
Java runtime. ``import rankproof`` never imports this package or pyspark.
"""

from .evaluate import evaluate
from .results import SparkResults
from .session import get_session

__all__ = ["evaluate", "SparkResults", "get_session"]
