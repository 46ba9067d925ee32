"""The registry of fusion methods (a table, not a chain of ifs) and :func:`fuse`."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..data.run import Run
from ..errors import InputError
from . import rank_methods, score_methods, trained_methods
from .domains import check_domains
from .normalization import check_finite, normalize, parse_norm
from .table import Table, build_table, fused_run
from .ties import FusionTies, parse_ties
from .training import TRAINING_PARAMETERS, ranx_resort, train_on

__all__ = ["METHODS", "Method", "checked_params", "fuse", "fuse_table", "parse_method",
           "weight_grid"]


@dataclasses.dataclass(frozen=True)
class Method:
    """A fusion method: its function, its parameters' defaults and search grids, its training step.

    ``weighted``: it takes one weight per component (default equal, grid
    the weights in steps of 0.1 that sum to 1, ranx's). ``train``: the
    step that learns its ``learned`` parameters from judgments.
    """

    name: str
    function: Callable[..., np.ndarray]
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    grids: Mapping[str, tuple] = dataclasses.field(default_factory=dict)
    weighted: bool = False
    train: Callable[..., dict] | None = None
    learned: tuple[str, ...] = ()
    reads_ties: bool = False

    @property
    def tunable(self) -> bool:
        """Whether cross-validation has something to choose or learn."""
        return bool(self.grids) or self.weighted or self.train is not None


def _m(name, function, **fields) -> tuple[str, Method]:
    return name, Method(name, function, **fields)


_T = trained_methods
METHODS: dict[str, Method] = dict([
    _m("comb_sum", score_methods.comb_sum),
    _m("comb_mnz", score_methods.comb_mnz),
    _m("comb_anz", score_methods.comb_anz),
    _m("comb_gmnz", score_methods.comb_gmnz, defaults={"gamma": 1.0},
       grids={"gamma": tuple(round(0.05 * i, 2) for i in range(1, 21))}),
    _m("comb_max", score_methods.comb_max),
    _m("comb_min", score_methods.comb_min),
    _m("comb_med", score_methods.comb_med),
    _m("wsum", score_methods.wsum, weighted=True),
    _m("wmnz", score_methods.wmnz, weighted=True),
    _m("mixed", score_methods.mixed, weighted=True),
    _m("rrf", rank_methods.rrf, defaults={"k": 60}, grids={"k": tuple(range(10, 101, 10))}),
    _m("isr", rank_methods.isr),
    _m("log_isr", rank_methods.log_isr),
    _m("logn_isr", rank_methods.logn_isr, defaults={"sigma": 0.01},
       grids={"sigma": (0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)}),
    _m("bordafuse", rank_methods.bordafuse),
    _m("weighted_bordafuse", rank_methods.weighted_bordafuse, weighted=True),
    _m("condorcet", rank_methods.condorcet, reads_ties=True),
    _m("weighted_condorcet", rank_methods.weighted_condorcet, weighted=True, reads_ties=True),
    _m("rbc", rank_methods.rbc, defaults={"phi": 0.8},
       grids={"phi": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)}),
    _m("bayesfuse", _T.bayesfuse, train=_T.train_bayesfuse, learned=("log_odds",)),
    _m("mapfuse", _T.mapfuse, train=_T.train_mapfuse, learned=("map_scores",)),
    _m("posfuse", _T.posfuse, train=_T.train_posfuse, learned=("probs",)),
    _m("probfuse", _T.probfuse, train=_T.train_probfuse, learned=("probs",),
       defaults={"n_segments": 10},
       grids={"n_segments": (2, 5, 10, 20, 50)}),
    _m("segfuse", _T.segfuse, train=_T.train_segfuse, learned=("probs",)),
    _m("slidefuse", _T.slidefuse, train=_T.train_slidefuse, learned=("probs",), defaults={"w": 5},
       grids={"w": (1, 2, 3, 5, 10, 20, 50)}),
])

# ranx's names in ranx.fuse(method=...), and the bare Comb names.
ALIASES = {"sum": "comb_sum", "mnz": "comb_mnz", "anz": "comb_anz", "gmnz": "comb_gmnz",
           "max": "comb_max",
           "min": "comb_min", "med": "comb_med", "w_bordafuse": "weighted_bordafuse",
           "w_condorcet": "weighted_condorcet", "combsum": "comb_sum", "combmnz": "comb_mnz"}



def parse_method(name: str) -> Method:
    """The method named ``name`` (rankproof's name, or ranx's: ``sum``, ``mnz``, ``w_bordafuse``, ...)."""
    key = ALIASES.get(str(name).lower(), str(name).lower())
    if key not in METHODS:
        raise InputError(source="fuse", what=f"unknown fusion method {name!r}", value=name,
                         fix="use one of " + ", ".join(METHODS))
    return METHODS[key]


def weight_grid(components: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """Every weight vector on a grid of ``step`` whose weights sum to 1 (ranx's search space)."""
    units = int(round(1 / step))
    return [tuple(round(u * step, 10) for u in combo)
            for combo in itertools.product(range(units + 1), repeat=components) if sum(combo)
            == units]


def checked_params(method: Method, params: Mapping[str, Any], components: int) -> dict:
    allowed = (set(method.defaults) | set(method.learned)
               | ({"weights"} if method.weighted else set()))
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise InputError(source="fuse", what=f"{method.name} has no parameter {unknown[0]!r}",
                         value=unknown[0],
                         fix="its parameters are " + (", ".join(sorted(allowed)) or "none"))
    check_domains(params)
    out = {**method.defaults, **params}
    if method.weighted:
        weights = out.get("weights", (1.0,) * components)
        if len(weights) != components:
            raise InputError(source="fuse", what=f"{len(weights)} weights for {components} runs",
                             value=weights,
                             fix="give one weight per run, in the order of the runs")
        out["weights"] = tuple(float(w) for w in weights)
    return out


def fuse_table(table: Table, method: Method, params: Mapping[str, Any],
               ties: FusionTies) -> np.ndarray:
    """The fused score of every candidate of a normalized table."""
    arguments = {key: value for key, value in params.items() if key not in TRAINING_PARAMETERS}
    if method.reads_ties:
        arguments["ties"] = ties
    return method.function(table, **arguments)


def fuse(runs: "Sequence[Run] | Mapping[str, Run]", method: str = "rrf", *,
         norm: str | None = "min-max",
         params: Mapping[str, Any] | None = None, ties: "FusionTies | str" = "docid",
         qrels=None, name: str | None = None) -> Run:
    """Fuse component runs into one run.

    Parameters
    ----------
    runs : list of Run, or mapping name -> Run
        Two or more component runs. A query one of them lacks counts as an
        empty ranking from it.
    method : str
        One of :data:`METHODS` (``rrf`` by default) or ranx's name for it.
    norm : str or None
        Score normalization applied to each component first (``min-max``,
        ranx's default; see :mod:`rankproof.fusion.normalization`). Rank-based
        methods read ranks, which ``min-max`` keeps.
    params : mapping, optional
        The method's parameters (``k`` of rrf, ``weights``, ``phi``, ...);
        the method's defaults otherwise. A trained method (bayesfuse,
        mapfuse, posfuse, probfuse, segfuse, slidefuse) takes its learned
        parameters here, or learns them from ``qrels``.
    ties : {"docid", "input", "ranx"}
        The order of equal scores, in the components and in the fused run
        (:class:`~rankproof.fusion.ties.FusionTies`).
    qrels : Qrels, optional
        Judgments a trained method learns from. Learning and scoring on the
        same queries overstates the result: :func:`rankproof.fusion.cross_validate`
        learns on other queries than it scores.
    name : str, optional
        The fused run's name (``method`` by default).

    Returns
    -------
    Run
        Rows in fused order; scores the fused scores.

    Examples
    --------
    >>> from rankproof import Run
    >>> from rankproof.fusion import fuse
    >>> a = Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0}})
    >>> b = Run.from_dict({"q1": {"d2": 9.0, "d3": 1.0}})
    >>> fused = fuse([a, b], "rrf", params={"k": 0})   # d2: 1/2 + 1/1
    >>> fused.to_dict()
    {'q1': {'d2': 1.5, 'd1': 1.0, 'd3': 0.5}}
    """
    components = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    chosen = parse_method(method)
    policy = parse_ties(ties)
    norm = parse_norm(norm)
    given = dict(params or {})
    check_domains(given)   # before the training step reads n_segments
    raw = build_table(components, policy)
    table = normalize(raw, norm, policy)
    if chosen.train is not None and not set(chosen.learned) <= set(given):
        if qrels is None:
            raise InputError(source="fuse", what=f"{chosen.name} learns from judgments: give qrels",
                             fix=f"pass qrels=..., or its learned parameters ({', '.join(chosen.learned)})")
        given.update(train_on(table, chosen, qrels, given, np.ones(len(table.queries), dtype=bool),
                              resort=ranx_resort(policy, norm)))
    fused = fuse_table(table, chosen, checked_params(chosen, given, len(components)), policy)
    check_finite(raw, fused, chosen.name, norm)
    return fused_run(table, fused, policy, name or chosen.name)
