"""AUC, GAUC, pooled AUC, PopREO and exposure parity from the command line and in the report.

They read which items are relevant from the evaluation's own qrels (``SideData.judgments``).
Values worked by hand on the two-user log below.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.errors import MeasureError
from rankproof.recsys.registry import SIDE_REGISTRY, compute_side, parse_side_measure
from rankproof.recsys.side import Features, SideData
from rankproof.recsys.side_eval import evaluate_with_side

# u gets a 3, b 2, c 1; v gets a 3, d 2, z 1. Truth: u likes a, v likes d.
# Training users per item: a 2, b 1, c 1, d 1 (5; 0.8 x 5 = 4): head a, b, c (2 + 1 + 1 = 4), tail d.
FILES = {
    "truth.csv": "user,item,grade\nu,a,1\nv,d,1\n",
    "recs.csv": "user,item,score\nu,a,3\nu,b,2\nu,c,1\nv,a,3\nv,d,2\nv,z,1\n",
    "train.csv": "user,item\nx,a\nx,b\ny,a\ny,c\nz,d\n",
    "genre.csv": "item,category\na,X\nb,X\nc,Y\nd,Y\nz,Y\n",
    "multi.csv": "item,category\na,X|Y\nb,X\nc,Y\nd,Y\nz,Y\n",
}
COLUMNS = ["--columns", "query=user,doc=item"]
LOG3 = 1 / math.log2(3)   # the log model's exposure of rank 2


@pytest.fixture
def log(tmp_path):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _exposure_parity(first: float, second: float) -> float:
    return abs(first - second) / 2 / ((first + second) / 2)


def test_registered_with_their_side_data_and_the_judgments():
    for name in ("auc", "gauc", "pooled_auc", "pop_reo"):
        assert SIDE_REGISTRY[name].judgments, name
    assert not SIDE_REGISTRY["exposure"].judgments and not SIDE_REGISTRY["pop_rsp"].judgments
    assert SIDE_REGISTRY["auc"].kind == "list" and SIDE_REGISTRY["gauc"].kind == "catalogue"
    assert SIDE_REGISTRY["pop_reo"].needs == (("train",),)


def test_cli_auc_gauc_pooled_pop_reo_exposure(capsys, log):
    code, out, _ = cli(capsys, "evaluate", log / "truth.csv", log / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "auc", "-m", "gauc(weights=clicks)", "-m", "pooled_auc", "-m", "pop_reo@1",
                       "-m", "exposure@2", "-m", "exposure(model=uniform)@2", "--train", log / "train.csv",
                       "--format", "json", "--quiet")
    assert code == 0
    side = json.loads(out)["runs"]["recs.csv"]["side"]
    # AUC: u: a (3) above b, c -> 1; v: d (2) below a (3), above z (1) -> 1/2
    assert side["auc"]["per_query"] == {"u": 1.0, "v": 0.5} and side["auc"]["value"] == 0.75
    assert side["gauc(weights=clicks)"]["value"] == pytest.approx(0.75)   # one click each
    # pooled: a 3 beats b, c, z and ties a (3.5 of 4); d 2 ties b, beats c, z (2.5 of 4): 6 / 8
    assert side["pooled_auc"]["value"] == pytest.approx(0.75)
    assert side["pooled_auc"]["detail"] == {"users": 2, "positives": 2, "negatives": 4}
    # PopREO@1: u's a is a head hit (1 of 1 head relevant); v's top 1 is a, its d (tail) missed: 1 and 0
    assert side["pop_reo@1"]["value"] == pytest.approx(1.0)
    assert side["pop_reo@1"]["detail"]["head_rate"] == 1.0 and side["pop_reo@1"]["detail"]["tail_rate"] == 0.0
    # exposure@2, log model: head a 1 + 1, b 1/log2(3) over 3 items; tail d 1/log2(3) over 1 item
    assert side["exposure@2"]["value"] == pytest.approx(_exposure_parity((2 + LOG3) / 3, LOG3), abs=1e-12)
    assert side["exposure@2"]["detail"]["share tail"] == pytest.approx(LOG3 / (2 + 2 * LOG3))
    # uniform: head 3 slots over 3 items, tail 1 over 1: parity
    assert side["exposure(model=uniform)@2"]["value"] == pytest.approx(0.0, abs=1e-15)


def test_cli_exposure_by_category(capsys, log):
    args = ["evaluate", log / "truth.csv", log / "recs.csv", *COLUMNS, "-m", "ndcg@2",
            "-m", "exposure(groups=category,model=uniform)@2", "--format", "json", "--quiet"]
    code, out, _ = cli(capsys, *args, "--features", log / "genre.csv")
    assert code == 0
    # X: a, a, b (3 slots over 2 items: 1.5); Y: d (1 over 3 items: 1/3)
    value = json.loads(out)["runs"]["recs.csv"]["side"]["exposure(groups=category,model=uniform)@2"]["value"]
    assert value == pytest.approx(_exposure_parity(1.5, 1 / 3), abs=1e-12)
    code, _, err = cli(capsys, *args, "--features", log / "multi.csv")
    assert code != 0 and "one category per item" in err and len(err.strip().splitlines()) == 1


def test_cli_refuses_pop_reo_without_train(capsys, log):
    code, _, err = cli(capsys, "evaluate", log / "truth.csv", log / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "pop_reo@2")
    assert code != 0 and "--train" in err


def test_without_judgments_the_measure_says_so():
    run = Run.from_dict({"u": {"a": 2.0, "b": 1.0}})
    with pytest.raises(MeasureError, match="needs the judgments"):
        compute_side(parse_side_measure("auc"), run, SideData())
    with pytest.raises(MeasureError, match="takes no cutoff"):
        parse_side_measure("auc@10")


def test_evaluate_with_side_passes_its_qrels_and_the_protocols_rel():
    from rankproof import Protocol

    qrels = Qrels.from_dict({"u": {"a": 1, "b": 2}})
    run = Run.from_dict({"u": {"a": 3.0, "b": 2.0, "c": 1.0}})
    results = evaluate_with_side(qrels, run, ["p@2", "auc"], SideData())
    assert results.side[0].value == 1.0   # a, b above c
    # rel=2: only b is relevant: above c, below a
    results = evaluate_with_side(qrels, run, ["p@2", "auc"], SideData(), Protocol(rel=2))
    assert results.side[0].value == 0.5
    side = SideData(features=Features(categories={"a": frozenset("X"), "b": frozenset("Y"), "c": frozenset("Y")}))
    value = compute_side(parse_side_measure("exposure(groups=category,model=geometric,persistence=0.5)@2"),
                         run, side)
    # X: a at rank 1 (0.5) over 1 item; Y: b at rank 2 (0.25) over 2 items
    assert value.value == pytest.approx(_exposure_parity(0.5, 0.125))
    assert np.isclose(dict(value.detail)["share X"], 0.5 / 0.75)


def test_report_shows_them_in_the_beyond_accuracy_section(tmp_path, log):
    out = tmp_path / "report.html"
    assert main(["report", str(log / "truth.csv"), str(log / "recs.csv"), *COLUMNS, "-m", "ndcg@2", "-m", "auc",
                 "-m", "gauc", "-m", "pop_reo@1", "-m", "exposure@2", "--train", str(log / "train.csv"),
                 "--resamples", "50", "-o", str(out)]) == 0
    page = out.read_text()
    section = page[page.index('class="beyond-values"'):]
    for measure, shown in (("auc", "0.7500"), ("gauc", "0.7500"), ("pop_reo@1", "1.0000")):
        assert f'data-measure="{measure}">{shown}</td>' in section, measure
    assert 'title="Exposure parity (catalogue)"' in section
