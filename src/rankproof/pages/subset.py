"""Qrels and runs narrowed to some queries: the drill-down explains only the queries it keeps.

A query's ranking, its judgments and every number explained about it depend
on that query's rows alone, so the drill-down's sample is explained from
these narrowed values instead of aligning every query of a million-user run
again. Built with the values' own constructors, from their public columns.

Examples
--------
>>> from rankproof import Qrels, Run
>>> run = only_queries(Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}, name="r"), ["q2"])
>>> run.queries.tolist(), run.docs[run.doc_codes].tolist(), run.scores.tolist(), run.name
(['q2'], ['c'], [1.0], 'r')
>>> qrels = only_queries(Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 2}}), ["q2", "q9"])
>>> qrels.queries.tolist(), qrels.grades.tolist()
(['q2'], [2])
"""

from __future__ import annotations

from typing import Iterable, TypeVar

import numpy as np

__all__ = ["only_queries"]

Value = TypeVar("Value")


def only_queries(value: Value, queries: Iterable) -> Value:
    """`value` (a :class:`~rankproof.Qrels` or :class:`~rankproof.Run`) with the rows of `queries` only."""
    from ..data.qrels import Qrels
    from ..data.run import Run

    wanted = np.unique(np.asarray(queries if isinstance(queries, np.ndarray)
                                  else list(queries)).astype(str))
    names = np.asarray(value.queries)  # type: ignore[attr-defined]
    # sorted ids: a search, not a set test
    if names.size > 1 and bool((names[1:] > names[:-1]).all()):
        at = np.minimum(np.searchsorted(names, wanted), names.size - 1)
        kept = at[names[at] == wanted]
    else:
        kept = np.flatnonzero(np.isin(names, wanted))
    offsets = value.offsets  # type: ignore[attr-defined]
    counts = offsets[kept + 1] - offsets[kept]
    rows = (np.repeat(offsets[kept] - np.cumsum(counts) + counts, counts)
            + np.arange(int(counts.sum()))
            if kept.size else np.zeros(0, dtype=np.int64))
    codes = np.repeat(np.arange(kept.size), counts)
    common = dict(query_codes=codes, queries=value.queries[kept],  # type: ignore
                  doc_codes=value.doc_codes[rows], docs=value.docs,  # type: ignore
                  lines=value.lines[rows], source=value.source)  # type: ignore[attr-defined]
    if isinstance(value, Run):
        scores = value.scores[rows] if value.has_scores else None
        return Run(**common, scores=scores, name=value.name)  # type: ignore[return-value]
    if isinstance(value, Qrels):
        return Qrels(**common, grades=value.grades[rows])  # type: ignore[return-value]
    raise TypeError(f"only_queries narrows Qrels and Run, not {type(value).__name__}")
