"""Measures of your own: register a function, and it works wherever a built-in measure does.

:func:`define` adds a measure to the registry from either

- a **per-query** function ``f(query, **params) -> float``, called once per
  evaluated query with a :class:`Query` (its ranked docs' grades in rank
  order, which of them are judged, their scores and ids, the grades of its
  judged pool, the cutoff k); or
- a **vectorised** function ``f(table, **params) -> array`` (``vectorised=True``),
  called once with the :class:`Table` of every evaluated query (flat arrays
  and offsets) and returning one value per query.

The measure is then an ordinary measure: its name parses (``mine@10``,
``mine(alpha=0.5)@5``), the protocol's row and query policies apply to it
(ties, unjudged docs, missing queries, aggregation), and ``evaluate``,
``evaluate_frame``, ``compare``, ``report``, ``explain``, the command line
(``--measures-from mymeasures.py``), out-of-core evaluation and Spark compute
it (a per-query function runs on the executors; the measure travels with
its function when pickled).

Declared capabilities: a cutoff or not, the values' range, whether the ideal
ranking scores the top of it, and whether the function is exact under tied
scores. By default it is not: under ``ties=expected`` a run with tied scores
is refused, and ``ties=input`` or ``ties=docid`` gives it one order.

>>> import numpy as np
>>> from rankproof import Qrels, Run, evaluate
>>> from rankproof.measures import define
>>> def hits(query, weight=1.0):
...     top = query.grades[: query.k] if query.k else query.grades
...     return weight * float(np.sum(top > 0))
>>> _ = define("hits_demo", hits, params={"weight": 1.0}, value_range=(0.0, float("inf")),
...            description="weight times the relevant docs in the top k", replace=True)
>>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2}})
>>> evaluate(qrels, Run.from_dict({"q": ["a", "b", "c"]}), "hits_demo(weight=2)@2").mean("hits_demo(weight=2)@2")
2.0
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import sys
from typing import Any, Callable

import numpy as np

from ..errors import MeasureError, ProtocolError, literal
from .base import PARAMS, REGISTRY, Measure, MeasureSpec, Param, TieSupport, parse_float, register
from .compute import Context, Values

__all__ = ["Query", "Table", "define", "undefine", "load_measures", "is_user_defined"]

# Set while load_measures runs a file: loading the same file again (a second command in one
# process) redefines its measures.
_LOADING = [False]


@dataclasses.dataclass(frozen=True)
class Query:
    """One query as a per-query function sees it. Arrays are read-only.

    ``grades``, ``judged``, ``scores``, ``docs``: per ranked doc, in rank order
    (an unjudged doc has grade 0 and ``judged`` False); ``pool_grades``: the
    grades of every doc judged for the query; ``k``: the measure's cutoff or None.
    """

    query: str
    grades: np.ndarray
    judged: np.ndarray
    scores: np.ndarray
    docs: np.ndarray
    pool_grades: np.ndarray
    k: int | None


@dataclasses.dataclass(frozen=True)
class Table:
    """Every evaluated query as flat arrays (what a vectorised function sees). Read-only.

    Query q's ranked docs are ``offsets[q]:offsets[q + 1]`` of ``grade``,
    ``judged`` and ``score`` (rank order); its judged pool is
    ``pool_offsets[q]:pool_offsets[q + 1]`` of ``pool_grade``; ``k`` holds each
    query's cutoff (the list's length when the measure has none).
    """

    queries: np.ndarray
    offsets: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    score: np.ndarray
    pool_offsets: np.ndarray
    pool_grade: np.ndarray
    k: np.ndarray

    @property
    def num_queries(self) -> int:
        return len(self.queries)


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def _table(ctx: Context, m: Measure) -> Table:
    a = ctx.alignment
    return Table(queries=_read_only(a.queries), offsets=_read_only(a.offsets),
                 grade=_read_only(a.grade),
                 judged=_read_only(a.judged), score=_read_only(a.score),
                 pool_offsets=_read_only(a.pool_offsets),
                 pool_grade=_read_only(a.pool_grade), k=_read_only(np.minimum(ctx.k(m), a.lengths)))


def _checked(values: Any, m: Measure, count: int) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise MeasureError(what=f"the function of {literal(m)} returned {type(values).__name__}, not numbers",
                           value=str(m), fix="return one number per query") from None
    if len(array) != count:
        raise MeasureError(what=f"the function of {literal(m)} returned {len(array)} values for {count} queries",
                           value=str(m),
                           fix="return one number per query, in the table's query order")
    if not np.isfinite(array).all():
        raise MeasureError(what=f"the function of {literal(m)} returned a value that is not finite (NaN or inf)",
                           value=str(m), fix="return a finite number for every query")
    low, high = m.spec.value_range
    outside = np.flatnonzero((array < low) | (array > high))
    # the declared range is what saved results, the report's axes and checks rely on
    if outside.size:
        raise MeasureError(what=f"the function of {literal(m)} returned {array[outside[0]]:g}, outside its declared "
                           f"value_range [{low:g}, {high:g}] ({outside.size} such values)",
                           value=str(m),
                           fix="return values in the range, or declare the range with define(..., value_range=)")
    return array


def _called(function: Callable, m: Measure, where: str, *args, **settings) -> Any:
    """The user's function, with an exception it raises said in one line (the measure, where, the
    error), as the bad input it is rather than an internal error of rankproof."""
    try:
        return function(*args, **settings)
    except MeasureError:
        raise
    except Exception as error:
        raise MeasureError(what=f"the function of {literal(m)} raised {type(error).__name__}"
                           f"{literal(where)}: {literal(str(error)[:200])}", value=str(m),
                           fix="fix the function (call it on the same input in Python to see the traceback)") from None


def _own_settings(m: Measure, ctx: Context) -> dict:
    return {name: m.setting(name, ctx.protocol) for name in m.spec.own_params}


class _PerQuery:
    """A compute function calling the user's function once per query (a class, not a closure,
    so that the measure pickles with it)."""

    def __init__(self, function: Callable) -> None:
        self.user_function = function

    def __call__(self, ctx: Context, m: Measure) -> Values:
        a = ctx.alignment
        settings = _own_settings(m, ctx)
        values = np.zeros(a.num_queries)
        docs = np.asarray(a.docs)
        for q in range(a.num_queries):
            lo, hi = int(a.offsets[q]), int(a.offsets[q + 1])
            plo, phi = int(a.pool_offsets[q]), int(a.pool_offsets[q + 1])
            view = Query(query=str(a.queries[q]), grades=_read_only(a.grade[lo:hi]),
                         judged=_read_only(a.judged[lo:hi]), scores=_read_only(a.score[lo:hi]),
                         docs=_read_only(docs[a.doc[lo:hi]]),
                         pool_grades=_read_only(a.pool_grade[plo:phi]),
                         k=m.cutoff)
            values[q] = _checked([_called(self.user_function, m, f" on query {view.query}", view,
                                          **settings)],
                                 m, 1)[0]
        return Values(values)


class _Vectorised:
    """A compute function calling the user's function once, on the table of every query."""

    def __init__(self, function: Callable) -> None:
        self.user_function = function

    def __call__(self, ctx: Context, m: Measure) -> Values:
        found = _called(self.user_function, m, "", _table(ctx, m), **_own_settings(m, ctx))
        return Values(_checked(found, m, ctx.alignment.num_queries))


