"""The trec_eval preset against trec_eval 10 itself, built from the reference source.

trec_eval prints 4 decimals, so per-query values must agree to half a unit of
the 4th decimal. Cases are generated to hit the edge cases on purpose: ties
(broken by doc id descending), nearly equal scores, unjudged docs, negative
grades, grades above 4, queries with nothing relevant, runs shorter than k,
doc ids that differ in case or length, and queries ranked but not judged.
"""

import random
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from rankproof import Protocol, Qrels, Run, evaluate

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "reference" / "trec_eval-10"
BUILD = ROOT / "build" / "trec_eval"

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


@pytest.fixture(scope="session")
def trec_eval_binary() -> Path:
    if not SOURCE.is_dir() or shutil.which("make") is None or shutil.which("gcc") is None:
        pytest.skip("trec_eval source or a C toolchain is not available")
    binary = BUILD / "trec_eval"
    if not binary.exists():
        BUILD.mkdir(parents=True, exist_ok=True)
        shutil.copytree(SOURCE, BUILD, dirs_exist_ok=True)
        subprocess.run(["make", "-s", "-C", str(BUILD)], check=True, capture_output=True)
    return binary


def write_case(rng: random.Random, folder: Path) -> tuple[Path, Path]:
    docs = ["d1", "D1", "d10", "d2", "doc#3", "a", "aa", "B", "z9", "d100"] + [f"x{i}" for i in range(30)]
    qrels_lines, run_lines = [], []
    for qi in range(rng.randint(2, 8)):
        query = f"q{qi}"
        judged = rng.sample(docs, rng.randint(1, 15))
        kind = rng.random()
        for i, doc in enumerate(judged):
            if kind < 0.15:
                grade = 0  # nothing relevant
            elif i == 0:
                # trec_eval 10 cannot evaluate a query whose grades are all
                # negative ("Can't calculate measure"), so keep one >= 0.
                grade = rng.choice([0, 1, 2])
            else:
                grade = rng.choice([0, 0, 1, 1, 2, 3, 5, -1])
            qrels_lines.append(f"{query} 0 {doc} {grade}")
        ranked = rng.sample(docs, rng.randint(1, 14))
        base = rng.choice([1.0, 0.5, 10.0])
        for rank, doc in enumerate(ranked, 1):
            style = rng.random()
            if style < 0.4:
                score = base + rng.choice([0, 1, 2])  # exact ties
            elif style < 0.6:
                score = base + rng.choice([0, 1e-9, 2e-9])  # nearly equal
            else:
                score = base + rng.random()
            run_lines.append(f"{query} Q0 {doc} {rank} {score!r} tag")
    # A query ranked but never judged: both tools ignore it.
    run_lines.append("unjudged_query Q0 d1 1 1.0 tag")
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text("\n".join(qrels_lines) + "\n")
    run_path.write_text("\n".join(run_lines) + "\n")
    return qrels_path, run_path


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
