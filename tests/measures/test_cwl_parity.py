"""The C/W/L measures against cwl_eval 1.0.12 (the `cwl-eval` package): its metric classes
run on each query's gains and costs, on 600 random cases with real gains, unjudged docs,
costs per document, rankings longer and shorter than max_n and random parameters, all five
quantities; and on cwl_eval's own example files (gain file, run with element types, cost
file, metrics file), read by cwl_eval's own readers."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.measures.cwl import QUANTITIES

cwl_ruler = pytest.importorskip("cwl.ruler.cwl_ruler")

PROTOCOL = Protocol(grades="real", ties="input")


def _close(got: float, expected: float) -> bool:
    return abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


def _scores(metric, gains, costs, max_n) -> list[float]:
    """cwl_eval's five quantities (EU, ETU, EC, ETC, ED) for one ranking."""
    ranking = cwl_ruler.Ranking("q", gains, costs, max_n=max_n)
    metric.measure(ranking)
    return metric.get_scores()


def _random_measure(rng: random.Random, max_n: int):
    """(rankproof text without quantity, cwl_eval metric) of a random model and parameters."""
    k = rng.randint(1, max_n)
    T, K = round(rng.uniform(0.2, 4), 3), round(rng.uniform(0.5, 25), 3)
    p = round(rng.uniform(0.05, 0.95), 3)
    hb, hc, med = round(rng.uniform(0, 2), 3), round(rng.uniform(0, 2), 3), round(rng.uniform(0, 1), 3)
    b1, b2, R1, R2 = (round(rng.uniform(0.1, 2), 3), round(rng.uniform(0.1, 2), 3), round(rng.uniform(0, 8), 3),
                      round(rng.uniform(0, 8), 3))
    A, h, L = round(rng.uniform(0.05, 1), 3), round(rng.uniform(1, 40), 3), round(rng.uniform(3, 80), 3)
    m = cwl_ruler
    choices = [
        (f"cwl_p(max_n={max_n}{{}})@{k}", m.PrecisionCWLMetric(k)),
        (f"cwl_rr(max_n={max_n}{{}})", m.RRCWLMetric()),
        (f"cwl_ap(max_n={max_n}{{}})", m.APCWLMetric()),
        (f"cwl_rbp(p={p},max_n={max_n}{{}})", m.RBPCWLMetric(p)),
        (f"sdcg(max_n={max_n}{{}})@{k}", m.NDCGCWLMetric(k)),
        (f"inst(T={T},max_n={max_n}{{}})", m.INSTCWLMetric(T)),
        (f"insq(T={T},max_n={max_n}{{}})", m.INSQCWLMetric(T)),
        (f"bpm(T={T},K={K},max_n={max_n}{{}})", m.BPMCWLMetric(T, K)),
        (f"bpm_dynamic(T={T},K={K},hb={hb},hc={hc},gain_med={med},max_n={max_n}{{}})",
         m.BPMDCWLMetric(T, K, hb, hc, med)),
        (f"tbg(halflife={h},max_n={max_n}{{}})", m.TBGCWLMetric(h)),
        (f"umeasure(L={L},max_n={max_n}{{}})", m.UMeasureCWLMetric(L)),
        (f"ift_goal(T={T},b1={b1},R1={R1},max_n={max_n}{{}})", m.IFTGoalCWLMetric(T, b1, R1)),
        (f"ift_rate(A={A},b2={b2},R2={R2},max_n={max_n}{{}})", m.IFTRateCWLMetric(A, b2, R2)),
        (f"ift_goal_rate(T={T},b1={b1},R1={R1},A={A},b2={b2},R2={R2},max_n={max_n}{{}})",
         m.IFTGoalRateCWLMetric(T, b1, R1, A, b2, R2)),
        (f"nerr8(max_n={max_n}{{}})@{k}", m.NERReq8CWLMetric(k)),
        (f"nerr9(max_n={max_n}{{}})@{k}", m.NERReq9CWLMetric(k)),
        (f"nerr10(p={p},max_n={max_n}{{}})", m.NERReq10CWLMetric(p)),
        (f"nerr11(T={T},max_n={max_n}{{}})", m.NERReq11CWLMetric(T)),
    ]
    return choices


