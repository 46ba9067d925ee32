"""Engines: what computes the measures over an aligned ranking table.

``ENGINES`` is the registry, a table of name -> where the engine lives; an
engine is imported on first use, so importing rankproof loads no compiled
module it does not need.

- ``compiled`` (the default): one fused pass per query in Cython
  (:mod:`rankproof.engines.compiled`) for the ranked family (dcg, ideal_dcg,
  ndcg, ap, rr, hit, p, r, rprec, bpref, judged, num_ret, num_rel,
  num_rel_ret) and trec_eval's set and count measures (set_p, set_r,
  set_relative_p, set_ap, set_f, utility, relative_p, rprec_mult,
  num_nonrel_judged_ret, unjudged) and err; real grades (grades=real)
  through their ranks among the distinct grades; every other measure (iprec, interp_avg,
  g, bing, ndcg_rel, rndcg, infap, rbp, rbp_resid) is delegated, measure by
  measure, to the numpy engine.
- ``numpy``: the reference, each measure's vectorised numpy function.

Both give the same values (tests/test_engines.py holds them to each other).

>>> sorted(ENGINES)
['compiled', 'numpy']
>>> get_engine("numpy").name
'numpy'
"""

from __future__ import annotations

import importlib

from ..errors import InputError
from .base import Engine

__all__ = ["ENGINES", "DEFAULT_ENGINE", "Engine", "get_engine"]

DEFAULT_ENGINE = "compiled"

# name -> (module, class): imported on first use.
ENGINES: dict[str, tuple[str, str]] = {
    "compiled": ("rankproof.engines.compiled", "CompiledEngine"),
    "numpy": ("rankproof.engines.base", "NumpyEngine"),
}

_loaded: dict[str, Engine] = {}


def get_engine(name: "str | Engine" = DEFAULT_ENGINE) -> Engine:
    """The engine registered under `name` (an Engine instance is returned as is)."""
    if not isinstance(name, str):
        if isinstance(name, Engine):
            return name
        raise InputError(f"engine must be one of {', '.join(ENGINES)} or an Engine; got {type(name).__name__}")
    if name not in _loaded:
        if name not in ENGINES:
            raise InputError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
        module, attribute = ENGINES[name]
        _loaded[name] = getattr(importlib.import_module(module), attribute)()
    return _loaded[name]
