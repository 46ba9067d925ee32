"""The ``rankproof`` command line: every command, every output format, every exit code.

Most tests call ``rankproof.cli.main([...])`` in-process and read stdout and
stderr through ``capsys``; a few run a real subprocess to prove that exit codes
are real and no traceback ever reaches stderr.

Numbers are never string-matched in machine-readable outputs: JSON is parsed
with ``json.loads``, CSV with the ``csv`` module, and the values are compared
with ``==`` to what the library computes on the same files.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.data.digest import qrels_digest
from rankproof.measures import REGISTRY

from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"
RUNS = {name: CRANFIELD / f"{name}.run" for name in ("bm25", "tfidf", "lmdirichlet")}
BM25 = RUNS["bm25"]
DEFAULT_MEASURES = ["ndcg@10", "ap", "rr", "p@10"]
TOP_KEYS = {"protocol", "protocol_text", "fingerprint", "qrels", "counts", "runs"}
# Cranfield's codes (1 = complete answer ... 4 = minimum interest, -1 = no interest)
# as qrels.txt turns them into grades (see the data README).
CODES_TO_GRADES = {-1: 0, 1: 4, 2: 3, 3: 2, 4: 1}

# A remedy in an error message: a verb telling the user what to do, or the valid choices.
FIX = re.compile(
    r"\b(give|add|pass|set|check|write|use|remove|keep|choose|create|re-save|see|must be)\b"
    r"|did you mean|such as|Known measures:|Policies:",
    re.IGNORECASE,
)


# -- helpers ---------------------------------------------------------------------------
def cli(capsys, *args) -> tuple[int, str, str]:
    """Run the command in-process; return (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def notes_only(err: str) -> bool:
    """stderr holds only counts and warnings (issue 14: they go to stderr for every format)."""
    lines = err.splitlines()
    return all(line.startswith("rankproof: ") and (": counts: " in line or ": warning: " in line)
               for line in lines)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def library(qrels_path, run_path, measures, protocol=None):
    return evaluate(Qrels.read_trec(qrels_path), Run.read_trec(run_path, name=Path(run_path).name),
                    measures, protocol)


def assert_one_line_error(err: str, *needles: str, fix: bool = True) -> str:
    """stderr is exactly one line, no traceback, holds every needle and a remedy."""
    assert "Traceback" not in err
    assert err.endswith("\n"), repr(err)
    message = err[:-1]
    assert message, "nothing on stderr"
    assert "\n" not in message and "\r" not in message, repr(err)
    assert message.startswith("rankproof"), message
    for needle in needles:
        assert needle in message, f"{needle!r} not in {message!r}"
    if fix:
        assert FIX.search(message), f"no remedy in {message!r}"
    return message


def read_trec_lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def json_roundtrip(value):
    return json.loads(json.dumps(value))


@pytest.fixture(scope="module")
def cran_qrels() -> Qrels:
    return Qrels.read_trec(QRELS)


@pytest.fixture
def tiny(tmp_path):
    """Two judged queries and a run over them, for the error cases."""
    qrels = write(tmp_path / "judgments.qrels", "q1 0 A 1\nq1 0 B 0\nq2 0 C 2\n")
    run = write(tmp_path / "system.run", "q1 Q0 A 1 2.0 t\nq1 Q0 B 2 1.0 t\nq2 Q0 C 1 3.0 t\n")
    return qrels, run


# -- evaluate --format json ------------------------------------------------------------
def test_json_bm25_ndcg10_equals_the_library(capsys, cran_qrels):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", "json")
    assert code == 0 and notes_only(err) and "bm25.run: counts: queries evaluated: 225" in err
    doc = json.loads(out)
    assert set(doc) == TOP_KEYS

    protocol = Protocol()
    assert doc["protocol"] == protocol.to_dict()
    assert set(doc["protocol"]) == set(Protocol.policy_names())  # every policy, not only the changed ones
    assert doc["protocol_text"] == str(protocol)
    assert doc["fingerprint"] == protocol.fingerprint
    assert re.fullmatch(r"[0-9a-f]{12}", doc["fingerprint"])
    assert doc["qrels"] == {"source": str(QRELS), "digest": qrels_digest(cran_qrels)}

    results = evaluate(cran_qrels, Run.read_trec(BM25), ["ndcg@10"])
    assert set(doc["counts"]) == {"bm25.run"}
    assert doc["counts"]["bm25.run"] == json_roundtrip(results.counts)
    assert doc["counts"]["bm25.run"]["queries_evaluated"] == 225

    assert set(doc["runs"]) == {"bm25.run"}
    run = doc["runs"]["bm25.run"]
    assert set(run) == {"mean", "per_query"}
    assert run["mean"] == {"ndcg@10": results.mean("ndcg@10")}  # full precision, exactly
    per_query = results.per_query("ndcg@10")
    assert len(per_query) == 225
    assert {q: v["ndcg@10"] for q, v in run["per_query"].items()} == per_query
    assert all(set(v) == {"ndcg@10"} for v in run["per_query"].values())


@pytest.mark.parametrize("preset", ["rankproof", "trec_eval"])
def test_json_every_run_and_measure_equals_the_library(capsys, cran_qrels, preset):
    measures = ["ndcg@10", "ap", "rr", "p@10", "ndcg(gain=exp2)@5", "r@20", "bpref", "rprec"]
    args = ["evaluate", QRELS, *RUNS.values(), "--format", "json", "--preset", preset]
    for m in measures:
        args += ["-m", m]
    code, out, err = cli(capsys, *args)
    assert code == 0 and notes_only(err)
    doc = json.loads(out)
    assert list(doc["runs"]) == [f"{name}.run" for name in RUNS]
    assert doc["protocol"] == Protocol.preset(preset).to_dict()
    for name, path in RUNS.items():
        results = evaluate(cran_qrels, Run.read_trec(path), measures, preset)
        run = doc["runs"][f"{name}.run"]
        assert list(run["mean"]) == measures
        for m in measures:
            assert run["mean"][m] == results.mean(m), (name, m)
            assert {q: v[m] for q, v in run["per_query"].items()} == results.per_query(m), (name, m)
        assert doc["counts"][f"{name}.run"] == json_roundtrip(results.counts)


def test_json_default_measures(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "--format", "json")
    assert code == 0
    mean = json.loads(out)["runs"]["bm25.run"]["mean"]
    results = evaluate(cran_qrels, Run.read_trec(BM25), DEFAULT_MEASURES)
    assert mean == {m: results.mean(m) for m in DEFAULT_MEASURES}


def test_json_excluded_queries_are_null_and_left_out_of_the_mean(capsys, tmp_path):
    # q3 has nothing relevant; zero_ideal=exclude leaves it out of the mean.
    qrels = write(tmp_path / "q.txt", "q1 0 A 1\nq1 0 B 0\nq2 0 C 2\nq3 0 D 0\n")
    run = write(tmp_path / "r.run", "q1 Q0 B 1 2 t\nq1 Q0 A 2 1 t\nq2 Q0 C 1 1 t\nq3 Q0 D 1 1 t\n")
    code, out, _ = cli(capsys, "evaluate", qrels, run, "-m", "ndcg@10", "--policy", "zero_ideal=exclude",
                       "--format", "json")
    assert code == 0
    got = json.loads(out)["runs"]["r.run"]
    results = library(qrels, run, ["ndcg@10"], Protocol(zero_ideal="exclude"))
    assert got["mean"]["ndcg@10"] == results.mean("ndcg@10") == (1 / math.log2(3) + 1) / 2
    assert got["per_query"]["q3"]["ndcg@10"] is None
    assert {q: v["ndcg@10"] for q, v in got["per_query"].items() if v["ndcg@10"] is not None} \
        == results.per_query("ndcg@10")


# -- the library against an independent number ------------------------------------------
def test_library_matches_trec_eval_on_cranfield(cran_qrels):
    """trec_eval 10 on Cranfield bm25 (qrels.txt, bm25.run) prints, to 4 decimals:
    ndcg_cut_10 0.3408, map 0.2602, P_10 0.2227, recip_rank 0.5003."""
    results = evaluate(cran_qrels, Run.read_trec(BM25), ["ndcg@10", "ap", "p@10", "rr"], "trec_eval")
    assert f"{results.mean('ndcg@10'):.4f}" == "0.3408"
    assert f"{results.mean('ap'):.4f}" == "0.2602"
    assert f"{results.mean('p@10'):.4f}" == "0.2227"
    assert f"{results.mean('rr'):.4f}" == "0.5003"


def test_trec_output_matches_trec_eval_on_cranfield(capsys):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "--preset", "trec_eval", "--format", "trec",
                       "-m", "ndcg@10", "-m", "ap", "-m", "p@10", "-m", "rr")
    assert code == 0
    values = {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()}
    # trec_eval's own names (issue 28): what trec_eval -m ndcg_cut.10 -m map -m P.10 -m recip_rank prints.
    assert values == {"runid": "bm25.run", "ndcg_cut_10": "0.3408", "map": "0.2602", "P_10": "0.2227",
                      "recip_rank": "0.5003"}


