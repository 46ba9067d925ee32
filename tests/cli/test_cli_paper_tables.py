"""Paper tables (issue 28): measure names a paper prints, decimals, quiet output, LaTeX label and booktabs,
CI and effect columns in LaTeX, trec_eval's names in --format trec, a note when aliases merge."""

from __future__ import annotations

import re

import pytest

from rankproof.cli.app import main

from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"
BM25, TFIDF, LMD = (CRANFIELD / f"{name}.run" for name in ("bm25", "tfidf", "lmdirichlet"))
FAST = ("--resamples", "200")


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_evaluate_names_rename_the_columns_of_table_and_markdown(capsys):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "-m", "rr", "--names", "MAP=ap,MRR=rr")
    assert code == 0
    assert out.splitlines()[0].split() == ["run", "MAP", "MRR", "queries"]
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "--names", "MAP=map", "--format", "markdown")
    assert out.splitlines()[0] == "| run | MAP |"  # map is an alias of ap: the name applies to it


@pytest.mark.parametrize("given, said", [("MAP", "write NAME=MEASURE"), ("MRR=rr", "rr is not among the measures"),
                                         ("=ap", "write NAME=MEASURE")])
def test_names_refused_with_one_line(capsys, given, said):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "--names", given)
    assert code == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1


def test_compare_precision_quiet_and_names(capsys):
    code, out, err = cli(capsys, "compare", QRELS, BM25, TFIDF, "-m", "ap", *FAST, "--precision", "2", "--quiet",
                         "--names", "MAP=ap")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 2  # the table alone: header and one row, no notes under it
    row = lines[1].split()
    # means of ap on Cranfield: bm25 0.2602, tfidf 0.2637 (evaluate, 4 decimals) -> 0.26, 0.26; B - A +0.0035 -> +0.00
    assert row[:6] == ["MAP", "bm25", "tfidf", "0.26", "0.26", "+0.00"]
    code, loud, _ = cli(capsys, "compare", QRELS, BM25, TFIDF, "-m", "ap", *FAST)
    assert "fingerprint" in loud and "fingerprint" not in out


def test_compare_refuses_a_bad_precision(capsys):
    code, _, err = cli(capsys, "compare", QRELS, BM25, TFIDF, "--precision", "40")
    assert code == 2 and "--precision" in err and "'40'" in err


def test_latex_label_booktabs_names_and_extra_columns(capsys):
    code, out, _ = cli(capsys, "compare", QRELS, BM25, TFIDF, LMD, "-m", "ap", *FAST, "--format", "latex",
                       "--names", "MAP=ap", "--table-label", "tab:cranfield", "--latex-columns", "ci,effect",
                       "--precision", "3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("%") and r"\usepackage{booktabs}" in lines[0]
    assert r"\label{tab:cranfield}" in lines
    assert r"\# & Run & MAP & 95\% CI & $d$ \\" in lines
    rows = {line.split(" & ")[1]: line.split(" & ") for line in lines if re.match(r"[abc] & ", line)}
    assert rows["bm25"][3:] == ["--", r"-- \\"]  # the baseline (first run) against itself
    # The same intervals and effect sizes as compare's own table prints for (bm25, tfidf) and (bm25, lmdirichlet).
    _, table, _ = cli(capsys, "compare", QRELS, BM25, TFIDF, LMD, "-m", "ap", *FAST, "--precision", "3")
    pairs = {(r.split()[1], r.split()[2]): r for r in table.splitlines()[1:4]}
    for run in ("tfidf", "lmdirichlet"):
        ci = re.search(r"\[[^]]+\]", pairs["bm25", run]).group(0)
        d = pairs["bm25", run].split()[10]  # measure A B mean mean diff [low, high] p p(holm) d
        assert rows[run][3] == ci and rows[run][4] == d + r" \\"


def test_latex_extra_columns_point_from_the_baseline(capsys):
    """With --baseline lmdirichlet, bm25's interval is bm25 - lmdirichlet: positive (bm25 is better by 0.0475)."""
    code, out, _ = cli(capsys, "compare", QRELS, BM25, LMD, "-m", "ap", *FAST, "--baseline", "lmdirichlet",
                       "--format", "latex", "--latex-columns", "ci")
    row = next(line for line in out.splitlines() if line.startswith("a & bm25"))
    low, high = (float(x) for x in re.search(r"\[([^,]+), ([^]]+)\]", row).groups())
    assert 0 < low < 0.0475 < high


def test_latex_columns_refused_outside_latex_and_unknown(capsys):
    code, _, err = cli(capsys, "compare", QRELS, BM25, TFIDF, "--latex-columns", "ci")
    assert code == 2 and "--format latex" in err
    code, _, err = cli(capsys, "compare", QRELS, BM25, TFIDF, "--format", "latex", "--latex-columns", "p")
    assert code == 2 and "choose from ci, effect" in err


def test_trec_format_prints_trec_eval_names(capsys):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "--format", "trec", "-m", "ap", "-m", "p@10", "-m", "ndcg@10",
                       "-m", "rr", "-m", "judged@10")
    assert code == 0
    # trec_eval -m map -m P.10 -m ndcg_cut.10 -m recip_rank prints these names; judged@10 has none there
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == \
        ["runid", "map", "P_10", "ndcg_cut_10", "recip_rank", "judged@10"]