def _random_queries(rng: random.Random, count: int):
    """qrels {q: {doc: gain}}, run {q: [docs]}, costs {(q, doc): cost}."""
    qrels, run, costs = {}, {}, {}
    for q in range(count):
        query = f"q{q}"
        length = rng.choice([1, 2, 3, 7, 15, 30, 60])
        docs = [f"d{i}" for i in range(length + rng.randint(0, 5))]
        rng.shuffle(docs)
        judged = {}
        for doc in docs:
            if rng.random() < 0.8:
                judged[doc] = rng.choice([0.0, 0.2, 0.5, 1.0, round(rng.random(), 4)])
        judged.setdefault("never_ranked", 0.0)
        qrels[query] = judged
        run[query] = docs[:length]
        for doc in run[query]:
            if rng.random() < 0.8:
                costs[(query, doc)] = round(rng.uniform(0.1, 6), 4)
    return qrels, run, costs


def test_random_cases_equal_cwl_eval(tmp_path):
    rng = random.Random(39)
    per_config, configs = 10, 60
    qrels, run, costs = _random_queries(rng, per_config * configs)
    cost_file = tmp_path / "costs.txt"
    cost_file.write_text("".join(f"{q} {d} {c}\n" for (q, d), c in costs.items()))
    chosen = []
    for index in range(configs):
        max_n = rng.choice([1000] + [5, 12, 40] * 3)
        text, metric = rng.choice(_random_measure(rng, max_n))
        chosen.append((text, metric, max_n))
    # Each configuration's five quantities, with and without the cost file.
    names = [text.format(f",quantity={quantity},costs={cost_file}") for text, _, _ in chosen
             for quantity in QUANTITIES]
    results = evaluate(Qrels.from_dict(qrels, grades="real"), Run.from_dict(run), names, PROTOCOL)
    checked = 0
    for index, (text, metric, max_n) in enumerate(chosen):
        for q in range(index * per_config, (index + 1) * per_config):
            query = f"q{q}"
            gains = [qrels[query].get(doc, np.nan) for doc in run[query]]
            doc_costs = [costs.get((query, doc), np.nan) for doc in run[query]]
            expected = _scores(metric, gains, doc_costs, max_n)
            for quantity, want in zip(QUANTITIES, expected):
                name = text.format(f",quantity={quantity},costs={cost_file}")
                got = results.per_query(name)[query]
                assert _close(got, want), (name, query, got, want)
                checked += 1
    assert checked >= 500 * 5


# cwl_eval's example files (cwl/tests in its repository): a gain file, a run whose second
# column is each document's element type, the costs of the element types, and a metrics file.
GAIN_FILE = """T1 00 D1 1.0\nT1 00 D2 0.0\nT1 00 D3 1.0\nT1 00 D4 1.0\nT1 00 D7 1.0\nT1 00 D8 0.0
T1 00 D9 1.0\nT1 00 D10 0.0\nT2 00 D1 0.2\nT2 00 D2 0.4\nT2 00 D5 1.0\nT2 00 D6 0.0\nT2 00 D7 0.2
T2 00 D8 1.0\nT2 00 D9 0.4\nT2 00 D10 0.0\nT3 00 D4 0.0\nT3 00 D5 0.0\nT3 00 D6 0.8\nT3 00 D7 0.2
T3 00 D8 0.4\nT3 00 D9 0.0\nT3 00 D10 1.0\n"""
ELEMENTS = {"T1": "E2 E2 E1 E2 E3 E1 E2 E1 E2 E3", "T2": "E1 E1 E2 E1 E1 E2 E3 E1 E2 E3",
            "T3": "E3 E3 E1 E2 E3 E2 E1 E1 E3 E2"}
