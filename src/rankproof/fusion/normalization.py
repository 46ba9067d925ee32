"""Score normalizations, per component run and per query (ranx's seven).

Each maps a component's scores for one query onto a common scale before a
score-based fusion. With ``s`` the component's scores for the query, ``n``
how many docs it ranks, ``p`` a doc's 0-based rank and ``C`` the number of
candidates (docs any component ranks for the query):

============================  ==================================================
``min-max``                   ``(s - min s) / max(max s - min s, 1e-9)``
``min-max-inverted``          ``(max s - s) / max(max s - min s, 1e-9)``, ranks re-sorted
``max``                       ``s / max(max s, 1e-9)``
``sum``                       ``(s - min s) / max(sum s - n min s, 1e-9)``
``zmuv``                      ``(s - mean s) / max(std s, 1e-9)`` (population std)
``rank``                      ``1 - p / n``
``borda``                     ``1 - p / C``; a candidate it does not rank: ``0.5 - (n - 1) / (2 C)``
============================  ==================================================

The 1e-9 floors are ranx's: a query whose scores are all equal maps to 0
instead of dividing by zero. ``borda`` gives every component a score for
every candidate (Montague and Aslam 2001's Borda count, rescaled), so after
it every candidate counts as ranked by every component (``comb_mnz`` then
multiplies by the number of components). References: Fox and Shaw,
"Combination of multiple searches", TREC-2 (1993); Lee, "Analyses of
multiple evidence combination", SIGIR 1997 (min-max); Montague and Aslam,
"Relevance score normalization for metasearch", CIKM 2001 (sum, zmuv);
Renda and Straccia, "Web metasearch: rank vs. score based rank aggregation
methods", SAC 2003 (rank, borda).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .table import Table, ranks_of
from .ties import FusionTies, order_within

__all__ = ["NORMALIZATIONS", "check_finite", "normalize", "parse_norm", "reranked"]

FLOOR = 1e-9

NORMALIZATIONS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none")

_ALIASES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted", None: "none"}


def parse_norm(name: "str | None") -> str:
    """The canonical name of a normalization (``min_max`` and ``min-max`` are one)."""
    canonical = _ALIASES.get(name, name)
    if canonical not in NORMALIZATIONS:
        raise InputError(source="fuse", what=f"unknown normalization {name!r}", value=name,
                         fix="use one of " + ", ".join(NORMALIZATIONS))
    return str(canonical)


def _per_query(table: Table, values: np.ndarray, how: str) -> np.ndarray:
    """(len(queries), R) reduction over each query's ranked docs: min, max, sum, mean or std."""
    present = table.present
    nq, r = len(table.queries), values.shape[1]
    count = np.zeros((nq, r))
    np.add.at(count, table.query, present.astype(float))
    if how in ("min", "max"):
        fill = np.inf if how == "min" else -np.inf
        out = np.full((nq, r), fill)
        ufunc = np.minimum if how == "min" else np.maximum
        ufunc.at(out, table.query, np.where(present, values, fill))
        return np.where(count > 0, out, 0.0)     # ranx's safe_min / safe_max of nothing
    total = np.zeros((nq, r))
    np.add.at(total, table.query, np.where(present, values, 0.0))
    if how == "sum":
        return total
    mean = total / np.maximum(count, 1)
    if how == "mean":
        return mean
    squares = np.zeros((nq, r))
    np.add.at(squares, table.query, np.where(present, (values - mean[table.query]) ** 2, 0.0))
    return np.sqrt(squares / np.maximum(count, 1))


def normalize(table: Table, name: str, ties: FusionTies = FusionTies.DOCID) -> Table:
    """The table with each component's scores normalized per query by ``name`` (see the module)."""
    name = parse_norm(name)
    s, q = table.scores, table.query
    if name == "none":
        return table
    if name in ("min-max", "min-max-inverted", "sum"):
        low, high = _per_query(table, s, "min"), _per_query(table, s, "max")
        if name == "sum":
            den = np.maximum(_per_query(table, s, "sum") - low * table.lengths, FLOOR)
            _refuse_overflow(table, den, name)
            return table.with_scores((s - low[q]) / den[q])
        if name == "min-max":
            return table.with_scores(_spread(s - low[q], s / 2 - low[q] / 2, high - low,
                                             high / 2 - low / 2, q))
        return reranked(table, _spread(high[q] - s, high[q] / 2 - s / 2, high - low,
                                       high / 2 - low / 2, q), ties)
    if name == "max":
        return table.with_scores(s / np.maximum(_per_query(table, s, "max"), FLOOR)[q])
    if name == "zmuv":
        with np.errstate(over="ignore", invalid="ignore"):
            mean, std = _per_query(table, s, "mean"), _per_query(table, s, "std")
        _refuse_overflow(table, mean + std, name)
        return table.with_scores((s - mean[q]) / np.maximum(std, FLOOR)[q])
    n = table.lengths[q].astype(float)
    if name == "rank":
        return table.with_scores(np.where(table.present, 1 - table.positions / np.maximum(n, 1),
                                          np.nan))
    return _borda(table, n)


