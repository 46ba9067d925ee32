"""Corrections of p-values for many comparisons (pairs x measures).

Holm and Bonferroni control the family-wise error rate (the chance of any
false "significant"); Benjamini-Hochberg controls the false discovery rate
(the expected share of false ones among those called significant) and comes
from ``scipy.stats.false_discovery_control``.
"""

from __future__ import annotations

import difflib
from typing import Callable

import numpy as np

from ..errors import InputError, literal
from .keywords import CorrectionName, renamed_keyword

__all__ = ["correct", "CORRECTIONS"]


def bonferroni(p: np.ndarray) -> np.ndarray:
    """p x m, at most 1 (m = number of comparisons).

    >>> bonferroni(np.array([0.01, 0.04, 0.5])).tolist()
    [0.03, 0.12, 1.0]
    """
    return np.minimum(1.0, p * len(p))


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down: the i-th smallest p (i from 0) times (m - i), made non-decreasing, at most 1.

    >>> holm(np.array([0.01, 0.04, 0.03, 0.5])).round(6).tolist()
    [0.04, 0.09, 0.09, 0.5]
    """
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    corrected = np.empty(m)
    corrected[order] = np.minimum(1.0, stepped)
    return corrected


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values, ``scipy.stats.false_discovery_control(p, method='bh')``.

    >>> benjamini_hochberg(np.array([0.01, 0.04, 0.03, 0.5])).round(6).tolist()
    [0.04, 0.053333, 0.053333, 0.5]
    """
    from scipy import stats

    return stats.false_discovery_control(p, method="bh") if len(p) else p.copy()


CORRECTIONS: dict[str, Callable[[np.ndarray],
                                np.ndarray]] = {"holm": holm, "bonferroni": bonferroni,
                                                "bh": benjamini_hochberg, "none": np.array}


def correct(p, correction: "CorrectionName" = "holm", *, method: str | None = None) -> np.ndarray:
    """Corrected p-values for a family of comparisons, in the order given.

    Parameters
    ----------
    p : array of p-values
    correction : {'holm', 'bonferroni', 'bh', 'none'}
        As :func:`rankproof.compare` names it.
    method : str, optional
        The earlier name of ``correction`` (deprecated).
    """
    correction = renamed_keyword(correction, method, new="correction", old="method", default="holm",
                                 where="correct")
    if correction not in CORRECTIONS:
        near = difflib.get_close_matches(str(correction), list(CORRECTIONS), n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise InputError(what=literal(f"unknown correction {correction!r}"), value=correction,
                         fix=literal(f"{hint}choose one of {', '.join(CORRECTIONS)}"))
    p = np.asarray(p, dtype=np.float64)
    return np.asarray(CORRECTIONS[correction](p), dtype=np.float64)