# -- evaluate --format table -------------------------------------------------------------
def unjudged_in_top(run_path: Path, k: int) -> int:
    """Independently: docs in the top k by score that qrels.txt does not judge."""
    judged = {(row[0], row[2]) for row in read_trec_lines(QRELS)}
    ranked = defaultdict(list)
    for row in read_trec_lines(run_path):
        ranked[row[0]].append((-float(row[4]), row[2]))
    return sum((q, doc) not in judged for q, docs in ranked.items() for _, doc in sorted(docs)[:k])


def test_table_states_protocol_fingerprint_counts_and_the_unjudged_warning(capsys):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10")
    assert code == 0
    protocol = Protocol()
    assert str(protocol) in out
    assert re.search(r"^fingerprint\s+([0-9a-f]{12})$", out, re.M).group(1) == protocol.fingerprint
    row = next(line for line in out.splitlines() if line.startswith("bm25.run"))
    assert row.split() == ["bm25.run", "0.3408", "225"]
    # Issue 14: counts and warnings go to stderr; stdout keeps only the table.
    assert "counts" not in out and "warning" not in out
    assert notes_only(err)
    counts = next(line for line in err.splitlines() if ": counts: " in line)
    assert "queries evaluated: 225" in counts
    assert "unjudged docs inside the cutoff: ndcg@10 1592" in counts
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert len(warnings) == 1
    assert unjudged_in_top(BM25, 10) == 1592
    assert "1592 unjudged" in warnings[0] and "top 10" in warnings[0]
    code, quiet_out, quiet_err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--quiet")
    assert (code, quiet_out, quiet_err) == (0, out, "")


def test_table_per_query_has_a_row_per_query(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "-m", "ap", "--per-query")
    assert code == 0
    results = evaluate(cran_qrels, Run.read_trec(BM25), ["ndcg@10", "ap"])
    rows = {}
    for line in out.split("per query: bm25.run", 1)[1].splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in results.per_query("ap"):
            rows[parts[0]] = parts[1:]
    assert len(rows) == 225
    for query, (ndcg, ap) in rows.items():
        assert ndcg == f"{results.per_query('ndcg@10')[query]:.4f}"
        assert ap == f"{results.per_query('ap')[query]:.4f}"


def test_table_several_runs_one_row_each(capsys, cran_qrels):
    code, out, err = cli(capsys, "evaluate", QRELS, *RUNS.values(), "-m", "ndcg@10", "-m", "ap")
    assert code == 0
    for name, path in RUNS.items():
        rows = [line for line in out.splitlines() if line.startswith(f"{name}.run ")]
        assert len(rows) == 1, name
        results = evaluate(cran_qrels, Run.read_trec(path), ["ndcg@10", "ap"])
        assert rows[0].split() == [f"{name}.run", f"{results.mean('ndcg@10'):.4f}",
                                   f"{results.mean('ap'):.4f}", "225"]
        assert f"rankproof: {name}.run: counts:" in err


# -- evaluate --format csv / markdown / trec ---------------------------------------------
def parse_csv(text: str) -> list[dict[str, str]]:
    reader = csv.reader(io.StringIO(text))
    assert next(reader) == ["run", "query", "measure", "value"]
    return [dict(zip(("run", "query", "measure", "value"), row)) for row in reader]


def test_csv_means(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, RUNS["tfidf"], "--format", "csv")
    assert code == 0
    rows = parse_csv(out)
    assert len(rows) == 2 * len(DEFAULT_MEASURES)
    assert {r["query"] for r in rows} == {"all"}
    for name in ("bm25", "tfidf"):
        results = evaluate(cran_qrels, Run.read_trec(RUNS[name]), DEFAULT_MEASURES)
        got = {r["measure"]: float(r["value"]) for r in rows if r["run"] == f"{name}.run"}
        assert got == {m: results.mean(m) for m in DEFAULT_MEASURES}


def test_csv_per_query(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "-m", "ap", "--per-query",
                       "--format", "csv")
    assert code == 0
    rows = parse_csv(out)
    results = evaluate(cran_qrels, Run.read_trec(BM25), ["ndcg@10", "ap"])
    assert len(rows) == 225 * 2 + 2
    for m in ("ndcg@10", "ap"):
        per_query = {r["query"]: float(r["value"]) for r in rows if r["measure"] == m and r["query"] != "all"}
        assert per_query == results.per_query(m)
        means = [float(r["value"]) for r in rows if r["measure"] == m and r["query"] == "all"]
        assert means == [results.mean(m)]
    assert {r["run"] for r in rows} == {"bm25.run"}


