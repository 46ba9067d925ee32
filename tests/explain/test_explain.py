"""``rankproof.explain.explain``: every number behind one query's value.

Hand-computed cases with ties (ties=expected gives every doc of a tied group
the group's mean discount over the ranks it spans inside the cutoff), and the
invariants that tie the explanation to ``evaluate`` on the Cranfield runs.
"""

from __future__ import annotations

import math
import re

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.explain.explanation import explain

from paths import CRANFIELD


def d(rank: int) -> float:
    """The log2 discount of a rank."""
    return 1 / math.log2(rank + 1)


# Judged pool of q1: D 3, A 2, G 1, B 1, C 0 (H, E, F unjudged).
QRELS = Qrels.from_dict({"q1": {"A": 2, "B": 1, "C": 0, "D": 3, "G": 1}, "q2": {"X": 1}})
# Scores: A, G tie at 5 (ranks 1-2); C, E, B tie at 2 (ranks 3-5); F at 1 (rank 6).
RUN = Run.from_dict({"q1": {"A": 5.0, "G": 5.0, "C": 2.0, "E": 2.0, "B": 2.0, "F": 1.0}, "q2": {"X": 1.0}})


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 10])
def test_ties_expected_by_hand(k):
    e = explain(QRELS, RUN, "q1", f"ndcg@{k}")
    inside = lambda lo, hi: sum(d(r) for r in range(lo, min(hi, k) + 1))  # noqa: E731  discount mass inside k
    group1, group2 = inside(1, 2) / 2, inside(3, 5) / 3
    last = d(6) if k >= 6 else 0.0
    expected = {  # doc: (grade, tie group, tie size, discount)
        "A": (2, 1, 2, group1), "G": (1, 1, 2, group1),
        "C": (0, 2, 3, group2), "E": (None, 2, 3, group2), "B": (1, 2, 3, group2),
        "F": (None, 3, 1, last),
    }
    assert sorted(row.doc for row in e.ranking if row.tie_group == 2) == ["B", "C", "E"]
    running = 0.0
    for row in e.ranking:
        grade, group, size, discount = expected[row.doc]
        assert (row.grade, row.tie_group, row.tie_size) == (grade, group, size), row.doc
        assert row.gain == (grade or 0)
        assert row.discount == pytest.approx(discount, abs=1e-12), row.doc
        assert row.contribution == pytest.approx((grade or 0) * discount, abs=1e-12), row.doc
        running += row.contribution
        assert row.cumulative == pytest.approx(running, abs=1e-12)
    dcg = 3 * group1 + group2
    ideal_grades = [3, 2, 1, 1][:k]
    ideal = sum(g * d(i) for i, g in enumerate(ideal_grades, 1))
    assert e.dcg == pytest.approx(dcg, abs=1e-12)
    assert e.ideal_dcg == pytest.approx(ideal, abs=1e-12)
    assert [row.grade for row in e.ideal] == ideal_grades
    assert e.value == pytest.approx(dcg / ideal, abs=1e-12)
    assert e.value == evaluate(QRELS, RUN, f"ndcg@{k}").per_query(f"ndcg@{k}")["q1"]


def test_ties_docid_by_hand():
    e = explain(QRELS, RUN, "q1", "ndcg@4", Protocol(ties="docid"))
    # score descending, then doc id descending: G A | E C B | F
    assert [row.doc for row in e.ranking] == ["G", "A", "E", "C", "B", "F"]
    assert [row.discount for row in e.ranking] == pytest.approx([d(1), d(2), d(3), d(4), 0.0, 0.0])
    assert e.dcg == pytest.approx(1 + 2 * d(2))
    assert e.value == evaluate(QRELS, RUN, "ndcg@4", Protocol(ties="docid")).per_query("ndcg@4")["q1"]


