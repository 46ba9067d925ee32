"""One vocabulary of measure names: every registry of measures, looked up and parsed alike.

Two registries hold measures, each a table of specs that say what a measure
needs and where it runs:

=========  =====================================  ==============================================
kind       table                                  its measures
=========  =====================================  ==============================================
``rank``   :data:`rankproof.measures.REGISTRY`    a value per query from a ranking and judgments
``side``   ``rankproof.recsys.SIDE_REGISTRY``     read side data too (catalogue, training log, ...)
=========  =====================================  ==============================================

Each owner adds its table here with :func:`register_vocabulary` when it is
imported (the side-data table with the recommender package, which a plain
evaluation does not import). Every name is then read by the one parser
(:func:`rankproof.measures.parse.parse_any`): ``coverage@10`` and
``ndcg@10`` go through the same grammar, the same cutoff and parameter
checks, and an unknown name is answered with the nearest names of every
table. The two tables share no name (``tests/recsys/test_side_data.py``).

A spec of either table declares the same capabilities:

- ``needs``: the data it reads besides the ranking and the judgments, as
  alternatives (``(("items", "train"),)``: the catalogue or else the
  training log; a diversity measure needs the judgments per intent,
  ``(("intents",),)``);
- ``executors``: the executors that evaluate it, among :data:`EXECUTORS`.

Examples
--------
>>> from rankproof.measures.parse import parse_any
>>> kind_of("ndcg"), parse_any("ndcg@10")
('rank', Measure('ndcg@10'))
>>> REGISTRY["ndcg"].executors, REGISTRY["alpha_ndcg"].needs
(('memory', 'outofcore', 'spark'), (('intents',),))
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

from .base import EXECUTORS, REGISTRY, Measure

__all__ = ["EXECUTORS", "Vocabulary", "VOCABULARIES", "register_vocabulary", "kind_of", "spec_of",
           "known_names"]

@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """One registry of measures, as the parser reads it.

    Attributes
    ----------
    kind : str
        Its name: ``rank`` or ``side``.
    specs : Mapping
        The registry itself (name -> spec), read live: a measure registered
        later is known at once.
    build : callable
        ``build(text)`` makes the measure value from a
        :class:`~rankproof.measures.parse.MeasureText` whose name is in `specs`.
    measure_type : type
        The class of its measure values (read as they are).
    """

    kind: str
    specs: Mapping[str, Any]
    build: Callable[[Any], Any]
    measure_type: type


VOCABULARIES: dict[str, Vocabulary] = {}


def register_vocabulary(vocabulary: Vocabulary) -> None:
    """Add a registry of measures to the vocabulary (its owner does so once, when imported)."""
    VOCABULARIES[vocabulary.kind] = vocabulary


def _vocabulary_of(name: str) -> "Vocabulary | None":
    return next((v for v in VOCABULARIES.values() if name in v.specs), None)


def kind_of(name: str) -> "str | None":
    """The kind of the registry that holds `name` (``rank``, ``side``), None if none does."""
    vocabulary = _vocabulary_of(name)
    return vocabulary.kind if vocabulary is not None else None


def spec_of(name: str) -> Any:
    """The spec of a registered name, from whichever registry holds it (KeyError if none)."""
    vocabulary = _vocabulary_of(name)
    if vocabulary is None:
        raise KeyError(name)
    return vocabulary.specs[name]


def known_names() -> dict[str, Any]:
    """Every registered name and its spec, the ranking measures first."""
    return {name: spec for vocabulary in VOCABULARIES.values() for name, spec in vocabulary.specs.items()}


def _build_rank(text: Any) -> Measure:
    return Measure(text.name, text.cutoff, text.params)


register_vocabulary(Vocabulary("rank", REGISTRY, _build_rank, Measure))