class _Number:
    """The parser of a user parameter whose default is a number (a class, so that it pickles)."""

    def __init__(self, name: str, integral: bool) -> None:
        self.name, self.integral = name, integral

    def __call__(self, value):
        try:
            found = parse_float(value)
        except ProtocolError:
            raise MeasureError(what=f"{self.name} must be a number; got {literal(repr(value))}",
                               value=value) from None
        return int(found) if found.is_integer() and self.integral else found


def _param_parser(name: str, default: Any) -> Callable:
    """Numbers for a parameter whose default is a number; text otherwise."""
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        return _Number(name, isinstance(default, int))
    return str


def _declare_params(name: str, params: dict) -> tuple[tuple[str, Any], ...]:
    for key, default in params.items():
        if not key.isidentifier():
            raise MeasureError(what=f"measure {name}: parameter name {literal(repr(key))} is not an identifier",
                               value=key)
        existing = PARAMS.get(key)
        if existing is None:
            PARAMS[key] = Param(key, _param_parser(key, default),
                                "a parameter of user-defined measures", policy=False)
        elif existing.policy:
            raise MeasureError(what=f"measure {name}: {key} is a protocol policy's name", value=key,
                               fix="name the parameter otherwise")
    return tuple(params.items())


def define(name: str, function: Callable | None = None, *, description: str = "",
           vectorised: bool = False,
           params: dict | None = None, cutoff: bool = True, needs_cutoff: bool = False,
           value_range: tuple[float, float] = (0.0, 1.0), ideal_is_best: bool = False,
           exact_under_ties: bool = False, replace: bool = False):
    """Register a measure computed by ``function``; returns the :class:`Measure` (or a decorator).

    Parameters
    ----------
    name : str
        The measure's name: letters, digits and underscores, starting with a letter.
    function : callable
        ``f(query: Query, **params) -> float`` or, with ``vectorised=True``,
        ``f(table: Table, **params) -> array`` (one value per query). Omitted:
        ``define`` returns a decorator.
    description : str
        One line: what the measure is (shown by ``rankproof measures`` and the report).
    params : dict
        The measure's own parameters and their defaults (``{"alpha": 0.5}``);
        numbers when the default is a number.
    cutoff, needs_cutoff : bool
        Whether ``@k`` is accepted, and required.
    value_range : (low, high)
        The values a query can take (the report's axes; ``inf`` allowed).
    ideal_is_best : bool
        The ideal ranking scores ``high``.
    exact_under_ties : bool
        The function gives the expectation over the orders of tied docs itself;
        False (default): under ``ties=expected`` tied scores are refused.
    replace : bool
        Replace a user-defined measure of the same name (a built-in is never replaced).
    """
    if function is None:
        return lambda f: define(name, f, description=description, vectorised=vectorised,
                                params=params,
                                cutoff=cutoff, needs_cutoff=needs_cutoff, value_range=value_range,
                                ideal_is_best=ideal_is_best, exact_under_ties=exact_under_ties,
                                replace=replace)
    if not (isinstance(name, str) and name.isidentifier() and name[0].isalpha()):
        raise MeasureError(what=f"a measure name must be letters, digits and underscores; got {literal(repr(name))}",
                           value=name)
    replace = replace or _LOADING[0]
    if name in REGISTRY and (not is_user_defined(name) or not replace):
        built_in = not is_user_defined(name)
        raise MeasureError(what=f"measure {literal(name)} is already {'built in' if built_in else 'defined'}",
                           value=name,
                           fix="choose another name" if built_in else "pass replace=True")
    if not callable(function):
        raise MeasureError(what=f"measure {name}: the function is not callable", value=name)
    low, high = (float(v) for v in value_range)
    if not low < high or math.isnan(low) or math.isnan(high):
        raise MeasureError(what=f"measure {name}: value_range must be (low, high) with low < high",
                           value=name)
    own = _declare_params(name, dict(params or {}))
    REGISTRY.pop(name, None)
    register(MeasureSpec(
        name, description or f"user-defined measure ({getattr(function, '__qualname__', name)})",
        tuple(key for key, _ in own), (_Vectorised if vectorised else _PerQuery)(function),
        cutoff=cutoff or
        needs_cutoff, needs_cutoff=needs_cutoff,
        ties=TieSupport.EXACT if exact_under_ties else TieSupport.ORDERED,
        defaults=own, family="user_defined", value_range=(low, high), ideal_is_best=ideal_is_best,
        defined_by_user=True))
    return Measure(name)


