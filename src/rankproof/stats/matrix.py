"""The topics x systems score matrix every many-system statistic reads, and its checks.

A many-system statistic (Tukey HSD, MaxT, ANOVA, risk, design) takes a
complete block design: one row per topic, one column per system, no missing
cell. :func:`score_matrix` builds it from evaluated results on the topics
every system has; :func:`checked_matrix` validates a matrix given directly.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import InputError, literal

__all__ = ["score_matrix", "query_ids", "query_values", "same_queries", "sorted_ids",
           "checked_matrix",
           "checked_names", "MAX_CELLS"]

# A permutation procedure holds at least one permuted copy of the matrix (and,
# for MaxT, one difference per pair and topic); beyond this many values in one
# copy it is refused up front rather than swapping.
MAX_CELLS = 8_000_000


def checked_matrix(scores, *, min_systems: int = 2, min_topics: int = 2,
                   what: str = "scores") -> np.ndarray:
    """``scores`` as a float64 (topics x systems) array, refused with one line if it is not one.

    >>> checked_matrix([[0.1, 0.2], [0.3, 0.4]]).shape
    (2, 2)
    """
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2:
        raise InputError(what=f"{what} must be a matrix (topics x systems); got {matrix.ndim} dimensions",
                         value=matrix.ndim, fix="give one row per topic and one column per system")
    topics, systems = matrix.shape
    if systems < min_systems or topics < min_topics:
        raise InputError(what=f"{what} has {topics} topics x {systems} systems; this needs at least "
                              f"{min_topics} topics and {min_systems} systems", value=matrix.shape)
    if not np.all(np.isfinite(matrix)):
        row, column = np.argwhere(~np.isfinite(matrix))[0]
        raise InputError(what=f"{what} has a missing or infinite value (topic row {row}, system column "
                              f"{column})", value=float(matrix[row, column]),
                         fix="keep only the topics every system has a value for")
    return matrix


def checked_names(names: Sequence[str] | None, systems: int) -> tuple[str, ...]:
    """One distinct name per column (``s1``, ``s2``, ... when none are given)."""
    if names is None:
        return tuple(f"s{i + 1}" for i in range(systems))
    names = tuple(str(name) for name in names)
    if len(names) != systems:
        raise InputError(what=f"{len(names)} names for {systems} systems", value=len(names),
                         fix="give one name per column of the matrix")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(what=literal(f"system name {repeated[0]} is given twice"),
                         value=repeated[0])
    return names


def _tabled(result) -> bool:
    """Whether `result` is a :class:`rankproof.Results`-like value with its per-query table."""
    return hasattr(result, "table") and hasattr(type(result), "result")


def query_ids(result) -> Any:
    """`result`'s query ids in the order of :func:`query_values`: a Results' table (an array in
    text order; no list of a million ids is made), else its ``queries``."""
    return result.table.queries if _tabled(result) else result.queries


def query_values(result, measure) -> np.ndarray:
    """`result`'s per-query values of `measure`, in the order of :func:`query_ids`."""
    if _tabled(result):
        return np.asarray(result.result(measure).value, dtype=np.float64)
    return np.asarray(result.values(measure), dtype=np.float64)


def same_queries(queries: list[Any]) -> bool:
    """Whether every run holds the same query ids in the same order (the common case: runs evaluated on
    one qrels), so that nothing needs matching. `queries` holds each run's :func:`query_ids`.

    >>> same_queries([["q1", "q2"], ["q1", "q2"]]), same_queries([["q1", "q2"], ["q2", "q1"]])
    (True, False)
    """
    first = queries[0]
    if isinstance(first, list) and all(isinstance(other, list) for other in queries[1:]):
        return all(other == first for other in queries[1:])   # lists, compared in C
    return all(np.array_equal(np.asarray(first), np.asarray(other)) for other in queries[1:])


def sorted_ids(ids) -> "tuple[np.ndarray, np.ndarray | None] | None":
    """(the ids as text, sorted; the order that sorts them, None when they already are), or None
    when two ids are equal as text (7 and "7"), which the caller must match instead.

    Ids from one evaluation are already in text order: a pass over them checks it, and the sort
    (a second for a million ids) is skipped.

    >>> sorted_ids(["b", "a"])[0].tolist(), sorted_ids(["a", "b"])[1], sorted_ids([7, "7"])
    (['a', 'b'], None, None)
    """
    text = (ids if isinstance(ids, np.ndarray) and ids.dtype.kind == "U"
            else np.array(ids, dtype=object).astype(str))
    if text.size < 2 or bool((text[1:] > text[:-1]).all()):
        return text, None
    order = np.argsort(text, kind="stable")
    text = text[order]
    if (text[1:] == text[:-1]).any():
        return None
    return text, order


def score_matrix(results: Sequence[Any], measure) -> tuple[np.ndarray, np.ndarray]:
    """(topics, matrix): each result's values of ``measure`` on the topics all of them have.

    ``results`` are :class:`rankproof.Results` (or saved results), one per
    system, in column order. Topics are compared as text and sorted.
    """
    queries = [query_ids(result) for result in results]
    ordered = sorted_ids(queries[0]) if same_queries(queries) and len(queries[0]) else None
    if ordered is not None:
        # The same queries in the same order (runs evaluated on one qrels): one order serves all.
        text, order = ordered
        matrix = np.empty((len(text), len(results)))
        for column, result in enumerate(results):
            values = query_values(result, measure)
            matrix[:, column] = values if order is None else values[order]
        return text, matrix
    query_sets = [np.asarray(ids, dtype=object).astype(str) for ids in queries]
    shared = query_sets[0]
    for ids in query_sets[1:]:
        shared = np.intersect1d(shared, ids)
    shared = np.unique(shared)
    matrix = np.empty((len(shared), len(results)))
    for column, (result, ids) in enumerate(zip(results, query_sets)):
        values = query_values(result, measure)
        sort = np.argsort(ids, kind="stable")
        matrix[:, column] = values[sort][np.searchsorted(ids[sort], shared)]
    return shared, matrix