def test_ideal_retrieved_takes_the_ideal_from_the_ranking():
    e = explain(QRELS, RUN, "q1", "ndcg@4", Protocol(ideal="retrieved"))
    assert [row.doc for row in e.ideal] == ["A", "B", "G"]  # D is judged but not retrieved
    assert e.ideal_dcg == pytest.approx(2 + d(2) + d(3))


def test_policies_name_what_changed_the_query():
    e = explain(QRELS, RUN, "q1", "ndcg@6")
    assert "2 unjudged docs inside the cutoff scored as non-relevant (unjudged=zero)" in e.policies
    assert any(p.startswith("2 tied groups averaged over their orders (ties=expected)") for p in e.policies)
    assert explain(QRELS, RUN, "q2", "ndcg@6").policies == ()


@pytest.mark.parametrize("protocol", [Protocol(), Protocol.preset("trec_eval"), Protocol(unjudged="condense"),
                                      Protocol(gain="exp2"), Protocol(ideal="retrieved")],
                         ids=["rankproof", "trec_eval", "condense", "exp2", "retrieved"])
@pytest.mark.parametrize("name", ["bm25", "lmdirichlet"])
def test_cranfield_explanations_agree_with_evaluate(name, protocol):
    qrels = Qrels.read_trec(CRANFIELD / "qrels.txt")
    run = Run.read_trec(CRANFIELD / f"{name}.run")
    per_query = evaluate(qrels, run, "ndcg@10", protocol).per_query("ndcg@10")
    for query in run.queries.tolist()[::5]:
        e = explain(qrels, run, query, "ndcg@10", protocol)
        assert e.value == per_query[query]
        assert e.dcg == pytest.approx(sum(row.contribution for row in e.ranking), abs=1e-12)
        ratio = e.dcg / e.ideal_dcg if e.ideal_dcg else 0.0
        assert ratio == pytest.approx(e.value, abs=1e-12), query


def test_explain_of_a_measure_that_is_not_a_dcg_states_one_value(capsys, tmp_path):
    """`explain -m ap` (or p@k, rr, ...) must not print two different numbers as the query's score.

    On this query it prints the DCG table and "DCG 2.8856 / ideal DCG 5.1925 = 0.5557"
    (an NDCG, over all 6 ranks) right above "ap = 0.6958". By hand, AP: R = 4
    (D, A, G, B); A and G at ranks 1-2 give precision 1 each; B is at rank 3, 4
    or 5 of its tied group, precision 3/3, 3/4, 3/5, mean 0.7833; AP =
    (2 + 0.7833) / 4 = 0.6958. Either refuse measures explain cannot break
    down (exit 2, one line) or print no ratio that differs from the value.
    """
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"q1 0 {doc} {g}\n" for doc, g in QRELS.to_dict()["q1"].items()))
    run = tmp_path / "r.run"
    run.write_text("".join(f"q1 Q0 {doc} {i} {s} t\n"
                           for i, (doc, s) in enumerate([("A", 5), ("G", 5), ("C", 2), ("E", 2), ("B", 2),
                                                         ("F", 1)], 1)))
    for measure in ("ap", "p@2", "rr"):
        code = main(["explain", str(qrels), str(run), "-q", "q1", "-m", measure])
        out, err = capsys.readouterr()
        if code == 2:
            assert "\n" not in err.rstrip("\n") and "Traceback" not in err
            continue
        assert code == 0
        value = re.search(rf"^{re.escape(measure)} = ([0-9.]+)$", out, re.M).group(1)
        # Unindented lines state results; indented ones are steps (a precision at one rank).
        ratios = re.findall(r"^\S.*= ([0-9.]+)$", out, re.M)
        assert set(ratios) == {value}, (measure, out)


