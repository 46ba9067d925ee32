"""The trec_eval preset against trec_eval 10 itself, built from the reference source.

trec_eval prints 4 decimals, so per-query values must agree to half a unit of
the 4th decimal. Cases are generated to hit the edge cases on purpose: ties
(broken by doc id descending), nearly equal scores, unjudged docs, negative
grades, grades above 4, queries with nothing relevant, runs shorter than k,
doc ids that differ in case or length, and queries ranked but not judged.
"""

import random
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from trec_oracle import write_case

# trec_eval measure -> rankproof measure
MEASURES = {
    "ndcg": "ndcg", "ndcg_cut_5": "ndcg@5", "ndcg_cut_10": "ndcg@10", "map": "ap", "map_cut_5": "ap@5",
    "recip_rank": "rr", "P_5": "p@5", "P_10": "p@10", "recall_5": "r@5", "recall_10": "r@10",
    "success_1": "hit@1", "success_5": "hit@5", "Rprec": "rprec", "bpref": "bpref",
    "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
}
TREC_FLAGS = ["-m", "ndcg", "-m", "ndcg_cut.5,10", "-m", "map", "-m", "map_cut.5", "-m", "recip_rank",
              "-m", "P.5,10", "-m", "recall.5,10", "-m", "success.1,5", "-m", "Rprec", "-m", "bpref",
              "-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret"]


def trec_eval_per_query(binary: Path, qrels: Path, run: Path, level: int) -> dict:
    out = subprocess.run([str(binary), "-q", "-l", str(level), *TREC_FLAGS, str(qrels), str(run)],
                         check=True, capture_output=True, text=True).stdout
    values = defaultdict(dict)
    for line in out.splitlines():
        name, query, value = line.split()
        if name in MEASURES:
            values[query][name] = float(value)
    return values


@pytest.mark.parametrize("seed", range(40))
def test_trec_eval_preset_matches_trec_eval(trec_eval_binary, tmp_path, seed):
    rng = random.Random(seed)
    qrels_path, run_path = write_case(rng, tmp_path)
    level = rng.choice([1, 1, 2])
    theirs = trec_eval_per_query(trec_eval_binary, qrels_path, run_path, level)
    protocol = Protocol.preset("trec_eval").replace(rel=level)
    ours = evaluate(Qrels.read_trec(qrels_path), Run.read_trec(run_path), list(MEASURES.values()), protocol)
    for name, measure in MEASURES.items():
        per_query = ours.per_query(measure)
        assert theirs["all"][name] == pytest.approx(ours.mean(measure), abs=5.01e-5) or name.startswith("num_"), name
        for query, value in per_query.items():
            assert theirs[query][name] == pytest.approx(value, abs=5.01e-5), (seed, name, query)
