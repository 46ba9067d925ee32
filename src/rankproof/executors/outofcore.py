"""The out-of-core executor: logs larger than memory, each run in parts of whole queries.

Asked for by a memory budget or ``sorted`` (``--memory-budget``, ``--sorted``);
needed, without them, when the judgments and a run are table files (CSV,
TSV, JSON Lines, Parquet) whose in-memory evaluation would exceed the
default budget (:func:`rankproof.frontdoors.outofcore.needs_out_of_core`).
Each part's tables become judgments and a run by the front door's
``inputs.part`` and are evaluated by :func:`rankproof.evaluate` (the step
itself, never a front door again); :func:`~rankproof.frontdoors.outofcore.evaluate_log`
cuts the parts and joins their values. The coverage guard reads the whole
run's Results, not a part's.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..engines.executor import Executor, Source, Step

__all__ = ["OutOfCoreExecutor", "table_format"]



def table_format(source: Source) -> "str | None":
    """The input's format when it is a file out of core reads (CSV, TSV, JSON Lines,
    Parquet), else None."""
    from ..io.formats import format_of, formats_for

    if not source.is_file():
        return None
    try:
        found = format_of(source.path, source.format)
    except Exception:  # an unknown format: the in-memory path reports it
        return None
    return found if found in formats_for("out_of_core") else None


class OutOfCoreExecutor(Executor):
    """Part by part within a memory budget; the numbers of the in-memory evaluation."""

    name = "outofcore"
    # --bounds and --intents need every judgment at once (the highest grade of all the
    # judgments; a doc's intents): no part knows them; the tie range reorders whole rankings.
    takes = frozenset({"grade_map"})

    def asked(self, step: Step) -> bool:
        return step.memory_budget is not None or step.sorted is not None

    def asking(self, step: Step) -> str:
        options = (("memory_budget", step.memory_budget), ("sorted", step.sorted))
        given = [key for key, value in options if value is not None]
        return " and ".join(step.word(key) for key in given or ["memory_budget"])

    def needed(self, step: Step) -> bool:
        from ..frontdoors.outofcore import needs_out_of_core

        inputs = (step.truth, *step.runs)
        return not self.refused(step) and all(table_format(s) for s in inputs) and any(
            needs_out_of_core([step.truth.path, run.path]) for run in step.runs)

    def check(self, step: Step) -> None:
        super().check(step)
        asking = self.asking(step)
        if not all(table_format(s) for s in (step.truth, *step.runs)):
            raise step.refuse(what=f"{asking} read CSV, TSV, JSON Lines or Parquet files (not "
                                   "stdin, TREC or in-memory tables)",
                              fix=f"convert the inputs, or leave out {asking}")
        if len({s.columns.get("query") for s in (step.truth, *step.runs)}) > 1:
            raise step.refuse(what=f"{asking} needs one query column name for the judgments and "
                                   "the runs")
        from ..measures.base import refuse_whole_evaluation_defaults

        refuse_whole_evaluation_defaults(list(step.measures), "out of core", "part")

    def evaluate(self, step: Step) -> Iterator[Any]:
        from ..frontdoors.outofcore import Log
        from ..results import guard_coverage

        def log(source: Source) -> Log:
            return Log.of(source.path, tuple(source.columns.values()), source.columns["query"],
                          table_format(source))

        truth = log(step.truth)
        for run in step.runs:
            results = self._evaluate_run(step, truth, log(run), run)
            guard_coverage(results, allow_partial=step.options.allow_partial,
                           min_coverage=step.options.min_coverage,
                           source=f"{run.shown} against {step.truth.shown}",
                           stacklevel=step.stacklevel + 1)
            yield step.inputs.finish(results, run)

    def _evaluate_run(self, step: Step, truth, log, run: Source):
        from ..errors import InputError
        from ..evaluation import evaluate_read
        from ..frontdoors.outofcore import evaluate_log

        # What the parts do not take: the guard reads the whole run, the ids are the whole's. They
        # keep min_coverage, which the joined results carry (for their coverage warning).
        options = step.options.replace(allow_partial=True, query_ids=None)

        def part(truth_table, run_table):
            return evaluate_read(lambda: step.inputs.part(truth_table, run_table, run),
                                 step.measures, step.protocol, options=options)

        try:
            return evaluate_log(truth, log, part, memory_budget=step.memory_budget,
                                sorted=step.sorted, query_ids=step.options.query_ids,
                                run_name=run.name,
                                progress=not step.quiet, measures=len(step.measures),
                                values_in_memory=step.values_in_memory)
        except InputError as error:
            if not step.values_in_memory or "too small" not in str(error.what):
                raise
            shown = step.word("values_in_memory")
            raise error.replace(fix=f"{error.fix}, or leave out {shown}: the means alone keep "
                                    "every user's values on disk") from None
