"""The partial-match guard and the all-tied run on the command line (issue 28): one line, the cause and the fix.

Cranfield's bm25.run altered in tmp_path: query ids zero-padded, columns
swapped, doc ids with a ``#chunk`` suffix, every score equal.
"""

from __future__ import annotations

from pathlib import Path

from rankproof.cli.app import main

from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"
BM25 = CRANFIELD / "bm25.run"


def altered(tmp_path: Path, name: str, change) -> Path:
    path = tmp_path / name
    path.write_text("".join(" ".join(change(*line.split())) + "\n" for line in BM25.read_text().splitlines()))
    return path


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused(capsys, *args) -> str:
    code, out, err = cli(capsys, *args)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def warnings_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": warning: " in line]


def test_zero_padded_query_ids_are_refused_in_one_line_naming_the_fix(tmp_path, capsys):
    run = altered(tmp_path, "padded.run", lambda q, z, d, r, s, t: (f"{int(q):03d}", z, d, r, s, t))
    err = refused(capsys, "evaluate", QRELS, run, "-m", "ndcg@10")
    assert "zero padding" in err and "--policy ids=strip_zeros" in err and "--allow-partial" in err
    code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10", "--policy", "ids=strip_zeros")
    assert code == 0 and "0.3408" in out and "ids=strip_zeros" in out  # the unaltered run's value; the protocol says it
    assert "ids changed by the ids policy: 99" in err and "zero padding" not in err
    code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10", "--allow-partial")
    assert code == 0 and "0.2032" in out
    assert any("query ids differ by zero padding" in line and "ids=strip_zeros" in line for line in warnings_of(err))


def test_swapped_columns_are_refused_in_one_line(tmp_path, capsys):
    run = altered(tmp_path, "swapped.run", lambda q, z, d, r, s, t: (d, z, q, r, s, t))
    err = refused(capsys, "evaluate", QRELS, run, "-m", "ndcg@10")
    assert "columns look swapped" in err and "swap the run's query and doc columns" in err


def test_a_chunk_suffix_is_refused_naming_chunk_map(tmp_path, capsys):
    run = altered(tmp_path, "chunked.run", lambda q, z, d, r, s, t: (q, z, d + "#chunk", r, s, t))
    err = refused(capsys, "evaluate", QRELS, run, "-m", "ndcg@10")
    assert "suffix after '#'" in err and "--policy chunk_map=sep:#" in err


def test_a_clean_run_warns_only_of_its_unjudged_docs(capsys):
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "ndcg@10")
    assert code == 0
    assert [line.split(": warning: ")[1][:40] for line in warnings_of(err)] == [
        "1592 unjudged docs inside the top 10 (nd"]


def test_a_run_of_equal_scores_warns_naming_ties_input_and_counts_only_the_slots(tmp_path, capsys):
    run = altered(tmp_path, "tied.run", lambda q, z, d, r, s, t: (q, z, d, r, "1.0", t))
    code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10")
    assert code == 0
    tie = [line for line in warnings_of(err) if "every ranking is one tie" in line]
    assert len(tie) == 1 and "--policy ties=input" in tie[0] and "225 queries" in tie[0]
    # 225 queries, each one tie of 50 docs with at least 10 unjudged: 10 slots each inside the top 10.
    assert "unjudged docs inside the cutoff: ndcg@10 2250;" in err
    code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "ndcg@10", "--policy", "ties=input")
    assert code == 0 and "0.3408" in out and "every ranking is one tie" not in err
