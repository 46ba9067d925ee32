"""One alignment protocol (issue 37, item 3): every alignment kind implements
pipeline/aligned.AlignmentLike, and the evaluation step never asks which kind it holds."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import rankproof
from rankproof import Protocol, Qrels, Run, evaluate_scores
from rankproof.frontdoors.scores._input import read_scores
from rankproof.pipeline import AlignmentLike, align
from rankproof.pipeline.dense import DenseAlignment
from rankproof.pipeline.intents import attach_intents
from rankproof.pipeline.scores import score_alignment

PACKAGE = Path(rankproof.__file__).parent
# The step and the modules it hands alignments to: none may tell alignment kinds apart.
STEP = ["evaluation.py", "engines/plan.py", "engines/base.py"]
Y_TRUE = [[2, 0, 1], [0, 1, 0]]
Y_SCORE = [[0.9, 0.8, 0.1], [0.5, 0.4, 0.3]]


def kind_forks(source: str) -> list[str]:
    """Calls that test what an alignment is: isinstance/hasattr/getattr whose first
    argument is a name holding 'alignment', or isinstance against an alignment class."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "hasattr", "getattr") and node.args):
            continue
        subject = ast.unparse(node.args[0])
        against = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
        if "alignment" in subject.lower() or "Alignment" in against:
            found.append(ast.unparse(node))
    return found


def test_the_fork_check_finds_a_fork():
    bad = "def f(alignment):\n    if not isinstance(alignment, Alignment):\n        return hasattr(alignment, 'x')\n"
    assert kind_forks(bad) == ["isinstance(alignment, Alignment)", "hasattr(alignment, 'x')"]
    assert kind_forks("def f(engine):\n    return getattr(engine, 'reads_matrix', False)\n") == []


@pytest.mark.parametrize("name", STEP)
def test_the_step_has_no_fork_on_alignment_kinds(name):
    assert kind_forks((PACKAGE / name).read_text(encoding="utf-8")) == []


def every_kind():
    qrels = Qrels.from_dict({"q1": {"a": 2, "b": 1}, "q2": {"c": 1}})
    run = Run.from_dict({"q1": {"a": 0.5, "x": 0.9}, "q2": {"c": 0.1}})
    flat = align(qrels, run, Protocol())
    scores = read_scores(Y_TRUE, Y_SCORE, None, None, Protocol())
    from rankproof.data.intents import IntentQrels

    intents = IntentQrels.from_dict({"q1": {"i1": {"a": 1}}, "q2": {"i1": {"c": 1}}})
    return {"pipeline": flat, "score matrix": score_alignment(scores, Protocol()),
            "dense matrix": DenseAlignment(scores, Protocol()),
            "intents": attach_intents(align(intents.doc_qrels, run, Protocol()), intents)}


def test_every_alignment_kind_implements_the_protocol():
    kinds = every_kind()
    for name, alignment in kinds.items():
        assert isinstance(alignment, AlignmentLike), name
        flat = alignment.flat()
        assert flat.flat() is flat, name   # flat arrays are their own flat form
        assert len(flat.offsets) == alignment.num_queries + 1, name
    assert kinds["dense matrix"].dense_matrix is not None
    assert kinds["pipeline"].dense_matrix is None


def test_something_without_flat_arrays_is_no_alignment():
    class Partial:
        queries = in_run = offsets = np.zeros(1)
        run_source = qrels_source = "x"
        notes = ()
        num_queries = 0
        dense_matrix = None

        def query_table(self):
            return None

    assert not isinstance(Partial(), AlignmentLike)   # no flat(), step_counts(), tied_rankings()


def test_the_dense_path_builds_no_flat_arrays_for_ndcg(monkeypatch):
    # Row 0: grades 2, 0, 1 by score; DCG@2 = 2, ideal 2 + 1/log2(3) -> 0.760163.
    def refuse(self):
        raise AssertionError("flat arrays built")

    monkeypatch.setattr(DenseAlignment, "flat", refuse)
    results = evaluate_scores(Y_TRUE, Y_SCORE, "ndcg@2")
    assert results.per_query("ndcg@2")[0] == pytest.approx(2 / (2 + 1 / math.log2(3)), abs=1e-12)


def test_the_tie_range_of_a_matrix_reorders_flat_arrays_made_before_the_engines(monkeypatch):
    # Row 1 ties its two candidates (grades 0, 1): P@1 is 0 or 1 over the orders; row 0 has no tie.
    def refuse(self):
        raise AssertionError("the dense alignment was flattened after the engines ran")

    monkeypatch.setattr(DenseAlignment, "flat", refuse)
    results = evaluate_scores([[1, 0], [0, 1]], [[0.9, 0.1], [0.5, 0.5]], "p@1", ties_range=True)
    assert results.tie_range("p@1").per_query() == {0: (1.0, 1.0), 1: (0.0, 1.0)}
