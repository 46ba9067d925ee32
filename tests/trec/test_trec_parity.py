"""``rankproof trec-eval`` against the trec_eval 10 binary, byte for byte.

Each case is a random qrels/run pair built to hit trec_eval's edge cases (ties
across cut-offs, scores 1e-9 apart, unjudged docs, negative grades, grades
above 9, queries with nothing relevant, queries missing on either side, runs
shorter than the cut-offs, doc ids differing only in case, length or by a '#',
non-ASCII ids, comment lines, extra columns) and a random trec_eval command line
(``-q -m all_trec`` plus some of -c, -M, -l, -J, -N, -n and parameterised
measures; -Z in a test of its own). The FULL stdout of trec_eval and of ``rankproof trec-eval`` must be
identical; when trec_eval refuses the input (a duplicate doc, a judged query
the run does not rank without -c), rankproof must refuse it too, in one line
with exit code 2.

RANKPROOF_TREC_CASES sets the number of cases (default 300).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from rankproof.cli.app import main

CASES = int(os.environ.get("RANKPROOF_TREC_CASES", "300"))
Z_CASES = max(30, CASES // 10)

DOCS = ["d1", "D1", "d10", "d100", "d2", "doc#3", "#x", "a", "aa", "B", "z9", "dé", "dz"] + [f"x{i}" for i in range(25)]
QUERIES = ["1", "2", "9", "10", "q1", "Q1", "q10", "q2", "a", "ab"]
GRADES = [0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 5, 12, -1, -2]
# Parameterised measures added on top of all_trec; gains are integers (trec_eval sorts
# gains with an int-truncating comparator, which fractional gains less than 1 apart defeat).
PARAMETERISED = [
    "P.1,3,7", "recall.2,6", "map_cut.3,8", "ndcg_cut.2,4,25", "success.2,3", "relative_P.2,9", "unj.1,3",
    "iprec_at_recall..15,.33,.5,1", "Rprec_mult.0.5,1.5,3", "11pt_avg..2,.4,.9", "set_F.0.5",
    "utility.2,-1,-0.5,0.25", "relstring.4", "relstring.15", "G.1=2,2=5", "ndcg_rel.1=2", "Rndcg.2=3,5=1",
    "rbp.p=0.8", "rbp_resid.p=0.5", "binG", "infAP",
]
CUTOFF_MEASURES = {"P", "recall", "map_cut", "ndcg_cut", "success", "relative_P", "unj"}
# dcg, ideal_dcg and ndcg share one parameter table in trec_eval 10, which frees it once
# per measure at exit: two of them with parameters crash it (double free) after printing.
# So at most one of these per case; with parameters on dcg or ideal_dcg, no all_trec (it has ndcg).
NDCG_GROUP = ["ndcg.0=1,1=2,2=5", "ndcg.1=3,2=9,4=4.5", "ndcg.2=-1,3=0", "dcg", "ideal_dcg", "dcg.1=4",
              "ideal_dcg.1=4,2=0"]


def _score(rng: random.Random, base: float) -> float:
    style = rng.random()
    if style < 0.35:
        return base + rng.choice([0, 1, 2])          # exact ties
    if style < 0.55:
        return base + rng.choice([0, 1e-9, 2e-9])    # nearly equal: apart in float64
    if style < 0.65:
        return -rng.choice([0.5, 1.0, 3.25])         # negative scores
    return base + rng.random()


def write_parity_case(rng: random.Random, folder: Path) -> tuple[Path, Path, list[str]]:
    """Random qrels, run and trec_eval options; returns (qrels, run, options)."""
    complete = rng.random() < 0.35
    queries = sorted(rng.sample(QUERIES, rng.randint(1, 7)))
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    sep = rng.choice([" ", "\t", " ", "  "])
    for query in queries:
        kind = rng.random()
        judged = rng.sample(DOCS, rng.randint(1, 16))
        for i, doc in enumerate(judged):
            if kind < 0.15:
                grade = 0                                 # nothing relevant
            elif i == 0:
                # A query whose grades are all negative reads stale buffers in trec_eval 10
                # (garbage ideal_dcg, "double free" aborts), so each query has a grade >= 0.
                grade = rng.choice([0, 1, 2])
            else:
                grade = rng.choice(GRADES)
            qrels_lines.append(sep.join([query, "0", doc, str(grade)]))
        # Queries the run does not rank: -c scores them; without -c both tools refuse.
        if rng.random() < (0.2 if complete else 0.02):
            continue
        ranked = rng.sample(DOCS, rng.randint(1, 14))
        base = rng.choice([1.0, 0.5, 10.0, 1e6])
        for rank, doc in enumerate(ranked, 1):
            run_lines.append(sep.join([query, "Q0", doc, str(rank), repr(_score(rng, base)), "tag"]))
        if rng.random() < 0.02:   # a doc twice for one query: both tools refuse (unless -M cuts it)
            run_lines.append(sep.join([query, "Q0", ranked[0], "99", "0.1", "tag"]))
    run_lines.append(sep.join(["only_in_run", "Q0", "d1", "1", "1.0", "tag"]))
    rng.shuffle(run_lines)
    if rng.random() < 0.3:    # a different tag on the last line: trec_eval's runid is the last line's
        run_lines.append(sep.join([queries[-1], "Q0", "zz_last", "1", "-100", "last_tag"]))
    if rng.random() < 0.15:   # comment and blank lines
        run_lines.insert(rng.randint(0, len(run_lines)), "# a comment")
        qrels_lines.insert(rng.randint(0, len(qrels_lines)), "# judged by hand")
        run_lines.insert(rng.randint(0, len(run_lines)), "")
    if rng.random() < 0.1:    # columns after the tag: trec_eval ignores them
        run_lines = [line + " extra stuff" if line and not line.startswith("#") else line for line in run_lines]
    if rng.random() < 0.01:   # a doc judged twice: both refuse
        qrels_lines.append(qrels_lines[0])
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text("\n".join(qrels_lines) + "\n", encoding="utf-8")
    run_path.write_text("\n".join(run_lines) + ("\n" if rng.random() < 0.9 else ""), encoding="utf-8")

    options = ["-q"]
    extra = rng.sample(PARAMETERISED, rng.choice([0, 0, 1, 3, 6]))
    group = rng.choice(NDCG_GROUP) if rng.random() < 0.3 else None
    with_all_trec = rng.random() < 0.9 and not (group and group.startswith(("dcg.", "ideal_dcg.")))
    if "rbp.p=0.8" in extra:
        # trec_eval's rbp reads two uninitialised doubles (min, max) to rescale gains, so
        # its value depends on what earlier measures left on the stack (values above 1
        # after -m 11pt_avg.x, utility.x, G.x=y, ...). Only all_trec and cut-off measures
        # before it leave them harmless.
        extra = [m for m in extra if m == "rbp.p=0.8" or m.split(".")[0] in CUTOFF_MEASURES]
        group, with_all_trec = None, True
    if with_all_trec:
        options += ["-m", "all_trec"]
    for measure in extra + ([group] if group else []):
        options += ["-m", measure]
    if complete:
        options.append("-c")
    if rng.random() < 0.25:
        depth = rng.randint(1, 12)
        options += [f"-M{depth}"] if rng.random() < 0.5 else ["-M", str(depth)]
    if rng.random() < 0.3:
        options.append(f"-l{rng.choice([0, 2, 2, 3])}")
    if rng.random() < 0.2:
        options.append("-J")
    if rng.random() < 0.1:
        options += ["-N", "60", "-m", "utility.1,-1,0,0.5"]
    if rng.random() < 0.05:
        options.append("-n")
    return qrels_path, run_path, options


def run_trec_eval(binary: Path, options: list[str], qrels: Path, run: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *options, str(qrels), str(run)], capture_output=True)


def run_rankproof(capsys, options: list[str], qrels: Path, run: Path) -> tuple[int, bytes, str]:
    capsys.readouterr()
    code = main(["trec-eval", *options, str(qrels), str(run)])
    captured = capsys.readouterr()
    return code, captured.out.encode("utf-8"), captured.err


def assert_same(binary: Path, capsys, options: list[str], qrels: Path, run: Path, label,
                ours: tuple[str, ...] = ()) -> None:
    """``ours``: options given to rankproof only (--v9)."""
    theirs = run_trec_eval(binary, options, qrels, run)
    code, out, err = run_rankproof(capsys, [*ours, *options], qrels, run)
    if theirs.returncode < 0:
        # trec_eval died of a signal (its own memory errors, see NDCG_GROUP): what it
        # flushed before dying must still be the start of rankproof's output, unless the
        # input is bad, which rankproof then refuses.
        if code == 0:
            assert out.startswith(theirs.stdout), (label, options, theirs.stderr)
        else:
            assert code == 2 and err.count("\n") == 1 and err.startswith("rankproof: "), (label, options, err)
    elif theirs.returncode == 0:
        assert code == 0, (label, options, err)
        if out != theirs.stdout:
            mine, ref = out.decode().splitlines(), theirs.stdout.decode().splitlines()
            diff = [(m, r) for m, r in zip(mine, ref) if m != r][:5]
            pytest.fail(f"{label} {' '.join(options)}: output differs ({len(mine)} vs {len(ref)} lines); "
                        f"first differences (rankproof, trec_eval): {diff}")
    else:
        # trec_eval refused the input: rankproof refuses too, in one line.
        assert code == 2, (label, options, theirs.stderr, out[:200])
        assert err.count("\n") == 1 and err.startswith("rankproof: "), err


@pytest.mark.parametrize("seed", range(CASES))
def test_full_output_matches_trec_eval(trec_eval_binary, tmp_path, capsys, seed):
    rng = random.Random(1000 + seed)
    qrels, run, options = write_parity_case(rng, tmp_path)
    assert_same(trec_eval_binary, capsys, options, qrels, run, f"seed {seed}")


def _zscore_file(rng: random.Random, binary: Path, options: list[str], qrels: Path, run: Path, path: Path) -> None:
    """Means and stddevs for every (query, printed name) trec_eval looks up, some left out.

    trec_eval's binary search reads past its table for a key above the last one,
    so the greatest query and each query's greatest name are always kept.
    """
    out = subprocess.run([str(binary), "-q", *options, str(qrels), str(run)], capture_output=True,
                         check=True).stdout.decode()
    names = sorted({line.split("\t")[0].strip() for line in out.splitlines()} - {"runid"})
    queries = sorted({line.split("\t")[1] for line in out.splitlines()} - {"all"})
    lines = []
    for qi, query in enumerate(queries):
        if qi < len(queries) - 1 and rng.random() < 0.15:
            continue  # a query without means: every value prints as -1000000
        for ni, name in enumerate(names):
            keep_anyway = qi == len(queries) - 1 or ni == len(names) - 1
            if not keep_anyway and rng.random() < 0.1:
                continue
            style = rng.random()
            stddev = 0.0 if style < 0.15 else round(rng.uniform(0.05, 2.0), 3)
            mean = 0.0 if style < 0.1 else round(rng.uniform(-1, 3), 3)
            lines.append(f"{query} {name} {mean} {stddev}")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("seed", range(Z_CASES))
def test_zscores_match_trec_eval(trec_eval_binary, tmp_path, capsys, seed):
    rng = random.Random(5000 + seed)
    qrels, run, options = write_parity_case(rng, tmp_path)
    options = [o for o in options if o not in ("-n",)]
    if "-c" not in options:
        options.append("-c")   # every judged query is evaluated, so the z table can name them all
    zfile = tmp_path / "zscores"
    probe = run_trec_eval(trec_eval_binary, options, qrels, run)
    if probe.returncode != 0:
        pytest.skip("trec_eval refuses this case's input; covered by test_full_output_matches_trec_eval")
    _zscore_file(rng, trec_eval_binary, options, qrels, run, zfile)
    assert_same(trec_eval_binary, capsys, ["-Z", str(zfile), *options], qrels, run, f"z seed {seed}")
