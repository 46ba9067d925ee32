"""The options of the evaluation step, as one value.

Every front door (:func:`rankproof.evaluate`, :func:`rankproof.evaluate_frame`,
:func:`rankproof.compare`, :func:`rankproof.spark.evaluate`,
:func:`rankproof.evaluate_rag`, ...) takes the same keywords (``weights``,
``engine``, ``min_coverage``, ``allow_partial``, ``bounds``, ``query_ids``,
``notes``, ``complete_judgments``, ``ties_range``), builds one
:class:`EvaluationOptions` from them and hands that value down: the step
(:func:`rankproof.evaluation.evaluate_read`,
:func:`rankproof.evaluation.evaluate_alignment`) and the executors receive the
value, not nine keywords. The value checks itself when it is made, so a bad
option is refused by every front door with the same error, before any input
is read.

It sits at the engines' layer because it names the engine of choice (and
checks it against :data:`rankproof.engines.ENGINES`); every layer above may
import it.

>>> options = EvaluationOptions(min_coverage=0.2, bounds=True)
>>> options.min_coverage, options.allow_partial, options.notes
(0.2, False, ())
>>> options.replace(allow_partial=True).allow_partial
True
>>> EvaluationOptions(allow_partial="no")
Traceback (most recent call last):
...
rankproof.errors.InputError: allow_partial must be True or False; got 'no'
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError, literal

if TYPE_CHECKING:
    from ..typing import QueryIds
    from .base import Engine

__all__ = ["EvaluationOptions", "MIN_COVERAGE", "OPTION_NAMES", "check_share", "check_flag"]

# A run that ranks fewer than this share of the judged queries is refused unless the caller allows
# it: a mean made mostly of queries scored 0 (or of a handful of queries) is rarely what was meant,
# and mismatched query ids (q1 against 1) look exactly like that.
MIN_COVERAGE = 0.5


def check_share(min_coverage: Any) -> None:
    """Refuse a `min_coverage` that is not a real number in [0, 1] (a bool, a string, NaN, 1.5):
    an InputError, not a comparison failing later or a share taken as something else.

    >>> check_share(1.5)
    Traceback (most recent call last):
    ...
    rankproof.errors.InputError: min_coverage must be a share between 0 and 1; got 1.5
    """
    if (isinstance(min_coverage, bool) or not isinstance(min_coverage, numbers.Real)
            or not 0 <= float(min_coverage) <= 1):
        raise InputError(what=f"min_coverage must be a share between 0 and 1; got {literal(repr(min_coverage))}",
                         value=repr(min_coverage))


def check_flag(name: str, value: Any) -> None:
    """Refuse a flag that is not True or False (``"no"`` would be true)."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise InputError(what=f"{name} must be True or False; got {literal(repr(value))}",
                         value=repr(value))


@dataclasses.dataclass(frozen=True)
class EvaluationOptions:
    """What a caller asks of the evaluation step besides the inputs, the measures and the protocol.

    Parameters
    ----------
    weights : mapping query -> weight, optional
        Needed when the protocol says ``aggregation='weighted'`` (checked
        against the protocol and the queries by the step). A front door may
        take other shapes (one weight per row for a score matrix, a table of
        query and weight for Spark) and passes them on as given; a number or
        a string is refused.
    engine : str or Engine, optional
        The engine to prefer (see :func:`rankproof.evaluate`); a name must be
        one of :func:`rankproof.engines.engine_names`' engines.
    min_coverage : float, default 0.5
        The share of judged queries the run must rank
        (:func:`rankproof.results.guard_coverage`).
    allow_partial : bool, default False
        Evaluate a run below `min_coverage` anyway, with a warning.
    bounds : bool, default False
        Also the bounds under the unjudged docs (:meth:`rankproof.Results.bounds`).
    query_ids : optional
        The query ids the results show, aligned with the alignment's queries,
        or a function of those queries giving ``(ids, order)`` on first use.
    notes : sequence of str
        Facts about the input the printed results state.
    complete_judgments : bool, default False
        The judgments list every relevant doc (a recommender's truth).
    ties_range : bool, default False
        Also the range over the orders of tied docs (:meth:`rankproof.Results.tie_range`).

    Raises
    ------
    rankproof.errors.InputError
        When a value is not of its kind; the message names the option and
        the value (``value`` holds it).
    """

    weights: Any = None
    engine: "str | Engine | None" = None
    min_coverage: float = MIN_COVERAGE
    allow_partial: bool = False
    bounds: bool = False
    query_ids: "QueryIds | None" = None
    notes: Sequence[str] = ()
    complete_judgments: bool = False
    ties_range: bool = False

    def __post_init__(self) -> None:
        check_share(self.min_coverage)
        for name in ("allow_partial", "bounds", "complete_judgments", "ties_range"):
            check_flag(name, getattr(self, name))
        _check_weights(self.weights)
        if self.engine is not None:
            from . import get_engine

            get_engine(self.engine)  # an unknown engine fails before the work
        # A tuple whatever sequence was given (the value is frozen and hashable by its notes).
        object.__setattr__(self, "notes", _notes(self.notes))

    @classmethod
    def of(cls, options: "EvaluationOptions | None" = None, /,
           **keywords: Any) -> "EvaluationOptions":
        """`options` (the defaults when None) with `keywords` set: what a function that still takes
        the options as keywords passes on. An unknown name is a TypeError, as a call's would be.

        >>> EvaluationOptions.of(EvaluationOptions(bounds=True), allow_partial=True).bounds
        True
        """
        unknown = sorted(set(keywords) - set(OPTION_NAMES))
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the options are "
                            f"{', '.join(OPTION_NAMES)})")
        if options is None:
            return cls(**keywords)
        return options.replace(**keywords) if keywords else options

    def replace(self, **changes: Any) -> "EvaluationOptions":
        """These options with some changed (checked again)."""
        return dataclasses.replace(self, **changes)


# The options' names, in the order front doors declare them.
OPTION_NAMES: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(EvaluationOptions))


def _check_weights(weights: Any) -> None:
    if weights is None or isinstance(weights, Mapping):
        return
    if isinstance(weights, (str, bytes, numbers.Number)):
        raise InputError(what=f"weights must be {literal('{query: weight}')}; got {literal(repr(weights)[:40])}",
                         value=repr(weights)[:40], fix=literal("pass weights={query: weight}"))


def _notes(notes: Any) -> tuple[str, ...]:
    if (isinstance(notes, str) or not isinstance(notes, Iterable)
            or not all(isinstance(note, str) for note in notes)):
        raise InputError(what=f"notes must be a sequence of text lines; got {literal(repr(notes)[:40])}",
                         value=repr(notes)[:40])
    return tuple(notes)
