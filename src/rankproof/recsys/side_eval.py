"""Side-data measures evaluated beside accuracy: one call, one Results holding both.

:func:`evaluate_with_side` splits the measures asked for between the accuracy
registry and :data:`~.registry.SIDE_REGISTRY`, evaluates the first with
:func:`rankproof.evaluate` and the second on the run with its side data, and
returns the Results with the side values in ``results.side`` (a tuple of
:class:`~rankproof.results.side.SideValue`).

Examples
--------
>>> import numpy as np
>>> from rankproof import Qrels, Run
>>> from rankproof.recsys.side import SideData
>>> qrels = Qrels.from_dict({"u": {"a": 1}, "v": {"d": 1}})
>>> run = Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "d", "z"]})
>>> results = evaluate_with_side(qrels, run, ["p@2", "coverage@2"], SideData(items=np.array(list("abcdef"))))
>>> results.mean("p@2"), results.side[0].measure, results.side[0].value
(0.5, 'coverage@2', 0.5)
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Iterator, Sequence

import numpy as np

from ..data.run import Run
from ..errors import MeasureError
from ..protocol import Protocol
from ..results import Results
from ..results.side import SideValue
from .registry import (CatalogueValue, SideMeasure, compute_side, is_side_measure,
                       missing_side_data, parse_side_measure)
from .side import SideData
from .topk import shared_cuts

__all__ = ["split_measures", "side_values", "with_side", "evaluate_with_side", "check_side_data",
           "catalogue_side_value", "loops_on_this_thread"]


def split_measures(texts: Sequence[Any]) -> tuple[list[Any], list[SideMeasure]]:
    """(accuracy measures as given, side-data measures parsed), in the order given."""
    accuracy: list[Any] = []
    side: list[SideMeasure] = []
    for text in texts:
        if is_side_measure(text):
            side.append(parse_side_measure(text))
        else:
            accuracy.append(text)
    return accuracy, side


def check_side_data(measures: Sequence[SideMeasure], side: SideData) -> None:
    """Refuse, naming the flag, a measure whose side data is not given (before any file is read)."""
    for measure in measures:
        lacking = missing_side_data(measure, side)
        if lacking is not None:
            raise MeasureError(what=f"{measure} needs side data that was not given",
                               fix=f"give it with {lacking}",
                               value=str(measure))


def side_values(run: Run, measures: Sequence[SideMeasure], side: SideData,
                protocol: "Protocol | None" = None,
                costs: "dict[str, float] | None" = None) -> tuple[SideValue, ...]:
    """Each side-data measure on the run, as the values Results hold.

    The top k of each list is cut once per cutoff and shared by the measures
    (:func:`~.topk.shared_cuts`). `costs`, when given, receives each measure's
    seconds (its text -> wall seconds; the first measure at a cutoff pays for the cut).
    """
    with shared_cuts():
        return tuple(_side_value(measure, run, side, protocol, costs) for measure in measures)


@contextlib.contextmanager
def loops_on_this_thread(alone: bool = True) -> Iterator[None]:
    """Inside, the compiled loops of the measures the calling thread computes run on it alone
    (`alone`; else split between threads as everywhere): for side measures computed in a thread
    beside other work, on the core that work leaves, without a second team of threads waiting
    for the cores it holds. The same values either way (each list is one thread's)."""
    if not alone:
        yield
        return
    from .._libs.lists import loop_threads

    previous = loop_threads(1)
    try:
        yield
    finally:
        loop_threads(previous)


def _side_value(measure: SideMeasure, run: Run, side: SideData, protocol: "Protocol | None",
                costs: "dict[str, float] | None") -> SideValue:
    start = time.perf_counter()
    try:
        return _value_of(measure, compute_side(measure, run, side, protocol))
    finally:
        if costs is not None:
            costs[str(measure)] = costs.get(str(measure), 0.0) + time.perf_counter() - start


def _value_of(measure: SideMeasure, got: Any) -> SideValue:
    """A measure's result as Results hold it."""
    spec = measure.spec
    if isinstance(got, CatalogueValue):
        return catalogue_side_value(measure, got)
    return SideValue(str(measure), spec.display, spec.kind, float(got.mean),
                     np.asarray(got.queries),
                     np.asarray(got.values, dtype=np.float64),
                     (("lists", len(got.values)), ("undefined", got.undefined)),
                     spec.higher_is_better)


def catalogue_side_value(measure: SideMeasure, got: CatalogueValue) -> SideValue:
    """A catalogue measure's value as Results hold it (one number, its detail)."""
    spec = measure.spec
    return SideValue(str(measure), spec.display, spec.kind, float(got.value), detail=got.detail,
                     higher_is_better=spec.higher_is_better)


def with_side(results: Results, values: Sequence[SideValue]) -> Results:
    """The same Results with side values added (a shallow copy: the accuracy values are shared)."""
    return results.replace(side=tuple(results.side) + tuple(values))


def evaluate_with_side(qrels, run: Run, measures: Sequence[Any], side: SideData,
                       protocol: "Protocol | None" = None, **options: Any) -> Results:
    """:func:`rankproof.evaluate` of the accuracy measures, with the side-data measures in ``results.side``.

    `options` are :func:`rankproof.evaluate`'s (min_coverage, allow_partial, engine, ...;
    :class:`~rankproof.engines.options.EvaluationOptions`). Side-data
    measures may be asked for alone: the Results then hold no accuracy measure (``results.measures``
    is empty), and their summary, tables and JSON show the side values.

    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"u": {"a": 1}, "v": {"d": 1}})
    >>> run = Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "d", "z"]})
    >>> alone = evaluate_with_side(qrels, run, ["coverage@2"], SideData(items=np.array(list("abcdef"))))
    >>> alone.measures, alone.side[0].value
    ([], 0.5)
    """
    from ..engines.options import EvaluationOptions
    from ..evaluation import evaluate_read

    # Refused before the side data is checked.
    wanted_options = EvaluationOptions.of(None, **options)
    accuracy, wanted = split_measures(measures)
    check_side_data(wanted, side)
    if not accuracy and not wanted:
        raise MeasureError(what="no measure given", fix="ask for one, e.g. ndcg@10 or novelty@10")
    # Side-data measures alone: the Results hold no accuracy value, only the queries, counts and
    # coverage.
    results = evaluate_read(lambda: (qrels, run), accuracy, protocol, side_only=not accuracy,
                            stacklevel=3,
                            options=wanted_options)
    # AUC, GAUC and PopREO read which items are relevant: the same qrels
    return with_side(results,
                     side_values(run, wanted, side.with_judgments(qrels), results.protocol))
