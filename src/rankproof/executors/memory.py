"""The in-memory executor: the inputs read whole, each run evaluated by the step in memory.

The default executor, and the reference the others are held to. The front
door reads (``step.inputs.read(stages)``: the judgments and a lazy sequence
of runs); each run is handed to :func:`rankproof.evaluation.evaluate_read`,
which holds the only reference to it and frees its columns once aligned,
then to the front door's ``finish`` (the side-data measures, which read the
run again, keep it until then).
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from ..engines.executor import USES, Executor, Step

__all__ = ["MemoryExecutor"]


class MemoryExecutor(Executor):
    """Everything in memory: every option and use is taken."""

    name = "memory"
    takes = frozenset(USES)

    def asked(self, step: Step) -> bool:
        return False   # the default: chosen when nothing else is

    def evaluate(self, step: Step) -> Iterator[Any]:
        from ..evaluation import evaluate_read, resolve_measures

        # a measure the protocol refuses (micro of a non-ratio): before any reading
        if step.measures:
            resolve_measures(step.measures, step.protocol)
        side = bool(step.side_measures)
        with step.progress(1 + 2 * len(step.runs), "evaluating") as stages:
            started = time.perf_counter()
            qrels, runs = step.inputs.read(stages)
            position = 0
            # Not zip or enumerate: their reused result tuple would hold the run past its
            # evaluation. Lazy: the time to read each run counts as reading.
            for name, ranking in runs:
                source, position = step.runs[position], position + 1
                started = step.cost(f"{name}: read", started)
                given = [ranking]
                if not side:   # nothing reads the run after its evaluation: the evaluation's alone
                    del ranking
                results = evaluate_read(lambda: (qrels, given.pop()), step.measures,
                                        step.protocol, side_only=not step.measures,
                                        stacklevel=step.stacklevel + 1, options=step.options)
                started = step.cost(f"{name}: accuracy measures", started)
                results = step.inputs.finish(results, source, ranking if side else None, qrels)
                ranking = None   # do not keep a run alive while the next one is read
                stages.step(f"evaluated {name}")
                yield results
                started = time.perf_counter()