def test_markdown(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, RUNS["lmdirichlet"], "-m", "ndcg@10", "-m", "ap",
                       "--format", "markdown")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "| run | ndcg@10 | ap |"
    assert re.fullmatch(r"\|-+\|(-+:\|){2}", lines[1])
    for name in ("bm25", "lmdirichlet"):
        results = evaluate(cran_qrels, Run.read_trec(RUNS[name]), ["ndcg@10", "ap"])
        row = f"| {name}.run | {results.mean('ndcg@10'):.4f} | {results.mean('ap'):.4f} |"
        assert lines.count(row) == 1
    protocol_lines = [line for line in lines if line.startswith("Protocol:")]
    assert protocol_lines == [f"Protocol: `{Protocol()}` (fingerprint `{Protocol().fingerprint}`)."]


def test_markdown_per_query(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "rr", "--format", "markdown", "--per-query")
    assert code == 0
    rr = evaluate(cran_qrels, Run.read_trec(BM25), ["rr"]).per_query("rr")
    rows = [line for line in out.splitlines() if re.fullmatch(r"\| [^ |]+ \| [0-9.]+ \|", line)
            and not line.startswith("| bm25.run")]
    assert {row.split("|")[1].strip(): row.split("|")[2].strip() for row in rows} \
        == {q: f"{v:.4f}" for q, v in rr.items()}


TREC_LINE = re.compile(r"(?P<measure>.{22})\t(?P<query>\S+)\t(?P<value>\S+)")


def test_trec_format(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, RUNS["tfidf"], "--format", "trec")
    assert code == 0
    lines = out.splitlines()
    assert all(TREC_LINE.fullmatch(line) for line in lines), lines
    expected = []
    for name in ("bm25", "tfidf"):
        results = evaluate(cran_qrels, Run.read_trec(RUNS[name]), DEFAULT_MEASURES)
        expected.append("%-22s\t%s\t%s" % ("runid", "all", f"{name}.run"))
        # trec_eval's names for ndcg@10, ap, rr, p@10 (issue 28)
        expected += ["%-22s\t%s\t%6.4f" % (trec, "all", results.mean(m)) for m, trec in
                     zip(DEFAULT_MEASURES, ["ndcg_cut_10", "map", "recip_rank", "P_10"])]
    assert lines == expected


def test_trec_format_per_query(capsys, cran_qrels):
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "--format", "trec", "--per-query")
    assert code == 0
    ap = evaluate(cran_qrels, Run.read_trec(BM25), ["ap"]).per_query("ap")
    lines = out.splitlines()
    per_query = {}
    for line in lines:
        match = TREC_LINE.fullmatch(line)
        assert match, line
        if match["query"] != "all":
            assert match["measure"].strip() == "map"  # trec_eval's name for ap (issue 28)
            per_query[match["query"]] = match["value"]
    assert per_query == {q: "%6.4f" % v for q, v in ap.items()}
    assert "%-22s\tall\tbm25.run" % "runid" in lines


# -- presets and policies ----------------------------------------------------------------
def fingerprint_of(out: str) -> str:
    return re.search(r"^fingerprint\s+([0-9a-f]{12})$", out, re.M).group(1)


def test_preset_and_policies_change_protocol_and_fingerprint(capsys):
    seen = {}
    for extra, protocol in [
        ([], Protocol()),
        (["--preset", "trec_eval"], Protocol.preset("trec_eval")),
        (["--policy", "ties=docid"], Protocol(ties="docid")),
        (["--policy", "ties=docid", "--policy", "gain=exp2"], Protocol(ties="docid", gain="exp2")),
        (["--preset", "trec_eval", "--policy", "ties=expected"], Protocol.preset("trec_eval").replace(ties="expected")),
    ]:
        code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", *extra)
        assert code == 0
        assert f"protocol     {protocol}" in out.splitlines()
        assert fingerprint_of(out) == protocol.fingerprint
        code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", "json", *extra)
        doc = json.loads(out)
        assert doc["protocol"] == protocol.to_dict()
        assert (doc["protocol_text"], doc["fingerprint"]) == (str(protocol), protocol.fingerprint)
        seen[protocol.fingerprint] = extra
    assert len(seen) == 5  # every protocol prints its own fingerprint


def test_policy_ideal_retrieved_raises_ndcg(capsys, cran_qrels):
    def mean(*extra):
        code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", "json", *extra)
        assert code == 0
        return json.loads(out)["runs"]["bm25.run"]["mean"]["ndcg@10"]

    default, retrieved = mean(), mean("--policy", "ideal=retrieved")
    assert retrieved > default
    assert retrieved == evaluate(cran_qrels, Run.read_trec(BM25), "ndcg@10",
                                 Protocol(ideal="retrieved")).mean("ndcg@10")
    assert f"{default:.4f}" == "0.3408"


# -- --grade-map -------------------------------------------------------------------------
@pytest.fixture
def cranfield_codes(tmp_path) -> Path:
    """The original Cranfield codes (cranqrel.original) as a TREC qrels file."""
    rows = [line.split() for line in (CRANFIELD / "cranqrel.original").read_text().splitlines() if line.strip()]
    assert len(rows) == 1836
    return write(tmp_path / "codes.qrels", "".join(f"{q} 0 {d} {code}\n" for q, d, code in rows))


def test_grade_map_reverses_cranfield_grades(capsys, tmp_path):
    reverse = {4: 1, 3: 2, 2: 3, 1: 4, 0: 0}
    reversed_file = write(tmp_path / "reversed.qrels", "".join(
        f"{q} {it} {d} {reverse[int(g)]}\n" for q, it, d, g in read_trec_lines(QRELS)))
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "--format", "json",
                         "--grade-map", "4:1,3:2,2:3,1:4,0:0")
    assert code == 0 and notes_only(err)
    doc = json.loads(out)
    expected = library(reversed_file, BM25, DEFAULT_MEASURES)
    assert doc["runs"]["bm25.run"]["mean"] == {m: expected.mean(m) for m in DEFAULT_MEASURES}
    assert doc["qrels"]["digest"] == qrels_digest(Qrels.read_trec(reversed_file))
    assert doc["qrels"]["digest"] != qrels_digest(Qrels.read_trec(QRELS))
    original = library(QRELS, BM25, ["ndcg@10"]).mean("ndcg@10")
    assert doc["runs"]["bm25.run"]["mean"]["ndcg@10"] != original


@pytest.mark.parametrize("form", ["equals", "json"])
def test_grade_map_of_cranfield_codes_gives_qrels_txt(capsys, tmp_path, cranfield_codes, form):
    if form == "equals":
        option = ["--grade-map=" + ",".join(f"{c}:{g}" for c, g in CODES_TO_GRADES.items())]
        assert option[0].startswith("--grade-map=-1:0,")
    else:
        mapping = write(tmp_path / "map.json", json.dumps({str(c): g for c, g in CODES_TO_GRADES.items()}))
        option = ["--grade-map", mapping]
    code, out, err = cli(capsys, "evaluate", cranfield_codes, BM25, "--format", "json", *option)
    assert code == 0 and notes_only(err)
    mapped = json.loads(out)
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "--format", "json")
    reference = json.loads(out)
    assert mapped["runs"] == reference["runs"]
    assert mapped["qrels"]["digest"] == reference["qrels"]["digest"]
    assert mapped["qrels"]["source"] == str(cranfield_codes)


