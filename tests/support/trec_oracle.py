"""Shared test helpers: build trec_eval 10 from the reference source, and
generate random qrels/run files that hit trec_eval's edge cases on purpose."""

import random
import shutil
import subprocess
from pathlib import Path

from oracles import missing
from paths import BUILD as BUILT, SHARED

SOURCE = SHARED / "reference" / "trec_eval-10"
BUILD = BUILT / "trec_eval"


SOURCE9 = SHARED / "reference" / "trec_eval-9.0.8"
BUILD9 = BUILT / "trec_eval9"


def build_trec_eval(source: Path = SOURCE, build: Path = BUILD) -> Path:
    """Path of the trec_eval 10 binary (or another version's), built into build/ once;
    oracles.missing() (a skip, or a failure in CI) when impossible."""
    binary = build / "trec_eval"
    if not binary.exists():
        if not source.is_dir():
            missing(f"{build.name}: not built in build/ and no source at {source} (make test builds it from ../shared)")
        if shutil.which("make") is None or shutil.which("gcc") is None:
            missing(f"{build.name}: not built in build/ and no C toolchain (make, gcc) to build it")
        build.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source, build, dirs_exist_ok=True)
        subprocess.run(["make", "-s", "-C", str(build)], check=True, capture_output=True)
    return binary


def build_trec_eval9() -> Path:
    """trec_eval 9.0.8 (the version pytrec_eval wraps), built into build/trec_eval9 (make test does)."""
    return build_trec_eval(SOURCE9, BUILD9)


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


