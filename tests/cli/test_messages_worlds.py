"""Messages that know their world (issue 40): the data's kind decides which advice appears,
the command line prints what ``Results.summary()`` prints, and each reader gets its own
spelling of the options a message names (flags on the command line, parameters in Python).

Expected values are worked by hand from the small files below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankproof import Qrels, Run, evaluate, evaluate_frame, rag_inputs
from rankproof.cli.app import main
from rankproof.errors import CoverageError, ParseError
from rankproof.errors.messages import CLI, OPTIONS, PYTHON, spell, swap_hint

TRUTH = "user,item,rating\n1,10,5\n1,13,3\n1,14,1\n2,20,4\n2,22,2\n3,30,1\n"
PREDICTIONS = "user,item,score\n1,10,0.9\n1,11,0.8\n1,13,0.7\n2,21,0.6\n2,20,0.5\n3,31,0.4\n"
LOG_COLUMNS = ["--columns", "query=user,doc=item,grade=rating,score=score"]
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
RUN = "1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n2 Q0 c 1 5 r\n"
TREC_ADVICE = "unjudged is not non-relevant"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- the world decides the advice ---------------------------------------------------------------
def test_a_recommender_log_run_prints_no_trec_advice_and_the_python_notes(tmp_path, capsys):
    truth, predictions = write(tmp_path, "truth.csv", TRUTH), write(tmp_path, "preds.csv", PREDICTIONS)
    code, out, err = cli(capsys, "evaluate", truth, predictions, "-m", "ndcg@10", "-m", "r@10", *LOG_COLUMNS)
    assert code == 0
    assert TREC_ADVICE not in err and "unjudged=condense" not in err
    # What evaluate_frame's summary states, on the command line too: the truth is complete, and
    # ratings 1 to 5 all count as relevant under rel=1 (the upper half of 1..5 starts at 4).
    assert "note: truth: an item absent from a user's truth is non-relevant" in err
    assert "rel=1: every judged grade (1 to 5 here, none 0) counts as relevant for r@10" in err
    assert "give e.g. --policy rel=4 or -m 'r(rel=4)@10'" in err
    assert "Protocol(" not in err
    # The same run through Python: the same notes, in Python's spelling.
    summary = evaluate_frame(truth, predictions, ["ndcg@10", "r@10"]).summary()
    assert TREC_ADVICE not in summary
    assert "note truth: an item absent from a user's truth is non-relevant" in summary
    assert "set e.g. Protocol(rel=4) or r(rel=4)@10" in summary and "--policy" not in summary


def test_trec_data_keeps_its_advice_in_each_spelling(tmp_path, capsys):
    qrels, run = write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)
    code, _, err = cli(capsys, "evaluate", qrels, run, "-m", "p@2")
    assert code == 0
    # Query 1 ranks x (unjudged) first: 1 unjudged doc inside the top 2.
    assert ("warning: 1 unjudged docs inside the top 2 (p@2) count as non-relevant; unjudged is not "
            "non-relevant (check -m judged@2, or compare with --policy unjudged=condense)") in err
    summary = evaluate(Qrels.read_trec(qrels), Run.read_trec(run), "p@2").summary()
    assert ("warning: 1 unjudged docs inside the top 2 (p@2) count as non-relevant; unjudged is not "
            "non-relevant (check judged@2, or compare with Protocol(unjudged='condense'))") in summary


def test_rag_rows_are_a_complete_truth(tmp_path, capsys):
    rows = [{"query_id": "q1", "retrieved": ["a", "x", "b"], "relevant": ["a", "b"]}]
    path = write(tmp_path, "rows.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    code, _, err = cli(capsys, "rag", path, "-m", "p@2")
    assert code == 0
    assert "note: reference ids: an id absent from a row's reference ids is non-relevant" in err
    assert TREC_ADVICE not in err


# -- one message table, two spellings -------------------------------------------------------------
def test_a_coverage_refusal_names_flags_on_the_cli_and_parameters_in_python(tmp_path, capsys):
    qrels = write(tmp_path, "qrels.txt", QRELS)
    run = write(tmp_path, "other.txt", "9 Q0 a 1 1 r\n")
    code, out, err = cli(capsys, "evaluate", qrels, run)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "pass --allow-partial to evaluate it anyway" in err and "allow_partial" not in err
    with pytest.raises(CoverageError) as raised:
        evaluate(Qrels.read_trec(qrels), Run.read_trec(run), "ndcg@10")
    assert "pass allow_partial=True to evaluate it anyway" in str(raised.value)
    assert "--allow-partial" not in str(raised.value)


def test_every_option_has_both_spellings_and_neither_borrows_the_other():
    for key, (python, command_line) in OPTIONS.items():
        assert python and command_line, key
        assert "--" not in python, key       # a flag in Python's advice
        assert "=True" not in command_line and "Protocol(" not in command_line, key
    assert spell("{do[chunk_sep=_]}", CLI) == "give --chunk-map sep:_"
    assert spell("{do[chunk_sep=_]}", PYTHON) == "set chunk_map='sep:_'"


def test_results_bounds_refusal_is_spelled_for_python():
    results = evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["a"]}), "ndcg@10")
    with pytest.raises(Exception) as raised:
        results.bounds("ndcg@10")
    assert str(raised.value).endswith("evaluate with bounds=True")


# -- judgments and rankings swapped ----------------------------------------------------------------
def test_swapped_csv_files_get_the_swap_hint_not_a_column_to_name(tmp_path, capsys):
    truth, predictions = write(tmp_path, "truth.csv", TRUTH), write(tmp_path, "preds.csv", PREDICTIONS)
    code, _, err = cli(capsys, "evaluate", predictions, truth, "-m", "ndcg@10", *LOG_COLUMNS)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "its columns look like rankings (a score column, 'score'), not judgments" in err
    assert "give the judgments first: rankproof evaluate QRELS RUN" in err
    assert "--columns grade=" not in err   # the advice that would read scores as grades
    with pytest.raises(ParseError) as raised:
        evaluate_frame(predictions, truth, ["ndcg@10"])
    assert "evaluate_frame(truth, predictions)" in str(raised.value)
    assert "rankproof evaluate" not in str(raised.value)


def test_swap_hint_only_for_a_table_of_the_other_kind():
    assert swap_hint(["qid", "docno", "rel"], ["score"]) is not None      # judgments read as a run
    assert swap_hint(["qid", "docno", "score", "rel"], ["score"]) is None  # a score column there: no swap
    assert swap_hint(["qid", "docno"], ["grade"]) is None                 # nothing says what it is


def test_format_help_names_per_query(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    start = text.index("output format (default table")
    assert "--per-query" in text[start:start + 400]


# -- why and rag --peer read the same inputs -----------------------------------------------------
RAGAS = [
    {"user_input": "What is BM25?", "retrieved_context_ids": ["d3", "d1", "d7"], "reference_context_ids": ["d1", "d2"]},
    {"user_input": "Who wrote trec_eval?", "retrieved_context_ids": ["d5", "d9"], "reference_context_ids": ["d5"]},
    {"user_input": "What is a qrel?", "retrieved_context_ids": [], "reference_context_ids": ["d8"]},
]
# AP by hand. Ours (divided by R): 1/2 / 2 = 0.25, 1, and 0 for the empty row: mean 1.25 / 3.
# ragas' context precision divides by the relevant docs retrieved: 1/2 / 1 = 0.5, 1; ragas scores the
# empty row NaN and its mean skips it (the preset's missing_query=exclude): mean 1.5 / 2.
OURS, RAGAS_AP = 1.25 / 3, 0.75


def test_why_peer_ragas_reads_a_ragas_file_and_names_the_differing_policies(tmp_path, capsys):
    path = write(tmp_path, "ragas.jsonl", "\n".join(json.dumps(r) for r in RAGAS) + "\n")
    code, out, err = cli(capsys, "why", path, "--peer", "ragas", "-m", "ap")
    assert code == 0, err
    assert f"ap: ours {OURS:.7f}, ragas {RAGAS_AP:.7f}" in out
    assert "ap_denominator=relevant -> hits" in out
    assert "query What is BM25?: ours 0.2500000, ragas 0.5000000 (+0.2500000); moved by ap_denominator" in out
    # rag --peer prints the same explanation after its table.
    code, shown, _ = cli(capsys, "rag", path, "-m", "ap", "--peer", "ragas", "--quiet")
    assert code == 0
    assert shown.rstrip().endswith(out.rstrip())
    assert f"{OURS:.4f}" in shown.split("\n\n")[0]


def test_rag_peer_refuses_other_formats(tmp_path, capsys):
    path = write(tmp_path, "ragas.jsonl", "\n".join(json.dumps(r) for r in RAGAS) + "\n")
    code, _, err = cli(capsys, "rag", path, "--peer", "ragas", "--format", "json")
    assert code == 2 and "--peer" in err


def test_why_refuses_rag_options_beside_a_run(tmp_path, capsys):
    qrels, run = write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)
    code, _, err = cli(capsys, "why", qrels, run, "--peer", "ragas", "--layout", "ragas")
    assert code == 2 and "--layout" in err


def test_rag_inputs_is_a_named_value():
    inputs = rag_inputs([{"query": "q", "retrieved_ids": ["a", "b"], "expected_ids": ["b"]}])
    assert inputs.qrels.num_queries == 1 and inputs.run.name == "rag" and inputs.rows.layout == "llamaindex"
    qrels, run, rows = inputs   # and it still unpacks
    assert qrels is inputs.qrels


def test_rag_md_quotes_its_refusals_as_the_cli_prints_them(capsys, monkeypatch):
    """rag.md's quoted refusals (``$ COMMAND`` then the one line on stderr) are what the command prints now,
    and the guide names no "Seed 000" (issue 40)."""
    from paths import ROOT

    text = (ROOT / "docs" / "guide" / "rag.md").read_text(encoding="utf-8")
    assert "Seed 000" not in text
    quoted = [block.split("\n")[:2] for block in text.split("```\n$ rankproof ")[1:]]
    assert quoted, "rag.md quotes no refusal"
    monkeypatch.chdir(ROOT)
    for command, said in quoted:
        assert main(command.split()) == 2, command
        assert capsys.readouterr().err.strip() == said, command
