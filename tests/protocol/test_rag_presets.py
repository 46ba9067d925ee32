"""The RAG frameworks' presets against hand-worked tables, and `why --peer NAME` on them.

The file: q1 lists d1 twice (a duplicate) and an unjudged chunk c7 before d2;
q2 an unjudged chunk then d3; q3 is judged but retrieves nothing (an empty
query); q4 judges only d9 not relevant. Each table is worked by hand from the
framework's definition (cited in src/rankproof/protocol/presets.py); the
frameworks' own code runs on the same file in test_rag_parity.py.
"""

from __future__ import annotations

import math

import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli import main
from rankproof.errors import MissingQueryError, RankproofError
from rankproof.explain.why import POLICY_WORDS, why

L3, L5 = 1 / math.log2(3), 1 / math.log2(5)

QRELS = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}, "q4": {"d9": 0}}
LISTS = {"q1": ["d1", "d1", "c7", "d2"], "q2": ["c8", "d3"], "q4": ["d9", "c1"]}


def _run(lists=LISTS) -> Run:
    # Ordered lists: the list's order is the ranking, as the frameworks take it.
    return Run.from_dict(lists)


def _values(preset, measures, lists=LISTS, qrels=QRELS):
    results = evaluate(Qrels.from_dict(qrels), _run(lists), measures, preset)
    return {m: results.per_query(m) for m in measures}


def _close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys(), (got, want)
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12), key


def test_llamaindex_on_the_queries_it_accepts():
    # LlamaIndex raises on an empty retrieved or expected list: only q1 and q2 are scored.
    lists = {q: LISTS[q] for q in ("q1", "q2")}
    qrels = {q: QRELS[q] for q in ("q1", "q2")}
    got = _values("llamaindex", ["hit", "set_r", "rr", "ap", "ndcg"], lists, qrels)
    _close(got["hit"], {"q1": 1.0, "q2": 1.0})                       # HitRate
    _close(got["set_r"], {"q1": 3 / 2, "q2": 1.0})                   # granular HitRate: d1 twice, 3 hits / 2
    _close(got["rr"], {"q1": 1.0, "q2": 0.5})                        # MRR
    _close(got["ap"], {"q1": (1 + 1 + 3 / 4) / 2, "q2": 0.5})        # AveragePrecision: 1.375 > 1
    _close(got["ndcg"], {"q1": (1 + L3 + L5) / (1 + L3), "q2": L3})  # NDCG: 1.264 > 1
    sets = _values("llamaindex_sets", ["set_p", "set_r"], lists, qrels)
    _close(sets["set_p"], {"q1": 2 / 3, "q2": 1 / 2})                # Precision over set(retrieved)
    _close(sets["set_r"], {"q1": 1.0, "q2": 1.0})                    # Recall over set(retrieved)


def test_llamaindex_refuses_the_empty_query_and_the_query_without_relevant_docs():
    with pytest.raises(MissingQueryError):
        evaluate(Qrels.from_dict(QRELS), _run(), ["ap"], "llamaindex")
    qrels = {q: QRELS[q] for q in ("q1", "q4")}
    with pytest.raises(RankproofError, match="nothing relevant"):
        evaluate(Qrels.from_dict(qrels), _run(), ["ap"], "llamaindex")


def test_haystack():
    got = _values("haystack", ["rr", "ap", "hit", "set_r", "ndcg"])
    _close(got["rr"], {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 0.0})            # DocumentMRREvaluator
    _close(got["ap"], {"q1": (1 + 2 / 4) / 2, "q2": 0.5, "q3": 0.0, "q4": 0.0})  # MAP: d1's copy earns nothing
    _close(got["hit"], {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 0.0})           # recall single_hit
    _close(got["set_r"], {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 0.0})         # recall multi_hit
    _close(got["ndcg"], {"q1": (1 + L5) / (1 + L3), "q2": L3, "q3": 0.0, "q4": 0.0})


