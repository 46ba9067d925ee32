"""Parameters and weights chosen by k-fold cross-validation over queries, scored out of fold.

ranx's ``optimize_fusion`` searches a grid and reports the best score on
the queries it searched on: a number that overstates what the fused run
will do on new queries. Here every query is scored by parameters chosen
(and, for trained methods, learned) on the other folds' queries only; the
mean of those per-query values is the out-of-fold score, and the fused run
written is the cross-fitted one (each query fused with its fold's choice),
so that comparing it with its components is fair. The parameters chosen on
all queries are reported too, for reuse on new queries.

Reference: Hastie, Tibshirani and Friedman, *The Elements of Statistical
Learning* (2nd ed., 2009), section 7.10 (cross-validation, and the wrong way
to do it).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..data.run import Run
from ..errors import InputError
from .methods import Method, checked_params, fuse_table, parse_method, weight_grid
from .normalization import normalize, parse_norm
from .table import Table, build_table, fused_run
from .ties import FusionTies, parse_ties
from .training import judgments, ranx_resort, train_on

__all__ = ["FusionFit", "cross_validate", "fold_assignment"]


def fold_assignment(queries: Sequence[str], folds: int, seed: int) -> np.ndarray:
    """Fold (0-based) of each query: a seeded permutation dealt round-robin, so folds differ by at most one."""
    if not 2 <= folds <= len(queries):
        raise InputError(source="fuse", what=f"{folds} folds for {len(queries)} judged queries",
                         value=folds,
                         fix="{do[folds]}")
    order = np.random.default_rng(seed).permutation(len(queries))
    fold = np.empty(len(queries), dtype=np.int64)
    fold[order] = np.arange(len(queries)) % folds
    return fold


def _configurations(method: Method, components: int, grid: Mapping[str, Sequence] | None,
                    step: float) -> list[dict]:
    grids: dict[str, Sequence] = dict(method.grids)
    if method.weighted:
        grids["weights"] = weight_grid(components, step)
    grids.update(grid or {})
    if not grids:
        return [{}]
    names = sorted(grids)
    return [dict(zip(names, values)) for values in itertools.product(*(grids[n] for n in names))]


@dataclasses.dataclass(frozen=True)
class FusionFit:
    """A cross-validated fusion: what was chosen per fold, and the out-of-fold score.

    ``queries`` are the judged queries cross-validated, ``fold`` each one's
    fold (0-based), ``out_of_fold`` each one's measure value under the
    parameters chosen without it; ``score`` is their mean. ``in_sample`` is
    the mean over the same queries of the parameters chosen on all of them
    (what a train-on-test search reports). ``run`` is the cross-fitted run.
    """

    method: str
    norm: str
    ties: FusionTies
    measure: str
    seed: int
    queries: tuple[str, ...]
    fold: np.ndarray
    chosen: tuple[dict, ...]
    params: dict
    out_of_fold: np.ndarray
    in_sample: float
    configurations: int
    run: Run

    @property
    def score(self) -> float:
        return float(np.mean(self.out_of_fold)) if len(self.out_of_fold) else float("nan")

    @property
    def folds(self) -> int:
        return len(self.chosen)

    def fold_queries(self) -> list[list[str]]:
        """The queries of each fold, in query order."""
        return [[q for q, f in zip(self.queries, self.fold) if f == k] for k in range(self.folds)]

    def summary(self) -> str:
        lines = [f"cross-validation: {self.folds} folds over {len(self.queries)} judged queries, seed {self.seed}; "
                 f"{self.configurations} configuration(s) of {self.method}, chosen by mean {self.measure} "
                 "on the other folds"]
        lines.append(f"normalization {self.norm}; ties {self.ties.value} (equal scores, in the runs and the fused run)")
        for k, (queries, params) in enumerate(zip(self.fold_queries(), self.chosen), start=1):
            lines.append(f"  fold {k} ({len(queries)} queries): {describe_params(params)}")
            lines.append(f"    queries: {' '.join(queries)}")
        lines.append(f"out-of-fold {self.measure}: {self.score:.4f}   (chosen on all queries and scored on them: "
                     f"{self.in_sample:.4f}, optimistic)")
        lines.append(f"parameters chosen on all queries: {describe_params(self.params)}")
        return "\n".join(lines)


def describe_params(params: Mapping[str, Any]) -> str:
    """Parameters in words; learned arrays as their size."""
    parts = []
    for key, value in sorted(params.items()):
        if isinstance(value, (list, np.ndarray)) and key != "weights":
            parts.append(f"{key} learned ({len(value)} components)")
        elif key == "weights":
            parts.append("weights=(" + ", ".join(f"{float(w):g}" for w in value) + ")")
        else:
            parts.append(f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}")
    return ", ".join(parts) or "no parameters"


class _Scorer:
    """Fuses a configuration and evaluates it per cross-validated query (non-trained methods: once)."""

    def __init__(self, qrels, table: Table, method: Method, ties: FusionTies, measure: str,
                 protocol,
                 cv_queries: np.ndarray) -> None:
        self.qrels, self.table, self.method, self.ties = qrels, table, method, ties
        self.measure, self.protocol = measure, protocol
        self.names = table.queries[cv_queries].tolist()
        self.cache: dict[int, tuple[dict, np.ndarray, np.ndarray]] = {}
        self.resort: FusionTies | None = None

    def _evaluate(self, params: dict) -> tuple[np.ndarray, np.ndarray]:
        from ..evaluation import evaluate

        fused = fuse_table(self.table, self.method, params, self.ties)
        results = evaluate(self.qrels, fused_run(self.table, fused, self.ties, "fused"),
                           [self.measure],
                           self.protocol, allow_partial=True)
        by_query = dict(zip((str(q) for q in results.queries), results.values(self.measure)))
        return fused, np.array([by_query.get(q, 0.0) for q in self.names], dtype=float)

    def best(self, configurations: list[dict], training: np.ndarray, cv_training: np.ndarray,
             components: int) -> tuple[dict, np.ndarray, np.ndarray]:
        """The configuration with the best mean on the training queries: (params, fused, values)."""
        best: tuple | None = None
        for index, config in enumerate(configurations):
            if self.method.train is None and index in self.cache:
                params, fused, values = self.cache[index]
            else:
                params = checked_params(self.method, config, components)
                params.update(train_on(self.table, self.method, self.qrels, params, training,
                                       resort=self.resort))
                fused, values = self._evaluate(params)
                if self.method.train is None:
                    self.cache[index] = (params, fused, values)
            mean = float(np.nanmean(values[cv_training])) if cv_training.any() else 0.0
            if best is None or mean > best[0]:
                best = (mean, params, fused, values)
        if best is None:
            raise InputError(source="fuse", what="no configuration to try",
                             fix="give a non-empty grid")
        return best[1], best[2], best[3]


def cross_validate(qrels, runs: "Sequence[Run] | Mapping[str, Run]", method: str = "wsum", *,
                   norm: str | None = "min-max", measure: str = "ndcg@10", folds: int = 5,
                   seed: int = 0,
                   grid: Mapping[str, Sequence] | None = None, weight_step: float = 0.1,
                   protocol=None,
                   ties: "FusionTies | str" = "docid", name: str | None = None) -> FusionFit:
    """Choose (and learn) a fusion method's parameters by k-fold cross-validation over queries.

    The judged queries are dealt into ``folds`` folds by a permutation seeded
    with ``seed``. For each fold, every configuration of the method's grid
    (``grid`` overrides it; weights on a simplex grid of ``weight_step``) is
    fused with what trained methods learn from the other folds' judgments,
    and the one with the best mean ``measure`` on the other folds' queries
    scores this fold's queries. Ties between configurations go to the first
    in grid order.

    Returns
    -------
    FusionFit
        ``score`` (out-of-fold mean), ``chosen`` (per fold), ``params``
        (chosen on all queries), ``run`` (the cross-fitted run), ``summary()``.

    Examples
    --------
    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({f"q{i}": {"a": 1} for i in range(4)})
    >>> a = Run.from_dict({f"q{i}": {"a": 2.0, "b": 1.0} for i in range(4)})
    >>> b = Run.from_dict({f"q{i}": {"b": 2.0, "a": 1.0} for i in range(4)})
    >>> fit = cross_validate(qrels, [a, b], "wsum", measure="rr", folds=2)
    >>> fit.score, fit.params["weights"]    # weight on a, which ranks a first, wins
    (1.0, (0.6, 0.4))
    """
    components = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    chosen_method, policy = parse_method(method), parse_ties(ties)
    norm = parse_norm(norm)
    table = normalize(build_table(components, policy), norm, policy)
    _, judged, _ = judgments(table, qrels)
    cv_queries = np.flatnonzero(judged)
    fold = fold_assignment(table.queries[cv_queries].tolist(), folds, seed)
    fold_of_query = np.full(len(table.queries), -1)
    fold_of_query[cv_queries] = fold
    configurations = _configurations(chosen_method, len(components), grid, weight_step)
    scorer = _Scorer(qrels, table, chosen_method, policy, measure, protocol, cv_queries)
    scorer.resort = ranx_resort(policy, norm)
    chosen, out_of_fold, fused_all = [], np.empty(len(cv_queries)), np.zeros(len(table.query))
    for k in range(folds):
        params, fused, values = scorer.best(configurations, judged & (fold_of_query != k),
                                            fold != k,
                                            len(components))
        out_of_fold[fold == k] = values[fold == k]
        fused_all[fold_of_query[table.query] == k] = fused[fold_of_query[table.query] == k]
        chosen.append(params)
    params_all, fused_in, values_in = scorer.best(configurations, judged,
                                                  np.ones(len(fold), dtype=bool),
                                                  len(components))
    unjudged = fold_of_query[table.query] < 0
    fused_all[unjudged] = fused_in[unjudged]
    return FusionFit(method=chosen_method.name, norm=norm, ties=policy, measure=str(measure),
                     seed=seed,
                     queries=tuple(table.queries[cv_queries].tolist()), fold=fold,
                     chosen=tuple(chosen),
                     params=params_all, out_of_fold=out_of_fold,
                     in_sample=float(np.nanmean(values_in)),
                     configurations=len(configurations),
                     run=fused_run(table, fused_all, policy, name or f"{chosen_method.name}-cv"))
