"""Engines: what computes the measures over an aligned ranking table.

``ENGINES`` is the registry, in the order the planner tries the engines (see
:func:`~rankproof.engines.plan.compute`): each measure goes to the first
engine whose ``supports(measure, alignment, protocol)`` says yes, the numpy
reference last. An engine is imported on first use, so importing rankproof
loads no compiled module it does not need.

- ``dense``: a score matrix's ndcg, dcg and ideal_dcg under ties=expected,
  by a compiled pass over the top k of each row
  (:mod:`rankproof.engines.dense`); it supports only the dense alignment
  :func:`rankproof.evaluate_scores` builds.
- ``compiled``: one fused pass per query in Cython
  (:mod:`rankproof.engines.compiled`) for every measure with a kernel
  (``MeasureSpec.kernel``): the ranked family, trec_eval's set and count
  measures and err; real grades through their ranks among the distinct
  grades. The gain measures when grades span more than its tables hold
  (4096 grades) and every measure without a kernel are left to the next
  engine.
- ``numpy``: the reference, each measure's vectorised numpy function.

Every engine gives the same values (tests/engines/test_engines.py holds each
registered engine to the numpy one). ``evaluate(..., engine=name)`` means
"prefer this engine": it is tried first, and the others remain as
fallbacks in registry order, so a measure it lacks is still computed.

``EXECUTORS`` is the registry of what runs the whole evaluation step
(:mod:`rankproof.engines.executor`): in memory, out of core, on Spark, in the
order :func:`~rankproof.engines.executor.choose` asks them; the front doors
dispatch through it. :func:`engine_names` gives the choices the command line
offers: the engines, then the executors chosen by name (Spark).

A new engine is one class (``name``, ``supports``, ``evaluate``) and one
line in ``ENGINES``; a new executor is one class
(:class:`~rankproof.engines.executor.Executor`) and one line in ``EXECUTORS``.

>>> list(ENGINES)
['dense', 'compiled', 'numpy']
>>> engine_names()
['compiled', 'numpy', 'spark']
>>> get_engine("numpy").name
'numpy'
"""

from __future__ import annotations

import dataclasses
import importlib

from ..errors import InputError, literal
from .base import Engine

__all__ = ["ENGINES", "EXECUTORS", "DEFAULT_ENGINE", "Engine", "EngineEntry", "engine_names",
           "get_engine"]

# What the command line and evaluate() call the engine of choice; the planner
# tries the registry's order when no engine is preferred.
DEFAULT_ENGINE = "compiled"


@dataclasses.dataclass(frozen=True)
class EngineEntry:
    """Where an engine (or an executor) lives, imported on first use.

    ``choice``: offered to users (``--engine``); an engine that supports
    only alignments rankproof builds itself (the dense one) is picked by the
    planner, not by name (an executor offered is ``--engine``'s choice; the
    others are chosen from the inputs and options). ``executor``: runs the
    whole evaluation step (``attribute`` is its
    :class:`~rankproof.engines.executor.Executor` class), not an Engine.
    """

    module: str
    attribute: str
    choice: bool = True
    executor: bool = False


# The engines, in the planner's order: the numpy reference last.
ENGINES: dict[str, EngineEntry] = {
    "dense": EngineEntry("rankproof.engines.dense", "DenseEngine", choice=False),
    "compiled": EngineEntry("rankproof.engines.compiled", "CompiledEngine"),
    "numpy": EngineEntry("rankproof.engines.numpy", "NumpyEngine"),
}
# Executors of the whole step, in the order choose() asks them (the default, memory, last).
EXECUTORS: dict[str, EngineEntry] = {
    "spark": EngineEntry("rankproof.executors.spark", "SparkExecutor", executor=True),
    "outofcore": EngineEntry("rankproof.executors.outofcore", "OutOfCoreExecutor", choice=False,
                             executor=True),
    "memory": EngineEntry("rankproof.executors.memory", "MemoryExecutor", choice=False,
                          executor=True),
}

_loaded: dict[str, Engine] = {}


def engine_names() -> list[str]:
    """The names users may choose (``--engine``): the engines offered, then the executors offered."""
    return [name for name, entry in {**ENGINES, **EXECUTORS}.items() if entry.choice]


def get_engine(name: "str | Engine" = DEFAULT_ENGINE) -> Engine:
    """The engine registered under `name` (an Engine instance is returned as is)."""
    choices = ", ".join(name for name, entry in ENGINES.items() if entry.choice)
    if not isinstance(name, str):
        if isinstance(name, Engine):
            return name
        raise InputError(what=f"engine must be one of {choices} or an Engine; got {type(name).__name__}", value=name)
    if name not in _loaded:
        if name in EXECUTORS:
            entry = EXECUTORS[name]
            raise InputError(what=f"{literal(name)} is an executor of the whole evaluation, not an engine", value=name,
                             fix=f"see {entry.module}.{entry.attribute} (rankproof evaluate --engine {literal(name)})")
        if name not in ENGINES:
            raise InputError(what=f"unknown engine {literal(repr(name))}", value=name,
                             fix=f"choose one of {choices}")
        entry = ENGINES[name]
        _loaded[name] = getattr(importlib.import_module(entry.module), entry.attribute)()
    return _loaded[name]
