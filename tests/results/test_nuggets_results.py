"""Nugget scores as Results (issue 27): rankproof.evaluate_nuggets, and compare and saved results taking them.

Expected values are the hand-worked table of nuggetizer's formulas (tests/support/nugget_table.py); a
comparison of two nugget files is held equal to the comparison of the same per-query values given
another way (a results document written here from that table, read by load_results).
"""

from __future__ import annotations

import json

import pytest

import rankproof
from rankproof import Protocol, Qrels, Run, compare, evaluate, evaluate_nuggets, load_results
from rankproof.cli.app import main
from rankproof.errors import MeasureError, ParseError
from rankproof.measures.nuggets import NUGGET_SCORES

from nugget_table import EXPECTED, FULL, FULL_EXPECTED, MEANS, RECORDS, write

NUGGETIZER_TEXT = "nuggets=partial_support:0.5"


def test_per_query_values_and_means_are_nuggetizers(tmp_path):
    results = evaluate_nuggets(write(tmp_path / "run.jsonl", RECORDS))
    assert isinstance(results, rankproof.Results) and results.run_name == "run.jsonl"
    assert [str(m) for m in results.measures] == list(NUGGET_SCORES)
    assert results.queries == sorted(EXPECTED)  # text order, as any evaluation's
    for i, score in enumerate(NUGGET_SCORES):
        assert results.per_query(score) == {q: row[i] for q, row in EXPECTED.items()}
        assert results.mean(score) == pytest.approx(MEANS[i], abs=1e-15)


def test_protocol_says_nuggets_and_partial_support(tmp_path):
    results = evaluate_nuggets(write(tmp_path / "run.jsonl", RECORDS))
    assert str(results.protocol).endswith(NUGGETIZER_TEXT)
    assert results.protocol == Protocol(nuggets="nuggetizer") == Protocol.from_text(NUGGETIZER_TEXT)
    assert results.protocol.fingerprint != Protocol().fingerprint
    # Rankings keep their text and fingerprint: the policy is named only when set.
    assert "nuggets" not in str(Protocol())


def test_counts_of_nuggets_and_assignments(tmp_path):
    """q1: 2 vital + 2 okay; q2: 1 + 1; q3: 1 + 1; q4: 2 okay. Support 2 + 1 + 1 + 1 = 5; partial 1 + 1 = 2."""
    counts = evaluate_nuggets(write(tmp_path / "run.jsonl", RECORDS)).counts
    assert (counts["queries_evaluated"], counts["nuggets"], counts["vital_nuggets"]) == (4, 10, 4)
    assert (counts["nuggets_supported"], counts["nuggets_partially_supported"], counts["nuggets_not_supported"]) \
        == (5, 2, 3)
    assert (counts["answers_without_vital_nuggets"], counts["answers_without_nuggets"]) == (1, 0)


def test_partial_credit_is_a_setting_the_protocol_states(tmp_path):
    """partial_support counting 0.25: q3's vital_score 0.25 / 1, q1's all_score (2 + 0.25) / 4; strict ones unchanged."""
    results = evaluate_nuggets(write(tmp_path / "run.jsonl", RECORDS), partial_credit=0.25, name="quarter")
    assert results.run_name == "quarter" and str(results.protocol).endswith("nuggets=partial_support:0.25")
    assert results.per_query("vital_score")["q3"] == 0.25 and results.per_query("all_score")["q1"] == 0.5625
    assert results.per_query("strict_all_score") == {q: row[1] for q, row in EXPECTED.items()}
    with pytest.raises(rankproof.RankproofError, match="partial_support"):
        evaluate_nuggets(tmp_path / "run.jsonl", partial_credit=1.5)


