"""One protocol, one behaviour, whatever the front door.

The same judgments and rankings go in as Qrels/Run built from dicts, as a
TREC file pair read from disk, as DataFrames (``evaluate_frame``), through
the trec_eval layer (``rankproof.trec.evaluate``) and, where a score matrix
can hold them (every candidate judged, no duplicates, every query ranked), as
score matrices (``evaluate_scores``). Under every combination of the row and
query policies, every door must give the same per-query values, the same
counts and the same error type. The expected behaviour is the property
itself: no door is the reference of another.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest

import rankproof.trec
from rankproof import Protocol, Qrels, Run, evaluate, evaluate_frame, evaluate_scores
from rankproof.errors import RankproofError

MEASURES = ["ndcg@3", "ap", "rr@5", "p@2", "r@4", "bpref", "judged@3"]
# trec_eval names of the same measures, for the trec layer.
# trec_eval's -m argument -> (its output name, the rankproof measure).
TREC_NAMES = {"ndcg_cut.3": ("ndcg_cut_3", "ndcg@3"), "map": ("map", "ap"), "P.2": ("P_2", "p@2"),
              "recall.4": ("recall_4", "r@4"), "bpref": ("bpref", "bpref")}

POLICIES = {
    "ties": ["expected", "docid", "input", "error"],
    "unjudged": ["zero", "error", "condense"],
    "negative_grades": ["error", "zero", "unjudged"],
    "zero_ideal": ["zero", "one", "exclude", "error"],
    "duplicates": ["error", "first"],
    "missing_query": ["zero", "exclude", "error"],
}
COMBINATIONS = [dict(zip(POLICIES, values)) for values in itertools.product(*POLICIES.values())]


def _case(seed: int, matrix_shaped: bool):
    """(judgments {q: {d: g}}, rankings {q: [(d, score), ...]}) with ties, unjudged
    docs, negative grades, a query with nothing relevant and, unless the case must
    fit a score matrix, duplicates and a judged query the run does not rank."""
    rng = random.Random(seed)
    judgments, rankings = {}, {}
    for q in range(4):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(2, 7))]  # d0..d6: text order = column order
        grades = {d: rng.choice([-1, 0, 0, 1, 2, 3]) for d in docs}
        if q == 1:
            grades = {d: rng.choice([-1, 0]) for d in docs}  # nothing relevant
        judgments[query] = grades
        ranked = list(docs)
        if not matrix_shaped:
            ranked = rng.sample(docs, rng.randint(1, len(docs))) + [f"u{i}" for i in range(rng.randint(0, 2))]
            if rng.random() < 0.3:
                ranked.append(ranked[0])  # a duplicate
        rankings[query] = [(d, float(rng.choice([1, 2, 2, 3]))) for d in ranked]
    if not matrix_shaped:
        judgments["q9"] = {"d0": 1}  # judged, never ranked
    return judgments, rankings


def _qrels_run(judgments, rankings):
    qrels = Qrels.from_table(pd.DataFrame(
        [(q, d, g) for q, grades in judgments.items() for d, g in grades.items()],
        columns=["query", "doc", "grade"]), query="query", doc="doc", grade="grade")
    run = Run.from_table(pd.DataFrame(
        [(q, d, s) for q, ranked in rankings.items() for d, s in ranked],
        columns=["query", "doc", "score"]), query="query", doc="doc", score="score")
    return qrels, run


def _trec_files(tmp_path, judgments, rankings):
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, grades in judgments.items() for d, g in grades.items()))
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} tag\n"
                                for q, ranked in rankings.items() for i, (d, s) in enumerate(ranked)))
    return Qrels.read_trec(qrels_path), Run.read_trec(run_path)


def _outcome(compute, measures=MEASURES):
    """(per-query values per measure, counts) or the error type."""
    try:
        results = compute()
    except RankproofError as error:
        return type(error)
    values = {str(m): {q: v for q, v in results.per_query(m).items()} for m in measures}
    return values, results.counts


def _same(a, b, common_counts=True):
    if isinstance(a, type) or isinstance(b, type):
        assert a == b, (a, b)
        return
    (values_a, counts_a), (values_b, counts_b) = a, b
    assert values_a.keys() == values_b.keys()
    for measure in values_a:
        assert values_a[measure].keys() == values_b[measure].keys(), measure
        for query, value in values_a[measure].items():
            other = values_b[measure][query]
            assert (math.isnan(value) and math.isnan(other)) or value == pytest.approx(other, abs=1e-12), \
                (measure, query, value, other)
    keys = set(counts_a) & set(counts_b) if common_counts else set(counts_a) | set(counts_b)
    for key in keys:
        assert counts_a.get(key) == counts_b.get(key), (key, counts_a.get(key), counts_b.get(key))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_files_frames_and_dicts_agree_under_every_policy(tmp_path, seed):
    judgments, rankings = _case(seed, matrix_shaped=False)
    qrels, run = _qrels_run(judgments, rankings)
    file_qrels, file_run = _trec_files(tmp_path, judgments, rankings)
    truth = pd.DataFrame([(q, d, g) for q, grades in judgments.items() for d, g in grades.items()],
                         columns=["user", "item", "rating"])
    predictions = pd.DataFrame([(q, d, s) for q, ranked in rankings.items() for d, s in ranked],
                               columns=["user", "item", "score"])
    for policies in COMBINATIONS:
        protocol = Protocol(**policies)
        tables = _outcome(lambda: evaluate(qrels, run, MEASURES, protocol))
        _same(tables, _outcome(lambda: evaluate(file_qrels, file_run, MEASURES, protocol)))
        _same(tables, _outcome(lambda: evaluate_frame(truth, predictions, MEASURES, protocol)))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_score_matrices_agree_with_qrels_and_runs_under_every_policy(seed):
    judgments, rankings = _case(seed, matrix_shaped=True)
    qrels, run = _qrels_run(judgments, rankings)
    # One matrix row per query, one column per doc d0..d6; NaN: not a candidate.
    width = 7
    y_true = np.zeros((len(judgments), width))
    y_score = np.full((len(judgments), width), np.nan)
    for row, (query, ranked) in enumerate(rankings.items()):
        for doc, score in ranked:
            column = int(doc[1:])
            y_true[row, column] = judgments[query][doc]
            y_score[row, column] = score
    names = list(judgments)
    for policies in COMBINATIONS:
        protocol = Protocol(**policies)
        tables = _outcome(lambda: evaluate(qrels, run, MEASURES, protocol))
        _same(tables, _outcome(lambda: evaluate_scores(y_true, y_score, MEASURES, protocol, queries=names)))


@pytest.mark.parametrize("seed", [7, 8])
def test_the_trec_layer_agrees_with_evaluate_under_every_policy(seed):
    judgments, rankings = _case(seed, matrix_shaped=False)
    qrels, run = _qrels_run(judgments, rankings)
    for policies in COMBINATIONS:
        protocol = Protocol(**policies)
        # complete=True is trec_eval's -c: every judged query is evaluated (missing_query=zero).
        protocol = protocol.replace(missing_query="zero")
        measures = [measure for _, measure in TREC_NAMES.values()]
        expected = _outcome(lambda: evaluate(qrels, run, measures, protocol), measures)
        try:
            table = rankproof.trec.evaluate(qrels, run, set(TREC_NAMES), preset=protocol, complete=True)
        except RankproofError as error:
            assert expected == type(error), (policies, error)
            continue
        assert not isinstance(expected, type), (policies, expected)
        values, _ = expected
        for trec_name, measure in TREC_NAMES.values():
            for query, value in values[measure].items():
                if math.isnan(value):
                    continue  # excluded queries: trec_eval has no such value
                assert table[query][trec_name] == pytest.approx(value, abs=1e-12), (policies, trec_name, query)