# -- every measure's working (issue 14, point 10) ---------------------------------------
# q1 of QRELS/RUN: R = 4 (D 3, A 2, G 1, B 1). A, G tie at ranks 1-2 (both relevant);
# C, E, B tie at ranks 3-5 (B relevant); D is not retrieved.
def test_ap_working_shows_r_and_the_precision_at_each_relevant_rank():
    e = explain(QRELS, RUN, "q1", "ap")
    # A and G: precision 1 wherever they fall in their group. B: 3/3, 3/4 or 3/5,
    # mean 0.7833. AP = (1 + 1 + 0.7833) / 4 = 0.6958.
    assert e.working[0] == "R = 4 relevant docs judged (grade >= 1)"
    assert "  ranks 3-5 (tied)  B  mean over its 3 places of 3/3, 3/4, 3/5 = 0.7833" in e.working
    assert "  1 relevant doc not in the top 6: precision 0" in e.working
    assert e.working[-1] == "ap = sum of precisions / R = 2.7833 / 4 = 0.6958"
    assert e.value == pytest.approx((2 + (3 / 3 + 3 / 4 + 3 / 5) / 3) / 4)
    # Under ties=docid every rank is fixed, doc id descending: G, A, then E, C, B: B at rank 5, 3/5.
    docid = explain(QRELS, RUN, "q1", "ap", "ties=docid")
    assert "  rank 5  B  3/5 = 0.6000" in docid.working
    assert docid.working[-1] == "ap = sum of precisions / R = 2.6000 / 4 = 0.6500"


def test_recall_shows_r_and_rr_the_first_relevant_rank():
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 1, "c": 1, "d": 0}})
    run = Run.from_dict({"q": ["x", "d", "b", "y", "a"]})
    r = explain(qrels, run, "q", "r@4")
    assert r.working == ("R = 3 relevant docs judged (grade >= 1)", "relevant in the top 4: 1 (b)",
                         "r@4 = relevant in the top k / R = 1 / 3 = 0.3333")
    rr = explain(qrels, run, "q", "rr")
    assert rr.working == ("first relevant rank: 3 (b)", "rr = 1 / 3 = 0.3333")
    p = explain(qrels, run, "q", "p@5")
    assert p.working[-1] == "p@5 = relevant in the top k / k = 2 / 5 = 0.4000"


def test_only_policies_that_changed_the_value_are_listed():
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 0}})
    # rr = 1: unjudged x and y below the first relevant rank change nothing.
    assert explain(qrels, Run.from_dict({"q": ["a", "x", "y"]}), "q", "rr").policies == ()
    # An unjudged doc above it does: without it (unjudged=condense) rr would be 1, not 1/2.
    above = explain(qrels, Run.from_dict({"q": ["x", "a"]}), "q", "rr")
    assert above.policies == ("1 unjudged doc above the first relevant doc scored as non-relevant (unjudged=zero)",)
    # Only those above it are counted: x is, y is not.
    counted = explain(qrels, Run.from_dict({"q": ["x", "a", "y"]}), "q", "rr")
    assert counted.policies == ("1 unjudged doc above the first relevant doc scored as non-relevant (unjudged=zero)",)
    # A tie between two non-relevant docs changes no measure of this query.
    tied = Run.from_dict({"q": {"a": 3.0, "b": 1.0, "x": 1.0}})
    assert explain(qrels, tied, "q", "ap").policies == ()