COST_FILE = "E1 1.0\nE2 2.0\nE3 5.0\nE4 7.5\n"
METRICS = """PrecisionCWLMetric(1)\nPrecisionCWLMetric(5)\nPrecisionCWLMetric(10)\nPrecisionCWLMetric(20)
RBPCWLMetric(0.9)\nNDCGCWLMetric(10)\nRRCWLMetric()\nAPCWLMetric()\nINSTCWLMetric(1)\nINSQCWLMetric(1)
BPMCWLMetric(1,1000)\nBPMCWLMetric(1000,10)\nBPMCWLMetric(1.2,10)\nBPMDCWLMetric(1,1000)\nBPMDCWLMetric(1000,10)
BPMDCWLMetric(1.2,10)\nUMeasureCWLMetric(50)\nUMeasureCWLMetric(10)\nTBGCWLMetric(22)
IFTGoalCWLMetric(2.0, 0.9, 1)\nIFTGoalCWLMetric(2.0, 0.9, 10)\nIFTGoalCWLMetric(2.0, 0.9, 100)
IFTRateCWLMetric(0.2, 0.9, 1)\nIFTRateCWLMetric(0.2, 0.9, 10)\nIFTRateCWLMetric(0.2, 0.9, 100)
IFTGoalRateCWLMetric(2.0,0.9,10, 0.2, 0.9, 10)\nIFTGoalRateCWLMetric(2.0,0.9,100, 0.2, 0.9, 100)"""
# Each class of the metrics file as rankproof text (its arguments in order).
AS_RANKPROOF = {
    "PrecisionCWLMetric": "cwl_p{{}}@{0}", "RBPCWLMetric": "cwl_rbp(p={0}{{}})", "NDCGCWLMetric": "sdcg{{}}@{0}",
    "RRCWLMetric": "cwl_rr{{}}", "APCWLMetric": "cwl_ap{{}}", "INSTCWLMetric": "inst(T={0}{{}})",
    "INSQCWLMetric": "insq(T={0}{{}})", "BPMCWLMetric": "bpm(T={0},K={1}{{}})",
    "BPMDCWLMetric": "bpm_dynamic(T={0},K={1}{{}})", "UMeasureCWLMetric": "umeasure(L={0}{{}})",
    "TBGCWLMetric": "tbg(halflife={0}{{}})", "IFTGoalCWLMetric": "ift_goal(T={0},b1={1},R1={2}{{}})",
    "IFTRateCWLMetric": "ift_rate(A={0},b2={1},R2={2}{{}})",
    "IFTGoalRateCWLMetric": "ift_goal_rate(T={0},b1={1},R1={2},A={3},b2={4},R2={5}{{}})",
}


def _example_files(tmp_path):
    (tmp_path / "gains").write_text(GAIN_FILE)
    (tmp_path / "costs").write_text(COST_FILE)
    lines = [f"{topic} {element} D{rank} {rank} {5 - rank / 10:.1f} R1\n" for topic, elements in ELEMENTS.items()
             for rank, element in enumerate(elements.split(), 1)]
    (tmp_path / "run").write_text("".join(lines))
    return tmp_path / "gains", tmp_path / "run", tmp_path / "costs"


def _cwl_metrics():
    """The metrics file's lines as (class name, arguments, instance), read as cwl_eval reads them."""
    found = []
    for line in METRICS.splitlines():
        name, args = re.fullmatch(r"(\w+)\((.*)\)", line.strip()).groups()
        values = [float(a) if "." in a else int(a) for a in (a.strip() for a in args.split(",")) if a]
        found.append((name, values, getattr(cwl_ruler, name)(*values)))
    return found


def test_cwl_eval_examples_with_element_costs(tmp_path, monkeypatch):
    from cwl.cwl_eval import read_in_cost_file
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    monkeypatch.chdir(tmp_path)
    gains, run_path, costs = _example_files(tmp_path)
    handler = TrecQrelHandler(str(gains))
    cost_table = read_in_cost_file(str(costs))
    metrics = _cwl_metrics()
    suffix = f",costs={costs},elements={run_path}"
    names = []
    for name, values, _ in metrics:
        text = AS_RANKPROOF[name].format(*values)
        names += [_with(text, f"quantity={q}{suffix}") for q in QUANTITIES]
    qrels = Qrels.read_trec(gains, grades="real")
    results = evaluate(qrels, Run.read_trec(run_path), names, PROTOCOL)
    for topic, elements in ELEMENTS.items():
        maker = RankingMaker(topic, handler, cost_table)
        for rank, element in enumerate(elements.split(), 1):
            maker.add(f"D{rank}", element)
        for name, values, metric in metrics:
            metric.measure(maker.get_ranking())
            text = AS_RANKPROOF[name].format(*values)
            for q, want in zip(QUANTITIES, metric.get_scores()):
                measure = _with(text, f"quantity={q}{suffix}")
                got = results.per_query(measure)[topic]
                assert _close(got, want), (measure, topic, got, want)


def _with(text: str, params: str) -> str:
    """Measure text with parameters added: 'inst(T=1{})' or 'cwl_p{}@5'."""
    return text.format(f",{params}" if "(" in text else f"({params})")


