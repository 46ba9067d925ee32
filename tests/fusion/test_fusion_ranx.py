"""Every fusion method and normalization against ranx (the peer), on seeded random runs with tied scores.

ranx orders equal scores by numba's quicksort (not stable on lists over 15
docs); ``ties="ranx"`` reproduces that order, so rank-based methods see the
same ranks. Values must agree to 1e-9, and so must the fused ranking (the
order of equal fused scores) where ranx defines one.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.fusion import METHODS, NORMALIZATIONS, fuse
from rankproof.fusion.normalization import normalize
from rankproof.fusion.training import train_on
from rankproof.fusion.methods import parse_method
from rankproof.fusion.table import build_table
from rankproof.fusion.ties import FusionTies, quicksort_argsort

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.slow  # numba compiles ranx's kernels on a cold cache (tens of seconds)

RANX_NORMS = {"min-max": "min-max", "min-max-inverted": "min-max-inverted", "max": "max", "sum": "sum",
              "zmuv": "zmuv", "rank": "rank", "borda": "borda", "none": None}
RANX_NAMES = {"comb_sum": "sum", "comb_mnz": "mnz", "comb_anz": "anz", "comb_gmnz": "gmnz", "comb_max": "max",
              "comb_min": "min", "comb_med": "med", "weighted_bordafuse": "w_bordafuse",
              "weighted_condorcet": "w_condorcet"}
WEIGHTS = (0.5, 0.3, 0.2)
PARAMS = {"comb_gmnz": {"gamma": 0.7}, "rrf": {"k": 20}, "logn_isr": {"sigma": 0.3}, "rbc": {"phi": 0.9},
          "slidefuse": {"w": 3}}
# ranx reads borda-normalized runs in the order of a Python set, and lists the unranked
# candidates of bordafuse in that order too: equal values, but no ranx order to compare.
NO_RANX_ORDER = {"bordafuse", "weighted_bordafuse"}


def random_runs(seed: int = 7, n_runs: int = 3, n_queries: int = 6):
    """dict runs: 0 to 40 docs per query from a pool of 60, scores on a coarse grid (many ties)."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(n_queries):
            size = int(rng.integers(1, 41))
            docs = rng.choice(60, size=size, replace=False)
            scores = np.round(rng.normal(3 * r, 2, size=size), 1) if r != 1 else rng.integers(0, 6, size=size) * 1.0
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
        runs.append(run)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(60, 25, replace=False)}
             for q in range(n_queries)}
    return runs, qrels


RUNS, QRELS = random_runs()


def as_ranx(runs):
    return [ranx.Run(run, name=f"r{i}") for i, run in enumerate(runs)]


def as_rankproof(runs):
    return [Run.from_dict(run, name=f"r{i}") for i, run in enumerate(runs)]


def assert_same(ours: Run, theirs, check_order: bool = True) -> None:
    expected = {q: dict(docs) for q, docs in theirs.to_dict().items()}
    got = ours.to_dict()
    for q, docs in expected.items():
        assert set(got[q]) == set(docs), q
        np.testing.assert_allclose([got[q][d] for d in docs], list(docs.values()), rtol=0, atol=1e-9, err_msg=q)
        if check_order:
            assert list(got[q]) == list(docs), q


def test_quicksort_is_numbas():
    # ranx's own compiled argsort (np.argsort under numba), the one its Run.sort uses
    from numba.typed import List as TypedList
    from ranx.data_structures.common import typed_list_argosrt

    rng = np.random.default_rng(3)
    for n in (1, 2, 15, 16, 17, 40, 200):
        keys = rng.integers(0, 4, size=n).astype(float)
        assert quicksort_argsort(keys).tolist() == typed_list_argosrt(TypedList(keys.tolist())).tolist()


@pytest.mark.parametrize("norm", NORMALIZATIONS)
def test_normalization_matches_ranx(norm):
    # comb_sum of the normalized runs shows each normalized value (weights 1, 0, 0 isolate one run).
    ours = fuse(as_rankproof(RUNS), "wsum", norm=norm, params={"weights": (1, 0, 0)}, ties="ranx")
    theirs = ranx.fuse(as_ranx(RUNS), norm=RANX_NORMS[norm], method="wsum", params={"weights": [1.0, 0.0, 0.0]})
    if norm == "borda":
        assert_same(ours, theirs, check_order=False)
        return
    table = normalize(build_table(as_rankproof(RUNS), FusionTies.RANX), norm, FusionTies.RANX)
    for i, run in enumerate(as_ranx(RUNS)):
        normalized = run if norm == "none" else ranx.normalization.norm_switch(norm)(run)
        for q, docs in normalized.to_dict().items():
            qi = int(np.searchsorted(table.queries, q))
            rows = np.arange(table.offsets[qi], table.offsets[qi + 1])
            mine = {str(table.docs[table.doc[j]]): table.scores[j, i] for j in rows if table.present[j, i]}
            assert mine.keys() == docs.keys()
            np.testing.assert_allclose([mine[d] for d in docs], list(docs.values()), rtol=0, atol=1e-9)
            ranked = sorted((j for j in rows if table.present[j, i]), key=lambda j: table.positions[j, i])
            assert [str(table.docs[table.doc[j]]) for j in ranked] == list(docs)   # ranx's order of ranks


