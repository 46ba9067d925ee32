"""The step's one pass of the planner (engines.plan.compute_pass): the values, and beside them
the ranges asked for (the range over tied orders, the bounds), each taken over alignments the
pipeline makes as the planner asks for them."""

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.engines.plan import Range, compute_pass, ranges_over
from rankproof.measures.parse import parse_measures
from rankproof.pipeline import align
from rankproof.results.zero_ideal import apply_zero_ideal

# a is relevant, x is not judged; they tie at the top. Under ties=input x comes first: P@1 = 0.
QRELS = Qrels.from_dict({"q": {"a": 1, "b": 0}})
RUN = Run.from_dict({"q": {"x": 0.5, "a": 0.5}})
INPUT = Protocol(ties="input")


def _finish(alignment, protocol):
    return lambda values, measure: apply_zero_ideal(values, measure, protocol, alignment.queries)


def test_the_step_asks_the_planner_once_for_the_values_and_both_ranges(monkeypatch):
    import rankproof.evaluation as step

    calls = []

    def counted(*args, **kwargs):
        calls.append(sorted(kwargs["ranges"]))
        return compute_pass(*args, **kwargs)

    monkeypatch.setattr(step, "compute_pass", counted)
    results = evaluate(QRELS, RUN, ["p@1"], INPUT, bounds=True, ties_range=True)
    assert calls == [["bounds", "tie_range"]]
    # P@1: x first (input order) 0; a first 1. Bounds: x judged relevant gives 1.
    assert results.mean("p@1") == 0.0
    assert results.tie_range("p@1").per_query()["q"] == (0.0, 1.0)
    assert results.bounds("p@1").per_query()["q"] == (0.0, 1.0)


def test_a_range_is_the_min_and_max_over_its_alignments_made_as_they_are_asked_for():
    alignment = align(QRELS, RUN, INPUT)
    p1, = parse_measures(["p@1"])
    events = []
    finish = _finish(alignment, INPUT)

    def finished(values, measure):
        events.append("computed")
        return finish(values, measure)

    def orders():
        for order in ([1, 0], [0, 1]):   # a first (P@1 = 1), then x first (0)
            events.append("made")
            yield alignment.in_order(np.array(order)), [p1]

    low, high = ranges_over(Range(orders()), INPUT, None, finished)[p1]
    assert (low.tolist(), high.tolist()) == ([0.0], [1.0])
    assert events == ["made", "computed", "made", "computed"]   # never two orders held at once


def test_with_plain_the_plain_values_bound_the_range_too():
    alignment = align(QRELS, RUN, INPUT)
    p1, = parse_measures(["p@1"])
    a_first = [(alignment.in_order(np.array([1, 0])), [p1])]
    values, found = compute_pass(alignment, [p1], INPUT, finish=_finish(alignment, INPUT),
                                 ranges={"alone": Range(a_first),
                                         "with_plain": Range(list(a_first), with_plain=True)})
    assert values[p1].value.tolist() == [0.0]
    assert [end.tolist() for end in found["alone"][p1]] == [[1.0], [1.0]]
    assert [end.tolist() for end in found["with_plain"][p1]] == [[0.0], [1.0]]


def test_the_ranges_alone_are_those_of_the_pass():
    from rankproof.evaluation import tie_range

    alignment = align(QRELS, RUN, INPUT)
    measures = parse_measures(["p@1", "ndcg@2"])
    alone = tie_range(alignment, INPUT, measures)
    results = evaluate(QRELS, RUN, measures, INPUT, ties_range=True)
    # NDCG@2: a at rank 1 gives 1; a at rank 2 gives (1/log2(3)) / 1 = 0.6309.
    assert alone[measures[1]][0] == pytest.approx([1 / np.log2(3)])
    for m in measures:
        low, high = alone[m]
        assert results.tie_range(m).per_query()["q"] == (low[0], high[0])