def test_cwl_eval_printed_table_matches(tmp_path, monkeypatch, capsys):
    """cwl_eval's own main(), as its command line prints it (4 decimals), on its example files."""
    import logging
    import os

    from cwl import cwl_eval

    monkeypatch.chdir(tmp_path)   # main() logs to ./cwl.log
    # Its metrics-file reader imports `ruler.measures.*`, as when run from inside its package folder.
    monkeypatch.syspath_prepend(os.path.dirname(cwl_eval.__file__))
    handlers = list(logging.getLogger("cwl").handlers)
    gains, run_path, costs = _example_files(tmp_path)
    (tmp_path / "metrics").write_text("INSTCWLMetric(2)\nTBGCWLMetric(22)\n")
    try:
        cwl_eval.main(str(run_path), str(gains), str(costs), str(tmp_path / "metrics"))
    finally:
        for handler in set(logging.getLogger("cwl").handlers) - set(handlers):
            logging.getLogger("cwl").removeHandler(handler)
            handler.close()
    printed = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    suffix = f"costs={costs},elements={run_path}"
    models = {"INST": "inst(T=2,quantity={},%s)" % suffix, "TBG": "tbg(halflife=22,quantity={},%s)" % suffix}
    names = [model.format(q) for model in models.values() for q in QUANTITIES]
    results = evaluate(Qrels.read_trec(gains, grades="real"), Run.read_trec(run_path), names, PROTOCOL)
    for row in printed:
        topic, model = row[0], models[row[1].strip().split("-")[0]]
        for q, shown in zip(QUANTITIES, row[2:7]):
            assert f"{results.per_query(model.format(q))[topic]:.4f}" == shown, (topic, model, q)
    assert len(printed) == 6


IR_MEASURES_NAMES = ["INST(max_rel=3)", "INST(T=2,max_rel=3)", "INSQ(max_rel=3)", "SDCG(max_rel=3)@5",
                     "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@4", "NERR10(p=0.7,max_rel=3)", "NERR11(T=2,max_rel=3)",
                     "BPM(T=1.5,max_rel=3)@10", "INST(min_rel=1,max_rel=3)"]


def test_ir_measures_names_equal_ir_measures_cwl_provider():
    """ir_measures' names for the cwl_eval measures, read by rankproof, against ir_measures itself
    (its cwl_eval provider): integer grades 0..3 scaled by min_rel and max_rel, runs by score."""
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(40):
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in docs if rng.random() < 0.8} or {"x": 1}
        run[f"q{q}"] = {d: float(i) for i, d in enumerate(rng.sample(docs, len(docs)))}
    got = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), IR_MEASURES_NAMES)
    provider = ir_measures.cwl_eval
    for name in IR_MEASURES_NAMES:
        measure = ir_measures.parse_measure(name)
        expected = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
        ours = got.per_query(name)
        assert set(expected) == set(ours)
        for query, value in expected.items():
            assert _close(ours[query], value), (name, query, ours[query], value)


def test_the_cwl_eval_set_is_cwl_evals_default_ruler():
    """-m cwl_eval: the measures of cwl_eval's CWLRuler without a metrics file, in its order, equal on a
    random case (expected utility, unit costs)."""
    from rankproof.measures.sets import MEASURE_SETS

    rng = random.Random(39)
    ruler = cwl_ruler.CWLRuler()
    assert len(ruler.metrics) == len(MEASURE_SETS["cwl_eval"])
    gains = {f"q{i}": [rng.choice([0.0, 0.0, 0.5, 1.0]) for _ in range(rng.randint(1, 15))] for i in range(6)}
    qrels = Qrels.from_dict({q: {f"d{r}": g for r, g in enumerate(row) if g > 0} or {"none": 0.0}
                             for q, row in gains.items()}, grades="real")
    run = Run.from_dict({q: [f"d{r}" for r in range(len(row))] for q, row in gains.items()})
    results = evaluate(qrels, run, ["cwl_eval"], PROTOCOL)
    assert [str(m) for m in results.measures] == list(MEASURE_SETS["cwl_eval"])
    for q, row in gains.items():
        ranking = cwl_ruler.Ranking(q, row, [1.0] * len(row), max_n=1000)
        ruler.measure(ranking)
        for text, metric in zip(MEASURE_SETS["cwl_eval"], ruler.metrics):
            assert _close(results.per_query(text)[q], metric.get_scores()[0]), (text, q)
