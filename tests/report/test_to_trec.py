"""report.data.to_trec: trec_eval's layout, written by hand, in one pass over each measure's column."""

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.report.data import to_trec


def _results():
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}})
    run = Run.from_dict({"q1": ["a"], "q2": ["x", "b"], "q3": ["c"]}, name="sys")
    return evaluate(qrels, run, ["ndcg", "p@1"], Protocol(zero_ideal="exclude"))

def test_to_trec_writes_trec_eval_layout_by_hand():
    # ndcg: q1 1 (a first); q2 1 / log2(3) = 0.6309 (b second); q3 has nothing
    # relevant: excluded (zero_ideal=exclude), so no line. p@1: q1 1, q2 0, q3 0.
    # Means: ndcg (1 + 0.63093) / 2 = 0.81546; p@1 (1 + 0 + 0) / 3 = 0.3333.
    expected = (
        "ndcg                  \tq1\t1.0000\n"
        "p@1                   \tq1\t1.0000\n"
        "ndcg                  \tq2\t0.6309\n"
        "p@1                   \tq2\t0.0000\n"
        "p@1                   \tq3\t0.0000\n"
        "runid                 \tall\tsys\n"
        "ndcg                  \tall\t0.8155\n"
        "p@1                   \tall\t0.3333\n"
    )
    assert to_trec([_results()], per_query=True) == expected
    assert to_trec([_results()]) == expected[expected.index("runid"):]


def test_to_trec_reads_each_measure_column_once(monkeypatch):
    # The quadratic version copied every measure's whole column once per query.
    results = _results()
    calls = []
    original = type(results).values

    def counted(self, measure):
        calls.append(str(measure))
        return original(self, measure)

    monkeypatch.setattr(type(results), "values", counted)
    to_trec([results], per_query=True)
    assert sorted(calls) == ["ndcg", "p@1"]
