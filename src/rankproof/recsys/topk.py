"""Each list's top k, cut once per run and shared by every side-data measure that reads it.

Every side-data measure starts from the same rows: each list's top k under
the protocol's tie policy (:func:`rankproof.pipeline.cuts.top_rows`), a sort
over every row of the run. Evaluating seven measures at ``@10`` used to sort
the run seven times; inside :func:`shared_cuts` (which
:func:`~rankproof.recsys.side_eval.side_values` opens around its measures)
the cut is made once per (run, k, protocol) and handed to each measure, as are
the same rows sorted (set measures) and their ranks (rank-weighted ones).
Outside it, each call cuts afresh, as before. The catalogue measures (coverage,
Gini, entropy) share the items' slot counts (:func:`slot_counts`), counted once.

A front door that reads a run itself and keeps it for its side-data measures
ranks it first (:func:`rank_owned_run`): the evaluation and the cut then find
its rows in rank order and sort nothing again.

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
from .._libs.lists import code_counts_read, first_repeat
from ..pipeline.cuts import rows_of_order, top_order
from ..pipeline.inplace import rank_in_place, sole_owner
from ..protocol import Duplicates, IdenticalIds, Protocol, ScorePrecision, Unjudged

__all__ = ["shared_cuts", "shared_value", "top_rows", "sorted_top_rows", "ranked_rows",
           "input_order_rows", "read_cut",
           "top_offsets", "slot_counts", "rank_owned_run"]

# The cache of the open shared_cuts() scope: key -> (run, value); None outside any scope.
_CACHE: contextvars.ContextVar["dict | None"] = contextvars.ContextVar("rankproof_shared_cuts",
                                                                       default=None)
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
    # The owner is held beside its value, so that its id cannot be reused by another object
    # meanwhile.
    if held is not None and held[0] is owner:
        return held[1]
    value = _frozen(compute())
    with _LOCK:
        cache[entry] = (owner, value)
    return value


def _shared(kind: str, run: Run, k: int, protocol: Protocol, compute: Callable[[], Any]) -> Any:
    return shared_value(kind, run, compute, int(k), protocol)


def _cut(run: Run, k: int, protocol: Protocol) -> "np.ndarray | None":
    """The rows of each list's top k (:func:`rankproof.pipeline.cuts.top_rows`), or None when they
    are each list's first min(k, n) rows: a run whose rows are in the tie policy's rank order
    already (ranked by :func:`rank_owned_run`, or given so) is cut without a row's position made."""
    def compute() -> "np.ndarray | None":
        order = top_order(run, k, protocol)
        return None if order is None else rows_of_order(run, k, order)
    return _shared("cut", run, k, protocol, compute)


