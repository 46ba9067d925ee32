"""The ``trec_eval9`` preset against pytrec_eval (pytrec-eval-terrier, trec_eval 9 inside).

``rankproof.trec.evaluate(..., preset="trec_eval9")`` must give pytrec_eval's
per-query value for every measure both compute, on the cases of
test_trec_parity's generator, with and without -l 2 and -J, and on parameterised
measures. pytrec_eval holds scores as float32 and cuts interpolated precision
at (long)(x R + 0.9): the preset's score_precision and iprec_rounding policies.
"""

from __future__ import annotations

import math
import os
import random

import pytest

from rankproof.trec import evaluate
from test_trec_parity import write_parity_case

pytrec_eval = pytest.importorskip(
    "pytrec_eval", reason="pytrec-eval-terrier is not installed (pip install pytrec-eval-terrier)")

CASES = max(60, int(os.environ.get("RANKPROOF_TREC_CASES", "300")) // 3)
# pytrec_eval's measures with numbers per query (runid and relstring are not numbers);
# pytrec_eval refuses trec_eval's '..15' spelling of a level, so levels are written 0.15.
MEASURES = {"all_trec"} | {"P.1,3,7", "ndcg_cut.2,4,25", "iprec_at_recall.0.15,0.33,0.5,1", "Rprec_mult.0.5,1.5,3",
                           "success.2,3", "map_cut.3,8", "recall.2,6", "relative_P.2,9"}
PYTREC_MEASURES = sorted(pytrec_eval.supported_measures - {"runid", "relstring"}) + sorted(MEASURES - {"all_trec"})


def read_case(qrels_path, run_path):
    """The generator's files as pytrec_eval's dicts; None when trec_eval would refuse them."""
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[2] in qrels.setdefault(fields[0], {}):
            return None
        qrels[fields[0]][fields[2]] = int(fields[3])
    run: dict[str, dict[str, float]] = {}
    for line in run_path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[2] in run.setdefault(fields[0], {}):
            return None
        run[fields[0]][fields[2]] = float(fields[4])
    return qrels, run


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(CASES))
def test_trec_eval9_preset_matches_pytrec_eval(tmp_path, seed):
    rng = random.Random(9000 + seed)
    qrels_path, run_path, _ = write_parity_case(rng, tmp_path)
    data = read_case(qrels_path, run_path)
    if data is None:
        pytest.skip("a doc listed twice: pytrec_eval's dicts cannot hold it")
    qrels, run = data
    level = rng.choice([1, 1, 2])  # pytrec_eval refuses relevance_level=0
    judged_only = rng.random() < 0.25
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_MEASURES), relevance_level=level,
                                            judged_docs_only_flag=judged_only).evaluate(run)
    ours = evaluate(qrels, run, MEASURES, relevance_level=level, judged_docs_only=judged_only, preset="trec_eval9")
    assert set(ours) == set(theirs), (seed, sorted(ours), sorted(theirs))
    for query, values in theirs.items():
        for name, value in values.items():
            if name in ("runid", "relstring"):
                continue
            assert name in ours[query], (seed, query, name)
            assert same(ours[query][name], value), (seed, level, judged_only, query, name, ours[query][name], value)


def test_measure_sets_merge_like_pytrec_eval():
    # pytrec_eval joins the cut-offs given for one measure; the first-given rule of the
    # trec_eval command line cannot apply to a set, which has no order.
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}}
    run = {"q1": {"a": 1.0, "x": 2.0, "c": 0.5}}
    ours = evaluate(qrels, run, {"P.5", "P.10", "P.2"}, preset="trec_eval9")
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "P.10", "P.2"}).evaluate(run)
    assert ours == theirs == {"q1": {"P_2": 0.5, "P_5": 0.4, "P_10": 0.2}}