def _spread(num: np.ndarray, half_num: np.ndarray, den: np.ndarray, half_den: np.ndarray,
            q: np.ndarray) -> np.ndarray:
    """``num / max(den, 1e-9)`` per candidate, from the halves where ``max - min`` overflows (scores
    of +-1e308: halving is exact, so the ratio is the one the real numbers give)."""
    with np.errstate(over="ignore", invalid="ignore"):
        wide = ~np.isfinite(den)
        if not wide.any():
            return num / np.maximum(den, FLOOR)[q]
        out = num / np.maximum(np.where(wide, 1.0, den), FLOOR)[q]
        rows = wide[q]
        out[rows] = half_num[rows] / half_den[q][rows]
    return out


def _refuse_overflow(table: Table, per_query: np.ndarray, norm: str) -> None:
    """Refuse a normalization whose sums or squares left the float range (a std of inf would
    silently turn every score into 0), naming the component and the query."""
    bad = ~np.isfinite(per_query)
    if not bad.any():
        return
    query, component = (int(i) for i in np.argwhere(bad)[0])
    raise InputError(source=f"run {table.names[component]}", query=str(table.queries[query]),
                     what=f"its scores overflow the {norm} normalization (their sum or squares leave the "
                          "float range)",
                     fix="rescale that run's scores, or normalize with min-max or rank (--norm)")


def check_finite(table: Table, fused: np.ndarray, method: str, norm: str) -> None:
    """Refuse fused scores that overflowed, naming the component whose scores did it.

    Components' scores are finite (the readers refuse others), so an infinite
    or undefined fused score comes from arithmetic past the float range: the
    component with the largest magnitude is named, with the way out.
    """
    if np.isfinite(fused).all():
        return
    magnitude = np.nanmax(np.abs(np.where(table.present, table.scores, np.nan)), axis=0,
                          initial=0.0)
    worst = int(np.argmax(magnitude))
    raise InputError(source=f"run {table.names[worst]}",
                     what=f"its scores (up to {magnitude[worst]:.3g} in magnitude) overflow {method} under the "
                          f"{norm} normalization: the fused scores leave the float range",
                     fix="rescale that run's scores, or normalize them with min-max or rank (--norm)")


def reranked(table: Table, scores: np.ndarray, ties: FusionTies) -> Table:
    """New scores in a new order (min-max-inverted): each component's ranks sorted anew."""
    positions = np.full(table.positions.shape, -1, dtype=np.int64)
    for r in range(scores.shape[1]):
        rows = np.flatnonzero(table.present[:, r])
        # the current ranking is the arrival
        rows = rows[np.argsort(table.positions[rows, r], kind="stable")]
        order = order_within(table.query[rows], scores[rows, r], np.arange(len(rows)),
                             table.doc[rows], ties)
        positions[rows, r] = ranks_of(table.query[rows], order)
    return table.with_scores(scores, positions)


def _borda(table: Table, n: np.ndarray) -> Table:
    """Borda-normalized scores: every component scores every candidate; its unranked docs follow its ranked
    ones, in candidate order, all with the same score."""
    c = table.candidates.astype(float)[:, None]
    present = table.present
    scores = np.where(present, 1 - table.positions / c, 0.5 - (n - 1) / (2 * c))
    positions = table.positions.copy()
    for r in range(scores.shape[1]):
        absent = np.flatnonzero(~present[:, r])
        # candidates are grouped by query: the k-th absent doc of a query comes at n + k
        absent_queries = table.query[absent]
        positions[absent, r] = (table.lengths[absent_queries, r]
                                + ranks_of(absent_queries, np.arange(len(absent))))
    lengths = np.repeat(np.diff(table.offsets)[:, None], scores.shape[1], axis=1)
    return table.with_scores(scores, positions, lengths)