def test_cli_explains_several_measures_at_once(capsys, tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q 0 a 1\nq 0 b 1\nq 0 c 1\nq 0 d 0\n")
    run = tmp_path / "r.run"
    run.write_text("".join(f"q Q0 {doc} {i} {10 - i} t\n" for i, doc in enumerate(["x", "d", "b", "y", "a"], 1)))
    code = main(["explain", str(qrels), str(run), "-q", "q", "-m", "ndcg@10", "-m", "ap", "-m", "r@4"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "query q, ndcg@10;" in out and "query q, ap;" in out and "query q, r@4;" in out
    # AP by hand: b at rank 3 (1/3), a at rank 5 (2/5); (1/3 + 2/5) / 3 = 0.2444.
    assert "  rank 3  b  1/3 = 0.3333" in out and "  rank 5  a  2/5 = 0.4000" in out
    assert "ap = sum of precisions / R = 0.7333 / 3 = 0.2444" in out
    assert "r@4 = relevant in the top k / R = 1 / 3 = 0.3333" in out


@pytest.mark.parametrize("protocol", [Protocol(), Protocol.preset("trec_eval"), Protocol(ties="input")],
                         ids=["rankproof", "trec_eval", "input"])
def test_the_working_ends_at_the_value_evaluate_gives(protocol):
    # A property over the Cranfield runs: the last line of the working states the value.
    qrels = Qrels.read_trec(CRANFIELD / "qrels.txt")
    run = Run.read_trec(CRANFIELD / "lmdirichlet.run")
    measures = ["ap", "ap@10", "rr@10", "r@20", "p@5", "rprec", "hit@3"]
    per_query = evaluate(qrels, run, measures, protocol)
    for query in run.queries.tolist()[::9]:
        for measure in measures:
            e = explain(qrels, run, query, measure, protocol)
            value = per_query.per_query(measure).get(query)
            assert e.value == value
            assert float(e.working[-1].rsplit("= ", 1)[1]) == pytest.approx(value, abs=5.01e-5), (query, measure)


def test_negative_grades_are_listed_only_where_they_change_the_value():
    # trec_eval reads -1 as pooled but unjudged: the same as non-relevant for rr
    # (no policy listed), not for bpref, which skips unjudged docs (1 nonrelevant
    # above the relevant doc: 1 - 1/1 = 0 when it counts, 1 when it does not).
    qrels = Qrels.from_dict({"q": {"n": -1, "a": 1, "b": 0}})
    run = Run.from_dict({"q": ["n", "a"]})
    protocol = Protocol.preset("trec_eval")
    assert not any("negative" in p for p in explain(qrels, run, "q", "p@1", protocol).policies)
    bpref = explain(qrels, run, "q", "bpref", protocol)
    assert "1 negative grades read as negative_grades=unjudged" in bpref.policies


def test_rr_over_a_tied_group_by_hand():
    # x (unjudged) at rank 1; a (relevant), b, c tie at ranks 2-4: a is at rank 2, 3 or 4
    # with probability 1/3 each, so rr = (1/2 + 1/3 + 1/4) / 3 = 0.3611.
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 0}})
    run = Run.from_dict({"q": {"x": 9.0, "a": 5.0, "b": 5.0, "c": 5.0}})
    e = explain(qrels, run, "q", "rr")
    assert e.value == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)
    assert e.working == (
        "first relevant doc in the tied group at ranks 2-4 (1 of 3 relevant: a); over its orders the first "
        "relevant rank is 2 with probability 0.3333, 3 with probability 0.3333, 4 with probability 0.3333",
        "rr = 0.3333/2 + 0.3333/3 + 0.3333/4 = 0.3611")
    hit = explain(qrels, run, "q", "hit@3")   # a within the top 3 in 2 of 3 orders
    assert hit.working[-1] == "hit@3 = probability of a relevant doc in the top 3 = 0.6667"
    assert hit.value == pytest.approx(2 / 3)


