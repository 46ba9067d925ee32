"""Hostile input on the newer surfaces, each case one command or call.

1. The query universe: an empty retrieved list, an empty ground truth and both, under every RAG
   preset, through ``rankproof rag``, ``evaluate_rag`` and ``rankproof evaluate`` on TREC files.
   The expected means are worked from docs/guide/rag.md's table (the run's other query scores rr 1):
   the empty query scores 0 and is averaged in (mean 0.5), is left out (1.0), or is refused.
2. The command line on the new surfaces (--memory-budget, counts=mean|sum, judged@k, accuracy,
   C/W/L with cost files, --measures-from, the report's per-query file, saved results, the
   judgments commands, RAG files): an exit code, one line naming what (exit 2), never a
   traceback or an internal error, every input unchanged byte for byte.
3. The coverage guard in the Python front doors, with the same refusal and the same warning.
4. Python calls: measures.define, Qrels.with_queries, evaluate_rag.

Run in this process (``rankproof.cli.main``) inside ``tmp_path``; the cases and their results
are listed in the issue's note (report-hostile.md).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from cli_cases import Case, run_case

R1 = {"query_id": "q1", "retrieved": ["d1", "c1"], "relevant": ["d1"]}
EMPTY = {"A": {"query_id": "q2", "retrieved": [], "relevant": ["d2"]},    # nothing retrieved
         "B": {"query_id": "q3", "retrieved": ["d3"], "relevant": []},    # nothing relevant
         "C": {"query_id": "q4", "retrieved": [], "relevant": []}}        # both
REFUSED = None
# docs/guide/rag.md, "Empty retrieved lists and empty ground truths": 0.5 = the empty row scores 0 and is
# averaged in; 1.0 = it is left out of the mean; REFUSED = LlamaIndex's ValueError. rr does not use
# zero_ideal=exclude (ragas_sets' NaN is its recall's), so the empty truth scores rr 0 there.
EXPECTED = {
    "rankproof": (0.5, 0.5, 0.5), "ragas": (1.0, 0.5, 1.0), "ragas_sets": (0.5, 0.5, 0.5),
    "llamaindex": (REFUSED,) * 3, "llamaindex_sets": (REFUSED,) * 3, "haystack": (0.5, 0.5, 0.5),
    "mlflow": (0.5, 0.5, 0.5), "mlflow_sets": (0.5, 0.5, 0.5), "sentence_transformers": (0.5, 1.0, 1.0),
    "mteb": (1.0, 0.5, 1.0), "beir": (1.0, 0.5, 1.0),
}
UNIVERSE = [(preset, variant, route, expected[i]) for preset, expected in EXPECTED.items()
            for i, variant in enumerate("ABC") for route in ("rag", "evaluate_rag", "trec")]


def _trec(rows: list[dict]) -> tuple[str, str]:
    """The same rows as TREC files: a query with nothing relevant is judged non-relevant only,
    a query with nothing retrieved is absent from the run."""
    qrels = "".join(f"{r['query_id']} 0 {d} 1\n" for r in rows for d in r["relevant"])
    qrels += "".join(f"{r['query_id']} 0 zz 0\n" for r in rows if not r["relevant"])
    run = "".join(f"{r['query_id']} Q0 {d} {i + 1} {10 - i} t\n" for r in rows for i, d in enumerate(r["retrieved"]))
    return qrels, run


@pytest.mark.parametrize("preset, variant, route, expected", UNIVERSE,
                         ids=[f"{p}-{v}-{r}" for p, v, r, _ in UNIVERSE])
def test_empty_lists_and_truths_under_every_preset_and_route(preset, variant, route, expected, tmp_path,
                                                             monkeypatch, capsys):
    from rankproof import evaluate_rag
    from rankproof.cli import main
    from rankproof.errors import RankproofError

    rows = [R1, EMPTY[variant]]
    monkeypatch.chdir(tmp_path)
    if route == "evaluate_rag":
        if expected is REFUSED:
            with pytest.raises(RankproofError, match="q2|q3|q4"):
                evaluate_rag(rows, ["rr"], preset)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = evaluate_rag(rows, ["rr"], preset)
        assert results.mean("rr") == pytest.approx(expected)
        # Counted, whatever the preset did with them (issue 36: "Counted, never warned" was the defect).
        counts = results.counts
        assert counts["queries_ranked_empty"] + counts["queries_missing_from_run"] >= (variant != "B")
        assert counts["queries_without_judgments"] == (variant != "A")
        return
    if route == "rag":
        Path("rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        argv = ["rag", "rows.jsonl"]
    else:
        qrels, run = _trec(rows)
        Path("q").write_text(qrels)
        Path("r").write_text(run)
        argv = ["evaluate", "q", "r"]
    code = main([*argv, "-m", "rr", "--preset", preset, "--format", "json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    if expected is REFUSED:
        assert code == 2 and len(captured.err.strip().splitlines()) == 1, captured.err
        assert any(q in captured.err for q in ("q2", "q3", "q4")), captured.err
        return
    assert code == 0, captured.err
    means = next(iter(json.loads(captured.out)["runs"].values()))["mean"]
    assert means["rr"] == pytest.approx(expected)
    if route == "rag":   # the stderr counts name the empty rows: never a silent number
        if variant in "AC":
            assert "queries ranked with an empty list: 1" in captured.err, captured.err
        if variant in "BC":
            assert "queries without judgments (empty ground truth): 1" in captured.err, captured.err


# -- 2. the command line ---------------------------------------------------------------------------
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq3 0 d4 1\n"
FILES = {
    "q": QRELS, "q2": "q1 0 d1 0\nq1 0 d2 1\nq2 0 d3 1\nq3 0 d4 1\n",
    "a.run": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq2 Q0 d3 1 1 a\nq3 Q0 d4 1 1 a\n",
    "b.run": "q1 Q0 d2 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d5 1 1 b\nq3 Q0 d4 1 1 b\n",
    "c.run": "q1 Q0 d1 1 3 c\nq2 Q0 d3 1 1 c\nq3 Q0 d9 1 1 c\n",
    "empty": "",
    "q.csv": "query,doc,grade\nq1,d1,1\nq1,d2,0\nq2,d3,2\nq3,d4,1\n",
    "a.csv": "query,doc,score\nq1,d1,3\nq1,d2,2\nq2,d3,1\nq3,d4,1\n",
    "unsorted.csv": "query,doc,score\nq2,d3,1\nq1,d1,3\nq3,d4,1\nq1,d2,2\n",
    "gains.txt": "q1 0 d1 0.5\nq1 0 d2 1\nq2 0 d3 1\nq3 0 d4 0.25\n",
    "costs.txt": "d1 1\nd2 -1\n", "costs0.txt": "d1 0\n", "costsnan.txt": "d1 nan\n",
    "costs2x.txt": "q1 d1 2\nq1 d1 3\n", "costssame.txt": "q1 d1 2\nq1 d1 2\n", "costsok.txt": "d1 2\nd2 1\n",
    "m_raise.py": "raise RuntimeError('boom')\n", "m_syntax.py": "def (:\n", "m_none.py": "x = 1\n",
    "m_exit.py": "import sys\nsys.exit(3)\n",
    "m_nan.py": "from rankproof.measures import define\ndefine('nanm', lambda query: float('nan'))\n",
    "m_str.py": "from rankproof.measures import define\ndefine('strm', lambda query: 'x')\n",
    "m_big.py": "from rankproof.measures import define\ndefine('bigm', lambda query: 5.0, value_range=(0, 1))\n",
    "m_dup.py": "from rankproof.measures import define\ndefine('ndcg', lambda query: 1.0)\n",
    "m_ok.py": "from rankproof.measures import define\ndefine('onem', lambda query: 1.0, replace=True)\n",
    "m_vec.py": "from rankproof.measures import define\nimport numpy as np\n"
                "define('vecm', lambda table: np.zeros(1), vectorised=True)\n",
    "m_param.py": "from rankproof.measures import define\n"
                  "define('pm', lambda query, t=1: float(t) / 10, params={'t': 1}, replace=True)\n",
    "m_raisein.py": "from rankproof.measures import define\ndef f(query):\n    raise ValueError('inside')\n"
                    "define('raisem', f, replace=True)\n",
    "m_badname.py": "from rankproof.measures import define\ndefine('bad name@', lambda query: 1.0)\n",
    "rag.jsonl": '{"query_id":"q1","retrieved":["d1"],"relevant":["d1"]}\n'
                 '{"query_id":"q2","retrieved":[],"relevant":["d2"]}\n',
    "r_notlist.jsonl": '{"query_id": "q1", "retrieved": "d1", "relevant": ["d1"]}\n',
    "r_scores.jsonl": '{"query_id": "q1", "retrieved": ["d1", "d2"], "scores": [1.0], "relevant": ["d1"]}\n',
    "r_nan.jsonl": '{"query_id": "q1", "retrieved": ["d1"], "relevant": {"d1": NaN}}\n',
    "r_nullq.jsonl": '{"query_id": null, "retrieved": ["d1"], "relevant": ["d1"]}\n',
    "r_dupq.jsonl": '{"query_id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n'
                    '{"query_id": "q1", "retrieved": ["d2"], "relevant": ["d1"]}\n',
    "r_emptyid.jsonl": '{"query_id": "q1", "retrieved": ["", "d1"], "relevant": ["d1"]}\n',
    "r_nested.jsonl": '{"query_id": "q1", "retrieved": [["d1"]], "relevant": ["d1"]}\n',
    "r_bool.jsonl": '{"query_id": "q1", "retrieved": [true], "relevant": [true]}\n',
    "r_allempty.jsonl": '{"query_id": "q1", "retrieved": [], "relevant": ["d1"]}\n'
                        '{"query_id": "q2", "retrieved": [], "relevant": ["d2"]}\n',
    "r_notruth.jsonl": '{"query_id": "q1", "retrieved": ["d1"], "relevant": []}\n'
                       '{"query_id": "q2", "retrieved": ["d2"], "relevant": []}\n',
    "r_neg.jsonl": '{"query_id": "q1", "retrieved": ["d1"], "relevant": {"d1": -1}}\n',
    "r_inf.jsonl": '{"query_id": "q1", "retrieved": ["d1", "d2"], "scores": [Infinity, 1], "relevant": ["d1"]}\n',
    "r_obj.json": '{"query_id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}',
    "r_dupdoc.jsonl": '{"query_id": "q1", "retrieved": ["d1", "d1", "d2"], "relevant": ["d1", "d2"]}\n',
    "page.per-query.csv.gz": "q1 Q0 d1 1 3 p\nq2 Q0 d3 1 1 p\nq3 Q0 d4 1 1 p\n",
}



def _cwl(measure: str, *extra: str) -> list[str]:
    return ["evaluate", "q", "a.run", "--policy", "ties=input", "-m", measure, *extra]


def _mine(file: str, measure: str, *extra: str) -> list[str]:
    return ["evaluate", "q", "a.run", "--measures-from", file, "-m", measure, "--policy", "ties=input", *extra]


BUDGET = ["evaluate", "q.csv", "a.csv", "--memory-budget"]
CLI = [
    # --memory-budget: domain at parse time, too small refused naming the smallest it can keep, kinds
    Case("budget-64MB", [*BUDGET, "64MB"], 0),
    Case("budget-1KB", [*BUDGET, "1KB"], 2, ("too small",)),
    Case("budget-1-byte", [*BUDGET, "1"], 2, ("too small",)),
    Case("budget-0", [*BUDGET, "0"], 2, ("--memory-budget", "positive size")),
    Case("budget-negative", [*BUDGET, "-5GB"], 2, ("--memory-budget",)),
    Case("budget-exponent", [*BUDGET, "1e3MB"], 2, ("--memory-budget",)),
    Case("budget-words", [*BUDGET, "two gigs"], 2, ("--memory-budget",)),
    Case("budget-huge-is-memory", [*BUDGET, "99999999999TB"], 0),
    Case("budget-unsorted", ["evaluate", "q.csv", "unsorted.csv", "--memory-budget", "64MB"], 0),
    Case("budget-said-sorted", ["evaluate", "q.csv", "unsorted.csv", "--memory-budget", "64MB", "--sorted"],
         2, ("not sorted",)),
    Case("budget-parquet", ["evaluate", "q.parquet", "a.parquet", "--memory-budget", "64MB"], 0),
    Case("budget-trec", ["evaluate", "q", "a.run", "--memory-budget", "64MB"], 2,
         ("CSV, TSV, JSON Lines or Parquet",)),
    Case("budget-o-over-input", [*BUDGET, "64MB", "-o", "q.csv"], 2, ("same file",)),
    Case("budget-counts-sum", [*BUDGET, "64MB", "-m", "num_ret", "--preset", "trec_eval"], 0, out=("4",)),
    Case("budget-min-coverage-1", [*BUDGET, "64MB", "--min-coverage", "1"], 0),
    Case("budget-min-coverage-2", [*BUDGET, "64MB", "--min-coverage", "2"], 2, ("--min-coverage",)),
    Case("budget-judged-accuracy", [*BUDGET, "64MB", "-m", "judged@10", "-m", "accuracy@10"], 0),
    # counts=mean|sum (c.run: 1 doc on each of 3 queries: num_ret sum 3, mean 1)
    Case("counts-sum", ["evaluate", "q", "c.run", "--policy", "counts=sum", "-m", "num_ret"], 0, out=("3.0000",)),
    Case("counts-mean", ["evaluate", "q", "c.run", "-m", "num_ret"], 0, out=("1.0000",)),
    Case("counts-trec-eval-sums", ["evaluate", "q", "c.run", "--preset", "trec_eval", "-m", "num_ret"], 0,
         out=("3.0000",)),
    Case("counts-trec-eval-mean-said", ["evaluate", "q", "c.run", "--preset", "trec_eval", "--policy",
                                        "counts=mean", "-m", "num_ret"], 0, out=("1.0000",)),
    Case("counts-median", ["evaluate", "q", "c.run", "--policy", "counts=median"], 2, ("counts", "mean, sum")),
    Case("counts-blank", ["evaluate", "q", "c.run", "--policy", "counts="], 2, ("key=value",)),
    # judged@k and accuracy@k
    Case("judged-0", ["evaluate", "q", "a.run", "-m", "judged@0"], 2, ("judged", ">= 1")),
    Case("judged-negative", ["evaluate", "q", "a.run", "-m", "judged@-1"], 2, ("judged",)),
    Case("judged-exponent", ["evaluate", "q", "a.run", "-m", "judged@1e9"], 2, ("integer",)),
    Case("judged-20-digits", ["evaluate", "q", "a.run", "-m", "judged@99999999999999999999"], 2, ("digits",)),
    Case("judged-alias-ir-measures", ["evaluate", "q", "c.run", "-m", "Judged@10", "--preset", "ir_measures"],
         0, out=("0.6667",)),   # 2 of the 3 one-doc lists judged, / min(k, 1)
    Case("accuracy-0", ["evaluate", "q", "a.run", "-m", "accuracy@0"], 2, ("accuracy", ">= 1")),
    Case("accuracy-real-rel", ["evaluate", "q", "a.run", "-m", "accuracy(rel=1.5)@10"], 2, ("grades=real",)),
    Case("accuracy-tied-scores", ["evaluate", "q", "b.run", "-m", "accuracy@10"], 0),
    # C/W/L: parameters and cost files
    Case("inst-T-0", _cwl("inst(T=0)"), 2, ("T", "> 0")),
    Case("inst-T-negative", _cwl("inst(T=-1)"), 2, ("T",)),
    Case("inst-T-nan", _cwl("inst(T=nan)"), 2, ("T",)),
    Case("inst-T-inf", _cwl("inst(T=inf)"), 2, ("T",)),
    Case("inst-max-rel-0", _cwl("inst(max_rel=0)"), 2, ("max_rel",)),
    Case("inst-grade-above-max-rel", _cwl("inst(max_rel=1)"), 2, ("grade 2", "max_rel")),
    Case("inst-max-n-0", _cwl("inst(max_n=0)"), 2, ("max_n",)),
    Case("inst-max-n-1e12", _cwl("inst(max_n=1e12)"), 2, ("max_n", "1,000,000")),
    Case("inst-max-n-1e9", _cwl("inst(max_n=1000000000)"), 2, ("max_n",)),
    Case("inst-max-n-fraction", _cwl("inst(max_n=2.5)"), 2, ("max_n",)),
    Case("cwl-rbp-p-1.5", _cwl("cwl_rbp(p=1.5)"), 2, ("persistence",)),
    Case("cwl-rbp-p-1", _cwl("cwl_rbp(p=1)"), 2, ("persistence",)),
    Case("cwl-rbp-p-0", _cwl("cwl_rbp(p=0)"), 2, ("persistence",)),
    Case("tbg-halflife-0", _cwl("tbg(halflife=0)"), 2, ("halflife",)),
    Case("tbg-halflife-negative", _cwl("tbg(halflife=-5)"), 2, ("halflife",)),
    Case("umeasure-L-0", _cwl("umeasure(L=0)"), 2, ("L",)),
    Case("bpm-K-0", _cwl("bpm(T=1,K=0)"), 2, ("K",)),
    Case("quantity-unknown", _cwl("inst(quantity=bogus)"), 2, ("quantity",)),
    Case("costs-negative", _cwl("tbg(halflife=22,costs=costs.txt)"), 2, ("costs.txt line 2", "> 0")),
    Case("costs-zero", _cwl("tbg(halflife=22,costs=costs0.txt)"), 2, ("costs0.txt line 1",)),
    Case("costs-nan", _cwl("tbg(halflife=22,costs=costsnan.txt)"), 2, ("costsnan.txt line 1",)),
    Case("costs-priced-twice", _cwl("tbg(halflife=22,costs=costs2x.txt)"), 2, ("costs2x.txt line 2", "twice")),
    Case("costs-repeated-same", _cwl("tbg(halflife=22,costs=costssame.txt)"), 0),
    Case("costs-missing", _cwl("tbg(halflife=22,costs=missing.txt)"), 2, ("costs file",)),
    Case("costs-empty", _cwl("tbg(halflife=22,costs=empty)"), 2, ("empty",)),
    Case("costs-device", _cwl("tbg(halflife=22,costs=/dev/null)"), 2, ("not a regular file",)),
    Case("costs-folder", _cwl("tbg(halflife=22,costs=.)"), 2, ("costs file",)),
    Case("elements-missing", _cwl("tbg(halflife=22,costs=costsok.txt,elements=missing.run)"), 2,
         ("elements file",)),
    Case("o-over-costs-file", _cwl("tbg(halflife=22,costs=costsok.txt)", "-o", "costsok.txt"), 2, ("same file",)),
    Case("o-over-elements-file", _cwl("tbg(halflife=22,costs=costsok.txt,elements=b.run)", "-o", "b.run"), 2,
         ("same file",)),
    Case("cwl-tied-scores", ["evaluate", "q", "b.run", "-m", "inst"], 0),
    Case("cwl-real-gains-as-integers", ["evaluate", "gains.txt", "a.run", "--policy", "ties=input", "-m", "inst"],
         2, ("gains.txt line 1", "not an integer")),
    # --measures-from and measures.define
    Case("mf-raises", _mine("m_raise.py", "ndcg"), 2, ("m_raise.py", "RuntimeError")),
    Case("mf-syntax", _mine("m_syntax.py", "ndcg"), 2, ("m_syntax.py", "SyntaxError")),
    Case("mf-exits", _mine("m_exit.py", "ndcg"), 2, ("m_exit.py", "SystemExit")),
    Case("mf-defines-nothing", _mine("m_none.py", "ndcg"), 0),
    Case("mf-returns-nan", _mine("m_nan.py", "nanm"), 2, ("nanm", "not finite")),
    Case("mf-returns-text", _mine("m_str.py", "strm"), 2, ("strm", "not numbers")),
    Case("mf-outside-its-range", _mine("m_big.py", "bigm"), 2, ("bigm", "value_range")),
    Case("mf-shadows-built-in", _mine("m_dup.py", "ndcg"), 2, ("ndcg", "built in")),
    Case("mf-vectorised-short", _mine("m_vec.py", "vecm"), 2, ("vecm", "1 values for 3 queries")),
    Case("mf-function-raises", _mine("m_raisein.py", "raisem"), 2, ("raisem", "ValueError", "q1")),
    Case("mf-bad-name", _mine("m_badname.py", "ndcg"), 2, ("letters, digits",)),
    Case("mf-missing", _mine("missing.py", "ndcg"), 2, ("missing.py",)),
    Case("mf-folder", _mine(".", "ndcg"), 2, ("measures file",)),
    Case("mf-not-python", _mine("q", "ndcg"), 2, ("Python",)),
    Case("mf-param-text", _mine("m_param.py", "pm(t=abc)"), 2, ("t", "number")),
    Case("mf-param-unknown", _mine("m_param.py", "pm(u=1)"), 2, ("'u'",)),
    Case("mf-param-given", _mine("m_param.py", "pm(t=3)"), 0, out=("0.3000",)),
    Case("mf-o-over-itself", _mine("m_ok.py", "onem", "-o", "m_ok.py"), 2, ("same file",)),
    Case("mf-twice", _mine("m_ok.py", "onem", "--measures-from", "m_ok.py"), 0, out=("1.0000",)),
    Case("mf-in-compare", ["compare", "q", "a.run", "b.run", "--measures-from", "m_ok.py", "-m", "onem",
                           "--resamples", "200", "--policy", "ties=input"], 0),
    # the report's per-query file beside the page
    Case("report-o-over-run", ["report", "q", "a.run", "b.run", "-o", "a.run"], 2, ("same file",)),
    Case("report-per-query-file-is-an-input", ["report", "q", "page.per-query.csv.gz", "b.run", "-o", "page.html"],
         2, ("page.per-query.csv.gz", "same file")),
    Case("report-o-folder", ["report", "q", "a.run", "b.run", "-o", "."], 2, ("directory",)),
    Case("report-o-no-folder", ["report", "q", "a.run", "b.run", "-o", "nodir/page.html"], 2, ("nodir",)),
    # saved results
    Case("results-not-json", ["compare", "--results", "q", "q2"], 2, ("q:", "json (or parquet)")),
    Case("fuse-folds-beyond-the-queries", ["fuse", "a.run", "b.run", "--qrels", "q", "--folds", "9", "-o", "f.run"],
         2, ("9 folds for 3 judged queries", "--folds")),
    Case("results-empty", ["compare", "--results", "empty", "q"], 2, ("empty",)),
    Case("results-one", ["compare", "--results", "q"], 2, ()),
    Case("monitor-not-results", ["monitor", "q", "q2"], 2, ("q:",)),
    # the judgments commands
    Case("agree-empty", ["agree", "q", "empty"], 2, ("empty", "no judgments")),
    Case("agree-resamples-0", ["agree", "q", "q2", "--resamples", "0"], 2, ("--resamples",)),
    Case("agree-seed-negative", ["agree", "q", "q2", "--seed", "-1"], 2, ("--seed",)),
    Case("ppi-too-few-topics", ["ppi", "q", "q2", "a.run"], 2, ("PPI needs",)),
    Case("ppi-empty", ["ppi", "empty", "q2", "a.run"], 2, ("empty",)),
    Case("pool-o-over-run", ["pool", "a.run", "b.run", "--size", "1", "-o", "a.run"], 2, ("same file",)),
    Case("pool-size-0", ["pool", "a.run", "b.run", "--size", "0"], 2, ("--size",)),
    Case("pool-p-1", ["pool", "a.run", "b.run", "--method", "rbp", "--p", "1"], 2, ("--p",)),
    Case("pool-empty", ["pool", "empty"], 2, ("empty",)),
    Case("leaderboard-same-run-twice", ["leaderboard", "--collection", "q", "a.run", "a.run"], 2, ("twice",)),
    Case("leaderboard-pair-unknown", ["leaderboard", "--collection", "q", "a.run", "b.run", "--collection", "q2",
                                      "a.run", "b.run", "--pair", "a.run", "zz"], 2, ("--pair", "zz")),
    Case("leaderboard-pair-one-collection", ["leaderboard", "q", "a.run", "b.run", "--pair", "a.run", "b.run"],
         2, ("--pair",)),
    Case("leaderboard-svg-over-qrels", ["leaderboard", "q", "a.run", "b.run", "--svg", "q"], 2, ("same file",)),
    Case("judge-bias-svg-over-input", ["judge-bias", "q", "q2", "a.run", "b.run", "--svg", "q2"], 2,
         ("same file",)),
    Case("judge-bias-one-run", ["judge-bias", "q", "q2", "a.run"], 2, ("two or more runs",)),
    Case("judge-bias-empty", ["judge-bias", "q", "empty", "a.run", "b.run"], 2, ("empty",)),
    # RAG files
    Case("rag-retrieved-text", ["rag", "r_notlist.jsonl"], 2, ("line 1", "not a list")),
    Case("rag-scores-short", ["rag", "r_scores.jsonl"], 2, ("line 1", "scores")),
    Case("rag-nan-grade", ["rag", "r_nan.jsonl"], 2, ("line 1",)),
    Case("rag-null-query", ["rag", "r_nullq.jsonl"], 2, ("line 1", "query id")),
    Case("rag-query-twice", ["rag", "r_dupq.jsonl"], 2, ("line 2", "q1")),
    Case("rag-empty-doc-id", ["rag", "r_emptyid.jsonl"], 2, ("line 1",)),
    Case("rag-nested-id", ["rag", "r_nested.jsonl"], 2, ("line 1",)),
    Case("rag-bool-id", ["rag", "r_bool.jsonl"], 2, ("line 1",)),
    Case("rag-nothing-retrieved", ["rag", "r_allempty.jsonl", "--preset", "ragas"], 2, ("ranks no documents",)),
    Case("rag-nothing-relevant", ["rag", "r_notruth.jsonl", "--preset", "sentence_transformers"], 2,
         ("no relevant ids",)),
    Case("rag-negative-grade", ["rag", "r_neg.jsonl"], 2, ("negative grade",)),
    Case("rag-infinite-score", ["rag", "r_inf.jsonl"], 2, ("not finite",)),
    Case("rag-object-not-rows", ["rag", "r_obj.json"], 2, ("JSON object",)),
    Case("rag-empty-file", ["rag", "empty"], 2, ()),
    Case("rag-duplicate-doc", ["rag", "r_dupdoc.jsonl"], 2, ("listed twice", "duplicates=first")),
    Case("rag-duplicate-doc-ragas-counts", ["rag", "r_dupdoc.jsonl", "--preset", "ragas", "-m", "set_p"], 0),
    Case("rag-llamaindex-refuses-empty", ["rag", "rag.jsonl", "--preset", "llamaindex"], 2, ("q2",)),
    Case("rag-unknown-preset", ["rag", "rag.jsonl", "--preset", "nope"], 2, ("unknown preset",)),
    Case("rag-o-over-input", ["rag", "rag.jsonl", "-o", "rag.jsonl"], 2, ("same file",)),
    Case("rag-layout-wrong", ["rag", "rag.jsonl", "--layout", "ragas"], 2, ("retrieved_context_ids",)),
    Case("rag-judgments-empty", ["rag", "rag.jsonl", "--judgments", "empty"], 2, ("empty",)),
    Case("rag-peer-with-json", ["rag", "rag.jsonl", "--peer", "ragas", "--format", "json"], 2, ("--peer",)),
    Case("why-rag-nothing-retrieved", ["why", "r_allempty.jsonl", "--peer", "ragas"], 2, ("ranks no documents",)),
    Case("rag-min-coverage-text", ["rag", "rag.jsonl", "--min-coverage", "half"], 2, ("--min-coverage",)),
]


def _make(folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name, text in FILES.items():
        (folder / name).write_text(text)
    pq.write_table(pa.table({"query": ["q1", "q1", "q2", "q3"], "doc": ["d1", "d2", "d3", "d4"],
                             "grade": [1, 0, 2, 1]}), folder / "q.parquet")
    pq.write_table(pa.table({"query": ["q1", "q1", "q2", "q3"], "doc": ["d1", "d2", "d3", "d4"],
                             "score": [3.0, 2.0, 1.0, 1.0]}), folder / "a.parquet")


@pytest.mark.parametrize("case", CLI, ids=[case.name for case in CLI])
def test_the_new_surfaces_refuse_in_one_line(case, tmp_path, monkeypatch, capsys):
    _make(tmp_path)
    run_case(case, tmp_path, monkeypatch, capsys)


# -- 3. the coverage guard in the Python front doors ---------------------------------------------
def _door(name: str, ranked: int, folder: Path, **options):
    """Four judged queries (q0..q3, d1 relevant); the predictions rank the first `ranked` of them."""
    import pandas as pd

    from rankproof import Qrels, Run, evaluate, evaluate_frame, evaluate_rag

    users = [f"q{i}" for i in range(ranked)] or ["zz"]
    if name == "evaluate":
        return evaluate(Qrels.from_dict({f"q{i}": {"d1": 1} for i in range(4)}),
                        Run.from_dict({u: ["d1"] for u in users}), ["rr"], **options)
    truth = pd.DataFrame({"user": [f"q{i}" for i in range(4)], "item": "d1", "rating": 1})
    predictions = pd.DataFrame({"user": users, "item": "d1", "score": 1.0})
    if name == "evaluate_frame":
        return evaluate_frame(truth, predictions, ["rr"], **options)
    if name == "evaluate_frame_out_of_core":
        truth.to_csv(folder / "truth.csv", index=False)
        predictions.to_csv(folder / "predictions.csv", index=False)
        return evaluate_frame(str(folder / "truth.csv"), str(folder / "predictions.csv"), ["rr"],
                              memory_budget="256MB", **options)
    return evaluate_rag([{"query_id": f"q{i}", "retrieved": ["d1"] if f"q{i}" in users else ["x"],
                          "relevant": ["d1"]} for i in range(4)], ["rr"], **options)


DOORS = ("evaluate", "evaluate_frame", "evaluate_frame_out_of_core", "evaluate_rag")
# (ranked of 4, options, outcome): a mean, or the error class's name and words of its message.
GUARD = [
    (2, {}, 0.5), (4, {"min_coverage": 1.0}, 1.0), (1, {"min_coverage": 0.25}, 0.25),
    (1, {"allow_partial": True}, ("warn", 0.25)),
    (1, {}, ("CoverageError", "1 of the 4")), (1, {"min_coverage": 0.5}, ("CoverageError", "below the 50%")),
    (4, {"min_coverage": 1.5}, ("InputError", "min_coverage")),
    (4, {"min_coverage": -0.1}, ("InputError", "min_coverage")),
    (4, {"min_coverage": float("nan")}, ("InputError", "min_coverage")),
    (4, {"min_coverage": "0.5"}, ("InputError", "min_coverage")),
    (4, {"min_coverage": True}, ("InputError", "min_coverage")),
    (4, {"allow_partial": "no"}, ("InputError", "allow_partial")),
    (4, {"allow_partial": True, "min_coverage": 7}, ("InputError", "min_coverage")),
]
GUARDS = [(door, *case) for door in DOORS for case in GUARD]


@pytest.mark.parametrize("door, ranked, options, outcome", GUARDS,
                         ids=[f"{d}-{r}-{o}" for d, r, o, _ in GUARDS])
def test_the_coverage_guard_of_every_front_door(door, ranked, options, outcome, tmp_path):
    from rankproof.errors import RankproofWarning

    if door == "evaluate_rag" and isinstance(outcome, tuple) and outcome[0] == "CoverageError":
        outcome = 0.25   # a row's list (["x"]) is ranked: RAG rows rank every query, the guard passes
    if door == "evaluate_rag" and outcome == ("warn", 0.25):
        outcome = 0.25
    if isinstance(outcome, float):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RankproofWarning)
            warnings.filterwarnings("ignore", message=".*unjudged.*")
            assert _door(door, ranked, tmp_path, **options).mean("rr") == pytest.approx(outcome)
    elif outcome[0] == "warn":
        with pytest.warns(RankproofWarning, match="ranks 1 of the 4 judged"):
            assert _door(door, ranked, tmp_path, **options).mean("rr") == pytest.approx(outcome[1])
    else:
        with pytest.raises(Exception) as raised:
            _door(door, ranked, tmp_path, **options)
        assert type(raised.value).__name__ == outcome[0] and outcome[1] in str(raised.value), raised.value


# -- 4. Python calls ------------------------------------------------------------------------------------
def _define(*args, **kwargs):
    from rankproof.measures import define

    return define(*args, **kwargs)


@pytest.mark.parametrize("call, words", [
    (lambda: _define("h5_a", 5), "not callable"),
    (lambda: _define("", lambda q: 1.0), "letters, digits"),
    (lambda: _define("h5_b", lambda q: 1.0, value_range=(1, 0)), "low < high"),
    (lambda: _define("h5_c", lambda q: 1.0, value_range=(float("nan"), 1)), "low < high"),
    (lambda: _define("h5_d", lambda q, **k: 1.0, params={"a b": 1}), "not an identifier"),
    (lambda: _define("ap", lambda q: 1.0), "built in"),
], ids=["not-callable", "empty-name", "range-reversed", "range-nan", "param-not-identifier", "built-in"])
def test_define_refuses(call, words):
    from rankproof.errors import MeasureError

    with pytest.raises(MeasureError, match=words):
        call()


def test_with_queries_refuses_a_text_for_a_list():
    """Iterated, "q12" declared the queries q, 1 and 2: three empty-truth queries, averaged in silently."""
    from rankproof import Qrels
    from rankproof.errors import ParseError

    qrels = Qrels.from_dict({"q1": {"d1": 1}})
    with pytest.raises(ParseError, match="list of query ids"):
        qrels.with_queries("q12")
    assert qrels.with_queries(["q12"]).queries.tolist() == ["q1", "q12"]


@pytest.mark.parametrize("preset, expected", [("haystack", 2 / 3), ("sentence_transformers", 1.0),
                                              ("rankproof", 2 / 3), ("mteb", 2 / 3)])
def test_a_declared_query_without_judgments(preset, expected):
    """q1, q2 ranked first (rr 1), q3 declared with nothing judged: 0 averaged in (2/3) or left out (1)."""
    from rankproof import Qrels, Run, evaluate

    qrels = Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}}).with_queries(["q3"])
    results = evaluate(qrels, Run.from_dict({"q1": ["d1"], "q2": ["d2"], "q3": ["d9"]}), ["rr"], preset)
    assert results.mean("rr") == pytest.approx(expected)
    assert results.counts["queries_without_judgments"] == 1
