"""``rankproof why`` and the ``ranx`` preset, held against the real peers (issue 14, point 11).

The peers' numbers come from ranx and pytrec_eval themselves; the test checks
that ``why`` reports them, that the policy it blames moves the mean by the
whole difference, and that the query it names is the one the peers disagree on.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import InputError
from rankproof.cli.app import main
from rankproof.explain.why import why

from paths import CRANFIELD

RUNS = ["bm25", "tfidf", "lmdirichlet"]


def _trec(path: Path) -> dict:
    table: dict = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4:
            table.setdefault(parts[0], {})[parts[2]] = int(parts[3])
        else:
            table.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    return table


@pytest.mark.parametrize("name", RUNS)
def test_ranx_preset_reproduces_ranx_on_the_cranfield_runs(name):
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels.from_file(str(CRANFIELD / "qrels.txt"), kind="trec")
    run = ranx.Run.from_file(str(CRANFIELD / f"{name}.run"), kind="trec")
    metrics = {"ndcg@10": "ndcg@10", "map": "ap", "mrr": "rr", "precision@10": "p@10", "recall@100": "r@100"}
    expected = ranx.evaluate(qrels, run, list(metrics), make_comparable=True)
    got = evaluate(Qrels.read_trec(CRANFIELD / "qrels.txt"), Run.read_trec(CRANFIELD / f"{name}.run"),
                   list(metrics.values()), "ranx").means()
    for theirs, ours in metrics.items():
        assert got[ours] == pytest.approx(float(expected[theirs]), abs=1e-12), theirs


def test_why_names_the_tie_policy_and_query_106_against_ranx():
    ranx = pytest.importorskip("ranx")
    qrels_path, run_path = CRANFIELD / "qrels.txt", CRANFIELD / "lmdirichlet.run"
    ranx_qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    ranx_run = ranx.Run.from_file(str(run_path), kind="trec")
    ranx_mean = float(ranx.evaluate(ranx_qrels, ranx_run, "ndcg@10", make_comparable=True))
    ranx_106 = ranx_run.scores["ndcg@10"]["106"]

    item = why(Qrels.read_trec(qrels_path), Run.read_trec(run_path), "ndcg@10", "ranx").get("ndcg@10")
    assert item.peer == pytest.approx(ranx_mean, abs=1e-12)
    # The numbers: 0.2824955 here, 0.2824795 in ranx.
    assert round(item.ours, 7) == 0.2824955 and round(item.peer, 7) == 0.2824795
    shifts = {p.policy: p.shift for p in item.policies}
    assert shifts["ties"] == pytest.approx(item.difference, abs=1e-15)   # ties explain all of it
    assert shifts["negative_grades"] == 0.0
    assert item.queries_differing == 1
    assert item.queries[0].query == "106" and item.queries[0].peer == pytest.approx(ranx_106, abs=1e-12)
    assert item.queries[0].policies == ("ties",)


def test_why_against_pytrec_eval_trec_eval9():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = CRANFIELD / "qrels.txt", CRANFIELD / "lmdirichlet.run"
    evaluator = pytrec_eval.RelevanceEvaluator(_trec(qrels_path), {"ndcg_cut.10"})
    per_query = evaluator.evaluate(_trec(run_path))
    peer_mean = sum(v["ndcg_cut_10"] for v in per_query.values()) / len(per_query)

    w = why(Qrels.read_trec(qrels_path), Run.read_trec(run_path), ["ndcg@10"], "trec_eval9")
    item = w.get("ndcg@10")
    assert item.peer == pytest.approx(peer_mean, abs=1e-12)
    assert round(item.peer, 7) == 0.2825115
    assert {p.policy: p.shift for p in item.policies}["ties"] == pytest.approx(item.difference, abs=1e-15)
    top = item.queries[0]
    assert top.query == "106" and top.peer == pytest.approx(per_query["106"]["ndcg_cut_10"], abs=1e-12)
    text = w.summary()
    assert "ties=expected -> docid" in text and "query 106:" in text


def test_why_says_when_the_peer_refuses_the_data_and_when_nothing_differs():
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    run = Run.from_dict({"q1": {"a": 1.0}})   # q2 missing: trec_eval's preset refuses
    item = why(qrels, run, "rr", "trec_eval").get("rr")
    assert item.peer is None and "q2" in item.refused
    refused = {p.policy: p.refused for p in item.policies}
    assert refused["missing_query"] is not None and refused["ties"] is None
    same = why(qrels, Run.from_dict({"q1": ["a"], "q2": ["b"]}), "rr", "sklearn")
    assert "the two protocols are the same" in same.summary()


def test_cli_why(capsys):
    code = main(["why", str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "lmdirichlet.run"), "--peer", "ranx",
                 "-m", "ndcg@10", "-m", "ap"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "ndcg@10: ours 0.2824955, ranx 0.2824795, difference -0.0000160 (ranx - ours)" in out
    assert "ties=expected -> input" in out and "query 106: ours 0.2017134, ranx 0.1981091" in out
    code = main(["why", str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "lmdirichlet.run"), "--peer", "nope"])
    assert code == 2 and "invalid choice" in capsys.readouterr().err


def test_preset_lists_ranx():
    assert Protocol.preset("ranx").ties.value == "input"


# -- issue 28: peers by the names their users know, zeros that read 0, --top as a count -----
@pytest.mark.parametrize("peer", ["pytrec_eval", "ir_measures"])
def test_why_against_pytrec_eval_and_ir_measures_by_name(peer):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = CRANFIELD / "qrels.txt", CRANFIELD / "lmdirichlet.run"
    names = {"ndcg_cut_10": "ndcg@10", "map": "ap", "recip_rank": "rr", "P_10": "p@10"}
    per_query = pytrec_eval.RelevanceEvaluator(_trec(qrels_path), {"ndcg_cut.10", "map", "recip_rank", "P.10"}
                                               ).evaluate(_trec(run_path))
    expected = {ours: sum(v[theirs] for v in per_query.values()) / len(per_query) for theirs, ours in names.items()}
    if peer == "ir_measures":   # the peer's own numbers, through its default providers
        ir_measures = pytest.importorskip("ir_measures")
        measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "AP", "RR", "P@10")]
        got = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(str(qrels_path)),
                                         ir_measures.read_trec_run(str(run_path)))
        expected = {ours: got[m] for ours, m in zip(("ndcg@10", "ap", "rr", "p@10"), measures)}
    w = why(Qrels.read_trec(qrels_path), Run.read_trec(run_path), list(expected), peer)
    for measure, value in expected.items():
        assert w.get(measure).peer == pytest.approx(value, abs=1e-12), measure


def test_cli_why_accepts_pytrec_eval_and_ir_measures(capsys):
    for peer in ("pytrec_eval", "ir_measures"):
        code = main(["why", str(CRANFIELD / "qrels.txt"), str(CRANFIELD / "lmdirichlet.run"), "--peer", peer])
        out, err = capsys.readouterr()
        assert (code, err) == (0, ""), err
        assert f"ndcg@10: ours 0.2824955, {peer} 0.2825115" in out


def test_a_difference_below_printing_precision_reads_zero():
    # A difference of 1e-8 printed to 7 digits is "0", not "-0.0000000".
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 1}})
    run = Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    item = why(qrels, run, "rr", "trec_eval").get("rr")
    text = why(qrels, run, "rr", "trec_eval").summary(digits=7)
    assert item.difference == 0.0 and "difference 0 (" in text and "-0.0000000" not in text
    tiny = dataclasses.replace(item, peer=item.ours - 1e-8)
    w = why(qrels, run, "rr", "trec_eval")
    shown = dataclasses.replace(w, measures=(tiny,)).summary(digits=7)
    assert "difference 0 (trec_eval - ours)" in shown and "-0.0000000" not in shown


def test_top_zero_gives_the_count_and_a_negative_top_is_refused(capsys):
    qrels_path, run_path = CRANFIELD / "qrels.txt", CRANFIELD / "lmdirichlet.run"
    w = why(Qrels.read_trec(qrels_path), Run.read_trec(run_path), "ndcg@10", "ranx", top=0)
    text = w.summary()
    assert "queries that differ: 1" in text and "no query differs" not in text
    with pytest.raises(InputError, match="0 or more"):
        why(Qrels.read_trec(qrels_path), Run.read_trec(run_path), "ndcg@10", "ranx", top=-1)
    code = main(["why", str(qrels_path), str(run_path), "--peer", "ranx", "--top", "-1"])
    err = capsys.readouterr().err
    assert code == 2 and "--top" in err and ">= 0" in err and "Traceback" not in err
