"""Each list's top k, cut once per run and shared by every side-data measure that reads it.

Every side-data measure starts from the same rows: each list's top k under
the protocol's tie policy (:func:`rankproof.pipeline.cuts.top_rows`), a sort
over every row of the run. Evaluating seven measures at ``@10`` used to sort
the run seven times; inside :func:`shared_cuts` (which
:func:`~rankproof.recsys.side_eval.side_values` opens around its measures)
the cut is made once per (run, k, protocol) and handed to each measure, as are
the same rows sorted (set measures) and their ranks (rank-weighted ones).
Outside it, each call cuts afresh, as before.

The cached arrays are shared: a measure must not write into them (they are
returned read-only, so a write raises instead of changing another measure's
input).

Examples
--------
>>> from rankproof import Run
>>> from rankproof.protocol import Protocol
>>> run = Run.from_dict({"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "v": {"d": 1.0}})
>>> with shared_cuts():
...     first = top_rows(run, 2, Protocol())
...     again = top_rows(run, 2, Protocol())
>>> first is again, run.docs[run.doc_codes[first]].tolist()
(True, ['a', 'b', 'd'])
>>> ranked_rows(run, 2, Protocol())[2].tolist()   # each row's 1-based rank in its list
[1, 2, 1]
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from typing import Any, Callable, Iterator

import numpy as np

from ..data.run import Run
from ..pipeline.cuts import top_rows as cut_top_rows
from ..protocol import Protocol

__all__ = ["shared_cuts", "shared_value", "top_rows", "sorted_top_rows", "ranked_rows"]

# The cache of the open shared_cuts() scope: key -> (run, value); None outside any scope.
_CACHE: contextvars.ContextVar["dict | None"] = contextvars.ContextVar("rankproof_shared_cuts", default=None)
_LOCK = threading.Lock()


@contextlib.contextmanager
def shared_cuts() -> Iterator[None]:
    """A scope inside which each (run, k, protocol)'s top-k rows are cut once (see the module's docstring).

    Inside an open scope it opens none: the inner calls share the outer scope's cuts (the report's
    curves and its side measures, one cut per run)."""
    if _CACHE.get() is not None:
        yield
        return
    token = _CACHE.set({})
    try:
        yield
    finally:
        _CACHE.reset(token)


def _frozen(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for part in value:
            _frozen(part)
    return value


def shared_value(kind: str, owner: Any, compute: Callable[[], Any], *key: Any) -> Any:
    """``compute()``, once per (kind, owner, key) inside :func:`shared_cuts` (else every call): for what
    several measures derive from the same side data, e.g. the items' category bitsets."""
    cache = _CACHE.get()
    if cache is None:
        return compute()
    entry = (kind, id(owner), *key)
    with _LOCK:
        held = cache.get(entry)
    # The owner is held beside its value, so that its id cannot be reused by another object meanwhile.
    if held is not None and held[0] is owner:
        return held[1]
    value = _frozen(compute())
    with _LOCK:
        cache[entry] = (owner, value)
    return value


def _shared(kind: str, run: Run, k: int, protocol: Protocol, compute: Callable[[], Any]) -> Any:
    return shared_value(kind, run, compute, int(k), protocol)


def top_rows(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """:func:`rankproof.pipeline.cuts.top_rows`: the rows of each list's top k, grouped by list, in rank order."""
    return _shared("rows", run, k, protocol, lambda: cut_top_rows(run, k, protocol))


def _kept(run: Run, k: int) -> np.ndarray:
    """Rows each list keeps in its top k: min(k, its length). :func:`~rankproof.pipeline.cuts.top_rows`
    keeps the first min(k, length) rows of each list's order, the lists one after the other, so the
    list of each kept row is known without searching for it."""
    return np.minimum(np.diff(run.offsets), int(k))


def _lists(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """The list (index into ``run.queries``) of each top-k row."""
    return _shared("lists", run, k, protocol,
                   lambda: np.repeat(np.arange(run.num_queries, dtype=np.int64), _kept(run, k)))


def sorted_top_rows(run: Run, k: int, protocol: Protocol) -> tuple[np.ndarray, np.ndarray]:
    """(the top-k rows sorted, so in input order within each list, and the list of each row)."""
    return _shared("sorted", run, k, protocol,
                   lambda: (np.sort(top_rows(run, k, protocol)), _lists(run, k, protocol)))


def ranked_rows(run: Run, k: int, protocol: Protocol) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the top-k rows in rank order, the list of each row, its 1-based rank in its list)."""
    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = top_rows(run, k, protocol)
        kept = _kept(run, k)
        starts = np.cumsum(kept) - kept
        rank = np.arange(1, len(rows) + 1, dtype=np.int64) - np.repeat(starts, kept)
        return rows, _lists(run, k, protocol), rank
    return _shared("ranked", run, k, protocol, compute)