# -- explain_top: every query at once must give explain's rows -------------------------
def _random_case(seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    judged, ranked = {}, {}
    for q in range(12):
        docs = [f"d{i}" for i in range(rng.integers(1, 15))]
        pool = rng.choice(docs, size=rng.integers(0, len(docs) + 1), replace=False)
        if len(pool):
            judged[f"q{q}"] = {doc: int(rng.integers(0, 4)) for doc in pool}
        if q % 5 != 4:  # some judged queries the run does not rank
            shown = rng.choice(docs, size=rng.integers(1, len(docs) + 1), replace=False)
            ranked[f"q{q}"] = {doc: float(rng.integers(0, 4)) for doc in shown}  # many ties
    judged.setdefault("q0", {"d0": 1})
    return Qrels.from_dict(judged), Run.from_dict(ranked)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("measure, protocol", [
    ("ndcg@5", Protocol()), ("ndcg", Protocol()), ("ndcg(gain=exp2)@3", Protocol(ties="docid")),
    ("dcg@4", Protocol(ideal="retrieved")), ("ndcg@6", Protocol(discount="reciprocal", unjudged="condense")),
])
def test_explain_top_gives_the_rows_of_explain(seed, measure, protocol):
    from rankproof.explain.explanation import explain_top

    qrels, run = _random_case(seed)
    depth = 4
    top = explain_top(qrels, run, measure, protocol, depth=depth)
    ranked = set(run.queries.tolist())
    for i, query in enumerate(top.queries):
        lo, hi = top.offsets[i], top.offsets[i + 1]
        if query not in ranked or query not in set(qrels.queries.tolist()):
            assert hi == lo
            continue
        e = explain(qrels, run, query, measure, protocol)
        want = [(r.doc, r.grade, r.gain, r.discount, r.contribution, r.cumulative) for r in e.ranking[:depth]]
        got = [(top.doc[j], int(top.grade[j]) if top.judged[j] else None, top.gain[j], top.discount[j],
                top.contribution[j], top.cumulative[j]) for j in range(lo, hi)]
        assert [w[:2] for w in want] == [g[:2] for g in got], query
        assert [x for w in want for x in w[2:]] == pytest.approx([float(x) for g in got for x in g[2:]], abs=1e-12), query
        want_ideal = [(r.doc, r.grade, r.gain, r.cumulative) for r in e.ideal[:depth]]
        ilo, ihi = top.ideal_offsets[i], top.ideal_offsets[i + 1]
        got_ideal = [(top.ideal_doc[j], int(top.ideal_grade[j]), top.ideal_gain[j], top.ideal_cumulative[j])
                     for j in range(ilo, ihi)]
        assert [w[:2] for w in want_ideal] == [g[:2] for g in got_ideal], query
        assert ([x for w in want_ideal for x in w[2:]]
                == pytest.approx([float(x) for g in got_ideal for x in g[2:]], abs=1e-12)), query


@pytest.mark.parametrize("policy", ["zero", "unjudged"])
def test_the_ideal_list_reads_negative_grades_as_the_pipeline_does(policy):
    # N is judged -1: a judged non-relevant doc (zero) or no judgment at all (unjudged);
    # either way it gains nothing, and the ideal list (docs of positive gain) is A, C.
    qrels = Qrels.from_dict({"q": {"Z": 0, "A": 2, "C": 1, "N": -1}})
    run = Run.from_dict({"q": ["C", "N", "A"]})
    e = explain(qrels, run, "q", "ndcg@3", Protocol(negative_grades=policy))
    assert [(row.doc, row.grade) for row in e.ideal] == [("A", 2), ("C", 1)]
    assert e.ideal_dcg == pytest.approx(2 + d(2))
    assert e.dcg == pytest.approx(1 + 2 * d(3))
    assert e.value == pytest.approx((1 + 2 * d(3)) / (2 + d(2)))


def test_a_ranking_beyond_the_explain_limit_is_refused_first(tmp_path, monkeypatch, capsys):
    # explain builds a row of Python numbers per ranked doc (a 1M-doc query took ~800 MB):
    # longer rankings are refused in one line naming the size, the limit and the alternative.
    monkeypatch.setenv("RANKPROOF_MAX_EXPLAINED_DOCS", "5")
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text("".join(f"q1 Q0 d{i} {i} {10 - i} r\n" for i in range(1, 7)))
    code = main(["explain", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-q", "q1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "query q1: its ranking of 6 docs is beyond the explained ranking limit of 5 docs" in err
    assert "RANKPROOF_MAX_EXPLAINED_DOCS" in err
    qrels = Qrels.from_dict({"q1": {"d1": 1}})
    assert explain(qrels, Run.from_dict({"q1": [f"d{i}" for i in range(1, 6)]}), "q1", "ndcg@10").value == 1.0