def test_cranfield_codes_without_a_grade_map_are_refused(capsys, cranfield_codes):
    code, out, err = cli(capsys, "evaluate", cranfield_codes, BM25)
    assert (code, out) == (2, "")
    assert_one_line_error(err, "codes.qrels", "negative grade")


def test_unmapped_grade_names_line_query_and_doc(capsys):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "--grade-map", "4:1,3:2,2:3,1:4")
    assert (code, out) == (2, "")
    message = assert_one_line_error(err, str(QRELS), "grade 0", "0:")
    match = re.search(r"line (\d+): query (\S+), doc (\S+): grade 0\b", message)
    assert match, message
    line, query, doc = int(match[1]), match[2], match[3]
    assert QRELS.read_text().splitlines()[line - 1].split() == [query, "0", doc, "0"]


def test_grade_map_with_a_negative_first_grade_needs_the_equals_form(capsys, cranfield_codes):
    # argparse reads "-1:0,..." as an option; the error is a one-line usage error.
    code, out, err = cli(capsys, "evaluate", cranfield_codes, BM25, "--grade-map", "-1:0,1:4,2:3,3:2,4:1")
    assert (code, out) == (2, "")
    assert_one_line_error(err, "--grade-map")


@pytest.mark.parametrize("text, needle", [
    ("1:x", "1:x"),
    ("bad.json", "bad.json"),
    ("list.json", "list.json"),
])
def test_bad_grade_maps(capsys, tiny, tmp_path, monkeypatch, text, needle):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "bad.json", '{"1": 1, "0": 0')
    write(tmp_path / "list.json", "[1, 0]")
    code, out, err = cli(capsys, "evaluate", *tiny, "--grade-map", text)
    assert (code, out) == (2, "")
    assert_one_line_error(err, "--grade-map", needle)


def test_missing_grade_map_file_says_how_to_fix(capsys, tiny, tmp_path):
    """Every other missing file gets "does not exist; check the path"; this one
    says only "--grade-map .../absent.json: the file does not exist"."""
    missing = tmp_path / "absent.json"
    code, out, err = cli(capsys, "evaluate", *tiny, "--grade-map", missing)
    assert (code, out) == (2, "")
    assert_one_line_error(err, "--grade-map", str(missing), "does not exist")


def test_grade_map_that_is_a_directory_is_bad_input(capsys, tiny, tmp_path):
    """A folder given as --grade-map is the user's mistake (exit 2), not a bug (exit 1)."""
    folder = tmp_path / "map.json"
    folder.mkdir()
    code, out, err = cli(capsys, "evaluate", *tiny, "--grade-map", folder)
    assert "internal error" not in err
    assert (code, out) == (2, "")
    assert_one_line_error(err, "map.json")


# -- -o FILE -----------------------------------------------------------------------------
def test_output_file_holds_what_stdout_would(capsys, tmp_path):
    target = tmp_path / "out" / "results.json"
    target.parent.mkdir()
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", "json", "-o", target,
                         "--quiet")
    assert (code, out, err) == (0, "", "")
    code, stdout_form, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", "json")
    assert target.read_text(encoding="utf-8") == stdout_form
    assert os.listdir(target.parent) == ["results.json"]  # no temporary file left


def test_output_file_relative_to_the_working_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "--format", "csv", "-o", "r.csv")
    assert (code, out) == (0, "")
    assert parse_csv((tmp_path / "r.csv").read_text())[0]["measure"] == "ap"
    assert os.listdir(tmp_path) == ["r.csv"]


def test_output_dash_is_stdout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli(capsys, "evaluate", QRELS, BM25, "-m", "ap", "--format", "csv", "-o", "-")
    assert code == 0
    assert parse_csv(out)[0]["measure"] == "ap"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("existing", [False, True])
def test_failed_evaluation_writes_no_output(capsys, tmp_path, existing):
    folder = tmp_path / "results"
    folder.mkdir()
    target = folder / "results.json"
    if existing:
        target.write_text("the old results\n")
    broken = write(tmp_path / "broken.run", "1 Q0 184 1 11.2 t\n1 Q0 486 2 ten t\n")
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, broken, "--format", "json", "-o", target)
    assert (code, out) == (2, "")
    assert_one_line_error(err, "broken.run", "line 2", "'ten'")
    if existing:
        assert target.read_text() == "the old results\n"
        assert os.listdir(folder) == ["results.json"]
    else:
        assert os.listdir(folder) == []  # neither the output nor a temporary file


def test_output_into_a_missing_folder(capsys, tiny, tmp_path):
    target = tmp_path / "nowhere" / "out.json"
    code, out, err = cli(capsys, "evaluate", *tiny, "-o", target)
    assert (code, out) == (2, "")
    assert_one_line_error(err, str(target.parent), "does not exist")
    assert not target.parent.exists()


def test_output_onto_a_directory(capsys, tiny, tmp_path):
    code, out, err = cli(capsys, "evaluate", *tiny, "-o", tmp_path)
    assert (code, out) == (2, "")
    assert_one_line_error(err, "directory")


# -- several runs ------------------------------------------------------------------------
def test_same_run_twice_is_refused(capsys, tmp_path, monkeypatch):
    link = tmp_path / "alias.run"
    link.symlink_to(BM25)
    monkeypatch.chdir(CRANFIELD)
    for second in ("bm25.run", "./bm25.run", str(BM25), str(link)):
        code, out, err = cli(capsys, "evaluate", "qrels.txt", "bm25.run", second)
        assert (code, out) == (2, ""), second
        assert_one_line_error(err, second, "twice")


def test_runs_with_the_same_file_name_keep_distinct_names(capsys, tmp_path, cran_qrels):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = tmp_path / "a" / "system.run"
    second = tmp_path / "b" / "system.run"
    first.write_bytes(BM25.read_bytes())
    second.write_bytes(RUNS["tfidf"].read_bytes())
    code, out, _ = cli(capsys, "evaluate", QRELS, first, second, "-m", "ap", "--format", "json")
    assert code == 0
    runs = json.loads(out)["runs"]
    assert list(runs) == [str(first), str(second)]
    assert runs[str(first)]["mean"]["ap"] == evaluate(cran_qrels, Run.read_trec(BM25), "ap").mean("ap")
    assert runs[str(second)]["mean"]["ap"] == evaluate(cran_qrels, Run.read_trec(RUNS["tfidf"]), "ap").mean("ap")


# -- explain -----------------------------------------------------------------------------
RANK_ROW = re.compile(
    r"\s*(?P<rank>\d+)\s+(?P<doc>\S+)\s+(?P<score>\S+)\s+(?P<tie>\d+(?: \(of \d+\))?)\s+"
    r"(?P<grade>unjudged|-?\d+)\s+(?P<gain>\S+)\s+(?P<discount>[0-9.]+)\s+(?P<contribution>[0-9.]+)\s+"
    r"(?P<cumulative>[0-9.]+)")
