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

from ..engines.executor import Executor, Setting, Source, Step

__all__ = ["SparkExecutor"]


class SparkExecutor(Executor):
    """On Spark: Parquet files or folders (or URLs Spark reads), judgments and runs alike."""

    name = "spark"
    takes = frozenset({"side_measures"})
    settings = (Setting("--spark-master", "spark_master", "URL",
                        "the master (default: the active session, else local[2])"),)
    summary = "Parquet files or directories, evaluated on a Spark session; same numbers"

    def check(self, step: Step) -> None:
        asking = self.asking(step)
        if step.wants("side_only"):   # Spark aligns the runs for the accuracy measures
            raise step.refuse(what=f"{step.word('side_only')} evaluates on this machine; with "
                                   f"{asking} the side-data measures go beside an accuracy measure",
                              fix=f"add {step.word('accuracy_example')}, for instance, or "
                                  f"leave out {asking}")
        super().check(step)
        if step.side_measures:   # a catalogue measure without k or parts: now, not after the JVM
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
        if side is not None and any(m.spec.judgments for m in step.side_measures):   # AUC, IPS, ...
            side = side.with_judgments(step.inputs.truth())
        for run in step.runs:
            names: dict[str, Any] = {**step.truth.columns, **run.columns}
            on_spark = spark_evaluate(step.truth.path, run.path, list(step.measures), step.protocol,
                                      name=run.name, spark=session,
                                      min_coverage=step.options.min_coverage,
                                      allow_partial=step.options.allow_partial, **names)
            evaluated = on_spark.to_results()
            on_spark.unpersist()
            if step.side_measures:
                evaluated = self._with_side(step, session, run, evaluated, side)
            yield step.inputs.finish(evaluated, run)

    @staticmethod
    def _with_side(step: Step, session, run: Source, evaluated, side):
        from ..recsys.side_eval import with_side
        from ..spark.side import side_values

        columns: dict[str, Any] = {"user": run.columns["query"], "item": run.columns["doc"],
                   "score": run.columns["score"]}
        values = side_values(session.read.parquet(run.path), list(step.side_measures), side,
                             evaluated.protocol, **columns)
        return with_side(evaluated, values)

    def _session(self, step: Step):
        from ..spark import get_session

        try:
            return get_session(step.settings.get("spark_master"))
        except Exception as error:  # no java, a bad master URL: pyspark's own exception types
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
            master = step.word("spark_master")
            raise step.refuse(what=f"could not start Spark ({reason})",
                              fix=f"{self.asking(step)} needs a Java 17 runtime (java on PATH or "
                                  f"JAVA_HOME) and a reachable {master}") from None

    def _check_inputs(self, step: Step) -> None:
        """What Spark cannot take, refused before Spark starts."""
        import importlib.util

        from ..io.formats import formats_for, named_format

        asking = self.asking(step)
        for source in (step.truth, *step.runs):
            given = source.path
            named = source.format is None or source.format in formats_for("spark")
            if given == "-" or not named or not (
                    os.path.isdir(given) or named_format(given, "spark") or "://" in given):
                raise step.refuse(what=f"{asking} reads Parquet files or directories; {given} is "
                                       "not one",
                                  fix=f"convert it to Parquet, or leave out {asking}")
        if importlib.util.find_spec("pyspark") is None:
            raise step.refuse(what=f"{asking} needs pyspark and a Java runtime",
                              fix="pip install 'rankproof[spark]'")
