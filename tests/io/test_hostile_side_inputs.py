"""Hostile input through the command line: side inputs, fusion parameters, damaged Parquet, unbounded reads.

One table of cases, each run through the command line in this process
(``rankproof.cli.main``) inside ``tmp_path``: the exit code, one line on
stderr holding the given words (exit 2), never a traceback nor an internal
error, and every input file unchanged byte for byte afterwards. The cases
that feed an endless source run in a subprocess under an address-space limit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_cases import Case, run_case

from paths import SRC

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN_A = b"q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d3 1 1.0 a\n"
RUN_B = b"q1 Q0 d2 1 3.0 b\nq1 Q0 d1 2 2.0 b\nq2 Q0 d4 1 1.0 b\n"
FILES = {
    "q": QRELS, "a.run": RUN_A, "b.run": RUN_B,
    "cm.csv": b"chunk,doc\nd1,d1\nd2,d2\nd3,d3\nd4,d4\n",
    "gm.json": b'{"0": 0, "1": 1, "2": 2}',
    "iq.txt": b"q1 i1 d1 1\nq2 i1 d3 1\n", "iw.txt": b"q1 i1 1\nq2 i1 1\n",
    "big.run": b"q1 Q0 d1 1 1e308 big\nq1 Q0 d2 2 -1e308 big\nq2 Q0 d3 1 1.0 big\n",
    "blank.csv": b'query,doc,score\nq1,d 1,3\nq1,d2,2\n',
    "newline.csv": b'query,doc,score\nq1,"d\nq9 Q0 forged 1 9 x",3\nq1,d2,2\n',
    "tab.csv": b'query,doc,score\n"q\t1",d1,3\n',
    "c.run": b"q1 Q0 d1 1 1 c\n", "d.run": b"q9 Q0 d1 1 1 d\n",
    "empty.parquet": b"", "garbage.parquet": b"PAR1 not really", "text.parquet": b"query,doc,score\nq1,d1,1\n",
}



def _fuse(*extra: str, runs=("a.run", "b.run")) -> list[str]:
    return ["fuse", *runs, "-o", "out.run", *extra]


def _param(method: str, value: str, qrels: bool = True) -> list[str]:
    return _fuse("--method", method, "--param", value, *(["--qrels", "q", "--folds", "2"] if qrels else []))


CASES = [
    # -- #1: -o over a side input ---------------------------------------------------------------
    Case("evaluate-o-over-chunk-map", ["evaluate", "q", "a.run", "--chunk-map", "file:cm.csv", "-o", "cm.csv"],
         2, ("-o cm.csv", "same file as the input")),
    Case("evaluate-o-over-chunk-map-policy",
         ["evaluate", "q", "a.run", "--policy", "chunk_map=file:cm.csv", "-o", "cm.csv"], 2, ("same file",)),
    Case("compare-o-over-chunk-map", ["compare", "q", "a.run", "b.run", "--policy", "chunk_map=file:cm.csv",
                                      "-o", "cm.csv"], 2, ("same file",)),
    Case("systems-o-over-chunk-map", ["systems", "q", "a.run", "b.run", "--policy", "chunk_map=file:cm.csv",
                                      "-o", "cm.csv"], 2, ("same file",)),
    Case("report-o-over-chunk-map", ["report", "q", "a.run", "b.run", "--policy", "chunk_map=file:cm.csv",
                                     "-o", "cm.csv"], 2, ("same file",)),
    Case("fuse-o-over-chunk-map", ["fuse", "a.run", "b.run", "--qrels", "q", "--folds", "2", "--policy",
                                   "chunk_map=file:cm.csv", "-o", "cm.csv"], 2, ("-o cm.csv", "same file")),
    Case("fuse-o-over-grade-map", ["fuse", "a.run", "b.run", "--qrels", "q", "--folds", "2", "--grade-map",
                                   "gm.json", "-o", "gm.json"], 2, ("-o gm.json", "same file")),
    Case("evaluate-o-over-intent-weights", ["evaluate", "iq.txt", "a.run", "--intents", "--intent-weights",
                                            "iw.txt", "-m", "alpha_ndcg@10", "-o", "iw.txt"], 2, ("same file",)),
    Case("evaluate-o-over-a-labelled-run", ["evaluate", "q", "a.run", "--label", "A=a.run", "-o", "a.run"],
         2, ("same file",)),
    Case("evaluate-o-over-grade-map-through-symlink", ["evaluate", "q", "a.run", "--grade-map", "gm.json",
                                                      "-o", "link"], 2, ("same file",),
         {"link": ("symlink", "gm.json")}),
    Case("evaluate-chunk-map-o-elsewhere-is-fine", ["evaluate", "q", "a.run", "--chunk-map", "file:cm.csv",
                                                    "-o", "out.txt"], 0),
    # -- #2: ids a TREC line cannot hold ----------------------------------------------------------
    Case("fuse-doc-id-with-blank", _fuse(runs=("blank.csv", "b.run")), 2, ("'d 1'", "blank")),
    Case("fuse-doc-id-with-newline", _fuse(runs=("newline.csv", "b.run")), 2, ("doc id", "control character")),
    Case("fuse-query-id-with-tab", _fuse(runs=("tab.csv", "b.run")), 2, ("query id", "blank")),
    # -- #8 and #11: fusion parameters outside their domain --------------------------------------
    Case("probfuse-n-segments-0", _param("probfuse", "n_segments=0"), 2, ("n_segments=0", "integer >= 1")),
    Case("probfuse-n-segments-negative", _param("probfuse", "n_segments=-1"), 2, ("n_segments=-1",)),
    Case("probfuse-n-segments-fraction", _param("probfuse", "n_segments=1.5"), 2, ("n_segments=1.5",)),
    Case("probfuse-n-segments-nan", _param("probfuse", "n_segments=nan"), 2, ("n_segments=nan",)),
    Case("probfuse-n-segments-huge-ends", _param("probfuse", "n_segments=1e9"), 0),
    Case("slidefuse-w-fraction", _param("slidefuse", "w=1.5"), 2, ("w=1.5", "integer >= 0")),
    Case("slidefuse-w-negative", _param("slidefuse", "w=-1"), 2, ("w=-1",)),
    Case("slidefuse-w-inf", _param("slidefuse", "w=inf"), 2, ("w=inf",)),
    Case("slidefuse-w-huge-ends", _param("slidefuse", "w=1e12"), 0),
    Case("rrf-k-negative", _param("rrf", "k=-1", qrels=False), 2, ("k=-1", ">= 0")),
    Case("rrf-k-minus-one-fraction", _param("rrf", "k=-0.5", qrels=False), 2, ("k=-0.5",)),
    Case("rrf-k-inf", _param("rrf", "k=inf", qrels=False), 2, ("k=inf",)),
    Case("rrf-k-zero-is-fine", _param("rrf", "k=0", qrels=False), 0),
    Case("rbc-phi-zero", _param("rbc", "phi=0", qrels=False), 2, ("phi=0", "between 0 and 1")),
    Case("rbc-phi-one", _param("rbc", "phi=1", qrels=False), 2, ("phi=1",)),
    Case("rbc-phi-above", _param("rbc", "phi=1.5", qrels=False), 2, ("phi=1.5",)),
    Case("rbc-phi-negative", _param("rbc", "phi=-0.5", qrels=False), 2, ("phi=-0.5",)),
    Case("rbc-phi-nan", _param("rbc", "phi=nan", qrels=False), 2, ("phi=nan",)),
    Case("logn-isr-sigma-zero", _param("logn_isr", "sigma=0", qrels=False), 2, ("sigma=0", "> 0")),
    Case("gmnz-gamma-inf", _param("comb_gmnz", "gamma=inf", qrels=False), 2, ("gamma=inf", "finite")),
    Case("wsum-weights-all-zero", _fuse("--method", "wsum", "--weights", "0,0"), 2, ("all zero",)),
    Case("wsum-weights-inf", _fuse("--method", "wsum", "--weights", "inf,1"), 2, ("finite",)),
    Case("wsum-weights-nan", _fuse("--method", "wsum", "--weights", "nan,1"), 2, ("finite",)),
    Case("wsum-weights-negative-without-equals", _fuse("--method", "wsum", "--weights", "-1,1"), 0),
    Case("wsum-weights-count", _fuse("--method", "wsum", "--weights", "1,1,1"), 2, ("3 weights for 2 runs",)),
    Case("fuse-k-negative", _fuse("--k", "-3"), 2, ("--k", "integer >= 1")),
    Case("fuse-k-zero", _fuse("--k", "0"), 2, ("--k",)),
    Case("fuse-k-text", _fuse("--k", "ten"), 2, ("--k",)),
    Case("fuse-unknown-parameter", _param("rrf", "phi=0.5", qrels=False), 2, ("no parameter 'phi'",)),
    Case("fuse-param-not-a-number", _param("rrf", "k=abc", qrels=False), 2, ("not a number",)),
    # -- #13: coverage options fuse accepts, and overflowing scores blamed on their run ----------
    Case("fuse-low-coverage-names-fuse-options", _fuse("--qrels", "q", "--folds", "2", runs=("a.run", "d.run")),
         2, ("run d", "--allow-partial", "--min-coverage")),
    Case("fuse-allow-partial-accepted", _fuse("--qrels", "q", "--folds", "2", "--allow-partial",
                                              runs=("a.run", "d.run")), 0),
    Case("fuse-min-coverage-zero-still-refuses-none", _fuse("--qrels", "q", "--folds", "2", "--min-coverage", "0",
                                                            runs=("a.run", "d.run")), 2, ("ranks 0 of the 2",)),
    Case("fuse-min-coverage-above-one", _fuse("--qrels", "q", "--min-coverage", "1.5"), 2, ("--min-coverage",)),
    Case("fuse-min-max-of-1e308-is-fine", _fuse("--method", "comb_sum", runs=("big.run", "b.run")), 0),
    Case("fuse-zmuv-overflow-blames-the-component", _fuse("--method", "comb_sum", "--norm", "zmuv",
                                                          runs=("big.run", "b.run")), 2, ("run big", "zmuv")),
    Case("fuse-sum-overflow-blames-the-component", _fuse("--method", "comb_sum", "--norm", "sum",
                                                         runs=("big.run", "b.run")), 2, ("run big", "overflow")),
    Case("fuse-no-normalization-overflow-blames-the-component",
         _fuse("--method", "comb_sum", "--norm", "none", runs=("big.run", "big2.run")), 2, ("run big", "overflow"),
         {"big2.run": FILES["big.run"]}),
    # -- #5: damaged Parquet ------------------------------------------------------------------------
    Case("evaluate-empty-parquet-run", ["evaluate", "q.parquet", "empty.parquet"], 2, ("empty.parquet",)),
    Case("evaluate-empty-parquet-qrels", ["evaluate", "empty.parquet", "r.parquet"], 2, ("empty.parquet",)),
    Case("evaluate-garbage-parquet", ["evaluate", "q.parquet", "garbage.parquet"], 2, ("garbage.parquet",)),
    Case("evaluate-text-named-parquet", ["evaluate", "q.parquet", "text.parquet"], 2, ("text.parquet",)),
    Case("evaluate-truncated-parquet", ["evaluate", "q.parquet", "cut.parquet"], 2, ("cut.parquet",)),
    Case("budget-empty-parquet", ["evaluate", "q.parquet", "empty.parquet", "--memory-budget", "300MB"], 2,
         ("empty.parquet", "Parquet")),
    Case("budget-truncated-parquet", ["evaluate", "q.parquet", "cut.parquet", "--memory-budget", "300MB"], 2,
         ("cut.parquet", "Parquet")),
    Case("budget-damaged-pages", ["evaluate", "q.parquet", "pages.parquet", "--memory-budget", "300MB"], 2,
         ("pages.parquet", "Parquet")),
    # -- the complementarity of runs with nothing in common -------------------------------------
    Case("fuse-no-common-query", _fuse(runs=("c.run", "d.run")), 0),
]


def _parquet_files(folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"query": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d3"], "grade": [1, 0, 2]}),
                   folder / "q.parquet")
    pq.write_table(pa.table({"query": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]}),
                   folder / "r.parquet")
    whole = (folder / "r.parquet").read_bytes()
    (folder / "cut.parquet").write_bytes(whole[: len(whole) // 2] + whole[-8:])
    # The footer whole, the first page header scrambled: found only when the page is read.
    (folder / "pages.parquet").write_bytes(whole[:4] + bytes(b ^ 0x55 for b in whole[4:40]) + whole[40:])


def _make(folder: Path, extra: dict) -> None:
    for name, content in {**FILES, **extra}.items():
        if isinstance(content, tuple):
            os.symlink(content[1], folder / name)
        else:
            (folder / name).write_bytes(content)
    _parquet_files(folder)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_side_inputs_fusion_and_damaged_files(case, tmp_path, monkeypatch, capsys):
    _make(tmp_path, case.files)
    run_case(case, tmp_path, monkeypatch, capsys)


# -- what the passing cases print and write ---------------------------------------------------------
def _cli(folder: Path, monkeypatch, argv: list[str]) -> int:
    from rankproof.cli import main

    monkeypatch.chdir(folder)
    return main(argv)


def test_no_common_query_prints_no_nan_verdict(tmp_path, monkeypatch, capsys):
    _make(tmp_path, {})
    assert _cli(tmp_path, monkeypatch, _fuse(runs=("c.run", "d.run"))) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "partly complementary" not in out
    assert "no query in common" in out


def test_min_max_of_1e308_scores_is_exact(tmp_path, monkeypatch, capsys):
    """big: d1 1e308 -> 1, d2 -1e308 -> 0; b: d2 3 -> 1, d1 2 -> 0: comb_sum 1 and 1 (by hand)."""
    _make(tmp_path, {})
    assert _cli(tmp_path, monkeypatch, _fuse("--method", "comb_sum", runs=("big.run", "b.run"))) == 0
    rows = [line.split() for line in (tmp_path / "out.run").read_text().splitlines()]
    assert {(r[0], r[2]): float(r[4]) for r in rows if r[0] == "q1"} == {("q1", "d1"): 1.0, ("q1", "d2"): 1.0}


def test_negative_weights_are_read_as_values(tmp_path, monkeypatch, capsys):
    _make(tmp_path, {})
    assert _cli(tmp_path, monkeypatch, _fuse("--method", "wsum", "--weights", "-1,1")) == 0
    assert "weights=(-1, 1)" in capsys.readouterr().out


# -- library: the caps give the fused run of the widest meaningful value -------------------------
def _runs():
    from rankproof import Qrels, Run

    qrels = Qrels.from_dict({f"q{i}": {f"d{j}": int((i + j) % 3 == 0) for j in range(6)} for i in range(8)})
    a = Run.from_dict({f"q{i}": {f"d{j}": float(10 - j) for j in range(6)} for i in range(8)})
    b = Run.from_dict({f"q{i}": {f"d{j}": float((j * 7 + i) % 6) for j in range(5)} for i in range(8)})
    return qrels, [a, b]


@pytest.mark.parametrize("method, huge, widest", [("slidefuse", {"w": 10**12}, {"w": 6}),
                                                  ("probfuse", {"n_segments": 10**9}, {"n_segments": 6})])
def test_huge_window_and_segments_equal_the_longest_list(method, huge, widest):
    """A window wider than the longest list (6) holds the list whole, as w = 6 does; more segments
    than ranks leave one rank per segment, as 6 segments do: the same fused run, at once."""
    from rankproof.fusion import fuse

    qrels, runs = _runs()
    assert fuse(runs, method, params=huge, qrels=qrels).to_dict() == \
        fuse(runs, method, params=widest, qrels=qrels).to_dict()


@pytest.mark.parametrize("params", [{"k": -1}, {"phi": 1.0}, {"w": 2.5}, {"n_segments": 0},
                                    {"weights": (0.0, 0.0)}, {"weights": (float("nan"), 1.0)}])
def test_library_refuses_parameters_outside_their_domain(params):
    from rankproof.errors import InputError
    from rankproof.fusion import fuse

    qrels, runs = _runs()
    method = {"k": "rrf", "phi": "rbc", "w": "slidefuse", "n_segments": "probfuse", "weights": "wsum"}[next(iter(params))]
    with pytest.raises(InputError, match="domain|weights"):
        fuse(runs, method, params=params, qrels=qrels)


# -- #6: balance reads /dev/zero (CSV, JSON Lines) within a bound -------------------------------------
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_balance_refuses_an_endless_source_within_a_bound(fmt, tmp_path):
    import resource

    def bound() -> None:
        limit = 1536 * 1024**2
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    environment.pop("RANKPROOF_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "rankproof.cli", "balance", "/dev/zero", "--format", fmt],
                          cwd=tmp_path, env=environment, capture_output=True, timeout=120, preexec_fn=bound)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert len(err.splitlines()) == 1 and "/dev/zero" in err and "NUL" in err, err
    assert "out of memory" not in err