IDEAL_ROW = re.compile(
    r"\s*(?P<rank>\d+)\s+(?P<doc>\S+)\s+(?P<grade>-?\d+)\s+(?P<gain>\S+)\s+(?P<discount>[0-9.]+)\s+"
    r"(?P<contribution>[0-9.]+)\s+(?P<cumulative>[0-9.]+)")
RATIO = re.compile(r"DCG (?P<dcg>[0-9.]+) / ideal DCG (?P<ideal>[0-9.]+) = (?P<z>[0-9.]+)")


def parse_explain(out: str) -> dict:
    lines = out.splitlines()
    ranking_at = lines.index("ranking")
    ideal_at = lines.index("ideal ranking")
    assert lines[ranking_at + 1].split() == ["rank", "doc", "score", "tie", "group", "grade", "gain",
                                             "discount", "contribution", "cumulative", "DCG"]
    assert lines[ideal_at + 1].split() == ["rank", "doc", "grade", "gain", "discount", "contribution",
                                           "cumulative", "DCG"]
    ranking = [RANK_ROW.fullmatch(line).groupdict() for line in lines[ranking_at + 2:ideal_at]
               if RANK_ROW.fullmatch(line)]
    ideal = [IDEAL_ROW.fullmatch(line).groupdict() for line in lines[ideal_at + 2:]
             if IDEAL_ROW.fullmatch(line)]
    ratio = [RATIO.fullmatch(line) for line in lines if RATIO.fullmatch(line)]
    assert len(ratio) == 1, out
    policies = []
    if "policies that changed this value:" in lines:
        at = lines.index("policies that changed this value:")
        policies = [line.strip()[2:] for line in lines[at + 1:] if line.startswith("  - ")]
    below = [line for line in lines if line.startswith("... ")]
    return {"ranking": ranking, "ideal": ideal, "dcg": ratio[0]["dcg"], "ideal_dcg": ratio[0]["ideal"],
            "z": ratio[0]["z"], "policies": policies, "below": below, "lines": lines}


def test_explain_cranfield_query_1(capsys, cran_qrels):
    code, out, err = cli(capsys, "explain", QRELS, BM25, "--query", "1", "-m", "ndcg@10")
    assert (code, err) == (0, "")
    e = parse_explain(out)
    assert e["lines"][0] == f"query 1, ndcg@10; protocol fingerprint {Protocol().fingerprint}"

    # The ranking: bm25's top 10 for query 1, by score, with grades from qrels.txt.
    grades = {row[2]: int(row[3]) for row in read_trec_lines(QRELS) if row[0] == "1"}
    ranked = sorted(((-float(r[4]), r[2]) for r in read_trec_lines(BM25) if r[0] == "1"))
    assert [row["doc"] for row in e["ranking"]] == [doc for _, doc in ranked[:10]]
    assert [row["rank"] for row in e["ranking"]] == [str(i) for i in range(1, 11)]
    cumulative = 0.0
    for i, row in enumerate(e["ranking"], 1):
        grade = grades.get(row["doc"])
        assert row["grade"] == ("unjudged" if grade is None else str(grade))
        assert float(row["score"]) == pytest.approx(-ranked[i - 1][0], rel=1e-5)
        assert row["tie"] == str(i)  # no ties in query 1's top 10
        discount = 1 / math.log2(i + 1)
        contribution = (grade or 0) * discount
        cumulative += contribution
        assert row["discount"] == f"{discount:.4f}"
        assert row["contribution"] == f"{contribution:.4f}"
        assert row["cumulative"] == f"{cumulative:.4f}"
    assert e["dcg"] == f"{cumulative:.4f}"

    # The ideal list: the judged grades, best first.
    best = sorted(grades.values(), reverse=True)[:10]
    assert [int(row["grade"]) for row in e["ideal"]] == best
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(best))
    assert e["ideal_dcg"] == f"{ideal:.4f}"

    value = evaluate(cran_qrels, Run.read_trec(BM25), "ndcg@10").per_query("ndcg@10")["1"]
    assert e["z"] == f"{value:.4f}" == f"{cumulative / ideal:.4f}"
    assert f"ndcg@10 = {value:.4f}" in e["lines"]
    unjudged = sum(row["grade"] == "unjudged" for row in e["ranking"])
    assert unjudged == 4
    assert e["policies"] == ["4 unjudged docs inside the cutoff scored as non-relevant (unjudged=zero)"]
    assert e["below"] and "40 more docs below the cutoff 10" in e["below"][0]


@pytest.mark.parametrize("name", list(RUNS))
@pytest.mark.parametrize("query", ["1", "2", "100", "225"])
def test_explain_ratio_is_the_library_value(capsys, cran_qrels, name, query):
    code, out, _ = cli(capsys, "explain", QRELS, RUNS[name], "-q", query, "-m", "ndcg@10")
    assert code == 0
    value = evaluate(cran_qrels, Run.read_trec(RUNS[name]), "ndcg@10").per_query("ndcg@10")[query]
    assert parse_explain(out)["z"] == f"{value:.4f}"


# A hand-made query with ties. Judged pool of q1: D 3, A 2, G 1, B 1, C 0.
# The run scores A, G at 5 (a tied group at ranks 1-2), C, E, B at 2 (a tied group
# at ranks 3-5, crossing the cutoff 4; E is unjudged), F at 1 (rank 6, unjudged).
TIES_QRELS = "q1 0 A 2\nq1 0 B 1\nq1 0 C 0\nq1 0 D 3\nq1 0 G 1\nq2 0 X 1\n"
TIES_RUN = ("q1 Q0 A 1 5 t\nq1 Q0 G 2 5 t\nq1 Q0 C 3 2 t\nq1 Q0 E 4 2 t\nq1 Q0 B 5 2 t\n"
            "q1 Q0 F 6 1 t\nq2 Q0 X 1 1 t\n")


def d(rank: int) -> float:
    return 1 / math.log2(rank + 1)


# ties=expected: each doc of a tied group gets the mean discount of the ranks the
# group spans inside the cutoff, divided over all its docs.
G1 = (d(1) + d(2)) / 2  # A, G: 0.8155
G2 = (d(3) + d(4)) / 3  # C, E, B: ranks 3 and 4 inside the cutoff, rank 5 outside: 0.3102
TIES_EXPECTED = {  # doc: (grade, discount, contribution)
    "A": ("2", G1, 2 * G1), "G": ("1", G1, G1),
    "C": ("0", G2, 0.0), "E": ("unjudged", G2, 0.0), "B": ("1", G2, G2),
}
TIES_DCG = 3 * G1 + G2                       # 2.7566
TIES_IDEAL = 3 * d(1) + 2 * d(2) + 1 * d(3) + 1 * d(4)  # D, A, then G and B: 5.1925


