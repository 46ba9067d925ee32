"""Score-based fusion: the Comb family (Fox and Shaw 1993; Lee 1997) and its weighted forms.

Notation for one query and one candidate doc ``d``: ``s_i(d)`` its
(normalized) score in component ``i``, ``R`` the components that rank ``d``
(``|R|`` of them), ``w_i`` component weights. A component that does not
rank ``d`` contributes 0 to sums (ranx's convention).
"""

from __future__ import annotations

import numpy as np

from .table import Table

__all__ = ["comb_sum", "comb_mnz", "comb_anz", "comb_gmnz", "comb_max", "comb_min", "comb_med",
           "wsum", "wmnz", "mixed", "summed"]


def summed(table: Table, contributions: np.ndarray,
           weights: np.ndarray | None = None) -> np.ndarray:
    """Sum over components of ``w_i * c_i(d)``, 0 where a component does not rank ``d``."""
    values = np.where(table.present, contributions, 0.0)
    if weights is not None:
        values = values * np.asarray(weights, dtype=float)
    return values.sum(axis=1)


def _count(table: Table) -> np.ndarray:
    return table.present.sum(axis=1).astype(float)


def comb_sum(table: Table) -> np.ndarray:
    """CombSUM: ``sum_i s_i(d)``.

    Fox and Shaw, "Combination of multiple searches", TREC-2 (1993).
    """
    return summed(table, table.scores)


def comb_mnz(table: Table) -> np.ndarray:
    """CombMNZ: ``|R| * sum_{i in R} s_i(d)``.

    Fox and Shaw, "Combination of multiple searches", TREC-2 (1993).
    """
    return summed(table, table.scores) * _count(table)


def comb_anz(table: Table) -> np.ndarray:
    """CombANZ: ``sum_{i in R} s_i(d) / |R|``.

    Fox and Shaw, "Combination of multiple searches", TREC-2 (1993).
    """
    return summed(table, table.scores) / _count(table)


def comb_gmnz(table: Table, gamma: float = 1.0) -> np.ndarray:
    """CombGMNZ: ``|R| ** gamma * sum_{i in R} s_i(d)`` (gamma = 1 is CombMNZ, 0 is CombSUM).

    Lee, "Analyses of multiple evidence combination", SIGIR 1997.
    """
    return summed(table, table.scores) * _count(table) ** gamma


def comb_max(table: Table) -> np.ndarray:
    """CombMAX: ``max_i s_i(d)``, a component that does not rank ``d`` counting -1e9 (ranx's).

    Fox and Shaw, "Combination of multiple searches", TREC-2 (1993).
    """
    return np.where(table.present, table.scores, -1e9).max(axis=1)


def comb_min(table: Table) -> np.ndarray:
    """CombMIN: ``min_i s_i(d)``, a component that does not rank ``d`` counting 1e9 (ranx's).

    Fox and Shaw, "Combination of multiple searches", TREC-2 (1993).
    """
    return np.where(table.present, table.scores, 1e9).min(axis=1)


def comb_med(table: Table) -> np.ndarray:
    """CombMED: ``median_{i in R} s_i(d)``.

    Fox and Shaw, "Combination of multiple searches", TREC-2 (1993).
    """
    return np.nanmedian(np.where(table.present, table.scores, np.nan), axis=1)


def wsum(table: Table, weights) -> np.ndarray:
    """Weighted sum: ``sum_i w_i s_i(d)``.

    Bartell, Cottrell and Belew, "Automatic combination of multiple ranked
    retrieval systems", SIGIR 1994.
    """
    return summed(table, table.scores, weights)


def wmnz(table: Table, weights) -> np.ndarray:
    """WMNZ: ``(sum_{i in R} s_i(d)) * (sum_{i in R} w_i)``.

    Wu and Crestani, "Data fusion with estimated weights", CIKM 2002.
    """
    w = np.asarray(weights, dtype=float)
    return summed(table, table.scores) * np.where(table.present, w, 0.0).sum(axis=1)


def mixed(table: Table, weights) -> np.ndarray:
    """Mixed: ``sqrt(|R|) * sum_{i in R} w_i s_i(d)``.

    Wu, "Applying statistical principles to data fusion in information
    retrieval", Expert Systems with Applications 36(2), 2009.
    """
    return summed(table, table.scores, weights) * np.sqrt(_count(table))