def test_ragas():
    got = _values("ragas", ["set_p", "ap"])
    # IDBasedContextPrecision: relevant entries over the list's length (d1 twice: 3 / 4); q3's empty list
    # is NaN, skipped by the mean; q4 retrieves nothing relevant: 0.
    _close(got["set_p"], {"q1": 3 / 4, "q2": 1 / 2, "q4": 0.0})
    # context precision: (1/1 + 2/2 + 3/4) / 3 relevant retrieved; 0 when none is (0 / 1e-10).
    _close(got["ap"], {"q1": (1 + 1 + 3 / 4) / 3, "q2": (1 / 2) / 1, "q4": 0.0})
    recall = _values("ragas_sets", ["set_r"])["set_r"]
    _close(recall, {"q1": 1.0, "q2": 1.0, "q3": 0.0})  # IDBasedContextRecall: q4 has no reference id: NaN


def test_mlflow_at_3():
    precision = _values("mlflow", ["p@3"])["p@3"]
    # precision_at_k: relevant entries of prediction[:3] / len(prediction[:3]); an empty list scores 0.
    _close(precision, {"q1": 2 / 3, "q2": 1 / 2, "q3": 0.0, "q4": 0.0})
    recall = _values("mlflow_sets", ["r@3"])["r@3"]
    # recall_at_k: set(prediction[:3]) = {d1, c7} holds 1 of 2.
    _close(recall, {"q1": 1 / 2, "q2": 1.0, "q3": 0.0, "q4": 0.0})


def test_mlflow_ndcg_at_k_expands_copies_and_cuts_the_ideal_at_the_list():
    # ndcg_at_k: the copy of d1 in q1's top 3 (d1, d1, c7) is a third target, gaining at rank 2:
    # (1 + 1/log2 3) / (1 + 1/log2 3 + 1/2); q2 (c8, d3): one target, 1/log2 3; q3 (empty) and q4 (none relevant) 0.
    got = _values("mlflow", ["ndcg@3"])["ndcg@3"]
    _close(got, {"q1": (1 + L3) / (1 + L3 + 0.5), "q2": L3, "q3": 0.0, "q4": 0.0})
    # The ideal is cut at the list's length: one relevant doc found first of three relevant is 1.0
    # (rankproof's default ideal holds all three: 1 / (1 + 1/log2 3 + 1/2)).
    three = {"q": {"a": 1, "b": 1, "c": 1}}
    assert _values("mlflow", ["ndcg@3"], {"q": ["a"]}, three)["ndcg@3"] == {"q": 1.0}
    assert _values(Protocol(), ["ndcg@3"], {"q": ["a"]}, three)["ndcg@3"]["q"] == pytest.approx(1 / (1 + L3 + 0.5))
    # Only copies inside the top k are targets: a's copy at rank 4 leaves ndcg@3 at 1.0, and ndcg@4
    # gains it at rank 4 over an ideal of two targets: (1 + 1/log2 5) / (1 + 1/log2 3).
    one = {"q": {"a": 1}}
    copies = _values("mlflow", ["ndcg@3", "ndcg@4"], {"q": ["a", "x", "y", "a"]}, one)
    _close(copies["ndcg@3"], {"q": 1.0})
    _close(copies["ndcg@4"], {"q": (1 + L5) / (1 + L3)})
    # The compiled engine leaves ideal=expanded to the numpy engine: the same values whichever is preferred.
    run, qrels = _run(), Qrels.from_dict(QRELS)
    preferred = evaluate(qrels, run, ["ndcg@3", "ndcg"], "mlflow", engine="compiled").means()
    assert preferred == evaluate(qrels, run, ["ndcg@3", "ndcg"], "mlflow", engine="numpy").means()


