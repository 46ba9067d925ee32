"""Fusion of runs: ranx's 25 methods and 7 normalizations, cross-validated, diagnosed and tested.

- :func:`fuse`: component runs -> one fused run (:data:`METHODS`, :data:`NORMALIZATIONS`),
  with an explicit order for equal scores (:class:`FusionTies`).
- :func:`cross_validate`: a method's parameters (weights, ``k``, ``phi``, learned
  probabilities) chosen by k-fold cross-validation over queries, scored out of fold.
- :func:`complementarity`: overlap@k and Kendall's tau of the components: whether fusion can help.
- :func:`compare_fused`: the fused run against each component, with rankproof's paired
  tests and a multiple-comparison correction.

The layout is one module per job: :mod:`.table` (the components side by
side), :mod:`.ties`, :mod:`.normalization`, :mod:`.score_methods`,
:mod:`.rank_methods`, :mod:`.trained_methods`, :mod:`.methods` (the
registry), :mod:`.optimisation`, :mod:`.diagnostics`.
"""

from __future__ import annotations

from .diagnostics import Complementarity, compare_fused, complementarity
from .methods import METHODS, fuse
from .normalization import NORMALIZATIONS
from .optimisation import FusionFit, cross_validate
from .ties import FusionTies

__all__ = ["fuse", "cross_validate", "complementarity", "compare_fused", "Complementarity",
           "FusionFit",
           "FusionTies", "METHODS", "NORMALIZATIONS"]
