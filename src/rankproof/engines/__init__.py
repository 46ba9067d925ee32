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

``EXECUTORS`` names what runs the whole evaluation step elsewhere (Spark);
:func:`engine_names` gives the choices the command line offers.

A new engine is one class (``name``, ``supports``, ``evaluate``) and one
line in ``ENGINES``.

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

__all__ = ["ENGINES", "EXECUTORS", "DEFAULT_ENGINE", "Engine", "EngineEntry", "engine_names", "get_engine"]

# What the command line and evaluate() call the engine of choice; the planner
# tries the registry's order when no engine is preferred.
DEFAULT_ENGINE = "compiled"


@dataclasses.dataclass(frozen=True)
class EngineEntry:
    """Where an engine (or an executor) lives, imported on first use.

    ``choice``: offered to users (``--engine``); an engine that supports
    only alignments rankproof builds itself (the dense one) is picked by the
    planner, not by name. ``executor``: runs the whole evaluation step
    elsewhere (``attribute`` is its evaluate function), not an Engine.
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
# Executors of the same step on other machinery.
EXECUTORS: dict[str, EngineEntry] = {
    "spark": EngineEntry("rankproof.spark.evaluate", "evaluate", executor=True),
}

_loaded: dict[str, Engine] = {}


def engine_names() -> list[str]:
    """The names users may choose (``--engine``): the engines offered, then the executors."""
    return [name for name, entry in ENGINES.items() if entry.choice] + list(EXECUTORS)


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
                             fix=f"call {entry.module}.{entry.attribute} (rankproof evaluate --engine {literal(name)})")
        if name not in ENGINES:
            raise InputError(what=f"unknown engine {literal(repr(name))}", value=name, fix=f"choose one of {choices}")
        entry = ENGINES[name]
        _loaded[name] = getattr(importlib.import_module(entry.module), entry.attribute)()
    return _loaded[name]