def test_sentence_transformers_at_3():
    # The evaluator ranks a corpus, so no doc repeats: q1 without its copy of d1. q3 retrieves nothing: 0.
    lists = dict(LISTS, q1=["d1", "c7", "d2"])
    measures = ["hit@3", "p@3", "r@3", "rr@3", "ndcg@3", "ap@3"]
    got = _values("sentence_transformers", measures, lists)
    # It drops a query without a relevant doc (q4) when built: zero_ideal=drop leaves q4 out of every
    # measure, hit, P and RR too (zero_ideal=exclude would score it 0 there).
    assert {m: got[m].pop("q4", None) for m in measures} == {m: None for m in measures}
    results = evaluate(Qrels.from_dict(QRELS), _run(lists), measures, "sentence_transformers")
    assert results.mean("p@3") == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)  # over q1, q2, q3: q4 is no part
    assert results.mean("hit@3") == pytest.approx(2 / 3)
    excluded = evaluate(Qrels.from_dict(QRELS), _run(lists), ["hit@3"], Protocol.preset("sentence_transformers")
                        .replace(zero_ideal="exclude"))
    assert excluded.per_query("hit@3")["q4"] == 0.0 and excluded.mean("hit@3") == pytest.approx(2 / 4)
    _close(got["hit@3"], {"q1": 1.0, "q2": 1.0, "q3": 0.0})
    _close(got["p@3"], {"q1": 2 / 3, "q2": 1 / 3, "q3": 0.0})
    _close(got["r@3"], {"q1": 1.0, "q2": 1.0, "q3": 0.0})
    _close(got["rr@3"], {"q1": 1.0, "q2": 0.5, "q3": 0.0})
    _close(got["ndcg@3"], {"q1": 1.5 / (1 + L3), "q2": L3, "q3": 0.0})
    _close(got["ap@3"], {"q1": (1 + 2 / 3) / 2, "q2": 0.5, "q3": 0.0})  # MAP@k over min(k, R)


def test_mteb_ignores_identical_ids_and_its_own_measures():
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 1}, "q5": {"d5": 1}}
    lists = {"q1": ["d1", "c7", "d2"], "q5": ["q5", "d5"]}
    got = _values("mteb", ["ndcg@2", "R_cap@2", "hit@1"], lists, qrels)
    # q5's own id leaves the ranking, so d5 is first.
    _close(got["ndcg@2"], {"q1": 1 / (1 + L3), "q5": 1.0})
    _close(got["R_cap@2"], {"q1": 1 / 2, "q5": 1.0})  # R_cap@2: 1 of min(3, 2)
    _close(got["hit@1"], {"q1": 1.0, "q5": 1.0})   # MTEB's top-k accuracy is hit@k (Accuracy is ir_measures')
    # Hole@2: d5 is judged, for q5 only, so it is no hole in q1's top 2, while unjudged@2 counts it.
    holes = _values("mteb", ["Hole@2", "unjudged@2"], {"q1": ["d5", "c7"], "q5": ["c9", "c8"]}, qrels)
    _close(holes["Hole@2"], {"q1": 1 / 2, "q5": 1.0})
    _close(holes["unjudged@2"], {"q1": 1.0, "q5": 1.0})
    kept = _values("trec_eval9", ["ndcg@2"], lists, qrels)["ndcg@2"]
    assert kept["q5"] == pytest.approx(L3)


RAG_PEERS = ["ragas", "ragas_sets", "llamaindex", "llamaindex_sets", "haystack", "mlflow", "mlflow_sets",
             "mteb", "beir", "sentence_transformers"]


@pytest.mark.parametrize("peer", RAG_PEERS)
def test_why_names_every_difference_in_words(peer, tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {len(docs) - i} r\n"
                           for q, docs in LISTS.items() for i, d in enumerate(docs)))
    ours = Protocol(duplicates="first")  # rankproof's default refuses the duplicate, naming this policy
    assert main(["why", str(qrels), str(run), "--peer", peer, "-m", "ap", "--policy", "duplicates=first"]) == 0
    text = capsys.readouterr().out
    differences = Protocol.preset(peer).differences(ours)
    assert differences
    for policy, (theirs, mine) in differences.items():
        assert f"{policy}={mine} -> {theirs}" in text
        assert POLICY_WORDS[(policy, theirs)] in text


def test_why_says_duplicates_count_twice_with_the_values():
    qrels, run = Qrels.from_dict(QRELS), _run()
    found = why(qrels, run, "ap", "llamaindex", Protocol(duplicates="first"))
    shift = {p.policy: p for p in found.get("ap").policies}["duplicates"]
    assert shift.words == "a doc listed twice is counted twice, gaining at each copy"
    assert shift.example == ("q1", pytest.approx(5 / 6), pytest.approx(1.375))
    assert "a doc listed twice is counted twice, gaining at each copy: query q1 1.3750000 instead of 0.8333333" \
        in found.summary()