def undefine(name: str) -> None:
    """Remove a user-defined measure (a built-in cannot be removed)."""
    if not is_user_defined(name):
        raise MeasureError(what=f"{literal(repr(name))} is no user-defined measure", value=name)
    REGISTRY.pop(name)


def is_user_defined(name: str) -> bool:
    """Was ``name`` registered by :func:`define`?"""
    spec = REGISTRY.get(name)
    return spec is not None and spec.defined_by_user


def load_measures(path: str) -> list[str]:
    """Run a Python file that defines measures (``--measures-from``); returns the names it defined."""
    import os

    if not os.path.isfile(path):
        raise MeasureError(what=f"cannot read the measures file {literal(path)}: no such file",
                           value=path,
                           fix="give the Python file that calls rankproof.measures.define")
    before = {name for name in REGISTRY if is_user_defined(name)}
    module_name = ("rankproof_user_measures_"
                   + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise MeasureError(what=f"cannot load {literal(path)} as Python", value=path,
                           fix="give a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    _LOADING[0] = True
    try:
        spec.loader.exec_module(module)
    except MeasureError:
        raise
    # the user's code: say where, in one line (sys.exit too)
    except (Exception, SystemExit) as error:
        raise MeasureError(what=f"the measures file {literal(path)} failed: {type(error).__name__}: "
                           f"{literal(str(error)[:200])}", value=path,
                           fix="run it with python to see the "
                           "traceback") from None
    finally:
        _LOADING[0] = False
    return sorted({name for name in REGISTRY if is_user_defined(name)} - before)

