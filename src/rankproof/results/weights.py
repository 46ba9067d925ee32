"""The query weights of ``aggregation=weighted``: whether the protocol and the caller agree that the
mean is weighted, and each query's weight, checked."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..errors import InputError, literal
from ..protocol import Aggregation, Protocol

__all__ = ["weights_wanted", "query_weights"]


def weights_wanted(weights, protocol: Protocol, how: str = "pass weights={query: weight}") -> bool:
    """Do the protocol and the weights agree that the mean is weighted? Refuse when they disagree
    (`how` says how the front door takes weights)."""
    if protocol.aggregation is not Aggregation.WEIGHTED:
        if weights is not None:
            raise InputError(what=f"weights were given but the protocol says aggregation={protocol.aggregation}",
                             fix="set the policy aggregation=weighted to use them")
        return False
    if weights is None:
        raise InputError(what="aggregation='weighted' needs weights", fix=literal(how))
    return True


def query_weights(weights: Mapping[str, float] | None, queries: np.ndarray,
                  protocol: Protocol) -> np.ndarray | None:
    """The weight of each query (aligned with `queries`), or None when the mean is not weighted."""
    if not weights_wanted(weights, protocol) or weights is None:
        return None
    missing = [q for q in queries.tolist() if q not in weights]
    if missing:
        shown = literal(", ".join(map(str, missing[:3]))
                        + (" and more" if len(missing) > 3 else ""))
        raise InputError(what=f"no weight for {{queries}} {shown}", value=missing[0],
                         fix="give every evaluated {query} a weight")
    bad = [q for q in queries.tolist()
           if isinstance(weights[q], bool)
           or not isinstance(weights[q], (int, float, np.integer, np.floating))]
    if bad:
        raise InputError(what=f"the weight of {{query}} {literal(bad[0])} is {literal(repr(str(weights[bad[0]])[:40]))}, "
                              "not a number", value=weights[bad[0]],
                         fix="give every evaluated {query} a numeric weight")
    try:
        array = np.array([float(weights[q]) for q in queries.tolist()])
    except OverflowError:
        raise InputError(what="a {query} weight is beyond float64",
                         fix="give finite weights") from None
    if not np.all(np.isfinite(array)) or (array < 0).any() or array.sum() == 0:
        raise InputError(what="{query} weights must be finite, non-negative and not all zero",
                         fix="give every {query} a finite weight >= 0, some of them > 0")
    return array