def _document(table: dict, name: str) -> dict:
    """A results document as rankproof evaluate --format json writes one, from a table {query: four values}."""
    return {"protocol_text": NUGGETIZER_TEXT, "qrels": {"digest": "nuggets of the table"},
            "runs": {name: {"mean": {s: sum(row[i] for row in table.values()) / len(table)
                                     for i, s in enumerate(NUGGET_SCORES)},
                            "per_query": {q: dict(zip(NUGGET_SCORES, row)) for q, row in table.items()}}}}


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_compare_of_two_files_equals_compare_of_the_same_values_given_another_way(tmp_path, test):
    a = evaluate_nuggets(write(tmp_path / "a.jsonl", RECORDS), name="a")
    b = evaluate_nuggets(write(tmp_path / "b.jsonl", FULL), name="b")
    # Assignments differ, nuggets do not: the judgments (and their digest) are the same.
    assert a.qrels_digest == b.qrels_digest
    saved = tmp_path / "table.json"
    saved.write_text(json.dumps({**_document(EXPECTED, "a"),
                                 "runs": {**_document(EXPECTED, "a")["runs"], **_document(FULL_EXPECTED, "b")["runs"]}}))
    given = load_results(saved)
    options = dict(test=test, n_resamples=1000, seed=3)
    from_files, from_table = compare(None, [a, b], **options), compare(None, given, **options)
    assert from_files.protocol == from_table.protocol == Protocol(nuggets="nuggetizer")
    # Every field to the last digit (as JSON text, so that an undefined effect size, NaN, equals itself).
    assert [json.dumps(row.to_dict()) for row in from_files.rows] == [json.dumps(row.to_dict())
                                                                      for row in from_table.rows]
    # all_score, B - A per query: 0.375, 0.5, 0.25, 0.5 (4 wins).
    row = from_files.row("a", "b", "all_score")
    assert row.difference == pytest.approx((0.375 + 0.5 + 0.25 + 0.5) / 4) and row.wins == 4


def test_nuggets_compare_command_is_compares_path(tmp_path, capsys):
    """rankproof nuggets --compare prints what rankproof.compare gives, in compare's formats; --format json
    saves results that rankproof compare --results reads back to the same rows."""
    a, b = write(tmp_path / "a.jsonl", RECORDS), write(tmp_path / "b.jsonl", FULL)
    assert main(["nuggets", str(a), str(b), "--compare", "--test", "t", "--correction", "bonferroni",
                 "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = compare(None, {"a": evaluate_nuggets(a), "b": evaluate_nuggets(b)}, test="t",
                       correction="bonferroni")
    assert printed["rows"] == json.loads(expected.to_json())["rows"]
    saved = tmp_path / "saved.json"
    assert main(["nuggets", str(a), str(b), "--format", "json", "-o", str(saved), "--quiet"]) == 0
    assert main(["compare", "--results", str(saved), "--test", "t", "--correction", "bonferroni",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == printed["rows"]
    assert main(["nuggets", str(a), str(b), "--compare", "--format", "latex", "--quiet"]) == 0
    assert "\\begin{tabular}" in capsys.readouterr().out


def test_files_judged_with_other_nuggets_are_refused(tmp_path):
    a = evaluate_nuggets(write(tmp_path / "a.jsonl", RECORDS))
    other = [dict(r, nuggets=[dict(n, text="another fact") for n in r["nuggets"]]) for r in RECORDS]
    b = evaluate_nuggets(write(tmp_path / "b.jsonl", other))
    with pytest.raises(rankproof.errors.ComparabilityError, match="qrels differ"):
        compare(None, [a, b])


@pytest.mark.parametrize("record, said", [
    ({"qid": "q1", "nuggets": [{"importance": "high", "assignment": "support"}]}, "importance 'high'"),
    ("not json", "is not valid JSON"),
])
def test_errors_name_the_file_and_line(tmp_path, capsys, record, said):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(RECORDS[1]) + "\n" + (record if isinstance(record, str) else json.dumps(record)) + "\n")
    with pytest.raises(ParseError) as caught:
        evaluate_nuggets(path)
    assert (caught.value.source, caught.value.line) == (str(path), 2) and said in str(caught.value)
    for command in (["nuggets", str(path), str(path), "--compare"], ["report", "--nuggets", str(path), "-o",
                                                                     str(tmp_path / "page.html")]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"{path} line 2: " in err and said in err and err.count("\n") == 1
    assert not (tmp_path / "page.html").exists()


def test_evaluate_refuses_nugget_scores_of_a_ranking():
    with pytest.raises(MeasureError, match="not computed from a ranking") as caught:
        evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["a"]}), ["ndcg", "vital_score"])
    assert "evaluate_nuggets" in caught.value.fix
    with pytest.raises(rankproof.errors.ProtocolError, match="nuggets=partial_support:0.5"):
        evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["a"]}), ["ndcg"], Protocol(nuggets="nuggetizer"))
