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

from paths import CRANFIELD

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


def test_small_and_large_inputs_are_read_to_the_same_output(capsys, monkeypatch):
    # Under THREAD_BYTES the qrels and the first run are read in the calling
    # thread, above it the qrels in a second thread: nothing printed differs.
    args = ["evaluate", QRELS, BM25, TFIDF, "--per-query", "--format", "json"]
    small = cli(capsys, *args)
    monkeypatch.setattr("rankproof.cli.inputs.THREAD_BYTES", 0)
    assert cli(capsys, *args) == small and small[0] == 0


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
    accuracy, side = out.split("\n\n")   # then the side-data measures whose name holds it
    names = [line.split()[0] for line in accuracy.splitlines()]
    assert names == ["ndcg@k", "ndcg_rel@k", "rndcg@k", "alpha_ndcg@k", "ndcg_ia@k"]
    assert side.splitlines()[1].split()[0].startswith("ips_ndcg(")
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
def test_steps_show_on_a_terminal_only(monkeypatch, capsys, command):
    # Any input past the display's delay (two seconds; 0 here), not only a large one (issue 40).
    import rankproof.cli.progress as progress

    monkeypatch.setattr(progress, "DELAY", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([str(a) for a in command]) == 0
    out = capsys.readouterr().out
    assert "read qrels" in terminal.getvalue(), terminal.getvalue()[:200]   # each step is drawn
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


# -- one input path: every command reads renamed columns on every run -------------------------
def _tables(seed: int = 7):
    """Qrels and three runs over 6 queries (ties and unjudged docs included), as pandas frames."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(6)]
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3))) for q in queries for d in range(0, 10, 2)],
                         columns=["query", "doc", "grade"])
    runs = {}
    for name in ("a", "b", "c"):
        rows = [(q, f"d{d}", float(rng.integers(0, 5))) for q in queries for d in rng.permutation(10)[:7]]
        runs[name] = pd.DataFrame(rows, columns=["query", "doc", "score"])
    return qrels, runs


RENAMED = {"query": "user", "doc": "item", "grade": "rating"}


@pytest.fixture(scope="module")
def renamed_and_plain(tmp_path_factory):
    """The same data twice, under the same file names: columns user,item,rating/score and query,doc,grade/score."""
    qrels, runs = _tables()
    folders = {}
    for kind, mapping in (("renamed", RENAMED), ("plain", {})):
        folder = tmp_path_factory.mktemp(kind)
        qrels.rename(columns=mapping).to_parquet(folder / "qrels.parquet", index=False)
        for name, run in runs.items():
            run.rename(columns=mapping).to_parquet(folder / f"{name}.parquet", index=False)
        folders[kind] = folder
    return folders


def _inputs(folder: Path, runs=("a", "b", "c")) -> list[str]:
    return [str(folder / "qrels.parquet"), *(str(folder / f"{name}.parquet") for name in runs)]


COLUMN_OPTIONS = [["--columns", "query=user,doc=item,grade=rating"],
                  ["--query-col", "user", "--doc-col", "item", "--grade-col", "rating"]]


@pytest.mark.parametrize("options", COLUMN_OPTIONS, ids=["columns", "col-options"])
@pytest.mark.parametrize("command, runs, extra", [
    ("evaluate", ("a", "b", "c"), ["-m", "ndcg@5", "-m", "ap", "--format", "json", "--quiet"]),
    ("compare", ("a", "b", "c"), ["-m", "ndcg@5", "--resamples", "50", "--format", "csv"]),
    ("why", ("a",), ["--peer", "trec_eval", "-m", "ndcg@5"]),
    ("explain", ("b",), ["--query", "q1", "-m", "ndcg@5", "-m", "ap"]),
])
def test_every_command_reads_renamed_columns_on_every_run(capsys, monkeypatch, renamed_and_plain, options,
                                                          command, runs, extra):
    """The same data with its own column names gives the same output as with the default names."""
    outputs = []
    for kind, names in (("renamed", options), ("plain", [])):
        monkeypatch.chdir(renamed_and_plain[kind])  # the same relative paths: the same run names
        code, out, err = cli(capsys, command, *_inputs(Path("."), runs), *names, *extra)
        assert (code, err if command != "why" else "") == (0, ""), err
        outputs.append(out)
    assert outputs[0] == outputs[1] and outputs[0].strip()


def test_evaluate_with_renamed_columns_gives_the_library_values(capsys, renamed_and_plain):
    """The numbers themselves: each run's mean as evaluate() gives it on the same rows from dicts."""
    qrels, runs = _tables()
    judged = Qrels.from_dict({q: dict(zip(g["doc"], g["grade"].tolist())) for q, g in qrels.groupby("query")})
    code, out, err = cli(capsys, "evaluate", *_inputs(renamed_and_plain["renamed"]), *COLUMN_OPTIONS[0],
                         "-m", "ndcg@5", "--format", "json", "--quiet")
    assert code == 0, err
    got = json.loads(out)["runs"]
    for name, run in runs.items():
        ranked = Run.from_dict({q: dict(zip(g["doc"], g["score"].tolist())) for q, g in run.groupby("query")})
        assert got[f"{name}.parquet"]["mean"]["ndcg@5"] == evaluate(judged, ranked, "ndcg@5").mean("ndcg@5")


def _report_cells(path: Path) -> list[tuple[str, str, str]]:
    cells = re.findall(r'<td([^>]*data-key="[^"]*"[^>]*)>(.*?)</td>', path.read_text(encoding="utf-8"), re.S)
    return [(re.search(r'data-run="([^"]*)"', a).group(1) if "data-run" in a else "",
             re.search(r'data-key="([^"]*)"', a).group(1), text.strip()) for a, text in cells]


@pytest.mark.parametrize("options", COLUMN_OPTIONS, ids=["columns", "col-options"])
def test_report_reads_renamed_columns_on_every_run(capsys, monkeypatch, renamed_and_plain, tmp_path, options):
    cells = []
    for kind, names in (("renamed", options), ("plain", [])):
        monkeypatch.chdir(renamed_and_plain[kind])
        out = tmp_path / f"{kind}.html"
        code, _, err = cli(capsys, "report", *_inputs(Path(".")), *names, "-m", "ndcg@5", "-m", "ap",
                           "--resamples", "50", "-o", out)
        assert code == 0, err
        cells.append(_report_cells(out))
    assert cells[0] == cells[1]
    assert {run for run, _, _ in cells[0]} >= {"a.parquet", "b.parquet", "c.parquet"}


def test_stdin_run_with_renamed_columns(capsys, monkeypatch, renamed_and_plain):
    """'-' is one more input path: a renamed Parquet run on stdin reads as the same file given by name."""
    folder = renamed_and_plain["renamed"]
    common = ["--columns", "query=user,doc=item,grade=rating", "-m", "ndcg@5", "--format", "csv", "--quiet"]
    code, by_name, _ = cli(capsys, "evaluate", folder / "qrels.parquet", folder / "b.parquet", "--label", "b=b.parquet",
                           *common)
    assert code == 0
    code, by_stdin, err = cli(capsys, "evaluate", folder / "qrels.parquet", "-", "--run-format", "parquet",
                              "--label", "b=-", *common, stdin=(folder / "b.parquet").read_bytes(),
                              monkeypatch=monkeypatch)
    assert (code, by_stdin) == (0, by_name), err


def test_intents_with_renamed_columns(capsys, monkeypatch, tmp_path):
    """Judgments per intent in a table with its own column names, on two runs."""
    import pandas as pd

    rows = [("u1", "i1", "x1", 1), ("u1", "i2", "x1", 1), ("u1", "i2", "x2", 1), ("u2", "i1", "x3", 1)]
    runs = {"a": [("u1", "x1", 3.0), ("u1", "x2", 2.0), ("u2", "x3", 1.0)],
            "b": [("u1", "x2", 3.0), ("u1", "x1", 2.0), ("u2", "x9", 1.0)]}
    outputs = []
    for kind, mapping, options in (
            ("renamed", {"query": "user", "intent": "aspect", "doc": "item", "grade": "rating"},
             ["--columns", "query=user,doc=item,grade=rating", "--intent-col", "aspect"]),
            ("plain", {}, [])):
        folder = tmp_path / kind
        folder.mkdir()
        frame = pd.DataFrame(rows, columns=["query", "intent", "doc", "grade"]).rename(columns=mapping)
        frame.to_parquet(folder / "qrels.parquet", index=False)
        for name, run in runs.items():
            pd.DataFrame(run, columns=["query", "doc", "score"]).rename(columns=mapping).to_parquet(
                folder / f"{name}.parquet", index=False)
        monkeypatch.chdir(folder)
        code, out, err = cli(capsys, "evaluate", "--intents", *_inputs(Path("."), ("a", "b")), *options,
                             "-m", "s_recall@2", "--format", "json", "--quiet")
        assert code == 0, err
        outputs.append(json.loads(out)["runs"])
    assert outputs[0] == outputs[1]
    # s_recall@2: a covers u1's intents i1 and i2 at ranks 1-2 (1.0) and u2's i1 (1.0); b misses u2's.
    assert (outputs[0]["a.parquet"]["mean"]["s_recall@2"], outputs[0]["b.parquet"]["mean"]["s_recall@2"]) == (1.0, 0.5)


def test_fit_pbm_reads_renamed_columns(capsys, monkeypatch, tmp_path):
    import pandas as pd

    rows = [(f"u{q}", f"i{d}", rank, int((q + d + rank) % 3 == 0)) for q in range(8) for rank, d in
            enumerate(range(q % 3, q % 3 + 4), start=1)]
    outputs = []
    for kind, mapping, options in (
            ("renamed", {"query": "user", "doc": "item", "rank": "position", "clicked": "click"},
             ["--columns", "query=user,doc=item,rank=position,clicked=click"]),
            ("plain", {}, [])):
        path = tmp_path / f"{kind}.parquet"
        pd.DataFrame(rows, columns=["query", "doc", "rank", "clicked"]).rename(columns=mapping).to_parquet(path)
        code, out, err = cli(capsys, "fit-pbm", path, "--quiet", *options)
        assert code == 0, err
        fit = json.loads(out)
        assert fit.pop("source").endswith(f"{kind}.parquet")
        outputs.append(fit)
    assert outputs[0] == outputs[1]


def test_a_policy_given_twice_is_refused(capsys):
    for command in (["evaluate", QRELS, BM25], ["protocol"]):
        code, out, err = cli(capsys, *command, "--policy", "ties=docid", "--policy", "ties=input")
        assert (code, out) == (2, "")
        assert "ties is given twice" in one_line(err) and "give each policy once" in err
    with pytest.raises(Exception, match="given twice"):
        from rankproof.protocol import Protocol
        Protocol.from_text("ties=docid ties=input")


def test_engine_choices_are_the_registry_and_spark(capsys):
    from rankproof.engines import ENGINES, EXECUTORS

    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = capsys.readouterr().out
    choices = re.search(r"--engine \{([^}]*)\}", text).group(1).split(",")
    # the engines offered by the registry (not the dense matrix engine, which only score matrices reach)
    # ... then the executors offered by name (memory and out of core are chosen from the inputs)
    assert choices == [name for name, entry in {**ENGINES, **EXECUTORS}.items() if entry.choice]
    assert choices == ["compiled", "numpy", "spark"]


# report reads judgments per intent since issue 28 (tests/report/test_report_figures.py).
@pytest.mark.parametrize("command", [["explain", "--query", "1"]])
def test_intents_where_not_available_yet_is_one_line(capsys, monkeypatch, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text("1 1 d1 1\n1 2 d2 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n")
    code, out, err = cli(capsys, command[0], "--intents", "q.txt", "a.run", *command[1:])
    assert (code, out) == (2, "")
    assert f"rankproof {command[0]}: --intents" in one_line(err) and "rankproof evaluate --intents" in err
    assert not (tmp_path / "r.html").exists()


def test_commands_that_read_qrels_and_runs_share_one_set_of_input_options(capsys):
    def options(command: str) -> set[str]:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", capsys.readouterr().out))

    shared = {"--qrels-format", "--run-format", "--columns", "--query-col", "--doc-col", "--grade-col", "--score-col",
              "--grade-map", "--label", "--intents", "--intent-col", "--intent-weights", "--preset", "--policy"}
    for command in ("evaluate", "compare", "report", "why", "explain", "agree", "fuse"):
        assert shared <= options(command), (command, shared - options(command))
    assert {"--columns", "--query-col", "--doc-col", "--rank-col", "--clicked-col"} <= options("fit-pbm")