def _trained(method, norm_runs_ranx, qrels_ranx, params):
    name = method.name
    if name == "bayesfuse":
        return {"log_odds": ranx.fusion.bayesfuse_train(qrels_ranx, norm_runs_ranx)}
    if name == "mapfuse":
        return {"map_scores": ranx.fusion.mapfuse_train(qrels_ranx, norm_runs_ranx)}
    if name == "probfuse":
        return {"probs": ranx.fusion.probfuse_train(qrels_ranx, norm_runs_ranx, params.get("n_segments", 4))}
    train = {"posfuse": ranx.fusion.posfuse_train, "segfuse": ranx.fusion.segfuse_train,
             "slidefuse": ranx.fusion.slidefuse_train}[name]
    return {"probs": train(qrels_ranx, norm_runs_ranx)}


@pytest.mark.parametrize("name", list(METHODS))
def test_method_matches_ranx(name):
    method = parse_method(name)
    params = dict(PARAMS.get(name, {}))
    if method.weighted:
        params["weights"] = WEIGHTS
    ranx_runs = [ranx.normalization.min_max_norm(run) for run in as_ranx(RUNS)]
    if method.train is not None:
        params.update(_trained(method, ranx_runs, ranx.Qrels(QRELS), {"n_segments": 4}))
    theirs = ranx.fuse(as_ranx(RUNS), norm="min-max", method=RANX_NAMES.get(name, name),
                       params={k: list(v) if isinstance(v, tuple) else v for k, v in params.items()})
    ours = fuse(as_rankproof(RUNS), name, norm="min-max", params=params, ties="ranx")
    assert_same(ours, theirs, check_order=name not in NO_RANX_ORDER)


@pytest.mark.parametrize("name", ["bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse"])
def test_training_matches_ranx(name):
    method = parse_method(name)
    qrels = Qrels.from_dict(QRELS)
    table = normalize(build_table(as_rankproof(RUNS), FusionTies.RANX), "min-max", FusionTies.RANX)
    params = {"n_segments": 4} if name == "probfuse" else {}
    ours = train_on(table, method, qrels, params, np.ones(len(table.queries), dtype=bool), resort=FusionTies.RANX)
    ranx_runs = [ranx.normalization.min_max_norm(run) for run in as_ranx(RUNS)]
    theirs = _trained(method, ranx_runs, ranx.Qrels(QRELS), {"n_segments": 4})
    for key, value in theirs.items():
        for mine, expected in zip(ours[key], value):
            mine, expected = np.atleast_1d(mine), np.atleast_1d(expected)
            np.testing.assert_allclose(mine[: len(expected)], expected, rtol=0, atol=1e-9)


# Every method once more under another normalization (cycling through them), on other runs:
# negative scores (zmuv), ranks (rank), no normalization at all. After borda ranx reads ranks in
# a Python set's order, so rank-reading methods skip it.
READS_RANKS = {"rrf", "isr", "log_isr", "logn_isr", "bordafuse", "weighted_bordafuse", "condorcet",
               "weighted_condorcet", "rbc", "bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse"}
OTHER_NORMS = [n for n in NORMALIZATIONS if n != "min-max"]
RUNS_4, QRELS_4 = random_runs(seed=11, n_runs=4, n_queries=5)


@pytest.mark.parametrize("index, name", list(enumerate(METHODS)))
def test_method_matches_ranx_under_other_normalizations(index, name):
    choices = [n for n in OTHER_NORMS if not (n == "borda" and name in READS_RANKS)]
    norm = choices[index % len(choices)]
    method = parse_method(name)
    params = dict(PARAMS.get(name, {}))
    if method.weighted:
        params["weights"] = (0.1, 0.4, 0.3, 0.2)
    if norm == "none":
        ranx_runs = as_ranx(RUNS_4)
    elif norm == "borda":
        ranx_runs = ranx.normalization.borda_norm(as_ranx(RUNS_4))
    else:
        ranx_runs = [ranx.normalization.norm_switch(norm)(run) for run in as_ranx(RUNS_4)]
    if method.train is not None:
        params.update(_trained(method, ranx_runs, ranx.Qrels(QRELS_4), {"n_segments": 3}))
    theirs = ranx.fuse(as_ranx(RUNS_4), norm=RANX_NORMS[norm], method=RANX_NAMES.get(name, name),
                       params={k: list(v) if isinstance(v, tuple) else v for k, v in params.items()})
    ours = fuse(as_rankproof(RUNS_4), name, norm=norm, params=params, ties="ranx")
    assert_same(ours, theirs, check_order=name not in NO_RANX_ORDER and norm != "borda")
