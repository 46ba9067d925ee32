"""``rankproof agree`` and ``rankproof fuse`` read their inputs the one way (cli/inputs.py), and agree's tied systems."""

from __future__ import annotations

import csv
import io
import shutil

from paths import CRANFIELD

from rankproof.cli.app import main

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


def _csv_qrels(tmp_path):
    path = tmp_path / "qrels.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qid", "docno", "rel"])
        for line in QRELS.read_text().split("\n"):
            if line.strip():
                query, _, doc, grade = line.split()
                writer.writerow([query, doc, grade])
    return path


def test_agree_reads_a_csv_qrels_and_stdin(capsys, monkeypatch, tmp_path):
    table = _csv_qrels(tmp_path)
    code, out, err = cli(capsys, "agree", QRELS, table, "--columns", "query=qid,doc=docno,grade=rel")
    assert code == 0, err
    assert "Cohen's kappa 1.0000" in out
    code, out, err = cli(capsys, "agree", QRELS, "-", stdin=QRELS.read_bytes(), monkeypatch=monkeypatch)
    assert code == 0, err
    assert "Cohen's kappa 1.0000" in out


def test_agree_and_fuse_missing_file_is_evaluates_one_line(capsys, tmp_path):
    missing = tmp_path / "absent.run"
    _, _, expected = cli(capsys, "evaluate", QRELS, missing)
    assert expected.count("\n") == 1 and "does not exist" in expected and "Traceback" not in expected
    copy = tmp_path / "copy.qrels"   # a copy: the same path twice is refused before the runs
    shutil.copy(QRELS, copy)
    code, _, err = cli(capsys, "agree", QRELS, copy, missing)
    assert code == 2 and err == expected
    code, _, err = cli(capsys, "fuse", BM25, missing, "--qrels", QRELS, "-o", tmp_path / "fused.run")
    assert code == 2 and err == expected


def test_fuse_reads_a_csv_run_and_refuses_two_stdins(capsys, tmp_path):
    # the format of each run from its extension, as every command
    table = tmp_path / "tfidf.csv"
    rows = [line.split() for line in TFIDF.read_text().split("\n") if line.strip()]
    table.write_text("query,doc,score\n" + "".join(f"{r[0]},{r[2]},{r[4]}\n" for r in rows))
    out_csv, out_trec = tmp_path / "a.run", tmp_path / "b.run"
    code, _, err = cli(capsys, "fuse", BM25, table, "--qrels", QRELS, "--param", "k=60",
                       "-o", out_csv, "--quiet")
    assert code == 0, err
    assert cli(capsys, "fuse", BM25, TFIDF, "--qrels", QRELS, "--param", "k=60", "-o", out_trec, "--quiet")[0] == 0
    assert out_csv.read_text().replace("tfidf.csv", "X") == out_trec.read_text().replace("tfidf.run", "X")
    code, _, err = cli(capsys, "fuse", BM25, "-", "--qrels", "-", "-o", tmp_path / "c.run")
    assert code == 2 and "stdin" in err and err.count("\n") == 1


def test_agree_tied_systems(capsys, tmp_path):
    # two copies of bm25: their means tie under both qrels. tfidf first, then {bm25, copy}:
    # tau_AP_b = 2/2 * (1/1 + 1/1) - 1 = 1 both ways; tau_AP_a needs A without ties: none.
    copy, same = tmp_path / "copy.run", tmp_path / "same.qrels"
    shutil.copy(BM25, copy)
    shutil.copy(QRELS, same)   # the qrels twice (a copy: the same path is refused)
    args = ["agree", QRELS, same, BM25, copy, TFIDF, "--resamples", "20"]
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    assert "tau_AP (A as reference; B's ties averaged, tau_AP_a) nan" in out
    assert "--tau-ap-ties b treats A and B as observers" in out
    code, out, err = cli(capsys, *args, "--tau-ap-ties", "b", "--rbo-ties", "b")
    assert code == 0, err
    assert "tau_AP_b (symmetric; ties in either) 1.0000" in out
    assert "RBO (p=0.9, ties b) ext 1.0000" in out       # RBO^b of a ranking with itself is 1
    # RBO^a: the expected RBO over the tie's two breakings, (tfidf bm25 copy) or (tfidf copy bm25),
    # independently in A and B: X_2 = 1 + 1/2 * 1/2 * 2 = 1.5, so A_2 = 0.75; A_1 = A_3 = 1, and past
    # depth 3 ext extrapolates A_3: (1-p)(1 + 0.9 * 0.75 + 0.81) + 0.9^3 = 0.9775
    code, out, err = cli(capsys, *args, "--rbo-ties", "a")
    assert "RBO (p=0.9, ties a) ext 0.9775" in out
