"""The command line's first hour (issue 14): query coverage, column names,
stdin, stderr notes, labels, --version, the measures list, --precision and help."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from pathlib import Path

import pytest

from rankproof import Qrels, Run, compare, evaluate
from rankproof.cli.app import main
from rankproof.errors import CoverageError
from rankproof.protocol import PRESETS

CRANFIELD = Path(__file__).resolve().parents[1] / "src" / "rankproof" / "_data" / "cranfield"
QRELS = CRANFIELD / "qrels.txt"
BM25 = CRANFIELD / "bm25.run"
TFIDF = CRANFIELD / "tfidf.run"


def cli(capsys, *args, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        class Stdin:
            buffer = io.BytesIO(stdin)
        monkeypatch.setattr("sys.stdin", Stdin())
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    assert "Traceback" not in err and err.endswith("\n") and err.count("\n") == 1, err
    return err


@pytest.fixture(scope="module")
def bm25_mean() -> float:
    return evaluate(Qrels.read_trec(QRELS), Run.read_trec(BM25), "ndcg@10").mean("ndcg@10")


def lines_of(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


# -- query coverage ---------------------------------------------------------------------
def test_a_run_whose_query_ids_match_nothing_fails_loudly(tmp_path, capsys):
    prefixed = tmp_path / "qprefix.run"
    prefixed.write_text("".join(f"q{line}\n" for line in BM25.read_text().splitlines()))
    code, out, err = cli(capsys, "evaluate", QRELS, prefixed, "-m", "ndcg@10")
    assert (code, out) == (2, "")
    assert "none of the 225 judged queries" in one_line(err) and "--allow-partial" in err
    code, out, err = cli(capsys, "evaluate", QRELS, prefixed, "-m", "ndcg@10", "--allow-partial", "--format", "csv")
    assert code == 0
    assert next(r for r in csv.reader(io.StringIO(out)) if r[1] == "all")[3] == "0.0"
    assert "ranks 0 of the 225 judged queries" in err
    # Even a share of 0 asked for does not let a run that ranks none through.
    code, _, err = cli(capsys, "evaluate", QRELS, prefixed, "--min-coverage", "0")
    assert code == 2 and "none of the 225" in err


def test_a_run_covering_2_of_225_queries_fails_unless_allowed(tmp_path, capsys):
    two = tmp_path / "two.run"
    two.write_text("".join(" ".join(row) + "\n" for row in lines_of(BM25) if row[0] in ("1", "2")))
    code, out, err = cli(capsys, "evaluate", QRELS, two, "-m", "ndcg@10")
    assert (code, out) == (2, "")
    assert "ranks 2 of the 225 judged queries" in one_line(err)
    code, out, err = cli(capsys, "evaluate", QRELS, two, "-m", "ndcg@10", "--min-coverage", "0.005")
    assert code == 0 and "warning: the run ranks 2 of the 225" in err
    code, _, _ = cli(capsys, "compare", QRELS, two, BM25, "-m", "ndcg@10", "--resamples", "100")
    assert code == 2
    code, _, _ = cli(capsys, "compare", QRELS, two, BM25, "-m", "ndcg@10", "--resamples", "100", "--allow-partial")
    assert code == 0


def test_the_library_refuses_a_partial_run_unless_allowed():
    qrels = Qrels.from_dict({str(i): {"a": 1} for i in range(10)})
    run = Run.from_dict({"0": ["a"], "1": ["a"], "2": ["b"]})          # 3 of 10 judged queries
    with pytest.raises(CoverageError, match="3 of the 10"):
        evaluate(qrels, run, "p@1")
    results = evaluate(qrels, run, "p@1", allow_partial=True)
    assert results.query_coverage == 0.3
    assert results.mean("p@1") == pytest.approx(2 / 10)      # the missing 7 score 0 (missing_query=zero)
    assert evaluate(qrels, run, "p@1", min_coverage=0.3).mean("p@1") == pytest.approx(0.2)
    with pytest.raises(CoverageError):
        compare(qrels, {"a": run, "b": run}, "p@1")
    full = Run.from_dict({str(i): ["a"] for i in range(10)})
    assert evaluate(qrels, full, "p@1").query_coverage == 1.0


# -- column names, stdin, gzip ----------------------------------------------------------------
def test_columns_of_table_inputs_are_named_on_the_command_line(tmp_path, capsys, bm25_mean):
    qrels_csv = tmp_path / "qrels.csv"
    qrels_csv.write_text("qid,docno,rel\n" + "".join(f"{q},{d},{g}\n" for q, _, d, g in lines_of(QRELS)))
    run_tsv = tmp_path / "run.tsv"
    run_tsv.write_text("qid\tdocno\tsim\n" + "".join(f"{r[0]}\t{r[2]}\t{r[4]}\n" for r in lines_of(BM25)))
    for options in (["--columns", "query=qid,doc=docno,grade=rel,score=sim"],
                    ["--query-col", "qid", "--doc-col", "docno", "--grade-col", "rel", "--score-col", "sim"]):
        code, out, err = cli(capsys, "evaluate", qrels_csv, run_tsv, "-m", "ndcg@10", "--format", "json", *options)
        assert code == 0, err
        assert json.loads(out)["runs"]["run.tsv"]["mean"]["ndcg@10"] == bm25_mean
    code, _, err = cli(capsys, "evaluate", qrels_csv, run_tsv, "-m", "ndcg@10")
    assert code == 2 and "qid" in one_line(err)
    code, _, err = cli(capsys, "evaluate", qrels_csv, run_tsv, "--columns", "user=qid")
    assert code == 2 and "role=column" in one_line(err)


@pytest.mark.parametrize("packed", [False, True])
def test_a_run_on_stdin_plain_or_gzip(capsys, monkeypatch, bm25_mean, packed):
    data = BM25.read_bytes()
    code, out, err = cli(capsys, "evaluate", QRELS, "-", "-m", "ndcg@10", "--format", "json",
                         stdin=gzip.compress(data) if packed else data, monkeypatch=monkeypatch)
    assert code == 0, err
    assert json.loads(out)["runs"]["stdin"]["mean"]["ndcg@10"] == bm25_mean


def test_qrels_on_stdin_and_errors_name_stdin(capsys, monkeypatch, bm25_mean):
    code, out, _ = cli(capsys, "evaluate", "-", BM25, "-m", "ndcg@10", "--format", "json",
                       stdin=gzip.compress(QRELS.read_bytes()), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["runs"]["bm25.run"]["mean"]["ndcg@10"] == bm25_mean
    code, _, err = cli(capsys, "evaluate", QRELS, "-", stdin=b"1 Q0 184 1 notanumber t\n", monkeypatch=monkeypatch)
    assert code == 2 and "stdin" in one_line(err) and "rankproof-stdin" not in err
    code, _, err = cli(capsys, "evaluate", "-", "-", stdin=b"", monkeypatch=monkeypatch)
    assert code == 2 and "stdin" in one_line(err)


# -- stdout holds the format, stderr the notes ------------------------------------------------
@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "trec", "table"])
def test_every_format_warns_on_stderr_and_quiet_drops_it(capsys, fmt):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", fmt)
    assert code == 0
    assert "rankproof: bm25.run: counts: queries evaluated: 225" in err
    assert "rankproof: bm25.run: warning: 1592 unjudged docs inside the top 10" in err
    assert "warning" not in out
    if fmt == "csv":
        assert all(len(row) == 4 for row in csv.reader(io.StringIO(out)))
    code, quiet_out, quiet_err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", fmt, "--quiet")
    assert (code, quiet_out, quiet_err) == (0, out, "")


# -- labels, version, precision ---------------------------------------------------------------
def test_labels_rename_runs(capsys):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, TFIDF, "--label", f"BM25={BM25}", "--label",
                       f"TF-IDF={TFIDF}", "--format", "json", "-m", "ap")
    assert code == 0 and set(json.loads(out)["runs"]) == {"BM25", "TF-IDF"}
    code, out, _ = cli(capsys, "compare", QRELS, BM25, TFIDF, "--label", f"BM25={BM25}", "-m", "ap",
                       "--resamples", "100", "--format", "csv")
    assert code == 0 and "BM25" in out and "bm25.run" not in out
    code, _, err = cli(capsys, "evaluate", QRELS, BM25, "--label", "x=other.run")
    assert code == 2 and "not one of the runs" in one_line(err)
    code, _, err = cli(capsys, "evaluate", QRELS, BM25, TFIDF, "--label", f"a={BM25}", "--label", f"a={TFIDF}")
    assert code == 2 and "distinct" in one_line(err)


def test_version(capsys):
    import rankproof

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"rankproof {rankproof.__version__}\n"


def test_precision_sets_the_digits_printed(capsys, bm25_mean):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--precision", "6")
    row = next(line for line in out.splitlines() if line.startswith("bm25.run"))
    assert row.split()[1] == f"{bm25_mean:.6f}"
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--precision", "2", "--format", "trec")
    assert out.splitlines()[-1].split("\t")[2] == f"{bm25_mean:6.2f}"


# -- measures, help --------------------------------------------------------------------------
def test_measures_filter_one_line_each_with_its_definition(capsys):
    code, out, _ = cli(capsys, "measures", "ndcg")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == ["ndcg@k", "ndcg_rel@k", "rndcg@k", "alpha_ndcg@k", "ndcg_ia@k"]
    assert "DCG@k / ideal DCG@k" in out
    code, out, _ = cli(capsys, "measures", "mrr")      # another tool's name finds the measure
    assert [line.split()[0] for line in out.splitlines()] == ["rr@k"]
    code, _, err = cli(capsys, "measures", "zzz")
    assert code == 2 and one_line(err)


def test_measures_speak_in_policy_values(capsys):
    code, out, _ = cli(capsys, "measures")
    assert "ties=ordered" not in out and "ties=exact" not in out
    assert "tied scores need ties=docid or ties=input" in out
    assert max(len(line) for line in out.splitlines()) < 200


def test_preset_help_lists_every_preset_and_every_command_has_examples(capsys):
    for command in ("evaluate", "explain", "compare", "protocol"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = re.sub(r"\s+", " ", capsys.readouterr().out)
        for preset in PRESETS:
            assert preset in text, (command, preset)
        assert "example" in text, command
    for command in ("measures", "demo"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "example" in capsys.readouterr().out


# -- progress on a terminal only -----------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("command", [
    ["compare", QRELS, BM25, TFIDF, "-m", "ap", "--resamples", "50"],
    ["trec-eval", "-m", "map", QRELS, BM25],
])
def test_big_inputs_show_progress_on_a_terminal_only(monkeypatch, capsys, command):
    import rankproof.cli.app as cli_module
    import rankproof.report.progress as progress

    monkeypatch.setattr(cli_module, "LARGE_INPUT_BYTES", 0)
    monkeypatch.setattr(progress, "LARGE_INPUT_BYTES", 0)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([str(a) for a in command]) == 0
    out = capsys.readouterr().out
    assert "read qrels" in terminal.getvalue() or "\x1b[" in terminal.getvalue(), terminal.getvalue()[:200]
    assert "\x1b[" not in out          # stdout never receives it
    # A pipe gets nothing but messages.
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert main([str(a) for a in command]) == 0
    assert "read qrels" not in capsys.readouterr().err


def test_summary_of_a_partial_run_says_so():
    qrels = Qrels.from_dict({str(i): {"a": 1} for i in range(10)})
    results = evaluate(qrels, Run.from_dict({"0": ["a"]}), "p@1", allow_partial=True)
    assert "warning: the run ranks 1 of the 10 judged queries (10.0%)" in results.summary()


def test_the_first_command_of_a_peer_user_runs_and_prints_canonical_names(capsys):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "-m", "map", "-m", "P@10", "-m",
                         "recall@100", "-m", "mrr", "-m", "ndcg_cut_10", "--format", "csv", "--quiet")
    assert (code, err) == (0, "")
    measures = [row[2] for row in csv.reader(io.StringIO(out)) if row[1] == "all"]
    assert measures == ["ndcg@10", "ap", "p@10", "r@100", "rr"]     # ndcg_cut_10 is ndcg@10, asked twice
    code, _, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "recal@100")
    assert code == 2 and "did you mean r@100" in one_line(err)