@pytest.fixture
def ties(tmp_path):
    return write(tmp_path / "ties.qrels", TIES_QRELS), write(tmp_path / "ties.run", TIES_RUN)


def test_explain_ties_expected_by_hand(capsys, ties):
    code, out, err = cli(capsys, "explain", *ties, "-q", "q1", "-m", "ndcg@4")
    assert (code, err) == (0, "")
    e = parse_explain(out)
    shown = {row["doc"]: row for row in e["ranking"]}
    for doc, row in shown.items():
        grade, discount, contribution = TIES_EXPECTED[doc]
        assert (row["grade"], row["discount"], row["contribution"]) \
            == (grade, f"{discount:.4f}", f"{contribution:.4f}"), doc
    assert shown["A"]["tie"] == shown["G"]["tie"] == "1 (of 2)"
    assert shown["C"]["tie"] == "2 (of 3)"
    assert [row["doc"] for row in e["ideal"]] == ["D", "A", "B", "G"]
    assert [row["contribution"] for row in e["ideal"]] == [f"{x:.4f}" for x in (3 * d(1), 2 * d(2), d(3), d(4))]
    assert (e["dcg"], e["ideal_dcg"], e["z"]) == (f"{TIES_DCG:.4f}", f"{TIES_IDEAL:.4f}",
                                                  f"{TIES_DCG / TIES_IDEAL:.4f}")
    value = library(*ties, "ndcg@4").per_query("ndcg@4")["q1"]
    assert value == pytest.approx(TIES_DCG / TIES_IDEAL, abs=1e-12)
    assert any("tied groups averaged over their orders (ties=expected), 1 crossing the cutoff 4" in p
               for p in e["policies"])


def test_explain_ranking_table_adds_up_to_the_dcg_it_prints(capsys, ties):
    """Every doc that contributes to DCG must be in the ranking table, so the
    table's contributions add up to the "DCG x" line under it.

    B (grade 1) is the last doc of the tied group C, E, B that crosses the
    cutoff 4; under ties=expected it contributes 1 x 0.3102 to DCG@4. The table
    stops at rank 4 and lists B "below the cutoff" as if it contributed nothing,
    so the cumulative DCG column ends at 2.4464 while the line under it says
    DCG 2.7566.
    """
    code, out, _ = cli(capsys, "explain", *ties, "-q", "q1", "-m", "ndcg@4")
    assert code == 0
    e = parse_explain(out)
    assert e["dcg"] == f"{TIES_DCG:.4f}"
    assert "B" in [row["doc"] for row in e["ranking"]], out
    assert e["ranking"][-1]["cumulative"] == e["dcg"], out


def test_explain_policies_do_not_depend_on_the_input_order_of_tied_docs(capsys, tmp_path):
    """Under ties=expected the value does not depend on the order tied docs are
    written in; neither may the list of policies that changed the query.

    The unjudged doc E is in the tied group (ranks 3-5) that crosses the cutoff
    4, so it lands inside the top 4 in 2 of 3 orders and is scored non-relevant
    there; `evaluate` counts it (unjudged_in_cutoff ndcg@4 = 1) for both files.
    explain names it only when E happens to be written before rank 5.
    """
    qrels = write(tmp_path / "q.qrels", TIES_QRELS)
    outputs = {}
    for order in ("CEB", "CBE"):
        lines = {"C": "q1 Q0 C 3 2 t\n", "E": "q1 Q0 E 4 2 t\n", "B": "q1 Q0 B 5 2 t\n"}
        run = write(tmp_path / f"{order}.run", "q1 Q0 A 1 5 t\nq1 Q0 G 2 5 t\n"
                    + "".join(lines[doc] for doc in order) + "q1 Q0 F 6 1 t\nq2 Q0 X 1 1 t\n")
        results = library(qrels, run, "ndcg@4")
        assert results.counts["unjudged_in_cutoff"] == {"ndcg@4": 1}
        assert results.per_query("ndcg@4")["q1"] == pytest.approx(TIES_DCG / TIES_IDEAL, abs=1e-12)
        code, out, _ = cli(capsys, "explain", qrels, run, "-q", "q1", "-m", "ndcg@4")
        assert code == 0
        outputs[order] = parse_explain(out)
    assert outputs["CEB"]["z"] == outputs["CBE"]["z"]
    assert any("unjudged" in p for p in outputs["CEB"]["policies"])
    assert outputs["CBE"]["policies"] == outputs["CEB"]["policies"]


def test_explain_ties_docid_by_hand(capsys, ties):
    # trec_eval's order: score descending, then doc id descending: G A | E C B | F.
    code, out, _ = cli(capsys, "explain", *ties, "-q", "q1", "-m", "ndcg@4", "--policy", "ties=docid")
    assert code == 0
    e = parse_explain(out)
    assert [row["doc"] for row in e["ranking"]] == ["G", "A", "E", "C"]
    assert [row["discount"] for row in e["ranking"]] == [f"{d(i):.4f}" for i in range(1, 5)]
    dcg = 1 * d(1) + 2 * d(2)
    assert (e["dcg"], e["z"]) == (f"{dcg:.4f}", f"{dcg / TIES_IDEAL:.4f}")
    assert "B (grade 1) at rank 5" in e["below"][0]
    assert e["lines"][0].endswith(Protocol(ties="docid").fingerprint)
    assert any("ties=docid" in p for p in e["policies"])


@pytest.mark.parametrize("query, needle", [("q9", "not judged"), ("q3", "no ranking")])
def test_explain_unknown_query(capsys, tmp_path, query, needle):
    qrels = write(tmp_path / "q.qrels", "q1 0 A 1\nq3 0 B 1\n")
    run = write(tmp_path / "r.run", "q1 Q0 A 1 1 t\n")
    code, out, err = cli(capsys, "explain", qrels, run, "--query", query)
    assert (code, out) == (2, "")
    assert_one_line_error(err, f"query {query}", needle, fix=False)


# -- measures, protocol, demo ------------------------------------------------------------
def test_measures_lists_every_registered_measure(capsys):
    code, out, err = cli(capsys, "measures")
    assert (code, err) == (0, "")
    listed = {line.split()[0].split("@")[0] for line in out.splitlines() if line and not line.startswith(" ")}
    assert set(REGISTRY) <= listed
    for name, spec in REGISTRY.items():
        assert re.search(rf"^{re.escape(name)}{'@k' if spec.cutoff else ''}\s", out, re.M), name


def test_protocol_trec_eval(capsys):
    code, out, err = cli(capsys, "protocol", "--preset", "trec_eval")
    assert (code, err) == (0, "")
    protocol = Protocol.preset("trec_eval")
    assert re.search(r"^\s+ties\s+docid\b", out, re.M)
    assert fingerprint_of(out) == protocol.fingerprint
    assert re.search(r"^text\s+(.*)$", out, re.M).group(1) == str(protocol)
    for name, value in protocol.to_dict().items():
        assert re.search(rf"^\s+{name}\s+{re.escape(str(value))}\b", out, re.M), name


