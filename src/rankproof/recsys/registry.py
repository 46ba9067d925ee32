"""The registry of side-data measures: the one source of their capabilities.

Accuracy measures live in :data:`rankproof.measures.REGISTRY`; the measures
here also need something about the items or users (:class:`~.side.SideData`),
so they are evaluated on the run with that side data, beside the accuracy
measures. Each :class:`SideSpec` says:

- ``compute(run, k, side, params, protocol)``: the function, returning
  :class:`~.beyond.ListValues` (kind ``list``: a value per user) or
  :class:`CatalogueValue` (kind ``catalogue``: one value for the whole run);
- ``needs``: the side data it reads, as alternatives (``(("items", "train"),)``
  is the catalogue or else the training log's items);
- ``optional``: side data it reads when given without needing it (gini's
  catalogue: ``universe=recommended`` needs none);
- ``judgments``: whether it reads which items are relevant, from the
  evaluation's own judgments (``SideData.judgments``: AUC, GAUC, PopREO);
- ``params``: its own parameters (:class:`SideParam`: parser and default);
- ``cutoff``: whether it takes ``@k`` (all of them do today, and need it);
- ``display``: its name in tables and the report; ``value_range``;
  ``higher_is_better`` (None: neither, e.g. a popularity level).

Another module registers its own with :func:`register_side`, and names itself
in :data:`FAMILIES` so that the registry imports it (the command line and the
report then know its measures). A name must not be one of the accuracy
registry's (``tests/recsys/test_side_data.py`` checks).

Examples
--------
>>> m = parse_side_measure("ild(distance=jaccard)@10")
>>> m.name, m.cutoff, m.params
('ild', 10, (('distance', 'jaccard'),))
>>> str(m)
'ild(distance=jaccard)@10'
>>> SIDE_REGISTRY["coverage"].kind
'catalogue'
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from ..data.run import Run
from ..errors import USERS_AND_ITEMS, InputError, MeasureError, literal
from ..measures.base import EXECUTORS, measure_text
from ..measures.parse import MeasureText, parse_any, read_measure_text
from ..measures.vocabulary import Vocabulary, kind_of, register_vocabulary
from ..protocol import Protocol
from . import beyond
from .catalogue_value import CatalogueValue, PerUser, PooledPairs
from .coverage import coverage as _coverage_fn
from .side import SIDE_FLAGS, Features, Interactions, SideData
from .side_params import choice

__all__ = ["SideSpec", "SideParam", "PerUser", "PooledPairs", "SideMeasure", "CatalogueValue",
           "SIDE_REGISTRY",
           "FAMILIES", "register_side", "parse_side_measure", "is_side_measure",
           "missing_side_data", "compute_side", "LIST", "CATALOGUE"]

LIST = "list"
CATALOGUE = "catalogue"
SIDE = "side"
_LARGEST_CUTOFF = 2**63 - 1


@dataclasses.dataclass(frozen=True)
class SideParam:
    """A parameter of a side-data measure: its parser (text or value -> value) and default."""

    name: str
    parse: Callable[[Any], Any]
    default: Any
    description: str


@dataclasses.dataclass(frozen=True)
class SideSpec:
    """What a side-data measure is (see the module's docstring)."""

    name: str
    display: str
    description: str
    kind: str
    needs: tuple[tuple[str, ...], ...]
    compute: Callable[..., Any]
    params: tuple[SideParam, ...] = ()
    cutoff: bool = True
    needs_cutoff: bool = True
    value_range: tuple[float, float] = (0.0, 1.0)
    higher_is_better: "bool | None" = True
    # What `rankproof measures` says it reads, when `needs` cannot say it (it depends on a
    # parameter).
    reads: "str | None" = None
    optional: tuple[str, ...] = ()
    # Reads the evaluation's judgments (SideData.judgments, set by the evaluation: no flag).
    judgments: bool = False
    # A catalogue measure without a cutoff: how it is put together from per-user numbers, or from
    # counts per distinct score over every pair of rows (on Spark).
    per_user: "PerUser | None" = None
    pairs: "PooledPairs | None" = None
    # The executors that evaluate it (measures.vocabulary.EXECUTORS); None: read from the fields
    # above (see _executors_of).
    executors: "tuple[str, ...] | None" = None

    def reads_side(self, kind: str) -> bool:
        """Whether the measure reads the side data `kind` (items, train, ...) when it is given."""
        return kind in self.optional or any(kind in alternatives for alternatives in self.needs)

    def __post_init__(self) -> None:
        if self.kind not in (LIST, CATALOGUE):
            raise ValueError(f"side measure {self.name}: kind must be {LIST!r} or {CATALOGUE!r}")
        for alternatives in (*self.needs, self.optional):
            for kind in alternatives:
                if kind not in SIDE_FLAGS:
                    raise ValueError(f"side measure {self.name}: unknown side data {kind!r}")
        if self.executors is None:
            object.__setattr__(self, "executors", _executors_of(self))

    def param(self, name: str) -> SideParam:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(name)


def _executors_of(spec: SideSpec) -> tuple[str, ...]:
    """In memory, and on Spark (per list user by user; a catalogue measure from the slot counts, or
    without a cutoff from per-user numbers or pairs); out of core none yet (the command line refuses
    side-data measures with --memory-budget)."""
    memory, _, spark = EXECUTORS
    parts = spec.per_user is not None or spec.pairs is not None
    gathered = spec.kind == LIST or spec.cutoff or parts
    return (memory, spark) if gathered else (memory,)


SIDE_REGISTRY: dict[str, SideSpec] = {}


def _words(spec: SideSpec) -> tuple[str, str]:
    return spec.display, spec.description


def register_side(*specs: SideSpec) -> None:
    """Add side-data measures to the registry (a family module registers its own).

    A name is registered once; the same measure again (its module imported a second time: the
    same display name and description) replaces it, and another measure of that name is refused.
    """
    for spec in specs:
        existing = SIDE_REGISTRY.get(spec.name)
        if existing is not None and _words(existing) != _words(spec):
            raise ValueError(f"side measure {spec.name} is registered twice")
        SIDE_REGISTRY[spec.name] = spec


@dataclasses.dataclass(frozen=True)
class SideMeasure:
    """A side-data measure asked for: name, cutoff and its parameters (parsed, sorted by name)."""

    name: str
    cutoff: "int | None" = None
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def spec(self) -> SideSpec:
        return SIDE_REGISTRY[self.name]

    def settings(self) -> dict[str, Any]:
        """Every parameter's value (given, else its default), as the measure's functions take them."""
        return {p.name: self.setting(p.name) for p in self.spec.params}

    def setting(self, name: str) -> Any:
        given = dict(self.params)
        return given[name] if name in given else self.spec.param(name).default

    def __str__(self) -> str:
        return measure_text(self.name, self.params, self.cutoff)

    def __repr__(self) -> str:
        return f"SideMeasure({str(self)!r})"


def _in_vocabulary() -> None:
    register_vocabulary(Vocabulary(SIDE, SIDE_REGISTRY, _side_measure, SideMeasure))


def is_side_measure(text: Any) -> bool:
    """Whether a measure's text names a registered side-data measure."""
    if isinstance(text, SideMeasure):
        return True
    try:
        return kind_of(read_measure_text(str(text)).name) == SIDE
    except MeasureError:
        return False


def _params(spec: SideSpec, given: tuple[tuple[str, str], ...]) -> tuple[tuple[str, Any], ...]:
    parsed: dict[str, Any] = {}
    names = [p.name for p in spec.params]
    for key, value in given:
        if key not in names:
            raise MeasureError(what=f"{spec.name} does not take the parameter {literal(repr(key))}; it accepts: "
                               f"{', '.join(names) or 'none'}", value=key)
        try:
            parsed[key] = spec.param(key).parse(value)
        except (ValueError, TypeError) as error:
            raise MeasureError(what=f"{spec.name}: {literal(str(error))}", value=value,
                               fix=spec.param(key).description) from None
    return tuple(sorted(parsed.items()))


def _side_measure(read: MeasureText) -> SideMeasure:
    """The side-data measure of a text the one parser read (measures.parse.parse_any)."""
    spec = SIDE_REGISTRY[read.name]
    params = read.params
    cutoff = read.cutoff
    if cutoff is not None and not 1 <= cutoff <= _LARGEST_CUTOFF:
        raise MeasureError(what=f"the cutoff k of {spec.name} must be an integer >= 1; got "
                           f"{literal(repr(read.raw_cutoff))} in {literal(repr(read.typed[:80]))}. Write "
                           f"{spec.name}@10, for instance", value=read.raw_cutoff)
    if cutoff is not None and not spec.cutoff:
        raise MeasureError(what=f"{spec.name} takes no cutoff", fix=f"write {spec.name} without @k",
                           value=cutoff)
    if cutoff is None and spec.needs_cutoff:
        raise MeasureError(what=f"{spec.name} needs a cutoff",
                           fix=f"write {spec.name}@10, for instance",
                           value=read.typed[:60])
    return SideMeasure(spec.name, cutoff, _params(spec, params))


def parse_side_measure(text: "str | SideMeasure") -> SideMeasure:
    """Read a side-data measure from its text (``name(param=value)@k``), by the one parser
    (:func:`rankproof.measures.parse.parse_any`)."""
    if isinstance(text, SideMeasure):
        return text
    typed = str(text)
    if not is_side_measure(typed):
        raise MeasureError(what=f"unknown side-data measure {literal(repr(typed[:60]))}. Known: "
                           f"{', '.join(SIDE_REGISTRY)}", value=typed[:60])
    return parse_any(typed)


_in_vocabulary()


def missing_side_data(measure: SideMeasure, side: SideData) -> "str | None":
    """The flags of the side data a measure needs and `side` lacks, in words (None: nothing lacks)."""
    given = set(side.given())
    for alternatives in measure.spec.needs:
        if not given.intersection(alternatives):
            return " or ".join(SIDE_FLAGS[kind] for kind in alternatives)
    return None


def compute_side(measure: SideMeasure, run: Run, side: SideData,
                 protocol: "Protocol | None" = None):
    """Evaluate one side-data measure on a run: :class:`~.beyond.ListValues` or :class:`CatalogueValue`."""
    lacking = missing_side_data(measure, side)
    if lacking is not None:
        raise MeasureError(what=f"{measure} needs side data that was not given",
                           fix=f"give it with {lacking}", value=str(measure))
    if measure.spec.judgments and side.judgments is None:
        raise MeasureError(what=f"{measure} reads which items are relevant: it needs the judgments",
                           fix="evaluate it with qrels (rankproof evaluate QRELS RUN, or "
                           "rankproof.recsys.evaluate_with_side)", value=str(measure))
    return measure.spec.compute(run, measure.cutoff, side, measure.settings(),
                                protocol if protocol is not None else Protocol())


# -- the measures of beyond.py and coverage.py ----------------------------------------


def _coverage(run: Run, k: int, side: SideData, params: dict, protocol: Protocol) -> CatalogueValue:
    result = _coverage_fn(run, k, side.catalogue(), protocol)
    return CatalogueValue(f"coverage@{k}", result.value,
                          (("covered", result.covered), ("catalogue_size", result.catalogue_size),
                           ("outside_catalogue", result.outside_catalogue)))


def _ild(run: Run, k: int, side: SideData, params: dict, protocol: Protocol):
    features: Features = side.needed("features")
    distance = params["distance"]
    if distance is None:
        distance = "cosine" if features.vectors is not None else "jaccard"
    if params.get("preset") == "evidently" and distance != "cosine":
        raise MeasureError(what="ild(preset=evidently) is Evidently's cosine distance over numeric features",
                           fix="drop distance=, and give numeric feature columns")
    if distance == "cosine":
        if features.vectors is None:
            raise MeasureError(what="ild(distance=cosine) needs numeric item features; the features given are "
                               "categories",
                               fix="write ild(distance=jaccard), or give numeric feature columns")
        return beyond.ild(run, k, features=features.vectors, distance="cosine", protocol=protocol,
                          normaliser="n" if params.get("preset") == "evidently" else "pairs")
    if features.categories is None:
        raise MeasureError(what="ild(distance=jaccard) needs item categories; the features given are numeric",
                           fix="write ild(distance=cosine), or give a category column")
    return beyond.ild(run, k, categories=features.categories, distance="jaccard", protocol=protocol)


def _novelty(run: Run, k: int, side: SideData, params: dict, protocol: Protocol):
    train: Interactions = side.needed("train")
    # p(i): the item's users over the log's users; unseen left out
    if params.get("preset") == "evidently":
        users, everyone = train.user_counts()
        return beyond.novelty(run, k, training=users, total=everyone, unseen="drop",
                              protocol=protocol)
    try:
        return beyond.novelty(run, k, training=train, unseen=params["unseen"],
                              protocol=protocol)
    except InputError as error:
        if error.doc is None:
            raise
        # In the measure's own words: novelty(unseen=laplace)@k, not the Python keyword.
        raise error.replace(fix=f"write novelty(unseen=laplace)@{k} for add-one smoothing, or train on a log "
                            "that has it").in_words_of(USERS_AND_ITEMS) from None


def _long_tail(run: Run, k: int, side: SideData, params: dict, protocol: Protocol):
    train: Interactions = side.needed("train")
    return beyond.long_tail_share(run, k, training=train, head=params["head"],
                                  protocol=protocol)


def _share(value: Any) -> float:
    number = float(value)
    if not 0 < number < 1:
        raise ValueError(f"expected a share between 0 and 1 (exclusive); got {str(value)[:40]!r}")
    return number


register_side(
    SideSpec("coverage", "Coverage",
             "share of the catalogue in at least one top-k list (the catalogue: "
             "--items, else the training log's items)", CATALOGUE, (("items", "train"),),
             _coverage),
    SideSpec("ild", "ILD",
             "intra-list diversity: mean pairwise distance of the top k (cosine over feature "
             "vectors, Jaccard over categories)", LIST, (("features",),), _ild,
             (SideParam("distance", choice("cosine", "jaccard"), None,
                        "distance=cosine (numeric features) or distance=jaccard (categories)"),
              SideParam("preset", choice("evidently"), None,
                        "preset=evidently: the sum over pairs divided by "
                        "the list's length (its DiversityMetric)"))),
    SideSpec("novelty", "Novelty",
             "mean self-information -log2 p(i) of the top k, p from training popularity "
             "(bits)", LIST, (("train",),), _novelty,
             (SideParam("unseen", choice("error", "laplace"), "error",
                        "unseen=error refuses items never trained on; unseen=laplace smooths"),
              SideParam("preset", choice("evidently"), None,
                        "preset=evidently: p = the item's users / the "
                        "training users, items never trained on left out (its NoveltyMetric)")),
             value_range=(0.0, float(np.inf))),
    SideSpec("long_tail_share", "Long-tail share",
             "share of the top k outside the popular head of the training "
             "log", LIST, (("train",),), _long_tail,
             (SideParam("head", _share, 0.2,
                        "head=0.2: the share of items (most popular first) in the head"),)),
)


# -- the measures of concentration.py and calibration.py (rec-measures' functions, named here) -----


def _gini(run: Run, k: int, side: SideData, params: dict, protocol: Protocol) -> CatalogueValue:
    from .concentration import GINI_PRESETS, gini

    preset = params["preset"]
    universe = params["universe"] or (GINI_PRESETS[preset]["universe"] if preset else "catalogue")
    catalogue = side.catalogue()
    if universe == "catalogue" and catalogue is None:
        raise MeasureError(what=f"gini@{k} over the catalogue needs side data that was not given",
                           fix="give it with --items or --train, or write gini(universe=recommended)@k")
    return gini(run, k, catalogue=catalogue if universe == "catalogue" else None,
                universe=params["universe"], normaliser=params["normaliser"], preset=preset,
                exposure=params.get("exposure"), patience=params.get("patience"),
                protocol=protocol).catalogue_value()


def _entropy(run: Run, k: int, side: SideData, params: dict, protocol: Protocol) -> CatalogueValue:
    from .concentration import entropy

    return entropy(run, k, base=params["base"], preset=params["preset"],
                   protocol=protocol).catalogue_value()


def _arp(run: Run, k: int, side: SideData, params: dict, protocol: Protocol):
    from .calibration import arp

    train: Interactions = side.needed("train")
    # the item's distinct users; an item never trained on left out
    if params.get("preset") == "evidently":
        return arp(run, k, training=train.user_counts()[0], unseen="drop", protocol=protocol)
    return arp(run, k, training=train, protocol=protocol)


def _calibration(run: Run, k: int, side: SideData, params: dict, protocol: Protocol):
    from .calibration import miscalibration

    train: Interactions = side.needed("train")
    features: Features = side.needed("features")
    if train.users is None or features.categories is None:
        raise MeasureError(what=f"calibration@{k} needs each user's training items and the items' categories",
                           fix="give --train with a user column and --features with a category column")
    history = {"user": train.users, "item": train.items}
    return miscalibration(run, k, history=_history(history), categories=features.categories,
                          alpha=params["alpha"], rank_weight=params["rank_weight"],
                          protocol=protocol)


def _history(columns: dict) -> dict:
    """user -> items of the training log."""
    history: dict[str, list] = {}
    for user, item in zip(columns["user"].tolist(), columns["item"].tolist()):
        history.setdefault(user, []).append(item)
    return history


def _alpha(value: Any) -> float:
    number = float(value)
    if not 0 <= number < 1:
        raise ValueError(f"expected alpha in [0, 1); got {str(value)[:40]!r}")
    return number


register_side(
    SideSpec("gini", "Gini index",
             "Gini index of the items' shares of the top-k slots (0: even, near 1: one item "
             "takes all); universe=catalogue (--items, else the training items) or recommended",
             CATALOGUE, (),
             _gini, (SideParam("universe", choice("catalogue", "recommended"), None,
                               "universe=catalogue or "
                               "universe=recommended"),
                     SideParam("normaliser", choice("n", "n-1"), None,
                               "normaliser=n or normaliser=n-1"),
                     SideParam("preset",
                               choice("recbole", "elliot", "recpack", "evidently", "lenskit",
                                                 "lenskit_exposure"), None,
                               "preset=recbole, elliot, recpack, evidently, lenskit or lenskit_exposure"),
                     SideParam("exposure", choice("uniform", "geometric", "log"), None,
                               "exposure=uniform (a slot counts 1), geometric (p^(rank-1)) or log"),
                     SideParam("patience", _share, None,
                               "patience=0.85: the p of exposure=geometric")),
             higher_is_better=False, reads="--items or --train, unless universe=recommended",
             optional=("items", "train")),
    SideSpec("entropy", "Entropy",
             "Shannon entropy of the items' shares of the top-k slots (bits; base=e: nats)",
             CATALOGUE, (), _entropy,
             (SideParam("base", choice("2", "e"), "2", "base=2 (bits) or base=e (nats)"),
              SideParam("preset", choice("recbole"), None,
                        "preset=recbole (divided by the recommended items)")),
             value_range=(0.0, float(np.inf))),
    SideSpec("arp", "ARP",
             "average recommendation popularity: mean training interactions of the top-k items",
             LIST, (("train",),), _arp,
             (SideParam("preset", choice("evidently"), None, "preset=evidently: "
                                                   "popularity = the item's users, items never trained on left out "
                                                   "(its PopularityBias)"),),
             value_range=(0.0, float(np.inf)), higher_is_better=None),
    SideSpec("calibration", "Miscalibration",
             "Steck's miscalibration: KL divergence of the top k's category mix "
             "from the user's training history's (nats; 0: calibrated)", LIST,
             (("train",), ("features",)),
             _calibration,
             (SideParam("alpha", _alpha, 0.01, "alpha=0.01: the smoothing, in [0, 1)"),
                            SideParam("rank_weight", choice("uniform", "log"), "uniform",
                                      "rank_weight=uniform or rank_weight=log")),
             value_range=(0.0, float(np.inf)), higher_is_better=False),
)

# The modules that register side-data measures of their own (imported once this registry
# exists: each imports register_side from here), e.g. "rankproof.recsys.popularity".
FAMILIES: tuple[str, ...] = ("rankproof.recsys.popularity_bias",)
FAMILIES += ("rankproof.recsys.auc", "rankproof.recsys.exposure")
FAMILIES += ("rankproof.recsys.serendipity", "rankproof.recsys.percentile", "rankproof.recsys.ips")
FAMILIES += ("rankproof.recsys.expected_exposure", "rankproof.recsys.awrf",
             "rankproof.recsys.long_tail")


def _load_families() -> None:
    import importlib

    for module in FAMILIES:
        importlib.import_module(module)


_load_families()