def top_rows(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """:func:`rankproof.pipeline.cuts.top_rows`: the rows of each list's top k, grouped by list, in rank order."""
    rows = _cut(run, k, protocol)
    if rows is not None:
        return rows
    return _shared("rows", run, k, protocol, lambda: rows_of_order(run, k, None))


_FIRST_ROWS = np.zeros(0, dtype=np.int64)
_FIRST_ROWS.flags.writeable = False


def read_cut(run: Run, k: int, protocol: Protocol, *, ranked: bool = False) -> np.ndarray:
    """The top-k rows as the compiled loops of ``_libs.lists`` read them, with
    :func:`top_offsets` and ``run.offsets`` as the lists' first rows: empty when each list's top
    k are its first rows (a run in rank order: nothing as long as the rows is made), else the
    rows listed, in rank order (`ranked`) or input order within each list."""
    rows = _cut(run, k, protocol)   # made once, also outside a shared_cuts() scope
    if rows is None:
        return _FIRST_ROWS
    return rows if ranked else _shared("input order", run, k, protocol,
                                       lambda: _in_input_order(rows))


def _kept(run: Run, k: int) -> np.ndarray:
    """Rows each list keeps in its top k: min(k, its length). :func:`~rankproof.pipeline.cuts.top_rows`
    keeps the first min(k, length) rows of each list's order, the lists one after the other, so the
    list of each kept row is known without searching for it."""
    return np.minimum(np.diff(run.offsets), int(k))


def _lists(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """The list (index into ``run.queries``) of each top-k row."""
    return _shared("lists", run, k, protocol,
                   lambda: np.repeat(np.arange(run.num_queries, dtype=np.int64), _kept(run, k)))


def top_offsets(run: Run, k: int) -> np.ndarray:
    """Where each list's rows start and end among the top-k rows (lists + 1,): the lists one after
    the other, min(k, length) rows each."""
    return shared_value("top offsets", run,
                        lambda: np.r_[0, np.cumsum(_kept(run, k))].astype(np.int64), int(k))


def _in_input_order(rows: np.ndarray) -> np.ndarray:
    """The rows sorted; kept as they are when increasing already (a run in rank order)."""
    return rows if bool((rows[1:] > rows[:-1]).all()) else np.sort(rows)


def input_order_rows(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """The top-k rows sorted, so in input order within each list (the lists delimited by
    :func:`top_offsets`)."""
    return _shared("input order", run, k, protocol,
                   lambda: _in_input_order(top_rows(run, k, protocol)))


def sorted_top_rows(run: Run, k: int, protocol: Protocol) -> tuple[np.ndarray, np.ndarray]:
    """(the top-k rows sorted, so in input order within each list, and the list of each row)."""
    return _shared("sorted", run, k, protocol,
                   lambda: (input_order_rows(run, k, protocol), _lists(run, k, protocol)))


def slot_counts(run: Run, k: int, protocol: Protocol) -> np.ndarray:
    """The top-k slots each item of the run takes, per item code (``run.docs``'s order): counted
    once per cut and shared by the catalogue measures."""
    return _shared("slot counts", run, k, protocol,
                   lambda: code_counts_read(top_offsets(run, k), read_cut(run, k, protocol),
                                            run.offsets, run.doc_codes, len(run.docs)))


def ranked_rows(run: Run, k: int, protocol: Protocol) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the top-k rows in rank order, the list of each row, its 1-based rank in its list)."""
    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = top_rows(run, k, protocol)
        kept = _kept(run, k)
        starts = np.cumsum(kept) - kept
        rank = np.arange(1, len(rows) + 1, dtype=np.int64) - np.repeat(starts, kept)
        return rows, _lists(run, k, protocol), rank
    return _shared("ranked", run, k, protocol, compute)


def rank_owned_run(run: Run, protocol: Protocol) -> bool:
    """Reorder a run's rows into the protocol's rank order within each list, in its own buffers;
    whether it did.

    For a front door that read the run itself and keeps it for its side-data measures after
    the evaluation: ranked once here, the evaluation and the cut find the rows in order and
    neither sorts them again (a million lists: a sort and three copies of every row fewer).
    Only rows move, each within its list, so every measure reads the same lists. Nothing moves
    (False) when someone else may hold the run's arrays (:func:`~rankproof.pipeline.inplace.sole_owner`),
    when the row order decides something (a doc listed twice for one list, which
    ``duplicates`` resolves by input order; ``unjudged=error``, which names the first
    unjudged row), or when scores are held below float64.
    """
    if (not run.has_scores or len(run) < 2 or protocol.score_precision is not ScorePrecision.FLOAT64
            or protocol.unjudged is Unjudged.ERROR or protocol.identical_ids is IdenticalIds.DROP
            or run.scores.dtype != np.float64):
        return False
    doc, score = sole_owner(run.doc_codes), sole_owner(run.scores)
    line = run.lines if run.lines.strides[0] == 0 else sole_owner(run.lines)
    if doc is None or score is None or line is None or doc is score:
        return False
    if (protocol.duplicates is not Duplicates.COUNT
        and first_repeat(run.offsets, doc, len(run.docs)) >= 0):
        return False
    rank_in_place(run.offsets, score, doc, [line] if line.strides[0] else [], protocol)
    return True