def test_merged_aliases_are_noted(capsys):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "nDCG@10", "-m", "ndcg_cut_10", "-m", "ap",
                         "-m", "map", "-m", "MAP")
    assert code == 0
    assert out.splitlines()[0].split() == ["run", "ndcg@10", "ap", "queries"]
    assert "rankproof: note: nDCG@10 and ndcg_cut_10 are both ndcg@10: one column" in err.splitlines()
    assert "rankproof: note: ap, map and MAP are all ap: one column" in err.splitlines()
    code, _, quiet = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "-m", "map", "--quiet")
    assert quiet == ""


def test_explain_why_and_systems_take_precision_and_quiet(capsys):
    from rankproof import Qrels, Run, evaluate

    value = evaluate(Qrels.read_trec(QRELS), Run.read_trec(BM25), ["ndcg@3"]).per_query("ndcg@3")["1"]
    code, out, err = cli(capsys, "explain", QRELS, BM25, "-q", "1", "-m", "ndcg@3", "--precision", "2", "--quiet")
    assert code == 0 and err == ""
    assert f"ndcg@3 = {value:.2f}" in out.splitlines()
    code, out, err = cli(capsys, "why", QRELS, BM25, "--peer", "trec_eval", "-m", "ap", "--precision", "3",
                         "--quiet")
    mean = evaluate(Qrels.read_trec(QRELS), Run.read_trec(BM25), ["ap"]).mean("ap")
    assert code == 0 and err == "" and f"ap: ours {mean:.3f}," in out
    code, out, err = cli(capsys, "systems", QRELS, BM25, TFIDF, LMD, "-m", "ap", "--resamples", "50",
                         "--precision", "2", "--quiet")
    assert code == 0 and err == ""
    # means of ap: tfidf 0.2637, bm25 0.2602, lmdirichlet 0.2127 (compare's doc table) at 2 decimals
    rows: dict[str, str] = {}
    for line in out.splitlines():  # the means table comes first (the matrix of pairs repeats the names)
        if line.startswith("  ") and line.split()[0] in ("tfidf", "bm25", "lmdirichlet"):
            rows.setdefault(line.split()[0], line.split()[1])
    assert rows == {"tfidf": "0.26", "bm25": "0.26", "lmdirichlet": "0.21"}


def test_fuse_takes_precision_and_quiet(capsys, tmp_path):
    from rankproof import Qrels, Run, evaluate

    out_run = tmp_path / "fused.run"
    code, out, _ = cli(capsys, "fuse", BM25, TFIDF, "-o", out_run, "--qrels", QRELS, "-m", "ap", "--param", "k=60",
                       "--resamples", "50", "--precision", "2")
    assert code == 0
    fused = evaluate(Qrels.read_trec(QRELS), Run.read_trec(out_run), ["ap"]).mean("ap")
    bm25 = evaluate(Qrels.read_trec(QRELS), Run.read_trec(BM25), ["ap"]).mean("ap")
    row = next(line.split() for line in out.splitlines() if line.split()[:2] == ["ap", "bm25"])
    assert row[2:4] == [f"{fused:.2f}", f"{bm25:.2f}"]
    code, out, err = cli(capsys, "fuse", BM25, TFIDF, "-o", out_run, "--param", "k=60", "--quiet")
    assert (code, out) == (0, "") and out_run.stat().st_size > 0
