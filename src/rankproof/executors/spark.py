"""The Spark executor: Parquet data evaluated on a Spark session (:mod:`rankproof.spark`).

Asked for by ``engine="spark"`` (``--engine spark``); its own setting is
``spark_master`` (``--spark-master``). Each run is evaluated by
:func:`rankproof.spark.evaluate` and its per-query values are collected into
the :class:`~rankproof.Results` every renderer takes (the same output as in
memory); the side-data measures by :mod:`rankproof.spark.side` (per list
user by user, per catalogue from the items' top-k slot counts).
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from ..engines.executor import Executor, Source, Step

__all__ = ["SparkExecutor"]


class SparkExecutor(Executor):
    """On Spark: Parquet files or folders (or URLs Spark reads), judgments and runs alike."""

    name = "spark"
    takes = frozenset({"side_measures"})
    settings = ("spark_master",)

    def check(self, step: Step) -> None:
        if step.wants("side_only"):   # Spark aligns the runs for the accuracy measures
            raise step.refuse(f"{step.word('side_only')} evaluates on this machine; with {self.asking(step)} the "
                              "side-data measures go beside an accuracy measure",
                              f"add {step.word('accuracy_example')}, for instance, or leave out "
                              f"{self.asking(step)}")
        super().check(step)
        if step.side_measures:   # a catalogue measure without k or parts: refused now, not after the JVM starts
            from ..spark.side import check_side_measures

            check_side_measures(list(step.side_measures), step.protocol)

    def evaluate(self, step: Step) -> Iterator[Any]:
        from ..spark import evaluate as spark_evaluate
        from ..spark.inputs import describe

        self._check_inputs(step)
        # Read with pyarrow before Spark starts: a missing column or a file that is not Parquet is
        # one line at once, not after the JVM's start-up.
        for source, what in [(step.truth, "qrels"), *[(run, "run") for run in step.runs]]:
            describe(source.path, dict(source.columns), what)
        session = self._session(step)
        side = step.inputs.side_data() if step.side_measures else None
        if any(m.spec.judgments for m in step.side_measures):   # AUC, PopREO, IPS, ...: read once
            side = side.with_judgments(step.inputs.truth())
        names = {**step.truth.columns, **step.runs[0].columns} if step.runs else {}
        for run in step.runs:
            on_spark = spark_evaluate(step.truth.path, run.path, list(step.measures), step.protocol,
                                      name=run.name, spark=session,
                                      min_coverage=step.options.get("min_coverage", 0.5),
                                      allow_partial=bool(step.options.get("allow_partial")), **names)
            evaluated = on_spark.to_results()
            on_spark.unpersist()
            if step.side_measures:
                evaluated = self._with_side(step, session, run, evaluated, side)
            yield step.inputs.finish(evaluated, run)

    @staticmethod
    def _with_side(step: Step, session, run: Source, evaluated, side):
        from ..recsys.side_eval import with_side
        from ..spark.side import side_values

        values = side_values(session.read.parquet(run.path), list(step.side_measures), side, evaluated.protocol,
                             user=run.columns["query"], item=run.columns["doc"], score=run.columns["score"])
        return with_side(evaluated, values)

    def _session(self, step: Step):
        from ..spark import get_session

        try:
            return get_session(step.settings.get("spark_master"))
        except Exception as error:  # no java, a bad master URL: pyspark's own exception types
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
            raise step.refuse(f"could not start Spark ({reason})",
                              f"{self.asking(step)} needs a Java 17 runtime (java on PATH or JAVA_HOME) and a "
                              f"reachable {step.word('spark_master')}") from None

    def _check_inputs(self, step: Step) -> None:
        """What Spark cannot take, refused before Spark starts."""
        import importlib.util

        from ..io.formats import formats_for, named_format

        for source in (step.truth, *step.runs):
            given = source.path
            if given == "-" or (source.format is not None and source.format not in formats_for("spark")) or not (
                    os.path.isdir(given) or named_format(given, "spark") or "://" in given):
                raise step.refuse(f"{self.asking(step)} reads Parquet files or directories; {given} is not one",
                                  f"convert it to Parquet, or leave out {self.asking(step)}")
        if importlib.util.find_spec("pyspark") is None:
            raise step.refuse(f"{self.asking(step)} needs pyspark and a Java runtime", "pip install 'rankproof[spark]'")