def test_protocol_with_a_policy(capsys):
    code, out, _ = cli(capsys, "protocol", "--policy", "gain=exp2")
    assert code == 0
    assert fingerprint_of(out) == Protocol(gain="exp2").fingerprint


def test_demo(capsys, cran_qrels):
    code, out, err = cli(capsys, "demo")
    assert (code, err) == (0, "")
    for name, path in RUNS.items():
        results = evaluate(cran_qrels, Run.read_trec(path), DEFAULT_MEASURES)
        row = [line.split() for line in out.splitlines() if line.startswith(f"{name} ")]
        assert row == [[name, *(f"{results.mean(m):.4f}" for m in DEFAULT_MEASURES), "225"]]
    bm25 = Run.read_trec(BM25)
    for label, protocol in [("ideal=retrieved", Protocol(ideal="retrieved")), ("gain=exp2", Protocol(gain="exp2")),
                            ("unjudged=condense", Protocol(unjudged="condense")),
                            ("ties=docid", Protocol(ties="docid"))]:
        line = next(line for line in out.splitlines() if line.strip().startswith(label))
        value = evaluate(cran_qrels, bm25, "ndcg@10", protocol).mean("ndcg@10")
        assert f" {value:.4f} " in line and line.endswith(protocol.fingerprint), line
    assert "query 1, ndcg@10; protocol fingerprint" in out
    explain_block = parse_explain(out[out.index("query 1, ndcg@10"):])
    value = evaluate(cran_qrels, bm25, "ndcg@10").per_query("ndcg@10")["1"]
    assert explain_block["z"] == f"{value:.4f}"


# -- bad input: exit 2, one line on stderr -----------------------------------------------
GOOD_QRELS = "q1 0 A 1\nq1 0 B 0\nq2 0 C 2\n"
GOOD_RUN = "q1 Q0 A 1 2.0 t\nq1 Q0 B 2 1.0 t\nq2 Q0 C 1 3.0 t\n"

# (id, which file is bad, its bytes, what the message must name)
BAD_FILES = [
    ("empty qrels", "qrels", b"", ("bad.qrels", "no judgments")),
    ("empty run", "run", b"", ("bad.run", "no ranked documents")),
    ("comments only", "run", b"# nothing\n\n", ("bad.run", "no ranked documents")),
    ("binary qrels", "qrels", b"q1 0 A 1\nq1 0 B\x00 0\n", ("bad.qrels", "line 2", "NUL")),
    ("binary run", "run", b"\x00\x01\x02\x03", ("bad.run", "line 1", "binary")),
    ("non-UTF-8 qrels", "qrels", b"q1 0 A 1\nq1 0 caf\xe9 1\n", ("bad.qrels", "line 2", "UTF-8")),
    ("non-UTF-8 run", "run", b"q1 Q0 A 1 2.0 t\nq1 Q0 \xff 2 1.0 t\n", ("bad.run", "line 2", "UTF-8")),
    ("UTF-16 run", "run", "q1 Q0 A 1 2.0 t\n".encode("utf-16"), ("bad.run", "UTF")),
    ("qrels line with too few columns", "qrels", b"q1 0 A 1\nq1 0 B\n", ("bad.qrels", "line 2", "columns")),
    ("run line with too few columns", "run", b"q1 Q0 A 1 2.0 t\nq1 Q0 B 2 1.0\n",
     ("bad.run", "line 2", "columns")),
    ("swapped files", "run", b"q1 0 A 1\n", ("bad.run", "line 1", "swapped")),
    ("non-numeric score", "run", b"q1 Q0 A 1 2.0 t\nq1 Q0 B 2 high t\n",
     ("bad.run", "line 2", "query q1", "doc B", "'high'")),
    ("NaN score", "run", b"q1 Q0 A 1 nan t\n", ("bad.run", "line 1", "NaN")),
    ("fractional grade", "qrels", b"q1 0 A 1\nq1 0 B 0.5\n", ("bad.qrels", "line 2", "doc B", "'0.5'")),
    ("non-integer grade", "qrels", b"q1 0 A 1\nq1 0 B rel\n", ("bad.qrels", "line 2", "doc B", "'rel'")),
    ("duplicate doc in a run", "run", b"q1 Q0 A 1 2.0 t\nq1 Q0 B 2 1.0 t\nq1 Q0 A 3 0.5 t\n",
     ("bad.run", "line 3", "query q1", "doc A", "twice", "duplicates")),
    ("duplicate judgment", "qrels", b"q1 0 A 1\nq1 0 A 0\n", ("bad.qrels", "query q1", "doc A", "twice")),
]


@pytest.mark.parametrize("which, data, needles", [case[1:] for case in BAD_FILES],
                         ids=[case[0] for case in BAD_FILES])
def test_bad_files(capsys, tmp_path, which, data, needles):
    qrels = write(tmp_path / "good.qrels", GOOD_QRELS)
    run = write(tmp_path / "good.run", GOOD_RUN)
    bad = tmp_path / f"bad.{which}"
    bad.write_bytes(data)
    args = ["evaluate", bad, run] if which == "qrels" else ["evaluate", qrels, bad]
    code, out, err = cli(capsys, *args)
    assert (code, out) == (2, "")
    assert_one_line_error(err, *needles)


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_missing_file(capsys, tiny, tmp_path, which):
    missing = tmp_path / "absent.txt"
    args = ["evaluate", missing, tiny[1]] if which == "qrels" else ["evaluate", tiny[0], missing]
    code, out, err = cli(capsys, *args)
    assert (code, out) == (2, "")
    assert_one_line_error(err, str(missing), "does not exist")


@pytest.mark.parametrize("threaded", [False, True])
def test_a_bad_qrels_file_is_reported_before_a_bad_run(capsys, tmp_path, monkeypatch, threaded):
    # Large inputs: the qrels are read in a second thread beside the first run;
    # which error is shown must not depend on which thread finishes first.
    # Small ones are read one after the other: the same error.
    if threaded:
        monkeypatch.setattr("rankproof.cli.inputs.THREAD_BYTES", 0)
    qrels = write(tmp_path / "bad.qrels", "q1 0 A one\n")
    run = write(tmp_path / "bad.run", "q1 Q0 A 1 high t\n")
    code, out, err = cli(capsys, "evaluate", qrels, run)
    assert (code, out) == (2, "")
    assert_one_line_error(err, str(qrels), "line 1", "grade 'one'")


def test_input_that_is_a_directory(capsys, tiny, tmp_path):
    code, out, err = cli(capsys, "evaluate", tiny[0], tmp_path)
    assert (code, out) == (2, "")
    assert_one_line_error(err, str(tmp_path), "directory")


def test_two_unknown_measures_in_one_line(capsys, tiny):
    code, out, err = cli(capsys, "evaluate", *tiny, "-m", "ndgc@10", "-m", "ndcg@5", "-m", "mapp")
    assert (code, out) == (2, "")
    message = assert_one_line_error(err, "'ndgc'", "'mapp'")
    assert re.search(r"'ndgc'[^;]*did you mean[^;]*\bndcg\b", message), message
    assert re.search(r"'mapp'[^;]*did you mean[^;]*\bap\b", message), message