def test_duplicates_count_and_once_on_a_single_doc():
    # One relevant doc listed twice: counted, P@2 is 2/2 and recall 2.0 instead of 1.0; credited once, 1/2 and 1.0.
    qrels, run = Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": {"a": 2.0}})
    lists = {"q": ["a", "a"]}
    counted = _values(Protocol(duplicates="count"), ["p@2", "set_r", "ndcg"], lists, {"q": {"a": 1}})
    assert (counted["p@2"]["q"], counted["set_r"]["q"]) == (1.0, 2.0)
    assert counted["ndcg"]["q"] == pytest.approx(1 + L3)
    once = _values(Protocol(duplicates="once"), ["p@2", "set_r", "ndcg"], lists, {"q": {"a": 1}})
    assert (once["p@2"]["q"], once["set_r"]["q"], once["ndcg"]["q"]) == (0.5, 1.0, 1.0)
    assert evaluate(qrels, run, ["p@2"]).mean("p@2") == 0.5


@pytest.mark.parametrize("duplicates", ["count", "once"])
def test_engines_agree_on_repeated_docs_and_identical_ids(duplicates):
    qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}, "q4": {"d9": 0}})
    run = Run.from_dict({"q1": ["d1", "d1", "c7", "d2", "d2"], "q2": ["c8", "d3", "d3"], "q4": ["d9", "c1", "q4"]})
    measures = ["ndcg", "ndcg@3", "ap", "ap@2", "rr", "p@3", "r@2", "set_p", "set_r", "hit@2", "err", "rbp",
                "bpref", "rprec", "dcg@3", "judged@3", "infap"]
    protocol = Protocol(duplicates=duplicates, identical_ids="drop")
    numpy = evaluate(qrels, run, measures, protocol, engine="numpy").means()
    compiled = evaluate(qrels, run, measures, protocol, engine="compiled").means()
    for measure in measures:
        assert compiled[measure] == pytest.approx(numpy[measure], abs=1e-12), measure


def test_subqueries_max_merges_each_query_at_its_best_scores():
    # MTEB's max_over_subqueries: a_1 and a_2 are query a; x at max(0.2, 0.95), so it passes y (0.9).
    qrels = Qrels.from_dict({"a_1": {"x": 1}, "a_2": {"x": 1}, "b_1": {"z": 1}})
    run = Run.from_dict({"a_1": {"x": 0.2, "y": 0.9}, "a_2": {"x": 0.95}, "b_1": {"z": 0.1, "w": 0.5}})
    merged = evaluate(qrels, run, ["rr"], Protocol(subqueries="max"))
    assert merged.per_query("rr") == {"a": 1.0, "b": 0.5}
    assert merged.counts["subqueries_merged"] == 1
    assert evaluate(qrels, run, ["rr"]).per_query("rr") == {"a_1": 0.5, "a_2": 1.0, "b_1": 0.5}


def test_spark_refuses_what_reads_beyond_a_partition():
    from rankproof.errors import InputError, MeasureError
    from rankproof.spark.evaluate import evaluate as spark_evaluate

    with pytest.raises(InputError, match="subqueries=max is not applied on Spark"):
        spark_evaluate("qrels.parquet", "run.parquet", ["ndcg"], "subqueries=max")
    with pytest.raises(MeasureError, match="hole@10 is not computed on Spark"):
        spark_evaluate("qrels.parquet", "run.parquet", ["Hole@10"])


def test_explain_writes_out_the_expanded_ideal():
    # Under ideal=expanded explain's ideal holds d1's copy in the top 3 and is cut at the list's length:
    # q1 [d1, d1, d2] = 1 + 1/log2 3 + 1/2; q5 retrieves one of three relevant docs: [a], 1.0.
    from rankproof.explain.explanation import explain, explain_top

    qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 1}, "q5": {"a": 1, "b": 1, "c": 1}})
    run = Run.from_dict({"q1": ["d1", "d1", "c7", "d2"], "q5": ["a"]})
    e = explain(qrels, run, "q1", "ndcg@3", "mlflow")
    assert [row.doc for row in e.ideal] == ["d1", "d1", "d2"]
    assert e.ideal_dcg == pytest.approx(1 + L3 + 0.5) and e.value == pytest.approx((1 + L3) / (1 + L3 + 0.5))
    assert [row.doc for row in explain(qrels, run, "q5", "ndcg@3", "mlflow").ideal] == ["a"]
    top = explain_top(qrels, run, "ndcg@3", "mlflow")
    assert top.ideal_doc.tolist() == ["d1", "d1", "d2", "a"] and top.ideal_offsets.tolist() == [0, 3, 4]