def test_unknown_measure_is_reported_before_reading_files(capsys, tmp_path):
    code, out, err = cli(capsys, "evaluate", tmp_path / "absent.qrels", tmp_path / "absent.run", "-m", "ndcgg")
    assert (code, out) == (2, "")
    assert_one_line_error(err, "'ndcgg'")


@pytest.mark.parametrize("policy, needles", [
    ("tie=docid", ("'tie'", "ties")),
    ("foo=bar", ("'foo'", "ties")),
    ("ties=sometimes", ("ties", "'sometimes'", "expected", "docid")),
    ("gain=cubic", ("gain", "cubic")),
    ("ties", ("'ties'", "key=value")),
    ("=docid", ("key=value",)),
])
def test_bad_policies(capsys, tiny, policy, needles):
    code, out, err = cli(capsys, "evaluate", *tiny, "--policy", policy)
    assert (code, out) == (2, "")
    assert_one_line_error(err, *needles)


def test_unknown_preset(capsys, tiny):
    code, out, err = cli(capsys, "evaluate", *tiny, "--preset", "trec-eval")
    assert (code, out) == (2, "")
    assert_one_line_error(err, "'trec-eval'", "trec_eval")


@pytest.mark.parametrize("args, needle", [
    ([], "command"),
    (["evaluate"], "qrels"),
    (["evaluate", "q.txt"], "run"),
    (["explain", "q.txt", "r.run"], "--query"),
    (["evaluate", "q.txt", "r.run", "--format", "xml"], "xml"),
    (["evaluate", "q.txt", "r.run", "-m"], "-m"),
    (["frobnicate"], "frobnicate"),
])
def test_usage_errors(capsys, args, needle):
    code, out, err = cli(capsys, *args)
    assert (code, out) == (2, "")
    message = assert_one_line_error(err, needle)
    assert "usage:" not in message


# -- real processes ----------------------------------------------------------------------
def process(*args, cwd=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RANKPROOF_DEBUG"}
    return subprocess.run([sys.executable, "-m", "rankproof.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300)


def console_script() -> Path:
    script = Path(sys.executable).with_name("rankproof")
    if not script.exists():
        pytest.skip("no rankproof console script next to the interpreter")
    return script


def test_process_json(cran_qrels):
    done = process("evaluate", QRELS, BM25, "-m", "ndcg@10", "--format", "json", "--quiet")
    assert (done.returncode, done.stderr) == (0, "")
    results = evaluate(cran_qrels, Run.read_trec(BM25), "ndcg@10")
    assert json.loads(done.stdout)["runs"]["bm25.run"]["mean"]["ndcg@10"] == results.mean("ndcg@10")


def test_console_script_table_and_demo():
    script = console_script()
    done = subprocess.run([script, "evaluate", QRELS, BM25, "-m", "ndcg@10"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and notes_only(done.stderr)
    assert "0.3408" in done.stdout and "fingerprint" in done.stdout
    done = subprocess.run([script, "demo"], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")
    assert all(name in done.stdout for name in RUNS)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["missing", "binary", "score", "measures", "usage", "output", "twice"])
def test_process_bad_input_exits_2_with_one_line(tmp_path, case):
    qrels = write(tmp_path / "q.qrels", GOOD_QRELS)
    run = write(tmp_path / "r.run", GOOD_RUN)
    (tmp_path / "bin.run").write_bytes(b"\x00\xff\x00")
    write(tmp_path / "score.run", "q1 Q0 A 1 x t\n")
    args, needles = {
        "missing": (["evaluate", qrels, tmp_path / "absent.run"], ["absent.run"]),
        "binary": (["evaluate", qrels, tmp_path / "bin.run"], ["bin.run", "line 1"]),
        "score": (["evaluate", qrels, tmp_path / "score.run"], ["score.run", "line 1", "'x'"]),
        "measures": (["evaluate", qrels, run, "-m", "ndgc@10", "-m", "mapp"], ["'ndgc'", "'mapp'"]),
        "usage": (["evaluate", qrels], ["required"]),
        "output": (["evaluate", qrels, run, "-o", tmp_path / "no" / "out.txt"], ["does not exist"]),
        "twice": (["evaluate", qrels, run, run], ["twice"]),
    }[case]
    for done in (process(*args), subprocess.run([console_script(), *map(str, args)], capture_output=True,
                                                 text=True, timeout=300)):
        assert done.returncode == 2
        assert done.stdout == ""
        assert_one_line_error(done.stderr, *needles)
    assert sorted(os.listdir(tmp_path)) == ["bin.run", "q.qrels", "r.run", "score.run"]


def test_progress_display_never_reaches_pipes(tmp_path, capsys, monkeypatch):
    """Even an input counted as large shows no progress when stderr is not a terminal."""
    import rankproof.cli.app as cli
    import rankproof.cli.large as large

    monkeypatch.setattr(large, "LARGE_INPUT_BYTES", 0)
    data = Path(cli.__file__).resolve().parents[1] / "_data" / "cranfield"
    code = cli.main(["evaluate", str(data / "qrels.txt"), str(data / "bm25.run"), "-m", "ndcg@10",
                     "--format", "json", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err == ""
    json.loads(captured.out)


def test_allocator_settings_leave_the_values_unchanged(tmp_path):
    # The command line keeps freed memory for large inputs (glibc's mallopt);
    # in a process of its own, the settings must not change any value.
    code = (
        "import json, sys\n"
        "from rankproof.cli.app import main\n"
        "from rankproof.cli.large import keep_freed_memory\n"
        "keep_freed_memory()\n"
        f"sys.exit(main(['evaluate', {str(QRELS)!r}, {str(BM25)!r}, '--format', 'json', '-o', {str(tmp_path / 'a.json')!r}]))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    tuned = json.loads((tmp_path / "a.json").read_text())
    expected = library(QRELS, BM25, DEFAULT_MEASURES)
    for measure in DEFAULT_MEASURES:
        assert tuned["runs"]["bm25.run"]["mean"][measure] == expected.mean(measure)


@pytest.mark.parametrize("text, listed", [("gini", {"gini"}), ("auc", {"auc", "gauc", "pooled_auc"}),
                                          ("ndcg", {"ips_ndcg"})])
def test_measures_filter_finds_side_data_measures(capsys, text, listed):
    from rankproof.recsys.registry import SIDE_REGISTRY

    code, out, err = cli(capsys, "measures", text)
    assert (code, err) == (0, "")
    side = out.split("measures that need side data")[1] if "measures that need side data" in out else ""
    found = {line.split()[0].split("(")[0].split("@")[0] for line in side.splitlines()[1:] if line.startswith("  ")
             and not line.startswith("      ")}
    assert found == listed and listed <= set(SIDE_REGISTRY)
